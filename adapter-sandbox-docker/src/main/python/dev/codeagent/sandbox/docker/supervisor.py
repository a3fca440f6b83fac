# The docker tier's supervisor: the container's init (pid 1), run as `python3 -I -S -c <this file>`.
# See Bootstrap.java for why it is built the way it is. It reads one job in the supervisor wire format
# (dev.codeagent.kit.sandbox.SupervisorJob: "<bytes>\n" and a JSON object with files, argv, env,
# rlimits, and this tier's stdin, nonce and backstop), starts the program, waits for it, kills what it
# left, and reports how it ended on stdout behind a marker made from the nonce.
# Started as root with only CAP_SETUID and CAP_SETGID (and under gVisor CAP_SYS_ADMIN for its pids group), it runs the program as 65534, which
# then has no capability and cannot signal, trace or prlimit its root supervisor. A judged job ("judge" in the
# payload) also forks the judge (judge.py) as 65533 with the tests in a directory only it can read, joined to
# the candidate (candidate.py running the program) by two pipes; the judge's verdict comes back on a third
# pipe only this process reads and goes into the report.
# A live job ("live" in the payload, LiveDocker.java) keeps reading its stdin after the payload: frames for the
# program's stdin (a pipe this process feeds), its end, and signals (see the wait loop).
# Exit statuses of its own: 121 it could not start the program (Bootstrap.FAILED), 122 it ended the run at
# its backstop (Bootstrap.BACKSTOP). CODEAGENT_IDLE_SECONDS (Bootstrap.IDLE_ENV): how long a pooled one waits.
import os,sys,json,resource,signal,select,time,stat,types,struct
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
R=os.getuid()==0;U=65534;J=65533
def euid(u):
  # files the program may change are its own: made with its uid as the effective one (root keeps the saved uid)
  if R:
    if u:os.setegid(u);os.seteuid(u)
    else:os.seteuid(0);os.setegid(0)
def become(u):
  if R:os.setgroups([]);os.setresgid(u,u,u);os.setresuid(u,u,u)
def put(p,v,mode=0o644):
  d=os.path.dirname(p)
  if d:os.makedirs(d,exist_ok=True)
  fd=os.open(p,os.O_WRONLY|os.O_CREAT|os.O_TRUNC,mode)
  if isinstance(v,bytes):
    with open(fd,'wb') as f:f.write(v)
  else:
    with open(fd,'w',encoding='utf-8',errors='replace',newline='') as f:f.write(v)
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
  # with zygotes (below), every process but this one and them, by pid (this process has CAP_KILL); until none is left
  # (what a killed process forked before it died is killed the next round) or, failing that, as without them
  if ZY:
    zs={z[0] for z in ZY.values()};T=time.monotonic()+2
    try:
      while time.monotonic()<T:
        left=[int(n) for n in os.listdir('/proc') if n.isdigit() and n!='1' and int(n) not in zs]
        for n in left:
          try:os.kill(n,9)
          except OSError:pass
        while True:
          try:q=os.waitpid(-1,os.WNOHANG)[0]
          except ChildProcessError:q=0
          if q in zs:raise OSError('zygote %d ended'%q)
          if q==0:break
        if not left:return
        time.sleep(0.0002)
      ZE.append('processes outlived the sweep')
    except Exception as x:ZE.append(repr(x))
    ZY.clear()
  while True:
    try:os.kill(-1,9)
    except OSError:pass
    try:os.wait()
    except ChildProcessError:return
# A container for a batch's judged jobs (CODEAGENT_REUSE=1, DockerContainers.Spec#forBatches) takes one job after
# another: after each, once sweep() has killed every process but this one, clean() removes every file a job's uid
# could write and checks that the IPC namespace holds no System V object and the network namespace no socket; the
# report says whether the container is fit for another job ("again": also no OOM kill in the job; the host checks its
# memory group besides); if not, it ends as a single-use container does. Under gVisor, where neither the
# message queues nor (always) the System V objects can be listed, the program and the judge each get an IPC
# namespace of their own (the supervisor has gVisor's CAP_SYS_ADMIN there), which ends with their processes.
RU=os.environ.get('CODEAGENT_REUSE')=='1'
SPOT=('/work','/tmp','/dev/shm','/dev/mqueue');KEEP=set()
def wipe(d,u,until):
  for n in os.listdir(d):
    f=d+'/'+n
    if f in KEEP or time.monotonic()>until:continue
    try:
      st=os.lstat(f)
      if st.st_uid!=u:continue
      if stat.S_ISDIR(st.st_mode):os.chmod(f,0o700);wipe(f,u,until);os.rmdir(f)
      else:os.unlink(f)
    except (OSError,RecursionError):pass
