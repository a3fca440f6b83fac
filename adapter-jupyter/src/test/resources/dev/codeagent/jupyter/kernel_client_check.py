"""Drives the codeagent kernel with Jupyter's own client library, as a notebook server does, and prints what it saw
as one JSON object (the Java test asserts on it). Run with Debian's /usr/bin/python3 and JUPYTER_PATH pointing at
the kernelspec under test."""
import json
import os
import sys
import time

from jupyter_client.manager import KernelManager

results = {}


def children_of(pid):
    """Every process whose parent chain reaches pid: the kernel's sandboxes and what runs in them."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    stat = f.read()
                parents[int(entry)] = int(stat[stat.rindex(")") + 2:].split()[1])
            except (OSError, ValueError):
                pass
    found, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, pp in parents.items() if pp in frontier and p not in found}
        found |= frontier
    return found


def alive(pids):
    return sorted(p for p in pids if os.path.exists(f"/proc/{p}") and "Z" not in open(f"/proc/{p}/stat").read().split(")")[1][:3])


km = KernelManager(kernel_name="codeagent")
started = time.monotonic()
km.start_kernel()
kc = km.client()
kc.start_channels()
kc.wait_for_ready(timeout=120)
info = kc.kernel_info(reply=True, timeout=30)["content"]
results["implementation"] = info["implementation"]
results["protocol_version"] = info["protocol_version"]
results["language"] = info["language_info"]["name"]


def run(code, timeout=120):
    msg_id = kc.execute(code)
    outputs = []
    while True:
        msg = kc.get_iopub_msg(timeout=timeout)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind = msg["msg_type"]
        if kind == "status" and msg["content"]["execution_state"] == "idle":
            break
        if kind in ("stream", "execute_result", "display_data", "error"):
            content = dict(msg["content"])
            content["output_type"] = kind
            outputs.append(content)
    while True:
        reply = kc.get_shell_msg(timeout=timeout)
        if reply["parent_header"].get("msg_id") == msg_id:
            break
    c = reply["content"]
    return {"status": c["status"], "ename": c.get("ename"), "evalue": c.get("evalue"), "outputs": outputs,
            "count": c.get("execution_count")}


def text(r):
    return "".join(o.get("text", "") for o in r["outputs"] if o["output_type"] == "stream") + "".join(
        o.get("data", {}).get("text/plain", "") for o in r["outputs"] if o["output_type"] == "execute_result")


r = run("1 + 1")
results["first_reply_seconds"] = round(time.monotonic() - started, 2)
results["one_plus_one"] = text(r)
run("x = 41")
results["x_plus_one"] = text(run("x + 1"))

# the notebook page is a way out: sandboxed HTML must not run script or fetch in the browser
shown = run("from IPython.display import display, HTML, Javascript\n"
            "display(HTML('<b>kept</b><script>fetch(\\'/api/kernels\\')</script><img src=\\'https://a.example/\\' onerror=\\'x()\\'>'))\n"
            "display(Javascript('alert(1)'))")
results["shown"] = [o["data"] for o in shown["outputs"] if o["output_type"] == "display_data"]

# a silent request runs but is neither counted nor shown
counted = run("x")["count"]
silent_id = kc.execute("quiet = 5\nprint('not shown')", silent=True)
while True:
    reply = kc.get_shell_msg(timeout=60)
    if reply["parent_header"].get("msg_id") == silent_id:
        break
after_silent = run("quiet")
results["silent"] = {"status": reply["content"]["status"], "count_before": counted,
                     "count_after": run("1")["count"],
                     "quiet": text(after_silent)}

# "Run All" stops at the first error: requests queued behind a failing cell are aborted, as ipykernel does
queued = [kc.execute(code) for code in ("1 / 0", "z = 1", "z")]
replies = {}
while len(replies) < 3:
    reply = kc.get_shell_msg(timeout=60)
    if reply["parent_header"].get("msg_id") in queued:
        replies[reply["parent_header"]["msg_id"]] = reply["content"]
results["run_all"] = [[replies[m]["status"], replies[m].get("ename")] for m in queued]
results["z_defined"] = text(run("print('z' in dir())"))

# heartbeat: the hb channel pings the kernel and hears it
time.sleep(1.5)
results["heart_beating"] = kc.hb_channel.is_beating()

# interrupt: a cell sleeping for a minute, stopped from the notebook's Interrupt button (a message: interrupt_mode)
msg_id = kc.execute("import time\nfor i in range(600):\n    time.sleep(0.1)\nprint('never')")
time.sleep(2)
asked = time.monotonic()
km.interrupt_kernel()
while True:
    reply = kc.get_shell_msg(timeout=60)
    if reply["parent_header"].get("msg_id") == msg_id:
        break
results["interrupt"] = {"status": reply["content"]["status"], "ename": reply["content"].get("ename"),
                        "seconds": round(time.monotonic() - asked, 2)}
results["x_after_interrupt"] = text(run("x + 1"))

# magics complete; an unknown option is one line, not a Java stack trace
results["complete"] = kc.complete("%%so", 4, reply=True, timeout=30)["content"]["matches"]


def shell_reply(msg_id):
    while True:
        reply = kc.get_shell_msg(timeout=30)
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply["content"]


results["is_complete"] = [shell_reply(kc.is_complete(code)) for code in ("x = 1", "def f(x):")]
history = kc.history(hist_access_type="tail", n=10, reply=True, timeout=30)["content"]
results["history"] = {"entries": len(history["history"])}
bad = run("%%solve --tries 3\nanything")
results["bad_magic"] = {"status": bad["status"], "ename": bad["ename"], "evalue": bad["evalue"]}

# a kernel that dies inside the sandbox is reported, and the next cell runs in a restarted one
died = run("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)")
results["died"] = {"status": died["status"], "ename": died["ename"], "evalue": died["evalue"]}
after = run("x")
results["x_after_death"] = {"status": after["status"], "ename": after["ename"]}

# a cell past its time limit is interrupted and reported
run("%limits timeout=2s")
slow = run("import time\ntime.sleep(30)")
results["timeout"] = {"status": slow["status"], "ename": slow["ename"], "evalue": slow["evalue"],
                      "shown": [o["ename"] + ": " + o["evalue"] for o in slow["outputs"] if o["output_type"] == "error"]}

# %sandbox docker: the next cells run in a container (a new session), and back
if "docker" in sys.argv[1:]:
    switched = run("%sandbox docker")
    results["sandbox_docker"] = text(switched)
    results["in_docker"] = text(run("import os\nprint(os.path.exists('/.dockerenv'))"))
    run("%sandbox process")

# Restart: a new kernel process and a new session; state is gone
run("y = 7")
old_pid = km.provisioner.pid
km.restart_kernel(now=False)
kc.wait_for_ready(timeout=120)
results["restarted_pid_differs"] = km.provisioner.pid != old_pid
results["old_kernel_alive_after_restart"] = alive([old_pid])
y = run("y")
results["y_after_restart"] = {"status": y["status"], "ename": y["ename"]}
results["after_restart"] = text(run("2 * 21"))

# Shutdown: the kernel process and every sandbox it started are gone
pid = km.provisioner.pid
sandboxes = children_of(pid)
results["sandbox_processes_before_shutdown"] = len(sandboxes)
kc.stop_channels()
km.shutdown_kernel(now=False)
deadline = time.monotonic() + 20
while alive([pid] + list(sandboxes)) and time.monotonic() < deadline:
    time.sleep(0.2)
results["left_after_shutdown"] = alive([pid] + list(sandboxes))
print(json.dumps(results), flush=True)
# jupyter_client's destructors log at interpreter exit, after logging is gone: nothing to say past the result
os._exit(0)
