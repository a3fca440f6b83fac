"""The baseline of session-latency.sh: jupyter_client driving a local, unsandboxed ipykernel, as a notebook
server does. Prints two lines, the median in ms of a kernel's start (start to ready) and of a `1+1` cell
(execute request to idle, result received), over ROUNDS kernels of CELLS cells each.

    /usr/bin/python3 session_reference.py [ROUNDS] [CELLS]
"""
import os
import statistics
import sys
import tempfile
import time

from jupyter_client.manager import KernelManager

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
cells = int(sys.argv[2]) if len(sys.argv) > 2 else 50
starts, runs = [], []
for _ in range(rounds):
    d = tempfile.mkdtemp()
    t0 = time.perf_counter()
    km = KernelManager(transport="ipc", ip=os.path.join(d, "k"), connection_file=os.path.join(d, "kernel.json"))
    km.start_kernel(extra_arguments=["--HistoryManager.enabled=False"], env=dict(os.environ, PYDEVD_DISABLE_FILE_VALIDATION="1"),
                    stderr=open(os.devnull, "w"))
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=60)
    starts.append((time.perf_counter() - t0) * 1000)
    for _ in range(cells):
        t0 = time.perf_counter()
        msg_id = kc.execute("1+1")
        seen_result = False
        while True:
            m = kc.get_iopub_msg(timeout=30)
            if m["parent_header"].get("msg_id") != msg_id:
                continue
            if m["msg_type"] == "execute_result":
                seen_result = True
            if m["msg_type"] == "status" and m["content"]["execution_state"] == "idle" and seen_result:
                break
        runs.append((time.perf_counter() - t0) * 1000)
    kc.stop_channels()
    km.shutdown_kernel(now=True)
print("start %.1f" % statistics.median(starts))
print("cell %.2f" % statistics.median(runs))
sys.stdout.flush()
os._exit(0)
