"""Asks the codeagent kernel's magics for more than the config's ceilings, then allocates past the documented memory
of a notebook's session; prints what it saw as one JSON object. Run with Debian's /usr/bin/python3 and JUPYTER_PATH
pointing at the kernelspec under test."""
import json
import os

from jupyter_client.manager import KernelManager

km = KernelManager(kernel_name="codeagent")
km.start_kernel()
kc = km.client()
kc.start_channels()
kc.wait_for_ready(timeout=120)


def run(code, timeout=180):
    msg_id = kc.execute(code)
    text = []
    while True:
        msg = kc.get_iopub_msg(timeout=timeout)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind = msg["msg_type"]
        if kind == "status" and msg["content"]["execution_state"] == "idle":
            break
        if kind == "stream":
            text.append(msg["content"]["text"])
        if kind == "execute_result":
            text.append(msg["content"]["data"].get("text/plain", ""))
    while True:
        reply = kc.get_shell_msg(timeout=timeout)
        if reply["parent_header"].get("msg_id") == msg_id:
            break
    c = reply["content"]
    return {"status": c["status"], "ename": c.get("ename"), "evalue": c.get("evalue"), "text": "".join(text)}


results = {}
run("x = 1")
results["memory_64g"] = run("%limits memory=64g")
results["x_kept"] = run("x")
results["timeout_2h"] = run("%limits timeout=2h")
results["solve_memory_64g"] = run("%%solve --memory 64g\nprint 1")
results["shown"] = run("%limits")
results["memory_256m"] = run("%limits memory=256m")
results["at_ceiling"] = run("%limits memory=512m timeout=1h")
# 1.5 GiB against the documented 512 MiB: the sandbox's memory limit ends it
results["allocate"] = run("big = bytearray(1536 * 1024 * 1024)\nbig[::4096] = b'x' * len(big[::4096])\nprint('allocated')")
results["after"] = run("1+1")
print(json.dumps(results), flush=True)
kc.stop_channels()
km.shutdown_kernel(now=False)
os._exit(0)