def ipcs():
  # shm segments, message queues and semaphore sets in this IPC namespace (SHM_INFO, MSG_INFO, SEM_INFO); -1 unknown
  b=ctypes.create_string_buffer(512);n=0
  for c,i in ((lambda:L.shmctl(0,14,b),0),(lambda:L.msgctl(0,12,b),0),(lambda:L.semctl(0,0,19,b),7)):
    ctypes.memset(b,0,512)
    if c()<0:return -1
    n+=ctypes.c_int.from_buffer(b,4*i).value
  return n
def sockets():
  # sockets of the container's network namespace still in its tables once every process is gone (a TCP connection in
  # TIME_WAIT holds its port for a minute: the next job could not bind it, or could read it as a message); gVisor's
  # tables show none (a residual there)
  n=0
  for f in ('tcp','tcp6','udp','udp6','raw','raw6'):
    try:
      with open('/proc/net/'+f) as h:n+=len(h.read().splitlines()[1:])
    except OSError:pass
  return n
def clean():
  # each uid removes its own (root has no CAP_DAC_OVERRIDE or CAP_FOWNER, and /tmp is sticky); whatever is left,
  # or a job whose mess takes more than 2 s to clear, retires the container: why, or None when nothing is left
  until=time.monotonic()+2
  try:
    for u in (U,J):
      euid(u)
      for d in SPOT:
        if os.path.isdir(d):wipe(d,u,until)
      euid(0)
    for d in SPOT:
      if os.path.isdir(d) and any(d+'/'+n not in KEEP for n in os.listdir(d)):return 'files left in '+d
    if ipcs()!=0:return 'System V objects left'
    if sockets()!=0:return 'sockets left'
    return 'the clean-up took over 2 s' if time.monotonic()>until else None
  except Exception as x:return 'the clean-up failed: %r'%(x,)
  finally:euid(0)
# A reusable container's zygotes (CODEAGENT_ZYGOTE: the judged program's interpreter flags; zygote.py and the kit's
# judge, candidate and wire scripts follow this file in the command): two warm interpreters that fork each judged
# job's candidate ('c', started with the program's flags) and judge ('j', with the judge's -I), so that neither starts
# an interpreter of its own. Started before any payload reaches this process, so nothing of a job is in their memory,
# and told only the scripts, then per job uids, descriptors, argv, environment and limits. A zygote that fails is
# reported (the job's processes then start as without) and retires the container. ZY: name -> [pid, socket].
ZF=os.environ.get('CODEAGENT_ZYGOTE');ZY={};ZT={};ZE=[]
def zstart(k,flags,lib):
  import socket
  a,b=socket.socketpair(socket.AF_UNIX,socket.SOCK_SEQPACKET)
  z=os.fork()
  if z==0:
    try:
      n=os.open('/dev/null',os.O_RDWR)
      for i in (0,1,2):os.dup2(n,i)
      os.set_inheritable(b.fileno(),True)
      os.execve(sys.executable,[sys.executable]+flags+['-c',sys.argv[1],str(b.fileno()),k],{'PATH':os.environ['PATH'],'LANG':'C.UTF-8'})
    except BaseException:pass
    os._exit(127)
  b.close();ZY[k]=[z,a];a.send(json.dumps(lib).encode())
def zask(k,q,fds):
  # the job's part goes in a memfd the child reads once forked (zygote.py: never parsed in the zygote itself)
  m=None
  try:
    import socket
    m=os.memfd_create('request',0);b=memoryview(json.dumps(q).encode())
    while b:b=b[os.write(m,b):]
    os.lseek(m,0,0)
    z=ZY[k][1];socket.send_fds(z,[b'x'],fds+[m])
    if not select.select([z],[],[],10)[0]:raise OSError('no answer in 10 s')
    a=z.recv(32)
    if not a.isdigit():raise OSError('it could not fork')
    return int(a)
  except Exception as x:
    ZE.append('the %s zygote: %r'%({'c':'candidate','j':'judge'}[k],x));return None
  finally:
    if m is not None:os.close(m)
