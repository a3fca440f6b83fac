"""Validates an exported notebook and looks for active content in what nbconvert makes of it.

usage: notebook_check.py check NOTEBOOK WORKDIR      -> JSON {"valid": bool, "error": str, "findings": [...]}
       notebook_check.py raw CORPUS NOTEBOOK         -> writes the corpus as a notebook, unsanitized (the control)

The rendered page is parsed (html.parser), never searched as a string alone: every script, frame, object, embed,
form, base, meta refresh, link, style, svg or math element, every on* attribute, every javascript:/vbscript:/data:
URL (data:image/png|jpeg|gif|webp;base64 in an img src aside), every srcdoc and every style attribute holding url()
is a finding unless nbconvert's own page for a harmless notebook (the baseline) has the same element. A raw count of
'<script' and friends against the baseline backs the parser up where a browser might read the page differently.
"""
import html.parser
import json
import os
import re
import subprocess
import sys

import nbformat

URL_ATTRS = {"href", "src", "action", "formaction", "xlink:href", "data", "poster", "background", "codebase",
             "dynsrc", "lowsrc", "ping", "cite", "longdesc", "manifest", "icon", "to", "from", "values", "content"}
ACTIVE_TAGS = {"script", "iframe", "frame", "frameset", "object", "embed", "applet", "form", "base", "meta", "link",
               "style", "svg", "math", "foreignobject", "template", "portal", "animate", "set", "button", "input",
               "textarea", "select", "isindex", "noscript", "video", "audio", "source", "marquee", "details"}
SAFE_DATA = re.compile(r"^data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=]*$")
RAW = re.compile(r"<\s*/?\s*(script|iframe|object|embed|svg|math|form|base|meta|link|style|frame|template|"
                 r"foreignobject|applet|noscript|xmp|plaintext)\b", re.I)


class Collector(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.items = []
        self.stack = []

    def handle_starttag(self, tag, attrs):
        self.stack.append([tag, attrs, ""])
        if tag in ("img", "br", "hr", "meta", "link", "base", "input", "source", "embed", "col", "isindex"):
            self.handle_endtag(tag)

    def handle_startendtag(self, tag, attrs):
        self.stack.append([tag, attrs, ""])
        self.handle_endtag(tag)

    def handle_data(self, data):
        if self.stack:
            self.stack[-1][2] += data

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                t, attrs, text = self.stack.pop(i)
                self.items.append(element(t, attrs, text))
                return


def element(tag, attrs, text):
    findings = []
    for name, value in attrs:
        name = (name or "").lower()
        value = value or ""
        bare = re.sub(r"[\x00-\x20]", "", value).lower()
        if name.startswith("on"):
            findings.append("%s[%s]" % (tag, name))
        if name == "srcdoc":
            findings.append("%s[srcdoc]" % tag)
        if name in URL_ATTRS and re.match(r"^(javascript|vbscript|livescript|data):", bare):
            if not (tag == "img" and name == "src" and SAFE_DATA.match(value.strip())):
                findings.append("%s[%s=%s]" % (tag, name, bare[:40]))
        if name == "content" and "url=" in bare:
            findings.append("%s[content=%s]" % (tag, bare[:40]))
        if name == "style" and re.search(r"url\(|expression\(|javascript:", bare):
            findings.append("%s[style=%s]" % (tag, bare[:40]))
    if tag in ACTIVE_TAGS:
        findings.append("<%s>" % tag)
    # the same element in the baseline is nbconvert's own: keyed by everything it has
    key = json.dumps([tag, sorted((n or "", v or "") for n, v in attrs), text.strip()])
    return key, findings


def collect(path):
    with open(path, encoding="utf-8") as f:
        page = f.read()
    c = Collector()
    c.feed(page)
    c.close()
    for t, attrs, text in c.stack:
        c.items.append(element(t, attrs, text))
    raw = {}
    for m in RAW.finditer(page):
        raw[m.group(1).lower()] = raw.get(m.group(1).lower(), 0) + 1
    return c.items, raw


def render(notebook, workdir, name):
    subprocess.run(["/usr/bin/jupyter-nbconvert", "--to", "html", "--output-dir", workdir, "--output", name, notebook],
                   check=True, capture_output=True, timeout=300)
    return os.path.join(workdir, name + ".html")


def check(notebook, workdir):
    result = {"valid": False, "error": "", "findings": []}
    try:
        nb = nbformat.read(notebook, as_version=4)
        nbformat.validate(nb)
        result["valid"] = True
    except Exception as e:  # the report says what failed, the test decides
        result["error"] = "%s: %s" % (type(e).__name__, str(e)[:500])
        return result
    base_nb = nbformat.v4.new_notebook()
    base_nb.cells.append(nbformat.v4.new_code_cell("1", outputs=[nbformat.v4.new_output(
        "execute_result", data={"text/plain": "1"}, execution_count=1)]))
    base_path = os.path.join(workdir, "baseline.ipynb")
    nbformat.write(base_nb, base_path)
    base_items, base_raw = collect(render(base_path, workdir, "baseline"))
    known = {k for k, _ in base_items}
    try:
        items, raw = collect(render(notebook, workdir, "rendered"))
    except subprocess.CalledProcessError as e:
        result["valid"] = False
        result["error"] = "nbconvert failed: " + e.stderr.decode("utf-8", "replace")[-800:]
        return result
    for key, findings in items:
        if findings and key not in known:
            result["findings"].extend(findings)
    for tag, n in raw.items():
        if n > base_raw.get(tag, 0):
            result["findings"].append("raw <%s x%d (baseline %d)" % (tag, n, base_raw.get(tag, 0)))
    return result


def raw(corpus, out):
    """The corpus as it came from the sandbox, nothing removed: the checker must find plenty here."""
    nb = nbformat.v4.new_notebook()
    with open(corpus, encoding="utf-8") as f:
        entries = json.load(f)
    for i, e in enumerate(entries):
        if e["kind"] == "stream":
            o = nbformat.v4.new_output("stream", name="stdout", text=e["text"])
        elif e["kind"] == "error":
            o = nbformat.v4.new_output("error", ename=e["ename"], evalue=e["evalue"], traceback=e["traceback"])
        else:
            data = {k: (json.loads(v) if k.endswith("json") else v) for k, v in e["data"].items()}
            o = nbformat.v4.new_output("display_data", data=data)
        nb.cells.append(nbformat.v4.new_code_cell("# " + e["name"], outputs=[o]))
    nbformat.write(nb, out)


if __name__ == "__main__":
    if sys.argv[1] == "check":
        print(json.dumps(check(sys.argv[2], sys.argv[3])))
    else:
        raw(sys.argv[2], sys.argv[3])
