#!/usr/bin/env bash
# Builds the docker tier's sandbox image without any registry: a minimal root filesystem holding
# the host's Python interpreter, the shared libraries it loads and its standard library (no tests,
# IDLE, tkinter), plus /etc/passwd with the unprivileged user, imported with `docker import`.
#
#   scripts/build-sandbox-image.sh [IMAGE]     (default: $CODEAGENT_SANDBOX_IMAGE or codeagent-sandbox:latest)
#
# Environment: CODEAGENT_SANDBOX_PYTHON  the interpreter to copy (default /usr/bin/python3.11)
#              CODEAGENT_IMAGE_KERNEL    none: leave the session kernel out even when the host has ipykernel
#              CODEAGENT_IMAGE_LANGUAGES the toolchains to put in, comma-separated (c,cpp,java,go,rust,javascript);
#                                        default: every one whose Debian packages the host has; none: the slim image
#                                        (Python and Bash only), e.g.
#                                        CODEAGENT_IMAGE_LANGUAGES=none scripts/build-sandbox-image.sh codeagent-sandbox:slim
#              DOCKER                    the docker client (default: docker)
# Idempotent: the root filesystem is built reproducibly and its digest is stored as a label, so a
# second run with unchanged inputs leaves the existing image alone. Prints one line: image and size.
# Elsewhere (with a registry) any image with python3 on its PATH works too, e.g. python:3.12-slim.
set -euo pipefail

here="$(cd "$(dirname "$(readlink -f "$0")")" && pwd)"
image="${1:-${CODEAGENT_SANDBOX_IMAGE:-codeagent-sandbox:latest}}"
python="${CODEAGENT_SANDBOX_PYTHON:-/usr/bin/python3.11}"
docker="${DOCKER:-docker}"

die() { echo "build-sandbox-image: $*" >&2; exit 1; }

command -v "$docker" >/dev/null 2>&1 || die "no docker client found (install docker.io)"
"$docker" version --format '{{.Server.Version}}' >/dev/null 2>&1 \
  || die "no Docker engine is reachable; start one (sudo systemctl start docker, or: dockerd &)"
[ -x "$python" ] || die "no Python interpreter at $python (set CODEAGENT_SANDBOX_PYTHON)"
python="$(readlink -f "$python")"
ver="$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
stdlib="$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')"
[ -d "$stdlib" ] || die "the standard library of $python is not at $stdlib"

work="$(mktemp -d "${TMPDIR:-/tmp}/codeagent-image.XXXXXX")"
trap 'rm -rf "$work"' EXIT
root="$work/rootfs"
mkdir -p "$root"/usr/bin "$root"/usr/lib "$root"/usr/lib64 "$root"/etc "$root"/work "$root"/tmp \
         "$root"/proc "$root"/dev "$root"/sys
ln -s usr/bin "$root/bin"
ln -s usr/lib "$root/lib"
ln -s usr/lib64 "$root/lib64"
# merged /usr, as Debian's packages list their files (/sbin/x is /usr/sbin/x)
mkdir -p "$root"/usr/sbin
ln -s usr/sbin "$root/sbin"
chmod 1777 "$root/tmp" "$root/work"

# the standard library, without what a sandboxed program never needs
(cd "$(dirname "$stdlib")" && tar -cf - \
    --exclude="$(basename "$stdlib")/test" --exclude="$(basename "$stdlib")/idlelib" \
    --exclude="$(basename "$stdlib")/tkinter" --exclude="$(basename "$stdlib")/turtledemo" \
    --exclude="$(basename "$stdlib")/ensurepip" --exclude="$(basename "$stdlib")/lib2to3" \
    --exclude="$(basename "$stdlib")/config-*" --exclude="$(basename "$stdlib")/sitecustomize.py" \
    --exclude="$(basename "$stdlib")/site-packages" --exclude="$(basename "$stdlib")/dist-packages" \
    --exclude='*/lib-dynload/_test*' --exclude='*/lib-dynload/xxlimited*' \
    --exclude='*/lib-dynload/_ctypes_test*' --exclude='*/lib-dynload/_xxtestfuzz*' \
    "$(basename "$stdlib")") | (mkdir -p "$root$(dirname "$stdlib")" && cd "$root$(dirname "$stdlib")" && tar -xf -)