def zok():
  for z in ZY.values():
    try:
      if os.waitpid(z[0],os.WNOHANG)!=(0,0):return False
    except ChildProcessError:return False
  return not ZE
if RU and R and ZF and not E and len(sys.argv)==5:
  ZT={'judge.py':sys.argv[2],'candidate.py':sys.argv[3],'codeagent_wire.py':sys.argv[4]}
  try:
    zstart('c',ZF.split(),{n:['/tmp/.codeagent-candidate/'+n,ZT[n]] for n in ('candidate.py','codeagent_wire.py')})
    zstart('j',['-I'],{n:['/tmp/.codeagent-judge/'+n,ZT[n]] for n in ('judge.py','codeagent_wire.py')})
    # ready before the first payload is read: the host counts a job's time from this process's "go"
    for z in ZY.values():
      if not select.select([z[1]],[],[],30)[0] or z[1].recv(16)!=b'R':raise OSError('a zygote did not start')
  except Exception as x:ZE.append('cannot start the zygotes (%r)'%(x,))
def report(k,d):
  # the end of stderr, then the report behind the nonce's marker on stdout (Bootstrap.Report); a zygote's failure goes
  # with it
  d['zygote']=ZE[0] if ZE else None
  os.write(2,b'\x00codeagent:'+k+b':\n')
  os.write(1,b'\x00codeagent:'+k+b':'+json.dumps(d).encode()+b'\n')
