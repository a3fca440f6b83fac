package dev.codeagent.sandbox.docker;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.LanguageProfile;
import dev.codeagent.domain.execution.ResourceLimits;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How a program gets into a container whose root filesystem is read-only, and how its end gets out
 * without waiting for the container to stop.
 *
 * <p>Every container runs a small Python bootstrap ({@link #COMMAND}) as its init, pid 1 (the
 * container is made without Docker's own init). It makes itself non-dumpable and blocks reading its
 * stdin. The sandbox attaches and writes one length-prefixed JSON payload (files, stdin, arguments,
 * per-run limits, a backstop, a nonce). The bootstrap writes the files into the tmpfs work dir, puts
 * the program's stdin in a memfd, writes {@link #ACK} to stdout, and forks: the child raises its OOM
 * score, lowers its rlimits (CPU time, file size, core) and {@code execve}s a fresh interpreter on
 * {@code main.py}; the parent waits for it, reaping the orphans that come to pid 1 meanwhile, then
 * SIGKILLs and reaps everything else in the container until nothing is left, and writes a one-line
 * report (exit status or signal, CPU time, peak RSS, the cgroup's OOM-kill count) to stdout behind a
 * marker made from the nonce, and the bare marker to stderr (the two pipes are not ordered against
 * each other), then exits — which ends the container.
 *
 * <p>Why pid 1 and non-dumpable: the program runs with the supervisor's uid. As the pid namespace's
 * init the supervisor cannot be killed or stopped from inside (the kernel drops such signals), so the
 * program cannot turn its own failure into a sandbox fault; {@code kill(-1)} from pid 1 reaches every
 * other process, and when pid 1 ends the kernel ends the rest, so nothing outlives the report. Being
 * non-dumpable, it cannot be ptraced, and its memory (the nonce), fds (the pipes) and OOM score are
 * closed to the program. A bootstrap that cannot be both refuses to run the program.
 *
 * <p>So a pooled container has paid for create/start and the bootstrap's own start-up before the
 * request arrives; the program still starts in a pristine interpreter with ordinary tracebacks; and
 * the result is known as soon as the program ends, not when the engine has finished tearing the
 * container down (about 100 ms here). The ack proves the program really started in this container;
 * the nonce, which never reaches the program's memory or any process alive when the report is
 * written, makes the report unforgeable by it.
 *
 * <p>Two deadlines of its own cover a host that died: a pooled container nobody claims exits after
 * {@link #IDLE_ENV} seconds, and a run ends itself at its backstop, {@link #BACKSTOP_GRACE} past the
 * wall-clock limit at which a living host would have killed it.
 */
final class Bootstrap {

    /** Written by the bootstrap to stdout just before the program starts; stripped from the output. */
    static final byte[] ACK = "\u0000codeagent:go\n".getBytes(StandardCharsets.US_ASCII);

    /** Environment variable of the container: seconds a pooled bootstrap waits for its payload before it exits. */
    static final String IDLE_ENV = "CODEAGENT_IDLE_SECONDS";

    /** How long past the wall-clock limit a run's supervisor ends the run itself (when its host is gone). */
    static final Duration BACKSTOP_GRACE = Duration.ofSeconds(30);

    /** The exit status of a bootstrap that could not start the program. */
    static final int FAILED = 121;

    /** Exit status of a supervisor that ended the program itself at its backstop (its host had gone). */
    static final int BACKSTOP = 122;

    /** The program's whole environment. */
    static final Map<String, String> ENV = Map.of(
            "PATH", "/usr/local/bin:/usr/bin:/bin",
            "LANG", "C.UTF-8",
            "HOME", DockerContainers.WORK_DIR,
            "TMPDIR", "/tmp");

    private static final String SOURCE = String.join("\n",
            "import os,sys,json,resource,signal,select,time",
            // the supervisor must be pid 1 and non-dumpable before any secret reaches it. As the pid
            // namespace's init it cannot be killed or stopped from inside, kill(-1) reaches every other
            // process, and its end ends them all; non-dumpable, the program (same uid) cannot ptrace it,
            // read its memory or fds, or set its OOM score. Failing that, it refuses to run anything,
            // but only once a payload arrives, so that the host hears why.
            "E=None",
            "try:",
            "  import ctypes;L=ctypes.CDLL(None,use_errno=True)",
            "  if L.prctl(4,0,0,0,0)!=0:E='prctl(PR_SET_DUMPABLE) failed with errno %d'%ctypes.get_errno()",
            "except Exception as x:E='cannot make the supervisor non-dumpable (%r)'%(x,)",
            "if os.getpid()!=1:E='the supervisor is pid %d, not the container init (was the container made with --init?)'%os.getpid()",
            "def fail(m):",
            "  os.write(2,b'codeagent-bootstrap: '+m.encode('utf-8','replace')+b'\\n');os._exit(" + FAILED + ")",
            "def rd(n):",
            "  b=bytearray()",
            "  while len(b)<n:",
            "    c=os.read(0,min(n-len(b),1<<20))",
            "    if not c:fail('the payload ended early')",
            "    b+=c",
            "  return bytes(b)",
            "def oom():",
            "  for p in ('/sys/fs/cgroup/memory/memory.oom_control','/sys/fs/cgroup/memory.events'):",
            "    try:",
            "      for l in open(p):",
            "        if l.startswith('oom_kill '):return int(l.split()[1])",
            "    except (OSError,ValueError):pass",
            "  return -1",
            // every other process of the container: killed and reaped until none is left (an orphan
            // comes to pid 1, so no child left means nothing left)
            "def sweep():",
            "  while True:",
            "    try:os.kill(-1,9)",
            "    except OSError:pass",
            "    try:os.wait()",
            "    except ChildProcessError:return",
            // a pooled container that nobody claims ends itself: its maker may have died
            "if not select.select([0],[],[],int(os.environ.get('" + IDLE_ENV + "','900')))[0]:os._exit(0)",
            "h=b''",
            "while not h.endswith(b'\\n'):",
            "  c=os.read(0,1)",
            "  if not c:os._exit(0)",
            "  h+=c",
            "  if len(h)>24:fail('bad payload header')",
            "if E:fail(E)",
            "try:",
            "  r=json.loads(rd(int(h)))",
            "  for k,v in r['files'].items():",
            "    p=os.path.join('/work',k);d=os.path.dirname(p)",
            "    if d:os.makedirs(d,exist_ok=True)",
            "    with open(p,'w',encoding='utf-8',errors='replace',newline='') as f:f.write(v)",
            "  s=r['stdin'].encode('utf-8','replace')",
            "  if s:",
            "    try:fd=os.memfd_create('stdin',0)",
            "    except (AttributeError,OSError):",
            "      fd=os.open('/tmp/.stdin',os.O_RDWR|os.O_CREAT|os.O_EXCL,0o600);os.unlink('/tmp/.stdin')",
            "    m=memoryview(s)",
            "    while m:m=m[os.write(fd,m):]",
            "    os.lseek(fd,0,0)",
            "  else:fd=os.open('/dev/null',os.O_RDONLY)",
            "  os.chdir('/work')",
            // an empty interpreter name means the bootstrap's own Python; others are looked up on the PATH
            "  a=r['argv'];e=r['env'];k=r['nonce'].encode();x=a[0] or sys.executable;B=r.get('backstop',3600)",
            "  if not x:fail('the interpreter does not know its own path')",
            "  if '/' not in x:",
            "    x=next((d+'/'+x for d in e['PATH'].split(':') if os.access(d+'/'+x,os.X_OK)),None)",
            "    if not x:fail('no '+a[0]+' in the image')",
            "  a[0]=x",
            "except Exception as e:fail(repr(e))",
            // SIGCHLD blocked, so that sigtimedwait below hears of every child's end (pid 1 would drop it otherwise)
            "signal.pthread_sigmask(signal.SIG_BLOCK,[signal.SIGCHLD])",
            "os.write(1,b'\\x00codeagent:go\\n')",
            "p=os.fork()",
            "if p==0:",
            "  try:",
            "    signal.pthread_sigmask(signal.SIG_SETMASK,[])",
            // ignored signals stay ignored across execve: the program gets the defaults, not the Python runtime's
            "    for g in (signal.SIGPIPE,signal.SIGXFSZ):signal.signal(g,signal.SIG_DFL)",
            "    os.dup2(fd,0);os.close(fd)",
            // the program, not its supervisor, is the OOM killer's first choice (unless it lowers this back)
            "    try:",
            "      with open('/proc/self/oom_score_adj','w') as f:f.write('1000')",
            "    except OSError:pass",
            "    c=r['cpu'];resource.setrlimit(resource.RLIMIT_CPU,(c,c+1))",
            "    resource.setrlimit(resource.RLIMIT_FSIZE,(r['fsize'],r['fsize']))",
            "    resource.setrlimit(resource.RLIMIT_CORE,(0,0))",
            "    os.execve(x,a,e)",
            "  except BaseException as b:os.write(2,('codeagent-bootstrap: cannot start the program: %r\\n'%(b,)).encode())",
            "  os._exit(127)",
            "for g in (signal.SIGINT,signal.SIGTERM,signal.SIGHUP,signal.SIGQUIT,signal.SIGUSR1,signal.SIGUSR2,signal.SIGALRM,signal.SIGPIPE):",
            "  signal.signal(g,signal.SIG_IGN)",
            "os.close(fd)",
            // wait for the program, reaping the orphans that come to pid 1 meanwhile; past the backstop
            // (the host kills at the wall-clock limit, so only a host that is gone lets it come) end it all
            "D=time.monotonic()+B;st=None",
            "while st is None:",
            "  while True:",
            "    q,t,u=os.wait4(-1,os.WNOHANG)",
            "    if q==p:st=(t,u);break",
            "    if q==0:break",
            "  if st is None:",
            "    w=D-time.monotonic()",
            "    if w<=0:",
            "      sweep();os.write(2,b'codeagent-bootstrap: ended at the backstop\\n');os._exit(" + BACKSTOP + ")",
            "    signal.sigtimedwait([signal.SIGCHLD],min(w,60))",
            "t,u=st",
            // whatever the program left running dies and is reaped before its result is reported
            "sweep()",
            "z=os.WTERMSIG(t) if os.WIFSIGNALED(t) else None",
            "q=json.dumps({'exit':None if z else os.WEXITSTATUS(t),'signal':z,'cpu':u.ru_utime+u.ru_stime,"
                    + "'maxrss':u.ru_maxrss*1024,'oom':oom()})",
            "os.write(2,b'\\x00codeagent:'+k+b':\\n')",
            "os.write(1,b'\\x00codeagent:'+k+b':'+q.encode()+b'\\n')",
            "os._exit(0)",
            "");

    /** The container's command: the bootstrap, in an interpreter that ignores the image's environment. */
    static final List<String> COMMAND = List.of("python3", "-I", "-S", "-c", SOURCE);

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final java.security.SecureRandom RANDOM = new java.security.SecureRandom();

    /** A fresh secret for one execution: 128 random bits in hex. */
    static String newNonce() {
        byte[] b = new byte[16];
        RANDOM.nextBytes(b);
        StringBuilder sb = new StringBuilder(32);
        for (byte x : b) {
            sb.append(Character.forDigit((x >> 4) & 0xf, 16)).append(Character.forDigit(x & 0xf, 16));
        }
        return sb.toString();
    }

    /** The bytes that open the bootstrap's report on stdout; the program cannot know them. */
    static byte[] reportMarker(String nonce) {
        return ("\u0000codeagent:" + nonce + ":").getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * How the program ended, as its parent saw it ({@code os.wait4}).
     *
     * @param exitCode the exit status, or null when a signal ended it
     * @param signal the signal, or null
     * @param cpuSeconds user + system CPU time of the program and the children it waited for
     * @param maxRssBytes the program's peak resident memory
     * @param oomKills the container's OOM-kill count, or -1 when the cgroup could not be read
     */
    record Report(Integer exitCode, Integer signal, double cpuSeconds, long maxRssBytes, int oomKills) {

        static Report parse(byte[] line) {
            try {
                com.fasterxml.jackson.databind.JsonNode n = JSON.readTree(line);
                return new Report(n.path("exit").isNumber() ? n.path("exit").asInt() : null,
                        n.path("signal").isNumber() ? n.path("signal").asInt() : null,
                        n.path("cpu").asDouble(), n.path("maxrss").asLong(), n.path("oom").asInt(-1));
            } catch (java.io.IOException e) {
                return null;
            }
        }
    }

    private Bootstrap() {
    }

    /**
     * The interpreter command of a language, up to the file name: its {@link LanguageProfile} name, looked up
     * on the PATH, and arguments. Python is the bootstrap's own interpreter ("" stands for it): the image's
     * one Python, whatever its PATH.
     */
    static List<String> interpreter(Language language, ResourceLimits limits) {
        LanguageProfile profile = LanguageProfile.of(language);
        List<String> cmd = new ArrayList<>();
        cmd.add(language == Language.PYTHON ? "" : profile.interpreter());
        cmd.addAll(profile.interpreterArgs(limits));
        return cmd;
    }

    /**
     * The bytes to write to a waiting bootstrap's stdin for this request.
     *
     * @param fileSizeCap the largest file the container's tmpfs can hold; the request's file limit is capped by it
     * @param nonce the secret that marks the bootstrap's report at the end of stdout (see {@link #reportMarker})
     */
    static byte[] payload(ExecutionRequest request, long fileSizeCap, String nonce) {
        ResourceLimits limits = request.limits();
        return payload(request, fileSizeCap, nonce, limits.wallTime().plus(BACKSTOP_GRACE).toSeconds() + 1);
    }

    /** The payload with an explicit backstop: seconds after the program's start at which its supervisor ends the run. */
    static byte[] payload(ExecutionRequest request, long fileSizeCap, String nonce, long backstopSeconds) {
        ResourceLimits limits = request.limits();
        Map<String, String> files = new LinkedHashMap<>(request.program().files());
        files.put(request.program().mainFileName(), request.program().source());
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("files", files);
        List<String> argv = new ArrayList<>(interpreter(request.program().language(), limits));
        argv.add(request.program().mainFileName());
        argv.addAll(request.args());
        body.put("argv", argv);
        body.put("stdin", request.stdin());
        body.put("env", ENV);
        // RLIMIT_CPU counts whole seconds; round up so a 500 ms limit still lets the program start
        body.put("cpu", Math.max(1L, (limits.cpuTime().toMillis() + 999) / 1000));
        body.put("fsize", Math.min(limits.maxFileBytes(), fileSizeCap));
        body.put("backstop", backstopSeconds);
        body.put("nonce", nonce);
        byte[] json;
        try {
            json = JSON.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode the bootstrap payload", e);
        }
        byte[] header = (json.length + "\n").getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[header.length + json.length];
        System.arraycopy(header, 0, out, 0, header.length);
        System.arraycopy(json, 0, out, header.length, json.length);
        return out;
    }
}