cp "$python" "$root/usr/bin/python$ver"
ln -s "python$ver" "$root/usr/bin/python3"
ln -s "python$ver" "$root/usr/bin/python"

# a shell and the few tools programs commonly call through subprocess; bash makes it a bash sandbox too
tools=()
for t in dash bash sleep cat ls echo env true false head tail wc sort uniq tr cut grep sed mkdir rm cp mv date \
    chmod base64 tar; do
  p="$(command -v "$t" 2>/dev/null || true)"
  case "$p" in /*) p="$(readlink -f "$p")"; cp "$p" "$root/usr/bin/$t"; tools+=("$p") ;; esac
done
[ -e "$root/usr/bin/dash" ] && ln -s dash "$root/usr/bin/sh"
languages=python
[ -e "$root/usr/bin/bash" ] && languages=python,bash

# toolchains: one line each, the language's id and the Debian packages of its toolchain. A language goes in
# when the host has those packages: the files of their dependency closure are copied (scripts/image/package-files.py),
# with the /etc/alternatives links they reach (cc, c++, java, javac). A compiled language's stages are Bash scripts
# (the application's CompilingSandbox; command lines in Toolchains); JavaScript is an interpreter, node, run as the profile says.
toolchains=(
  "c gcc libc6-dev"
  "cpp g++ libc6-dev"
  "java openjdk-17-jdk-headless"
  "go golang-go"
  "rust rustc libc6-dev"
  "javascript nodejs"
)
wanted="${CODEAGENT_IMAGE_LANGUAGES:-all}"
compiled=()
packages=()
for line in "${toolchains[@]}"; do
  read -r id pkgs <<<"$line"
  case ",$wanted," in ,all,|*",$id,"*) ;; *) continue ;; esac
  missing="$(for p in $pkgs; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || echo "$p"; done)"
  if [ -n "$missing" ]; then
    [ "$wanted" = all ] || die "the toolchain of $id needs the Debian packages $pkgs (missing: $(echo $missing))"
    continue
  fi
  compiled+=("$id")
  # shellcheck disable=SC2206
  packages+=($pkgs)
done
if [ ${#compiled[@]} -gt 0 ]; then
  [ -e "$root/usr/bin/bash" ] || die "compiled languages need bash in the image"
  "$python" "$here/image/package-files.py" "${packages[@]}" | sed 's,^/,,' > "$work/toolchain.files" \
    || die "could not list the toolchains' files"
  # relative names from /, so nothing can be written outside the new root; its /lib, /bin links stay links
  tar -C / -cf - --no-recursion -T "$work/toolchain.files" | (cd "$root" && tar -xf - --keep-directory-symlink)
  # the commands Debian makes through update-alternatives (cc, c++, java, javac) are in no package's file list:
  # every alternative whose choice is now in the root comes with its links in /usr/bin
  for alt in /etc/alternatives/*; do
    target="$(readlink -f "$alt")"
    [ -e "$root$target" ] || continue
    mkdir -p "$root/etc/alternatives"
    cp -P "$alt" "$root$alt"
    name="$(basename "$alt")"
    for d in /usr/bin /usr/sbin; do
      if [ -L "$d/$name" ] && [ "$(readlink "$d/$name")" = "$alt" ] && [ ! -e "$root$d/$name" ]; then
        cp -P "$d/$name" "$root$d/$name"
      fi
    done
  done
  # packages hold absolute links (/usr/lib64/ld-linux-x86-64.so.2 -> /lib/...): inside the new root they must point
  # into it, or a later copy through one would write to this host's file
  find "$root" -xdev -type l -lname '/*' -print0 | while IFS= read -r -d '' l; do
    ln -sfn "$(realpath -m --relative-to="$(dirname "$l")" "$root$(readlink "$l")")" "$l"
  done
  languages="$languages,$(IFS=,; echo "${compiled[*]}")"
fi

# sessions: when the host's Python has Debian's ipykernel and jupyter_client (and matplotlib, for plots), the
# image gets the packages a session's kernel imports (scripts/image/kernel-closure.py starts a real kernel and
# lists them) from the host's dist-packages, their metadata, and matplotlib's data; without them the image has
# no kernel and the docker tier says sessions are unavailable
kernel=none
site=/usr/lib/python3/dist-packages
if [ "${CODEAGENT_IMAGE_KERNEL:-auto}" != none ] && [ -d "$site" ] \
    && "$python" -c 'import ipykernel, jupyter_client' >/dev/null 2>&1; then
  modules="$(cd "$work" && PYTHONDONTWRITEBYTECODE=1 "$python" "$here/image/kernel-closure.py" 2>"$work/kernel-closure.log")" \
    || die "could not start a kernel on the host to find what a session needs: $(tail -3 "$work/kernel-closure.log")"
  mkdir -p "$root$site"
  entries=()
  for m in $modules; do
    for e in "$site/$m" "$site/$m.py" "$site/$m".*.so; do
      [ -e "$e" ] && entries+=("$(basename "$e")")
    done
  done
  for e in "$site"/*.dist-info "$site"/*.egg-info; do [ -e "$e" ] && entries+=("$(basename "$e")"); done
  # -h: Debian links data files (matplotlib's fonts) into /usr/share; the image gets the files themselves
  (cd "$site" && tar -chf - --exclude='__pycache__' "${entries[@]}") | (cd "$root$site" && tar -xf -)
  if [ -d /usr/share/matplotlib ]; then
    mkdir -p "$root/usr/share"
    (cd /usr/share && tar -chf - matplotlib) | (cd "$root/usr/share" && tar -xf -)
    [ -e /etc/matplotlibrc ] && cp -L /etc/matplotlibrc "$root/etc/matplotlibrc"
  fi
  kernel=ipykernel
fi

# every shared library the interpreter and its extension modules load, at the path the loader uses
{
  ldd "$python"
  for t in "${tools[@]}"; do ldd "$t" 2>/dev/null || true; done
  find "$root$stdlib/lib-dynload" -name '*.so' -print0 | xargs -0 -r -n1 ldd 2>/dev/null
  [ -d "$root$site" ] && find "$root$site" -name '*.so*' -type f -print0 | xargs -0 -r -n1 ldd 2>/dev/null
} | awk '/=> \//{print $3} /^[[:space:]]*\/[^ ]*ld-linux/{print $1}' | sort -u | while read -r lib; do
  dest="$root$(readlink -f "$(dirname "$lib")")"
  mkdir -p "$dest"
  cp -L "$lib" "$dest/$(basename "$lib")"
  # the loader is asked for by its canonical name, e.g. /lib64/ld-linux-x86-64.so.2
  case "$lib" in
    */ld-linux*) mkdir -p "$root$(dirname "$lib")"; [ -e "$root$lib" ] || cp -L "$lib" "$root$lib" ;;
  esac