PG=None
while True:
  # a pooled container that nobody claims ends itself: its maker may have died
  if not select.select([0],[],[],int(os.environ.get('CODEAGENT_IDLE_SECONDS','900')))[0]:os._exit(0)
  h=b''
  while not h.endswith(b'\n'):
    c=os.read(0,1)
    if not c:os._exit(0)
    h+=c
    if len(h)>24:fail('bad payload header')
  if E:fail(E)
  O0=oom()
  try:
    r=json.loads(rd(int(h)))
    if r.get('ready'):
      # a reusable container's first call (DockerExecutions): answered once the zygotes are up (above), so that the
      # host reads the container's memory before its first job with them in it
      os.write(1,b'\x00codeagent:go\n')
      report(r['nonce'].encode(),{'exit':0,'signal':None,'cpu':0,'maxrss':0,'oom':0,'judge':None,'again':zok()});continue
    jg=r.get('judge')
    if jg and not R:fail('a judged run needs the container to start as root with CAP_SETUID and CAP_SETGID')
    euid(U)
    for k,v in r['files'].items():put(os.path.join('/work',k),v)
    import binascii
    for k,v in r.get('binary',{}).items():put(os.path.join('/work',k),binascii.a2b_base64(v))
    if jg:
      lib='/tmp/.codeagent-candidate'
      for k in ('candidate.py','codeagent_wire.py'):put(lib+'/'+k,jg['scripts'][k])
    euid(0)
    if jg:
      # the tests where only the judge's uid can read them
      euid(J);jd='/tmp/.codeagent-judge';os.mkdir(jd,0o700)
      for k in ('judge.py','codeagent_wire.py'):put(jd+'/'+k,jg['scripts'][k],0o600)
      put(jd+'/main.py',jg['code'],0o600);put(jd+'/tests.py',jg['tests'],0o600)
      if jg.get('prelude') is not None:put(jd+'/prelude.py',jg['prelude'],0o600)
      euid(0)
    s=r['stdin'].encode('utf-8','replace');lv=bool(r.get('live'));sw=None
    if lv:
      # a live run: the program's stdin is a pipe this process feeds from the host's frames (see the loop below)
      fd,sw=os.pipe();os.set_blocking(sw,False)
    elif s:
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
    # the zygotes serve a judged job of this Python with their own flags and the scripts they compiled
    zf=ZF.split() if ZF else [];nf=len(zf)
    uz=bool(jg) and len(ZY)==2 and not ZE and not a[0] and a[1:2+nf]==zf+['\x00candidate'] and all(jg['scripts'].get(n)==ZT[n] for n in ZT)
    if not x:fail('the interpreter does not know its own path')
    if '/' not in x:
      x=next((d+'/'+x for d in e['PATH'].split(':') if os.access(d+'/'+x,os.X_OK)),None)
      if not x:fail('no '+a[0]+' in the image')
    a[0]=x
  except Exception as e:fail(repr(e))
  # Under gVisor the host's pids cgroup sees gVisor's threads, not the program's processes, and RLIMIT_NPROC does
  # not stop a fork bomb: gVisor's own pids controller does. The container (runsc only) gets CAP_SYS_ADMIN, which
  # there is gVisor's, and CODEAGENT_PIDS_MAX; the controller is mounted where only root can look, and the program
  # joins a group of its own before it becomes 65534 (which then has no capability).
  P=int(os.environ.get('CODEAGENT_PIDS_MAX','0') or 0)
  if P>0 and PG is None:
    try:
      d='/tmp/.codeagent-pids';os.mkdir(d,0o700)
      if L.mount(b'none',d.encode(),b'cgroup',2|4|8,b'pids')!=0:raise OSError(ctypes.get_errno(),'mount pids')
      # its root is r-x for all; root owns it but has no CAP_DAC_OVERRIDE, so makes it its own to write first
      os.chmod(d,0o700);PG=d+'/run';os.mkdir(PG)
      with open(PG+'/pids.max','w') as f:f.write(str(P))
      KEEP.add(d)
    except Exception as x:fail('cannot make the pids group (%r)'%(x,))
  # SIGCHLD blocked, so that sigtimedwait below hears of every child's end (pid 1 would drop it otherwise)
  signal.pthread_sigmask(signal.SIG_BLOCK,[signal.SIGCHLD])
  os.write(1,b'\x00codeagent:go\n')
  jp=None;vr=None
  if jg:
    j2c=os.pipe();c2j=os.pipe();vp=os.pipe()
    # the judge counts its CPU on the sample's replies against the sample's limit itself (and says so in its
    # verdict); its RLIMIT_CPU is a backstop past that, so a flood ends with a verdict, not a judge killed mute
    jrl={n0:((s0+3,h0+3) if n0=='RLIMIT_CPU' else (s0,h0)) for n0,(s0,h0) in r['rlimits'].items() if n0!='RLIMIT_FSIZE'}
    jargs=['main.py','tests.py','prelude.py' if jg.get('prelude') is not None else '-',','.join(jg['entries'])]
    jenv={'PATH':e['PATH'],'LANG':'C.UTF-8','CODEAGENT_JUDGE_CPU':str(jg.get('cpu',10))}
    if uz:
      n=os.open('/dev/null',os.O_RDWR)
      jp=zask('j',{'k':'j','uid':J,'ipc':bool(RU and P>0),'rl':jrl,'env':jenv,'cwd':jd,'script':'judge.py',
        'args':['\x00in','\x00out']+jargs,'unbuffered':False},[n,vp[1],n,c2j[0],j2c[1]])
      os.close(n);uz=jp is not None
    if jp is None:jp=os.fork()
    if jp==0:
      try:
        signal.pthread_sigmask(signal.SIG_SETMASK,[])
        if RU and P>0 and L.unshare(0x08000000)!=0:raise OSError(ctypes.get_errno(),'unshare(CLONE_NEWIPC)')
        become(J)
        try:L.prctl(4,0,0,0,0)
        except Exception:pass
        n=os.open('/dev/null',os.O_RDWR);os.dup2(n,0);os.dup2(vp[1],1);os.dup2(n,2)
        for f in (c2j[0],j2c[1]):os.set_inheritable(f,True)
        os.chdir(jd)
        for g in (signal.SIGPIPE,signal.SIGXFSZ):signal.signal(g,signal.SIG_DFL)
        for n0,v in jrl.items():resource.setrlimit(getattr(resource,n0),v)
        os.execve(sys.executable,[sys.executable,'-I',jd+'/judge.py',str(c2j[0]),str(j2c[1])]+jargs,jenv)
      except BaseException:pass
      os._exit(127)
    vr=vp[0];os.close(vp[1]);os.close(c2j[0]);os.close(j2c[1])
    ci,co=j2c[0],c2j[1]
    a=[{'\x00candidate':lib+'/candidate.py','\x00in':str(ci),'\x00out':str(co)}.get(w,w) for w in a]
  p=None;zp=None
  if uz:
    p=zask('c',{'k':'c','uid':U,'pg':PG,'ipc':bool(RU and P>0),'rl':r['rlimits'],'env':e,'cwd':'/work',
      'script':'candidate.py','args':['\x00in','\x00out']+a[nf+4:],'unbuffered':'-u' in zf,'seccomp':r.get('seccomp')},
      [fd,1,2,ci,co])
    if p is not None:zp=ZY['c'][1]
  if p is None:p=os.fork()
  if p==0:
    try:
      signal.pthread_sigmask(signal.SIG_SETMASK,[])
      if jg:
        os.close(vr)
        for f in (ci,co):os.set_inheritable(f,True)
      if PG:
        with open(PG+'/cgroup.procs','w') as f:f.write(str(os.getpid()))
      if RU and P>0 and L.unshare(0x08000000)!=0:raise OSError(ctypes.get_errno(),'unshare(CLONE_NEWIPC)')
      become(U)
      # ignored signals stay ignored across execve: the program gets the defaults, not the Python runtime's
      for g in (signal.SIGPIPE,signal.SIGXFSZ):signal.signal(g,signal.SIG_DFL)
      os.dup2(fd,0);os.close(fd)
      # the program, not its supervisor, is the OOM killer's first choice (unless it lowers this back)
      try:
        with open('/proc/self/oom_score_adj','w') as f:f.write('1000')
      except OSError:pass
      for n,(s0,h0) in r['rlimits'].items():resource.setrlimit(getattr(resource,n),(s0,h0))
      if r.get('seccomp'):
        # codeagent's own filter where the engine's profile does not reach (gVisor): the last thing before execve
        import base64;F=base64.b64decode(r['seccomp']);FB=ctypes.create_string_buffer(F,len(F))
        class FP(ctypes.Structure):_fields_=[('len',ctypes.c_ushort),('filter',ctypes.c_void_p)]
        fp=FP(len(F)//8,ctypes.addressof(FB))
        if L.prctl(38,1,0,0,0)!=0 or L.prctl(22,2,ctypes.byref(fp),0,0)!=0:raise OSError(ctypes.get_errno(),'seccomp filter')
      os.execve(x,a,e)
    except BaseException as b:os.write(2,('codeagent-bootstrap: cannot start the program: %r\n'%(b,)).encode())
    os._exit(127)
  for g in (signal.SIGINT,signal.SIGTERM,signal.SIGHUP,signal.SIGQUIT,signal.SIGUSR1,signal.SIGUSR2,signal.SIGALRM,signal.SIGPIPE):
    signal.signal(g,signal.SIG_IGN)
  os.close(fd)
  if jg:os.close(ci);os.close(co)
  # wait for the program, reaping the orphans that come to pid 1 meanwhile; past the backstop
  # (the host kills at the wall-clock limit, so only a host that is gone lets it come) end it all
  D=time.monotonic()+B;st=None
  if lv:
    # A live run (LiveDocker.java): after the payload the host sends frames on this process's stdin, which the program
    # never sees: "d<n>\n<n bytes>" for the program's stdin, "c\n" to close it, "s<signal>\n" for a signal to every
    # process but this one. SIGCHLD wakes the select through a pipe, so the end is seen at once.
    wr,ww=os.pipe();os.set_blocking(wr,False);os.set_blocking(ww,False)
    signal.set_wakeup_fd(ww);signal.signal(signal.SIGCHLD,lambda *_:None)
    signal.pthread_sigmask(signal.SIG_UNBLOCK,[signal.SIGCHLD])
    po=bytearray(s);hb=bytearray();hin=True;pc=False
    while True:
      while True:
        q,t,u=os.wait4(-1,os.WNOHANG)
        if q==p:st=(t,u);break
        if q==0:break
      if st is not None:break
      w=D-time.monotonic()
      if w<=0:
        sweep();os.write(2,b'codeagent-bootstrap: ended at the backstop\n');os._exit(122)
      # what the program has not read yet is held here up to 1 MiB; past that the host waits
      rl=[wr]+([0] if hin and len(po)<1<<20 else [])
      try:rr,wl,_=select.select(rl,[sw] if sw is not None and po else [],[],min(w,60))
      except InterruptedError:continue
      if wr in rr:
        try:os.read(wr,4096)
        except BlockingIOError:pass
      if 0 in rr:
        c=os.read(0,1<<16)
        if c:hb+=c
        else:hin=False;pc=True
        while True:
          i=hb.find(b'\n')
          if i<0:break
          if hb[:1]==b'd':
            n=int(hb[1:i])
            if len(hb)<i+1+n:break
            po+=hb[i+1:i+1+n];del hb[:i+1+n];continue
          if hb[:1]==b'c':pc=True
          elif hb[:1]==b's':
            try:os.kill(-1,int(hb[1:i]))
            except (OSError,ValueError):pass
          del hb[:i+1]
      if sw is not None and po:
        try:del po[:os.write(sw,po)]
        except BlockingIOError:pass
        except OSError:po.clear();pc=True
      if sw is not None and pc and not po:os.close(sw);sw=None
    if sw is not None:os.close(sw)
  while st is None:
    while True:
      q,t,u=os.wait4(-1,os.WNOHANG)
      # while its zygote lives, the candidate is never this process's child: a child of this pid is another process
      # that got the pid since (a job can make one with CLONE_PARENT), never taken for the candidate
      if q==p and zp is None:st=(t,u);break
      if q==0:break
      # a zygote that ended leaves its child to this process (the wait above then finds it) and retires the container
      if any(q==z[0] for z in ZY.values()):
        ZE.append('zygote %d ended'%q)
        if q==ZY['c'][0]:zp=None
    if st is None and zp is not None:
      # a candidate forked by its zygote is the zygote's child: its end comes from there ("S", the wait status, the
      # kernel's struct rusage)
      try:
        if select.select([zp],[],[],0)[0]:
          m=zp.recv(256)
          if len(m)!=5+144 or m[:1]!=b'S':raise ValueError('it said %r'%(m[:8],))
          w0,=struct.unpack_from('i',m,1);a0,a1,b0,b1,x0=struct.unpack_from('5q',m,5)
          st=(w0,types.SimpleNamespace(ru_utime=a0+a1/1e6,ru_stime=b0+b1/1e6,ru_maxrss=x0));break
      except (OSError,ValueError,struct.error) as x:
        # how the candidate ended is lost: no verdict is made of it; the container ends, and the host says why
        sweep();fail('the candidate zygote: %r'%(x,))
    if st is None:
      w=D-time.monotonic()
      if w<=0:
        sweep();os.write(2,b'codeagent-bootstrap: ended at the backstop\n');os._exit(122)
      # with a zygote's candidate: its message wakes this at once; orphans are reaped every 50 ms meanwhile
      if zp is not None:select.select([zp],[],[],min(w,0.05))
      else:signal.sigtimedwait([signal.SIGCHLD],min(w,60))
  t,u=st
  # the judge sees the program's end at once (its pipes close) and says what it found; past a grace it is killed
  V=None
  if vr is not None:
    b=b'';G=time.monotonic()+3
    while len(b)<1<<18:
      w=G-time.monotonic()
      if w<=0 or not select.select([vr],[],[],w)[0]:break
      c=os.read(vr,1<<16)
      if not c:break
      b+=c
    V=b.decode('utf-8','replace').strip() or None
    os.close(vr)
  # whatever the program left running dies and is reaped before its result is reported
  sweep()
  # cleaned before the report: the host reads the next job's CPU from after it, so a job's mess is its own cost
  # an OOM kill marks the container in the engine for good (State.OOMKilled): such a container serves no other job
  # (-1: no count; under gVisor the host's OOM killer ends the whole container)
  o=oom();o=o-O0 if o>=0 and O0>=0 else o
  W='a live run' if lv else 'an OOM kill' if o>0 else clean() or ('a zygote: '+ZE[0] if ZE else None if zok() else 'a zygote ended')
  A=RU and W is None
  z=os.WTERMSIG(t) if os.WIFSIGNALED(t) else None
  report(k,{'exit':None if z else os.WEXITSTATUS(t),'signal':z,'cpu':u.ru_utime+u.ru_stime,'maxrss':u.ru_maxrss*1024,'oom':o,'judge':V,'again':A,'spent':W if RU else None})
  if not A:os._exit(0)
  del r,jg,s,a,e,V
