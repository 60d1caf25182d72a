#!/usr/bin/env bash
# Fresh-install check: does the README's set-up work on a bare Debian 12?
#
# Builds a minimal Debian 12 root with mmdebstrap (the "minbase" variant plus git and make,
# what the README says a machine needs), clones this repository's HEAD into it and runs,
# as root inside it:
#   1. `make setup`  the install step both README commands start with, with the network
#   2. `make demo`   in a network namespace of its own with no outside network
#   3. `make test`   likewise, with the quick subset of TESTS (default: not root, not slow)
# Steps 2 and 3 also show that, once set up, nothing needs the network. Each step runs in
# its own mount and PID namespace, so nothing it starts or mounts outlives it.
#
# The machine's site configuration is passed in, as a user's would be on their own
# machine: its pip configuration (pip config files, PIP_* variables and the local
# directories they name) and the certificate authorities it trusts beyond Debian's (a
# proxy's), which the root's ca-certificates picks up when the set-up installs it.
#
# Usage (as root; needs mmdebstrap, unshare and chroot):
#   vagrant/fresh-install-check.sh [--dir DIR] [--keep] [--again] [--tests 'PYTEST ARGS'] [--lock FILE]
#   --dir DIR    where the root is built (default /var/tmp/trainet-fresh); removed first
#   --keep       keep the root afterwards (to look inside: chroot DIR/root)
#   --again      reuse the root an earlier --keep left: its clone moves to this HEAD and
#                the steps run again (the set-up installs only what is missing)
#   --tests ARGS what `make test` runs (default: -m "not root and not slow"; "" for all)
#   --lock FILE  hold FILE (flock) while the demo runs Mininet, where users share a machine
# Prints one line per step (seconds, result) and, for a step that failed, the end of its
# log; exits 1 if any step failed.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=/var/tmp/trainet-fresh
keep=no
again=no
lock=
tests='-m "not root and not slow"'
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir=$2; shift 2 ;;
    --keep) keep=yes; shift ;;
    --again) again=yes; keep=yes; shift ;;
    --tests) tests=$2; shift 2 ;;
    --lock) lock=$2; shift 2 ;;
    *) echo "usage: $0 [--dir DIR] [--keep] [--again] [--tests 'PYTEST ARGS'] [--lock FILE]" >&2; exit 2 ;;
  esac