done

cat > "$root/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/usr/sbin/nologin
nobody:x:65534:65534:nobody:/work:/usr/sbin/nologin
PASSWD
cat > "$root/etc/group" <<'GROUP'
root:x:0:
nogroup:x:65534:
GROUP

# bytecode that stays valid in the image: the tarball below sets every mtime to 0, which would invalidate the
# ordinary (timestamp) .pyc files, and the read-only root cannot take new ones, so every import would compile its
# source again in every run (a session's kernel: seconds of CPU and tens of MiB more). Hash-based, unchecked .pyc
# files are used as they are; their paths are the image's.
"$python" -m compileall -q -f -j 0 --invalidation-mode unchecked-hash -s "$root" -p / \
  "$root$stdlib" $([ -d "$root$site" ] && echo "$root$site") >/dev/null 2>&1 || true

# nothing in the image grants privileges on exec or is writable by everyone: whatever the host's
# files carried, setuid/setgid bits go, and the only world-writable places are the tmpfs mount points
find "$root" -xdev -type f \( -perm -4000 -o -perm -2000 \) -exec chmod ug-s {} +
find "$root" -xdev -perm -0002 ! -type l ! -path "$root/tmp" ! -path "$root/work" -exec chmod o-w {} +

# smoke test on the host, before docker sees it: the copied interpreter starts from the new root
if command -v unshare >/dev/null 2>&1 && unshare --help 2>/dev/null | grep -q -- '--root'; then
  unshare --root="$root" /usr/bin/python3 -S -c 'import json, re, collections' \
    || die "the assembled root filesystem cannot run python3"
  if [ "$kernel" = ipykernel ]; then
    # no /proc in this root: psutil prints a traceback it then recovers from; shown only when the import fails
    if ! smoke_err="$(PYDEVD_DISABLE_FILE_VALIDATION=1 unshare --root="$root" /usr/bin/python3 -I \
        -c 'import ipykernel.kernelapp, jupyter_client.manager, zmq' 2>&1)"; then
      printf '%s\n' "$smoke_err" >&2
      die "the assembled root filesystem cannot import the kernel's packages"
    fi
  fi
