"""Start-up of a Jupyter kernel as a notebook sees it: from starting the kernel process to the execute_reply of the
first `1+1`, split at the first kernel_info reply (the kernel process is up and speaking the protocol). Prints one
line per kernel: name, then the medians in ms of ready, first reply. Run with /usr/bin/python3 (Debian's
jupyter_client); JUPYTER_PATH must find the kernels.

    jupyter_startup.py ROUNDS KERNEL...
"""
import statistics
import sys
import time

from jupyter_client.manager import KernelManager


def once(name):
    km = KernelManager(kernel_name=name)
    t0 = time.monotonic()
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=120)
    ready = time.monotonic() - t0
    msg_id = kc.execute("1+1")
    while True:
        reply = kc.get_shell_msg(timeout=120)
        if reply["parent_header"].get("msg_id") == msg_id:
            break
    first = time.monotonic() - t0
    assert reply["content"]["status"] == "ok", reply["content"]
    kc.stop_channels()
    km.shutdown_kernel(now=False)
    return ready, first


rounds = int(sys.argv[1])
for name in sys.argv[2:]:
    once(name)  # warms the page cache, and the launcher's class-data archive
    samples = [once(name) for _ in range(rounds)]
    print(name, round(statistics.median(s[0] for s in samples) * 1000), round(statistics.median(s[1] for s in samples) * 1000),
          flush=True)
