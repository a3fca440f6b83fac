"""Sends the codeagent kernel each message of a table of hostile ones (the table is the Java test's, a JSON file given
as the first argument) and, after each, a real `1+1` on the shell channel (and a kernel_info_request on the control
channel after a control case): the kernel must answer both. Prints one JSON object per case, then a summary line.
Run with Debian's /usr/bin/python3 and JUPYTER_PATH pointing at the kernelspec under test."""
import json
import os
import sys
import time
import uuid

import zmq
from jupyter_client.manager import KernelManager

DELIMITER = b"<IDS|MSG>"

cases = json.load(open(sys.argv[1]))
km = KernelManager(kernel_name="codeagent")
km.start_kernel()
kc = km.client()
kc.start_channels()
kc.wait_for_ready(timeout=120)
session = kc.session
# the hostile messages go out on sockets of our own (plain, blocking), as any peer with the key could open them
info = km.get_connection_info()
context = zmq.Context()
sockets = {}
for name, port in (("shell", info["shell_port"]), ("control", info["control_port"])):
    s = context.socket(zmq.DEALER)
    s.setsockopt(zmq.LINGER, 0)
    s.connect(f"{info['transport']}://{info['ip']}:{port}")
    sockets[name] = s


def frames_of(case):
    """The frames of the hostile message, and its msg_id when it has a readable one."""
    header = session.msg_header(case.get("msg_type", "kernel_info_request"))
    header["date"] = header["date"].isoformat() if hasattr(header["date"], "isoformat") else header["date"]
    for field, value in case.get("header_patch", {}).items():
        if value == "__delete__":
            header.pop(field, None)
        else:
            header[field] = value
    msg_id = header.get("msg_id") if isinstance(header.get("msg_id"), str) else None
    raw_header = case["header_raw"].encode() if "header_raw" in case else json.dumps(header).encode()
    parent = case.get("parent_raw", "{}").encode()
    metadata = case.get("metadata_raw", "{}").encode()
    if "content_raw" in case:
        content = case["content_raw"].encode()
    else:
        body = dict(case.get("content", {}))
        if "pad_bytes" in case:
            body[case.get("pad_field", "padding")] = "x" * case["pad_bytes"]
        content = json.dumps(body).encode()
    signature = session.sign([raw_header, parent, metadata, content])
    if case.get("sign") == "bad":
        signature = b"0" * len(signature)
    frames = [DELIMITER, signature, raw_header, parent, metadata, content]
    if case.get("shape") == "no_delimiter":
        frames = frames[1:]
    elif case.get("shape") == "truncated":
        frames = frames[:4]
    return frames, msg_id


def next_msg(source, timeout):
    """The next message from one of our sockets, or from the client's channel functions (kc.get_shell_msg …)."""
    if callable(source):
        return source(timeout=timeout)
    if not source.poll(int(timeout * 1000)):
        raise TimeoutError()
    idents, frames = session.feed_identities(source.recv_multipart())
    return session.deserialize(frames)


def wait_reply(source, msg_id, timeout, seen):
    """The reply whose parent is msg_id; every other message read on the way is noted in seen."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            msg = next_msg(source, max(0.05, deadline - time.monotonic()))
        except Exception:
            continue
        parent_id = msg["parent_header"].get("msg_id")
        if parent_id == msg_id:
            return msg
        seen.append(parent_id)
    return None


def one_plus_one(hostile_id):
    seen = []
    msg_id = kc.execute("1+1")
    reply = wait_reply(kc.get_shell_msg, msg_id, 90, seen)
    # what our own shell socket got meanwhile: a late answer to a message that should have been dropped
    while sockets["shell"].poll(0):
        try:
            seen.append(session.deserialize(session.feed_identities(sockets["shell"].recv_multipart())[1])["parent_header"].get("msg_id"))
        except Exception:
            seen.append("undecodable")
    result = None
    deadline = time.monotonic() + 30
    while reply is not None and time.monotonic() < deadline:
        try:
            msg = kc.get_iopub_msg(timeout=1)
        except Exception:
            continue
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "execute_result":
            result = msg["content"]["data"].get("text/plain")
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            break
    return {"status": reply["content"]["status"] if reply else None, "text": result,
            "late_replies_to_hostile": sum(1 for p in seen if hostile_id is not None and p == hostile_id)}


def control_alive():
    msg = session.msg("kernel_info_request", {})
    session.send(sockets["control"], msg)
    reply = wait_reply(sockets["control"], msg["header"]["msg_id"], 30, [])
    return reply is not None and reply["msg_type"] == "kernel_info_reply" and reply["content"].get("status") != "error"


for case in cases:
    ch = sockets[case.get("channel", "shell")]
    frames, msg_id = frames_of(case)
    started = time.monotonic()
    ch.send_multipart(frames)
    row = {"id": case["id"]}
    if case["expect"] != "none" and msg_id is not None:
        reply = wait_reply(ch, msg_id, 30, [])
        if reply is None:
            row["reply"] = None
        else:
            c = reply["content"]
            row["reply"] = {"msg_type": reply["msg_type"], "status": c.get("status"), "ename": c.get("ename"),
                            "evalue": c.get("evalue"), "execution_count": c.get("execution_count"),
                            "traceback": c.get("traceback")}
    row["reply_seconds"] = round(time.monotonic() - started, 2)
    row["next"] = one_plus_one(msg_id)
    if case.get("channel") == "control":
        row["control_alive"] = control_alive()
    print(json.dumps(row), flush=True)

print(json.dumps({"done": len(cases), "kernel_alive": km.is_alive()}), flush=True)
kc.stop_channels()
km.shutdown_kernel(now=False)
os._exit(0)