fi

for id in "${compiled[@]}"; do
  case "$id" in c) tool=gcc ;; cpp) tool=g++ ;; java) tool=javac ;; go) tool=go ;; rust) tool=rustc ;; javascript) tool=node ;; esac
  if command -v unshare >/dev/null 2>&1 && unshare --help 2>/dev/null | grep -q -- '--root'; then
    # a JVM needs /proc: the smoke test gets its own
    unshare --fork --pid --mount --mount-proc --root="$root" "/usr/bin/$tool" \
        $([ "$tool" = go ] && echo version || echo --version) >"$work/smoke.log" 2>&1 \
      || die "the assembled root filesystem cannot run $tool: $(tail -3 "$work/smoke.log")"
  fi
done

tarball="$work/rootfs.tar"
tar --sort=name --mtime='@0' --owner=0 --group=0 --numeric-owner -C "$root" -cf "$tarball" .
digest="$(sha256sum "$tarball" | cut -c1-64)"

existing="$("$docker" image inspect --format '{{ index .Config.Labels "dev.codeagent.rootfs" }}' "$image" 2>/dev/null || true)"
if [ "$existing" != "$digest" ]; then
  old_id="$("$docker" image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)"
  "$docker" import \
    --change 'USER 65534:65534' \
    --change 'WORKDIR /work' \
    --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change 'ENV PYTHONDONTWRITEBYTECODE=1' \
    --change "LABEL dev.codeagent.rootfs=$digest" \
    --change "LABEL dev.codeagent.python=$ver" \
    --change "LABEL dev.codeagent.languages=$languages" \
    --change "LABEL dev.codeagent.kernel=$kernel" \
    --change 'CMD ["python3"]' \
    "$tarball" "$image" >/dev/null
  # the image this one replaced, if it was ours and nothing else uses it
  if [ -n "$old_id" ] && [ -n "$existing" ]; then "$docker" image rm "$old_id" >/dev/null 2>&1 || true; fi
fi

size="$("$docker" image inspect --format '{{.Size}}' "$image")"
echo "$image $(awk -v b="$size" 'BEGIN { printf "%.1f MiB", b / 1048576 }') (python $ver, kernel: $kernel, languages: $languages)"
