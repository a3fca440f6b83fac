#!/usr/bin/env python3
"""Lists the files of Debian packages and of every package they depend on that this host has installed.

    package-files.py PKG...

For scripts/build-sandbox-image.sh: a compiled language's toolchain is copied into the image as the files of its
packages' dependency closure (Depends and Pre-Depends; of alternatives, the first one installed). Prints one path per
line: regular files and symbolic links that exist here (directories come with them), without documentation, manual pages, message
catalogues and maintainer data (nothing a compiler reads). Exits 3 naming a package that is not installed.
"""
import os
import re
import subprocess
import sys

SKIP = ("/usr/share/doc/", "/usr/share/man/", "/usr/share/info/", "/usr/share/locale/", "/usr/share/lintian/",
        "/usr/share/bug/", "/usr/share/doc-base/", "/usr/share/menu/")
# packages a toolchain's closure reaches only through maintainer scripts (the JDK's certificate setup reaches
# util-linux and debconf): system administration tools, nothing a compiler or a program runs
NOT_NEEDED = {"util-linux", "util-linux-extra", "debconf", "perl-base", "login", "passwd", "adduser", "dpkg",
              "init-system-helpers", "mount", "libpam-modules", "libpam-runtime",
              # the image's Python is assembled on its own (a trimmed standard library, no sitecustomize); Node.js
              # depends on python3 only for npm's node-gyp, which a sandboxed program never runs
              "python3"}
# Go's own test suite and every package's test fixtures: sources go build never reads
SKIP_PATTERN = re.compile(r"^/usr/share/go-[\d.]+/test/|/testdata/")


def query(fmt, package):
    r = subprocess.run(["dpkg-query", "-W", "-f=" + fmt, package], capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None


def installed(package):
    status = query("${Status}", package)
    return status is not None and status.endswith("install ok installed")


def depends(package):
    found = []
    for alternatives in (query("${Depends},${Pre-Depends}", package) or "").split(","):
        for choice in alternatives.split("|"):
            name = re.sub(r"\(.*?\)|\[.*?\]|<.*?>", "", choice).strip().split(":")[0]
            if name and installed(name):
                found.append(name)
                break
    return found


def main(packages):
    for p in packages:
        if not installed(p):
            print("package-files: %s is not installed" % p, file=sys.stderr)
            return 3
    seen, todo = set(), list(packages)
    while todo:
        p = todo.pop()
        if p not in seen and p not in NOT_NEEDED:
            seen.add(p)
            todo.extend(depends(p))
    paths = set()
    for p in sorted(seen):
        listing = subprocess.run(["dpkg-query", "-L", p], capture_output=True, text=True).stdout
        for path in listing.splitlines():
            if not path.startswith("/") or path.startswith(SKIP) or SKIP_PATTERN.search(path):
                continue
            if os.path.islink(path) or os.path.isfile(path):
                paths.add(path)
    for path in sorted(paths):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
