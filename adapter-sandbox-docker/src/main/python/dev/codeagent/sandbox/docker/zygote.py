# The docker tier's zygote: a warm interpreter inside a reusable container (CODEAGENT_ZYGOTE, Spec#forBatches) that
# forks a judged job's judge or candidate instead of starting an interpreter for each (on runc an interpreter's start
# and imports cost ~55 ms of CPU here, a fork ~7 ms). The supervisor (supervisor.py) starts two, before it reads any
# payload: one with the candidate's interpreter flags and one with the judge's (-I), so a candidate never learns the
# judge's hash seed or address layout. Run as `python3 FLAGS -c <this file> FD KIND` (c or j) by the supervisor (root, with the
# supervisor's capabilities; it makes itself non-dumpable), it reads requests on the SOCK_SEQPACKET socket FD, each the
# descriptors the child gets (SCM_RIGHTS; see request() below), and answers each with the child's pid or "-".
# What it is told: the kit's scripts (trusted, compiled here once, codeagent_wire imported here once) and each child's
# uid, descriptors, argv, environment and limits. Never a program's code, input or output, never the tests: those
# are files the child reads once it is the job's uid, so no later fork finds them in this process's memory.
# Each child is this process's (one job at a time): it waits for it and sends the supervisor a candidate's wait status
# and rusage; what a child leaves goes to pid 1, which reaps and sweeps it. Before the job's code runs the child drops what
# the supervisor's own child drops before execve, in the same order (see supervisor.py), and then runs the script as
# the interpreter runs `python3 FLAGS SCRIPT ARGS`.
import os,sys,json,socket,resource,signal,types,io,ctypes,atexit,base64,threading
# what the kit's scripts and generated programs import most, loaded once (each child has its own copy of their state)
import collections,functools,itertools,math,operator,re,stat,string,struct,time,traceback,typing  # noqa: F401
L=ctypes.CDLL(None,use_errno=True)
L.prctl(4,0,0,0,0)
S=socket.socket(fileno=int(sys.argv[1]));K=sys.argv[2];CODE={}
def lib(scripts):
  # the kit's scripts by name (where the supervisor writes each job's copy, for tracebacks): compiled once;
  # codeagent_wire imported once, found in sys.modules by the scripts that import it
  for n,(p,t) in scripts.items():
    c=compile(t,p,'exec');CODE[n]=(c,p)
    if n=='codeagent_wire.py':
      m=types.ModuleType('codeagent_wire');m.__file__=p;exec(c,m.__dict__);sys.modules['codeagent_wire']=m
def status(e):
  c=e.code
  if c is None:return 0
  if isinstance(c,int):return c&0xFF
  try:sys.stderr.write(str(c)+'\n')
  except BaseException:pass
  return 1
def streams(unbuffered):
  def text(fd,mode,errors):
    raw=io.FileIO(fd,mode,closefd=False)
    if mode=='r':return io.TextIOWrapper(io.BufferedReader(raw),encoding='utf-8',errors=errors)
    if unbuffered:return io.TextIOWrapper(raw,encoding='utf-8',errors=errors,write_through=True)
    return io.TextIOWrapper(io.BufferedWriter(raw),encoding='utf-8',errors=errors)
  # the error handlers a fresh interpreter's streams get here (the zygote's own, made by the same start-up)
  sys.stdin=sys.__stdin__=text(0,'r',ERR[0]);sys.stdout=sys.__stdout__=text(1,'w',ERR[1])
  sys.stderr=sys.__stderr__=text(2,'w',ERR[2])
