# The kernel bridge: runs inside a session's sandbox, starts a real ipykernel as its child (ZMQ over ipc://
# sockets in the sandbox's private /tmp, so no network path is needed) and speaks JSON lines with the JVM
# over its own stdin/stdout. One bridge serves one session.
#
# Wire format, one JSON object per line.
#   JVM -> bridge, first line: {"op":"hello","nonce":HEX,"max_output":N,"max_image":N,"grace_ms":N}
#   then:  {"op":"execute","id":N,"code":S,"timeout_ms":N,"stream":B} | {"op":"interrupt"} | {"op":"restart","id":N}
#          | {"op":"shutdown"}
#   bridge -> JVM: every frame carries "nonce" (the JVM rejects any frame without its nonce) and "type":
#          ready | output | result | restarted | bye | failed
#   With "stream" true, each output is also sent as it comes ({"type":"output","id":N,"output":{...}}, a stream
#   output holding only its new text), within the same caps; the result still carries them all.
# Why the hardening: the kernel runs the cell's code as the bridge's uid. The bridge keeps its protocol fds
# as private, non-inherited duplicates and points fds 0 and 1 at /dev/null, so the kernel inherits no way to
# the JVM; it is non-dumpable, so a cell cannot reach those duplicates through /proc/<bridge>/fd or read the
# nonce from /proc/<bridge>/mem; it drops every capability it might have. The nonce arrives on stdin, never
# in argv or the environment, which a cell can read.
import base64
import ctypes
import json
import os
import signal
import stat
import sys
import tempfile
import time

PR_SET_DUMPABLE = 4
PR_SET_NO_NEW_PRIVS = 38
PR_CAPBSET_DROP = 24
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")


def read_line(fd, buf):
    """One line from a raw fd (no Python-level buffering to leave bytes behind); None at EOF."""
    while b"\n" not in buf[0]:
        chunk = os.read(fd, 65536)
        if not chunk:
            return None
        buf[0] += chunk
    line, _, rest = buf[0].partition(b"\n")
    buf[0] = rest
    return line


def harden():
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0)")
    libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    for cap in range(64):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            break  # past the last capability, or not allowed (then there is none to drop: no CAP_SETPCAP)

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]

    data = (Data * 2)()
    if libc.capset(ctypes.byref(Header(0x20080522, 0)), data) != 0:
        raise OSError(ctypes.get_errno(), "capset")


