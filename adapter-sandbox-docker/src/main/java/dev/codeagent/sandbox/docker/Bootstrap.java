package dev.codeagent.sandbox.docker;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.ResourceLimits;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How a program gets into a container whose root filesystem is read-only, and how its end gets out
 * without waiting for the container to stop.
 *
 * <p>Every container runs a small Python bootstrap ({@link #COMMAND}) that makes itself non-dumpable
 * and blocks reading its stdin. The sandbox attaches and writes one length-prefixed JSON payload
 * (files, stdin, arguments, per-run limits, a nonce). The bootstrap writes the files into the tmpfs
 * work dir, puts the program's stdin in a memfd, writes {@link #ACK} to stdout, and forks: the child
 * lowers its rlimits (CPU time, file size, core) and {@code execve}s a fresh interpreter on
 * {@code main.py}; the parent waits for it ({@code wait4}), SIGKILLs everything else the program left
 * in the container and waits until it is gone, and writes a one-line report (exit status or signal, CPU time, peak RSS, the
 * cgroup's OOM-kill count) to stdout behind a marker made from the nonce, and the bare marker to
 * stderr (the two pipes are not ordered against each other), then exits — which ends the container.
 *
 * <p>So a pooled container has paid for create/start and the bootstrap's own start-up before the
 * request arrives; the program still starts in a pristine interpreter with ordinary tracebacks; and
 * the result is known as soon as the program ends, not when the engine has finished tearing the
 * container down (about 100 ms here). The ack proves the program really started in this container;
 * the nonce, which never reaches the program's memory, makes the report unforgeable by it.
 */
final class Bootstrap {

    /** Written by the bootstrap to stdout just before the program starts; stripped from the output. */
    static final byte[] ACK = "\u0000codeagent:go\n".getBytes(StandardCharsets.US_ASCII);

    /** The exit status of a bootstrap that could not start the program. */
    static final int FAILED = 121;

    /** The Python program's interpreter flags: no bytecode files, no PYTHON* variables, no user site. */
    static final List<String> PYTHON_FLAGS = List.of("-B", "-E", "-s");

    /** The program's whole environment. */
    static final Map<String, String> ENV = Map.of(
            "PATH", "/usr/local/bin:/usr/bin:/bin",
            "LANG", "C.UTF-8",
            "HOME", DockerContainers.WORK_DIR,
            "TMPDIR", "/tmp");

    private static final String SOURCE = String.join("\n",
            "import os,sys,json,resource,signal",
            "try:",
            // non-dumpable: the program, same uid, cannot read this process's memory (and the nonce in it)
            "  import ctypes;ctypes.CDLL(None).prctl(4,0,0,0,0)",
            "except Exception:pass",
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
            "def alive(d):",
            "  try:",
            "    with open('/proc/'+d+'/stat','rb') as f:return f.read().rsplit(b')',1)[1].split()[0]!=b'Z'",
            "  except (OSError,IndexError):return False",
            "h=b''",
            "while not h.endswith(b'\\n'):",
            "  c=os.read(0,1)",
            "  if not c:os._exit(0)",
            "  h+=c",
            "  if len(h)>24:fail('bad payload header')",
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
            "  a=r['argv'];e=r['env'];k=r['nonce'].encode();x=a[0] or sys.executable",
            "  if not x:fail('the interpreter does not know its own path')",
            "  if '/' not in x:",
            "    x=next((d+'/'+x for d in e['PATH'].split(':') if os.access(d+'/'+x,os.X_OK)),None)",
            "    if not x:fail('no '+a[0]+' in the image')",
            "  a[0]=x",
            "except Exception as e:fail(repr(e))",
            "os.write(1,b'\\x00codeagent:go\\n')",
            "p=os.fork()",
            "if p==0:",
            "  try:",
            "    os.dup2(fd,0);os.close(fd)",
            "    c=r['cpu'];resource.setrlimit(resource.RLIMIT_CPU,(c,c+1))",
            "    resource.setrlimit(resource.RLIMIT_FSIZE,(r['fsize'],r['fsize']))",
            "    resource.setrlimit(resource.RLIMIT_CORE,(0,0))",
            "    os.execve(x,a,e)",
            "  except BaseException as b:os.write(2,('codeagent-bootstrap: cannot start the program: %r\\n'%(b,)).encode())",
            "  os._exit(127)",
            "for g in (signal.SIGINT,signal.SIGTERM,signal.SIGHUP,signal.SIGQUIT,signal.SIGUSR1,signal.SIGUSR2,signal.SIGALRM,signal.SIGPIPE):",
            "  signal.signal(g,signal.SIG_IGN)",
            "os.close(fd)",
            "_,t,u=os.wait4(p,0)",
            // whatever the program left running dies before its result is reported
            "try:os.kill(-1,9)",
            "except OSError:pass",
            // and is gone (zombies aside) before the report says so
            "me=os.getpid()",
            "for _ in range(2000):",
            "  if not any(d.isdigit() and int(d) not in (1,me) and alive(d) for d in os.listdir('/proc')):break",
            "  os.sched_yield() if _<50 else __import__('time').sleep(0.0005)",
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

    /** The interpreter command of a language, up to the file name; "" stands for the bootstrap's own Python. */
    static List<String> interpreter(Language language) {
        switch (language) {
            case PYTHON: {
                List<String> cmd = new ArrayList<>();
                cmd.add("");
                cmd.addAll(PYTHON_FLAGS);
                return cmd;
            }
            case BASH:
                return List.of("bash");
            case JAVASCRIPT:
                return List.of("node");
            default:
                throw new IllegalArgumentException("no interpreter for " + language);
        }
    }

    /**
     * The bytes to write to a waiting bootstrap's stdin for this request.
     *
     * @param fileSizeCap the largest file the container's tmpfs can hold; the request's file limit is capped by it
     * @param nonce the secret that marks the bootstrap's report at the end of stdout (see {@link #reportMarker})
     */
    static byte[] payload(ExecutionRequest request, long fileSizeCap, String nonce) {
        ResourceLimits limits = request.limits();
        Map<String, String> files = new LinkedHashMap<>(request.program().files());
        files.put(request.program().mainFileName(), request.program().source());
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("files", files);
        List<String> argv = new ArrayList<>(interpreter(request.program().language()));
        argv.add(request.program().mainFileName());
        argv.addAll(request.args());
        body.put("argv", argv);
        body.put("stdin", request.stdin());
        body.put("env", ENV);
        // RLIMIT_CPU counts whole seconds; round up so a 500 ms limit still lets the program start
        body.put("cpu", Math.max(1L, (limits.cpuTime().toMillis() + 999) / 1000));
        body.put("fsize", Math.min(limits.maxFileBytes(), fileSizeCap));
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