done
root=$dir/root
logs=$dir/logs
die() { printf 'error: %s\n' "$*" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || die "run as root: building a Debian root and chrooting into it need root"
for tool in mmdebstrap unshare chroot git; do
  command -v "$tool" >/dev/null || die "$tool is missing: apt-get install ${tool/unshare/util-linux}"
done
if findmnt -rn -o TARGET | grep -q "^$root"; then
  die "something is mounted under $root: unmount it before the check removes the directory"
fi
[ "$again" = yes ] && [ ! -d "$root/root/trainet" ] &&
  die "--again: no root in $dir; run once with --keep first"
[ "$again" = yes ] || rm -rf "$dir"
mkdir -p "$logs"

# Local directories the machine's pip configuration names (find-links, file:// indexes).
pip_dirs=()
pip_files=()
for f in /etc/pip.conf /etc/xdg/pip/pip.conf /etc/xdg/pip/constraints.txt; do
  [ -f "$f" ] && pip_files+=("$f")
done
for word in $(cat "${pip_files[@]}" /dev/null) ${PIP_FIND_LINKS:-} ${PIP_INDEX_URL:-} \
            ${PIP_EXTRA_INDEX_URL:-}; do
  path=${word#file://}
  case "$path" in /*) [ -d "$path" ] && pip_dirs+=("$path") ;; esac
done

results=()
failed=0
step() {   # NAME COMMAND...: run, time, record
  local name=$1; shift
  local t0=$SECONDS rc=0 line
  "$@" >"$logs/$name.log" 2>&1 || rc=$?
  line=$(printf '%-6s %5d s  ' "$name" $((SECONDS - t0)))
  if [ $rc -eq 0 ]; then
    results+=("${line}ok")
  else
    failed=1
    results+=("${line}FAILED (exit $rc); the end of $logs/$name.log:"
              "$(tail -n 15 "$logs/$name.log" | sed 's/^/    | /')")
  fi
  echo "${line}$([ $rc -eq 0 ] && echo ok || echo FAILED)"
  return $rc
}

build_root() {
  mmdebstrap --variant=minbase --include=git,make bookworm "$root" \
    "deb http://deb.debian.org/debian bookworm main" \
    "deb http://deb.debian.org/debian bookworm-updates main" \
    "deb http://deb.debian.org/debian-security bookworm-security main"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  for f in "${pip_files[@]}"; do
    mkdir -p "$root$(dirname "$f")" && cp "$f" "$root$f"
  done
  site_authorities "$root/usr/local/share/ca-certificates"
  env | grep -E '^(PIP_[A-Z_]+|https?_proxy|no_proxy)=' | while IFS='=' read -r name value; do
    printf 'export %s=%q\n' "$name" "$value"
  done > "$root/root/.pip-env"
}

site_authorities() {   # DIR: the CAs of this machine's bundle that Debian does not ship
  mkdir -p "$1"
  python3 - "$1" <<'PY'
import pathlib, re, sys
cert = re.compile(r"-----BEGIN CERTIFICATE-----.*?-----END CERTIFICATE-----", re.S)
bundle = pathlib.Path("/etc/ssl/certs/ca-certificates.crt")
shipped = {c for f in pathlib.Path("/usr/share/ca-certificates").rglob("*.crt")
           for c in cert.findall(f.read_text(errors="replace"))}
site = [c for c in cert.findall(bundle.read_text()) if c not in shipped] if bundle.exists() else []
for i, c in enumerate(site):
    pathlib.Path(sys.argv[1], f"site-{i}.crt").write_text(c + "\n")
print(f"{len(site)} site certificate authorities passed in")
PY
}

clone() {
  git clone --quiet --no-hardlinks "$repo" "$root/root/trainet"
  git -C "$root/root/trainet" log -1 --format='cloned %h %s'
}

locked() {   # COMMAND...: under --lock FILE, if given
  if [ -n "$lock" ]; then (flock 9 && "$@") 9>>"$lock"; else "$@"; fi
}

inside() {   # net|offline COMMAND: run COMMAND in the root, in namespaces of its own
  local net=$1; shift
  local flags=(--mount --pid --fork --uts --ipc)
  [ "$net" = offline ] && flags+=(--net)
  unshare "${flags[@]}" bash -euo pipefail -c '
    root=$1 net=$2 cmd=$3; shift 3
    mount --make-rprivate /
    mount --bind "$root" "$root"            # a mount point, for pivot_root
    mount -t proc proc "$root/proc"
    mount -t sysfs sysfs "$root/sys"        # this network namespace'\''s interfaces
    mount --rbind /dev "$root/dev"
    mount -t tmpfs tmpfs "$root/run"
    mount -t tmpfs tmpfs "$root/tmp"
    for d in "$@"; do mkdir -p "$root$d" && mount --bind -o ro "$d" "$root$d"; done
    [ "$net" = offline ] && ip link set lo up
    hostname fresh-debian
    # the root becomes the mount namespace'\''s own root (not a chroot inside it), so
    # processes that enter a Mininet host'\''s namespaces (mnexec -a) see it as "/" too
    mkdir -p "$root/.oldroot"
    cd "$root" && pivot_root . .oldroot && umount -l /.oldroot
    exec /usr/sbin/chroot / /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      HOME=/root LANG=C.UTF-8 TERM=dumb bash -c ". /root/.pip-env; cd /root/trainet && $cmd"
  ' inside "$root" "$net" "$1" "${pip_dirs[@]}"
}

echo "fresh-install check of $(git -C "$repo" log -1 --format='%h %s') in $dir"
if [ "$again" = yes ]; then
  step clone git -C "$root/root/trainet" pull --quiet --ff-only "$repo" HEAD
else
  step base build_root && step clone clone
fi &&
  step setup inside net "make setup" &&
  step demo locked inside offline "make demo" &&
  step test inside offline "make test PYTEST_ARGS='$tests'" || true

echo
echo "fresh-install check: $(date -u +%Y-%m-%dT%H:%MZ), logs in $logs"
printf '%s\n' "${results[@]}"
if [ $failed -eq 0 ]; then
  grep -h '^ready:' "$logs/setup.log" || true
  tail -n 1 "$logs/test.log"
fi
[ "$keep" = yes ] || rm -rf "$root"
exit $failed