class Bridge:
    def __init__(self, out_fd, hello):
        self.out_fd = out_fd
        self.nonce = hello["nonce"]
        self.max_output = int(hello["max_output"])
        self.max_image = int(hello["max_image"])
        self.grace = int(hello.get("grace_ms", 2000)) / 1000.0
        self.dir = tempfile.mkdtemp(prefix="kernel-")  # the sandbox's private /tmp (TMPDIR)
        self.km = None
        self.kc = None
        self.dead = False
        self.pending = []
        self.eof = False

    def send(self, frame):
        frame["nonce"] = self.nonce
        data = (json.dumps(frame, separators=(",", ":")) + "\n").encode()
        while data:
            data = data[os.write(self.out_fd, data):]

    def start(self):
        from jupyter_client.manager import KernelManager
        env = dict(os.environ)
        env["IPYTHONDIR"] = os.path.join(self.dir, "ipython")
        env["JUPYTER_RUNTIME_DIR"] = self.dir
        env["MPLCONFIGDIR"] = os.path.join(self.dir, "mpl")
        env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
        km = KernelManager(transport="ipc", ip=os.path.join(self.dir, "k"),
                           connection_file=os.path.join(self.dir, "kernel.json"))
        # the output cache and the history would keep every result alive and write a database
        km.start_kernel(extra_arguments=["--HistoryManager.enabled=False", "--InteractiveShell.cache_size=0",
                                         "--InteractiveShell.colors=NoColor"], env=env, stdin=subprocess_devnull(), stdout=subprocess_devnull(),
                        stderr=subprocess_devnull(), cwd=os.getcwd())
        self.km = km
        self.connect()

    def expendable(self):
        # the kernel (and what its cells start, which inherit this) is the OOM killer's first choice, never the
        # bridge: a cell that fills the session's memory costs the kernel's state (reported), not the session
        process = getattr(getattr(self.km, "provisioner", None), "process", None)
        pid = getattr(process, "pid", None)
        if pid:
            try:
                with open("/proc/%d/oom_score_adj" % pid, "w") as f:
                    f.write("1000")
            except OSError:
                pass

    def connect(self):
        self.expendable()
        if self.kc is not None:
            self.kc.stop_channels()
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=60)
        self.dead = False

    def restart(self):
        try:
            self.km.restart_kernel(now=True)
        except Exception:
            # a kernel that died cannot be restarted in place: start a fresh one
            try:
                self.km.shutdown_kernel(now=True)
            except Exception:
                pass
            self.start()
            return
        self.connect()

    def alive(self):
        try:
            return self.km.is_alive()
        except Exception:
            return False

    def serve(self, in_fd, buf):
        while True:
            if self.pending:
                line = self.pending.pop(0)
            elif self.eof:
                return
            else:
                line = read_line(in_fd, buf)
            if line is None:
                return
            try:
                cmd = json.loads(line)
            except ValueError:
                self.send({"type": "failed", "message": "not JSON"})
                continue
            op = cmd.get("op")
            if op == "execute":
                self.send(self.execute(cmd, in_fd, buf))
            elif op == "restart":
                self.restart()
                self.send({"type": "restarted", "id": cmd.get("id")})
            elif op in ("write_file", "read_file"):
                self.send(dict(file_op(op, cmd), type="file", id=cmd.get("id")))
            elif op == "interrupt":
                pass  # no cell runs: nothing to interrupt
            elif op == "shutdown":
                return
            else:
                self.send({"type": "failed", "message": "unknown op %r" % (op,)})

    def execute(self, cmd, in_fd, buf):
        cid = cmd.get("id")
        if self.dead or not self.alive():
            self.dead = True
            return {"type": "result", "id": cid, "status": "kernel_died", "execution_count": 0,
                    "state_lost": True, "outputs": [],
                    "message": "the kernel is dead; restart the session to go on"}
        out = Outputs(self.max_output, self.max_image)
        stream = bool(cmd.get("stream"))
        msg_id = self.kc.execute(cmd.get("code", ""), allow_stdin=True, stop_on_error=False)
        deadline = time.monotonic() + int(cmd["timeout_ms"]) / 1000.0
        timed_out = interrupted = False
        reply = None
        idle = False
        next_alive_check = 0.0
        # wait on the kernel's sockets and our stdin at once, instead of polling them in turn every few ms
        import zmq
        poller = zmq.Poller()
        for channel in (self.kc.iopub_channel, self.kc.shell_channel, self.kc.stdin_channel):
            poller.register(channel.socket, zmq.POLLIN)
        if not self.eof:
            poller.register(in_fd, zmq.POLLIN)
        ready = {}
        while reply is None or not idle:
            now = time.monotonic()
            if now >= deadline:
                if timed_out:
                    # the interrupt did not end it within the grace: restart, and say the state is gone
                    self.restart()
                    return {"type": "result", "id": cid, "status": "timeout", "execution_count": 0,
                            "state_lost": True, "restarted": True, "outputs": out.items,
                            "message": "the cell ran past %d ms and did not stop when interrupted; the kernel "
                                       "was restarted" % int(cmd["timeout_ms"])}
                timed_out = True
                self.km.interrupt_kernel()
                deadline = now + self.grace
            if now >= next_alive_check:
                next_alive_check = now + 0.2
                if not self.alive():
                    self.dead = True
                    return {"type": "result", "id": cid, "status": "kernel_died", "execution_count": 0,
                            "state_lost": True, "outputs": out.items,
                            "message": "the kernel died while running the cell (killed, or out of memory)"}
            if not buf[0]:
                wait = min(deadline, next_alive_check) - time.monotonic()
                ready = dict(poller.poll(max(0, int(wait * 1000)) + 1))
            r = [] if self.eof else [in_fd] if buf[0] or ready.get(in_fd) else []
            if r:
                line = read_line(in_fd, buf)
                if line is None:
                    # the JVM closed our stdin: finish this cell, then shut down
                    self.eof = True
                    poller.unregister(in_fd)
                    self.pending.append(b'{"op":"shutdown"}')
                    continue
                try:
                    op = json.loads(line).get("op")
                except ValueError:
                    op = None
                if op == "interrupt":
                    interrupted = True
                    self.km.interrupt_kernel()
                else:
                    self.pending.append(line)
            while True:
                try:
                    msg = self.kc.get_iopub_msg(timeout=0)
                except Exception:
                    break
                if msg["parent_header"].get("msg_id") != msg_id:
                    continue
                kind = msg["msg_type"]
                content = msg["content"]
                if kind == "status" and content.get("execution_state") == "idle":
                    idle = True
                else:
                    piece = out.add(kind, content)
                    if stream and piece is not None:
                        self.send({"type": "output", "id": cid, "output": piece})
            try:
                smsg = self.kc.get_stdin_msg(timeout=0)
                if smsg["msg_type"] == "input_request":
                    self.kc.input("\x04")  # ipykernel raises EOFError in the cell: EOF, not a hang
            except Exception:
                pass
            try:
                shell = self.kc.get_shell_msg(timeout=0)
                if shell["parent_header"].get("msg_id") == msg_id and shell["msg_type"] == "execute_reply":
                    reply = shell["content"]
            except Exception:
                pass
        count = reply.get("execution_count") or 0
        if reply.get("status") == "error" and timed_out:
            status, message = "timeout", "the cell ran past %d ms and was interrupted" % int(cmd["timeout_ms"])
        elif reply.get("status") == "error" and interrupted and reply.get("ename") == "KeyboardInterrupt":
            status, message = "interrupted", "the cell was interrupted"
        elif reply.get("status") == "error":
            status, message = "error", ""
            if not any(o["type"] == "error" for o in out.items):
                piece = out.add_error(reply)
                if stream:
                    self.send({"type": "output", "id": cid, "output": piece})
        elif reply.get("status") == "aborted":
            status, message = "interrupted", "the cell was aborted"
        elif out.truncated:
            status, message = "output_truncated", out.why
        else:
            status, message = "ok", ""
        return {"type": "result", "id": cid, "status": status, "execution_count": count, "state_lost": False,
                "outputs": out.items, "message": message}

    def shutdown(self):
        try:
            if self.kc is not None:
                self.kc.stop_channels()
            if self.km is not None:
                self.km.shutdown_kernel(now=True)
        except Exception:
            pass