def child(q,fds):
  # fds: the child's stdin, stdout and stderr, then the judge's channel (the argv's "\0in" and "\0out")
  if q.get('pg'):
    with open(q['pg']+'/cgroup.procs','w') as f:f.write(str(os.getpid()))
  if q.get('ipc') and L.unshare(0x08000000)!=0:raise OSError(ctypes.get_errno(),'unshare(CLONE_NEWIPC)')
  for i in (0,1,2):os.dup2(fds[i],i)
  ch={'\x00in':fds[3],'\x00out':fds[4]}
  keep={0,1,2,fds[3],fds[4]}
  for n in os.listdir('/proc/self/fd'):
    if int(n) not in keep:
      try:os.close(int(n))
      except OSError:pass
  u=q['uid'];os.setgroups([]);os.setresgid(u,u,u);os.setresuid(u,u,u)
  # changing uid made the process non-dumpable (its /proc files root's); an execve'd program's are its own: so the
  # candidate's again (the judge stays non-dumpable, as the supervisor makes it)
  if q['k']=='c':
    if L.prctl(4,1,0,0,0)!=0:raise OSError(ctypes.get_errno(),'prctl(PR_SET_DUMPABLE)')
    try:
      with open('/proc/self/oom_score_adj','w') as f:f.write('1000')
    except OSError:pass
  for n,(s0,h0) in q['rl'].items():resource.setrlimit(getattr(resource,n),(s0,h0))
  os.environ.clear();os.environ.update(q['env'])
  os.chdir(q['cwd'])
  streams(q['unbuffered'])
  c,p=CODE[q['script']]
  sys.argv=[p]+[str(ch.get(a,a)) for a in q['args']]
  # as `python3 FLAGS SCRIPT` has it: the script's directory first on the path, unless -I (safe_path) leaves it off
  if not sys.flags.safe_path:sys.path[0]=os.path.dirname(p)
  m=types.ModuleType('__main__');m.__file__=p;m.__builtins__=__builtins__;sys.modules['__main__']=m
  if q.get('seccomp'):
    F=base64.b64decode(q['seccomp']);FB=ctypes.create_string_buffer(F,len(F))
    class FP(ctypes.Structure):_fields_=[('len',ctypes.c_ushort),('filter',ctypes.c_void_p)]
    fp=FP(len(F)//8,ctypes.addressof(FB))
    if L.prctl(38,1,0,0,0)!=0 or L.prctl(22,2,ctypes.byref(fp),0,0)!=0:raise OSError(ctypes.get_errno(),'seccomp filter')
  return run(c,m)
def run(c,m):
  s=0
  try:exec(c,m.__dict__)
  except SystemExit as e:s=status(e)
  except BaseException as e:
    s=1
    try:
      e.__traceback__=e.__traceback__.tb_next;sys.excepthook(type(e),e,e.__traceback__)
    except BaseException:pass
    if isinstance(e,KeyboardInterrupt):s=-signal.SIGINT
  try:threading._shutdown();atexit._run_exitfuncs()
  except SystemExit as e:s=status(e)
  except BaseException:pass
  for f in (sys.stdout,sys.stderr):
    try:f.flush()
    except BaseException:s=s or 120
  if s==-signal.SIGINT:
    # as the interpreter ends on an uncaught KeyboardInterrupt, after its exit functions: by the signal itself
    try:signal.signal(signal.SIGINT,signal.SIG_DFL);os.kill(os.getpid(),signal.SIGINT)
    except BaseException:pass
    s=128+signal.SIGINT
  return s
# the first message: the kit's scripts (supervisor.py passes them, which had them from the container's command)
lib(json.loads(S.recv(1<<20)))
# nothing a job can write is ever looked up from here: the candidates' zygote is not -I, and the container's cwd is /work
os.chdir('/')
if not sys.flags.safe_path:sys.path[0]='/'
ERR=(sys.stdin.errors,sys.stdout.errors,sys.stderr.errors)
import gc;gc.collect();gc.freeze()
S.send(b'R')
# "S", the wait status (int) and a struct rusage (144 bytes on LP64), as the supervisor reads them
WB=ctypes.create_string_buffer(5+144);WV=memoryview(WB).cast('B')[:5+144];WS=ctypes.c_int(0)
L.wait4.argtypes=[ctypes.c_int,ctypes.POINTER(ctypes.c_int),ctypes.c_int,ctypes.c_void_p]
# A request is one byte and the child's descriptors, the last a memfd holding the job's part (uid, argv, environment,
# limits) as JSON, read only by the child once forked: nothing of a job is ever parsed, so kept, in this process's heap,
# where every later fork would find it (an earlier job's argv was, freed but not cleared).
def request(f):
  b=bytearray()
  while True:
    c=os.read(f,1<<16)
    if not c:break
    b+=c
  os.close(f);return json.loads(b)
while True:
  try:b,fds,_,_=socket.recv_fds(S,16,8)
  except OSError:os._exit(0)
  if not b:os._exit(0)
  a=b'-';i=0
  try:
    i=os.fork()
    if i==0:
      k='program'
      try:
        S.close();q=request(fds[5]);k='judge' if q['k']=='j' else 'program'
        os._exit(child(q,fds))
      except BaseException as x:
        try:os.write(2,('codeagent-bootstrap: cannot start the %s: %r\n'%(k,x)).encode())
        except BaseException:pass
      os._exit(127)
    a=str(i).encode()
  except Exception:pass
  for f in fds:os.close(f)
  # the child's pid, or "-": the supervisor then starts the job's interpreters itself and retires the container
  S.send(a)
  if i>0:
    # One job at a time: the next request comes once this child is gone. The candidate's end goes to the supervisor
    # as the wait status and rusage it would have read itself (its parent is this process, not pid 1): never as Python
    # objects here, which the next fork would carry (a review read the last job's status and rusage from this
    # module's globals), but as the kernel's bytes in one buffer, zeroed once sent.
    while L.wait4(i,WS,0,ctypes.addressof(WB)+5)<0 and ctypes.get_errno()==4:pass
    if K=='c':WB[0]=b'S';ctypes.memmove(ctypes.addressof(WB)+1,ctypes.addressof(WS),4);S.send(WV)
    ctypes.memset(ctypes.addressof(WB),0,len(WB));ctypes.memset(ctypes.addressof(WS),0,4)
