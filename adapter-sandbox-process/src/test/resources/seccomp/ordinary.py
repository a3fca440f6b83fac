# What ordinary programs do, all of which must keep working under the filter.
import os

open_fds = []
for fd in range(3, 256):
    try:
        os.fstat(fd)
        open_fds.append(fd)
    except OSError:
        pass
print("open beyond stdio:", open_fds)

import multiprocessing, socket, subprocess, threading

for family in (socket.AF_INET, socket.AF_INET6, socket.AF_UNIX):
    socket.socket(family, socket.SOCK_STREAM).close()
a, b = socket.socketpair()
a.send(b"x")
assert b.recv(1) == b"x"
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen()
cli = socket.create_connection(srv.getsockname())
conn, _ = srv.accept()
cli.send(b"y")
assert conn.recv(1) == b"y"
child = subprocess.run(["/usr/bin/python3", "-c", "print(6 * 7)"], capture_output=True, text=True)
assert child.stdout.strip() == "42", child
seen = []
threads = [threading.Thread(target=seen.append, args=(i,)) for i in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
assert sorted(seen) == [0, 1, 2, 3]
with multiprocessing.Pool(2) as pool:
    assert pool.map(abs, [-1, -2, -3]) == [1, 2, 3]
print("ordinary ok")