class Outputs:
    """A cell's outputs within the byte cap; images past the image cap become a text stand-in."""

    def __init__(self, max_output, max_image):
        self.items = []
        self.left = max_output
        self.max_image = max_image
        self.truncated = False
        self.why = ""

    def cut(self, why):
        if not self.truncated:
            self.truncated = True
            self.why = why

    def add(self, kind, content):
        if kind == "stream":
            text = content.get("text", "")
            if len(text.encode()) > self.left:
                text = text.encode()[:max(0, self.left)].decode("utf-8", "ignore")
                self.cut("output past the cap of the cell's output bytes was dropped")
            if not text:
                return None
            self.left -= len(text.encode())
            last = self.items[-1] if self.items else None
            name = content.get("name", "stdout")
            if last and last["type"] == "stream" and last["name"] == name:
                last["text"] += text
            else:
                self.items.append({"type": "stream", "name": name, "text": text})
            return {"type": "stream", "name": name, "text": text}
        elif kind in ("display_data", "execute_result"):
            data = {}
            for mime, value in content.get("data", {}).items():
                data[mime] = value if isinstance(value, str) else json.dumps(value)
            for mime in [m for m in data if m in IMAGE_TYPES]:
                try:
                    size = len(base64.b64decode(data[mime]))
                except ValueError:
                    size = len(data[mime])
                if size > self.max_image:
                    del data[mime]
                    note = "[%s of %d bytes left out: over the image cap of %d bytes]" % (mime, size, self.max_image)
                    data["text/plain"] = (data["text/plain"] + " " + note) if "text/plain" in data else note
                    self.cut("an image past the image cap was left out")
            size = sum(len(v.encode()) for v in data.values())
            if not data:
                return None
            if size > self.left:
                self.cut("output past the cap of the cell's output bytes was dropped")
                return None
            self.left -= size
            item = {"type": kind, "data": data}
            if kind == "execute_result":
                item["execution_count"] = content.get("execution_count") or 0
            self.items.append(item)
            return item
        elif kind == "error":
            return self.add_error(content)
        return None  # clear_output and the kernel's own bookkeeping (execute_input, status) are not outputs

    def add_error(self, content):
        tb = [str(t) for t in content.get("traceback", [])]
        size = sum(len(t.encode()) for t in tb)
        if size > max(self.left, 4096):
            tb = tb[-3:]
            self.cut("a traceback past the output cap was shortened")
        self.left -= sum(len(t.encode()) for t in tb)
        item = {"type": "error", "ename": content.get("ename") or "Error", "evalue": content.get("evalue", ""),
                "traceback": tb}
        self.items.append(item)
        return item


