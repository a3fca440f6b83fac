# The docker tier's supervisor: the container's init (pid 1), run as `python3 -I -S -c <this file>`.
# See Bootstrap.java for why it is built the way it is. It reads one job in the supervisor wire format
# (dev.codeagent.application.sandbox.SupervisorJob: "<bytes>\n" and a JSON object with files, argv, env,
# rlimits, and this tier's stdin, nonce and backstop), starts the program, waits for it, kills what it
# left, and reports how it ended on stdout behind a marker made from the nonce.
# Exit statuses of its own: 121 it could not start the program (Bootstrap.FAILED), 122 it ended the run at
# its backstop (Bootstrap.BACKSTOP). CODEAGENT_IDLE_SECONDS (Bootstrap.IDLE_ENV): how long a pooled one waits.
import os,sys,json,resource,signal,select,time
# the supervisor must be pid 1 and non-dumpable before any secret reaches it. As the pid
# namespace's init it cannot be killed or stopped from inside, kill(-1) reaches every other
# process, and its end ends them all; non-dumpable, the program (same uid) cannot ptrace it,
# read its memory or fds, or set its OOM score. Failing that, it refuses to run anything,
# but only once a payload arrives, so that the host hears why.
E=None
try:
  import ctypes;L=ctypes.CDLL(None,use_errno=True)
  if L.prctl(4,0,0,0,0)!=0:E='prctl(PR_SET_DUMPABLE) failed with errno %d'%ctypes.get_errno()
except Exception as x:E='cannot make the supervisor non-dumpable (%r)'%(x,)
if os.getpid()!=1:E='the supervisor is pid %d, not the container init (was the container made with --init?)'%os.getpid()
def fail(m):
  os.write(2,b'codeagent-bootstrap: '+m.encode('utf-8','replace')+b'\n');os._exit(121)
def rd(n):
  b=bytearray()
  while len(b)<n:
    c=os.read(0,min(n-len(b),1<<20))
    if not c:fail('the payload ended early')
    b+=c
  return bytes(b)
def oom():
  for p in ('/sys/fs/cgroup/memory/memory.oom_control','/sys/fs/cgroup/memory.events'):
    try:
      for l in open(p):
        if l.startswith('oom_kill '):return int(l.split()[1])
    except (OSError,ValueError):pass
  return -1
# every other process of the container: killed and reaped until none is left (an orphan
# comes to pid 1, so no child left means nothing left)
def sweep():
  while True:
    try:os.kill(-1,9)
    except OSError:pass
    try:os.wait()
    except ChildProcessError:return
# a pooled container that nobody claims ends itself: its maker may have died
if not select.select([0],[],[],int(os.environ.get('CODEAGENT_IDLE_SECONDS','900')))[0]:os._exit(0)
h=b''
while not h.endswith(b'\n'):
  c=os.read(0,1)
  if not c:os._exit(0)
  h+=c
  if len(h)>24:fail('bad payload header')
if E:fail(E)
try:
  r=json.loads(rd(int(h)))
  for k,v in r['files'].items():
    p=os.path.join('/work',k);d=os.path.dirname(p)
    if d:os.makedirs(d,exist_ok=True)
    with open(p,'w',encoding='utf-8',errors='replace',newline='') as f:f.write(v)
  s=r['stdin'].encode('utf-8','replace')
  if s:
    try:fd=os.memfd_create('stdin',0)
    except (AttributeError,OSError):
      fd=os.open('/tmp/.stdin',os.O_RDWR|os.O_CREAT|os.O_EXCL,0o600);os.unlink('/tmp/.stdin')
    m=memoryview(s)
    while m:m=m[os.write(fd,m):]
    os.lseek(fd,0,0)
  else:fd=os.open('/dev/null',os.O_RDONLY)
  os.chdir('/work')
  # an empty interpreter name means the bootstrap's own Python; others are looked up on the PATH
  a=r['argv'];e=r['env'];k=r['nonce'].encode();x=a[0] or sys.executable;B=r.get('backstop',3600)
  if not x:fail('the interpreter does not know its own path')
  if '/' not in x:
    x=next((d+'/'+x for d in e['PATH'].split(':') if os.access(d+'/'+x,os.X_OK)),None)
    if not x:fail('no '+a[0]+' in the image')
  a[0]=x
except Exception as e:fail(repr(e))
# SIGCHLD blocked, so that sigtimedwait below hears of every child's end (pid 1 would drop it otherwise)
signal.pthread_sigmask(signal.SIG_BLOCK,[signal.SIGCHLD])
os.write(1,b'\x00codeagent:go\n')
p=os.fork()
if p==0:
  try:
    signal.pthread_sigmask(signal.SIG_SETMASK,[])
    # ignored signals stay ignored across execve: the program gets the defaults, not the Python runtime's
    for g in (signal.SIGPIPE,signal.SIGXFSZ):signal.signal(g,signal.SIG_DFL)
    os.dup2(fd,0);os.close(fd)
    # the program, not its supervisor, is the OOM killer's first choice (unless it lowers this back)
    try:
      with open('/proc/self/oom_score_adj','w') as f:f.write('1000')
    except OSError:pass
    for n,(s0,h0) in r['rlimits'].items():resource.setrlimit(getattr(resource,n),(s0,h0))
    os.execve(x,a,e)
  except BaseException as b:os.write(2,('codeagent-bootstrap: cannot start the program: %r\n'%(b,)).encode())
  os._exit(127)
for g in (signal.SIGINT,signal.SIGTERM,signal.SIGHUP,signal.SIGQUIT,signal.SIGUSR1,signal.SIGUSR2,signal.SIGALRM,signal.SIGPIPE):
  signal.signal(g,signal.SIG_IGN)
os.close(fd)
# wait for the program, reaping the orphans that come to pid 1 meanwhile; past the backstop
# (the host kills at the wall-clock limit, so only a host that is gone lets it come) end it all
D=time.monotonic()+B;st=None
while st is None:
  while True:
    q,t,u=os.wait4(-1,os.WNOHANG)
    if q==p:st=(t,u);break
    if q==0:break
  if st is None:
    w=D-time.monotonic()
    if w<=0:
      sweep();os.write(2,b'codeagent-bootstrap: ended at the backstop\n');os._exit(122)
    signal.sigtimedwait([signal.SIGCHLD],min(w,60))
t,u=st
# whatever the program left running dies and is reaped before its result is reported
sweep()
z=os.WTERMSIG(t) if os.WIFSIGNALED(t) else None
q=json.dumps({'exit':None if z else os.WEXITSTATUS(t),'signal':z,'cpu':u.ru_utime+u.ru_stime,'maxrss':u.ru_maxrss*1024,'oom':oom()})
os.write(2,b'\x00codeagent:'+k+b':\n')
os.write(1,b'\x00codeagent:'+k+b':'+q.encode()+b'\n')
os._exit(0)
