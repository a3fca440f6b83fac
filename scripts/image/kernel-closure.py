# Prints the top-level modules of the host's dist-packages that a session's kernel needs, one per line: those
# the kernel bridge's side imports (jupyter_client) and those a real ipykernel imports while it runs the cells a
# session typically runs (a matplotlib plot, rich display, an error, numpy, a read of stdin). Used by
# build-sandbox-image.sh to copy exactly that closure into the image, so the docker tier can host sessions.
import os
import sys
import tempfile
from jupyter_client.manager import KernelManager

CELLS = [
    "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nplt.show()",
    "from IPython.display import HTML, SVG, JSON, display\ndisplay(HTML('<b>x</b>'))\ndisplay(JSON({'a': 1}))",
    "1 / 0",
    "import numpy\nnumpy.arange(3)",
    "input()",
    "import sys\nprint(sorted({m.split('.')[0] for m, v in list(sys.modules.items()) if '/dist-packages/' in (getattr(v, '__file__', None) or '')}))",
]

def dist(modules):
    return {m.split('.')[0] for m, v in list(modules.items()) if '/dist-packages/' in (getattr(v, '__file__', None) or '')}

d = tempfile.mkdtemp()
env = dict(os.environ, MPLCONFIGDIR=os.path.join(d, "mpl"), IPYTHONDIR=os.path.join(d, "ipython"),
           PYDEVD_DISABLE_FILE_VALIDATION="1")
km = KernelManager(transport="ipc", ip=os.path.join(d, "k"), connection_file=os.path.join(d, "kernel.json"))
km.start_kernel(env=env, stderr=open(os.devnull, "w"))
kc = km.client()
kc.start_channels()
kc.wait_for_ready(timeout=60)
found = set(dist(sys.modules))
for code in CELLS:
    msg_id = kc.execute(code, allow_stdin=False)
    while True:
        m = kc.get_iopub_msg(timeout=60)
        if m["parent_header"].get("msg_id") != msg_id:
            continue
        if m["msg_type"] == "stream" and m["content"]["text"].startswith("["):
            found |= set(eval(m["content"]["text"]))
        if m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
            break
kc.stop_channels()
km.shutdown_kernel(now=True)
# the kernel's own entry point runs as __main__ (python3 -m ipykernel_launcher), so sys.modules never names it
found.add("ipykernel_launcher")
# loaded only because a .pth file of this host says so; the image copies no .pth files
found.discard("_distutils_hack")
print("\n".join(sorted(found)))
sys.stdout.flush()
os._exit(0)