def file_op(op, cmd):
    # a file of the working directory, where the cells run: the path was checked by the JVM; here no part of it may
    # be a symbolic link (a cell could plant one to make the bridge read or write elsewhere), nor leave the directory
    path = cmd.get("path") or ""
    parts = path.split("/")
    if path.startswith("/") or any(p in ("", ".", "..") for p in parts):
        return {"error": "invalid", "message": "not a relative path"}
    root = os.getcwd()
    flags = os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        dfd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | flags)
        try:
            for d in parts[:-1]:
                if op == "write_file":
                    try:
                        os.mkdir(d, 0o755, dir_fd=dfd)
                    except FileExistsError:
                        pass
                if stat.S_ISLNK(os.stat(d, dir_fd=dfd, follow_symlinks=False).st_mode):
                    return {"error": "invalid", "message": "a symbolic link is in the way"}
                # O_NOFOLLOW still holds if a cell swaps a link in after that look
                nfd = os.open(d, os.O_RDONLY | os.O_DIRECTORY | flags, dir_fd=dfd)
                os.close(dfd)
                dfd = nfd
            if op == "write_file":
                data = base64.b64decode(cmd.get("data") or "")
                fd = os.open(parts[-1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC | flags, 0o644, dir_fd=dfd)
                try:
                    view = memoryview(data)
                    while view:
                        view = view[os.write(fd, view):]
                finally:
                    os.close(fd)
                return {}
            fd = os.open(parts[-1], os.O_RDONLY | flags, dir_fd=dfd)
            try:
                st = os.fstat(fd)
                if not stat.S_ISREG(st.st_mode):
                    return {"error": "not_found", "message": "not a regular file"}
                if st.st_size > int(cmd.get("max", 0)):
                    return {"error": "too_large", "message": "%d bytes, more than the %d asked for" % (st.st_size, int(cmd.get("max", 0)))}
                chunks = []
                while True:
                    b = os.read(fd, 1 << 20)
                    if not b:
                        break
                    chunks.append(b)
                data = b"".join(chunks)
                if len(data) > int(cmd.get("max", 0)):
                    return {"error": "too_large", "message": "it grew past the %d bytes asked for" % int(cmd.get("max", 0))}
                return {"data": base64.b64encode(data).decode("ascii")}
            finally:
                os.close(fd)
        finally:
            os.close(dfd)
    except FileNotFoundError:
        return {"error": "not_found", "message": "no such file"}
    except (NotADirectoryError, IsADirectoryError):
        return {"error": "not_found", "message": "not a regular file"}
    except OSError as e:
        import errno
        if e.errno == errno.ELOOP:
            return {"error": "invalid", "message": "a symbolic link is in the way"}
        if e.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT):
            return {"error": "too_large", "message": "the session's disk is full"}
        return {"error": "failed", "message": os.strerror(e.errno or 0)}


def subprocess_devnull():
    import subprocess
    return subprocess.DEVNULL


def main():
    buf = [b""]
    # private copies of the protocol fds (os.dup makes them non-inheritable); 0 and 1 become /dev/null
    in_fd = os.dup(0)
    out_fd = os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    sys.stdin = open(os.devnull)
    sys.stdout = sys.stderr
    harden()
    line = read_line(in_fd, buf)
    if line is None:
        return
    bridge = Bridge(out_fd, json.loads(line))
    os.environ["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        bridge.start()
        bridge.send({"type": "ready", "kernel_pid": bridge.km.provisioner.pid if bridge.km.provisioner else 0})
        bridge.serve(in_fd, buf)
    except Exception as e:
        try:
            bridge.send({"type": "failed", "message": "%s: %s" % (type(e).__name__, e)})
        except Exception:
            pass
    finally:
        bridge.shutdown()
        bridge.send({"type": "bye"})


if __name__ == "__main__":
    main()
