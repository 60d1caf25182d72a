#!/usr/bin/env bash
# Install what trainet needs, as root, on Debian 12 or Ubuntu 24.04 (x86_64 or aarch64):
# the system packages of vagrant/packages.txt, the virtual environment .venv (trainet,
# its Python and test dependencies, torch 2.13.0) and .venv-clients, the outside P4Runtime
# clients of vagrant/clients.txt that the tests drive. Safe to run again: it skips what is
# in place.
#
# TRAINET_TORCH chooses the torch build:
#   cpu    (default) CPU only: from PyTorch's CPU index when it answers within 5 s, else from
#          pip's configured indexes; stops before installing if the plan holds CUDA packages
#   cu130  (or another CUDA index of PyTorch's) that CUDA build, from that index
#   cuda   torch as pip's configured indexes give it (from PyPI on x86_64: CUDA, several GB)
# TRAINET_TORCH_INDEX is where PyTorch's indexes live (default https://download.pytorch.org/whl).
set -euo pipefail
cd "$(dirname "$0")/.."

TORCH=torch==2.13.0
build=${TRAINET_TORCH:-cpu}
index=${TRAINET_TORCH_INDEX:-https://download.pytorch.org/whl}
PY=/usr/bin/python3   # Debian's: Mininet's Python package lives in its dist-packages
PLAN_TOOLS=(ca-certificates python3 python3-venv python3-pip)   # what pip needs to plan

die() { printf 'error: %s\n' "$*" >&2; exit 2; }

missing_packages() {
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || echo "$p"
  done
}

apt_install() {
  DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null ||
    die "apt-get could not install $*: check the network and /etc/apt/sources.list, then run again"
}

answers() {   # URL: does it answer within a few seconds (DNS included)?
  timeout 10 "$PY" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=5)' \
    "$1" >/dev/null 2>&1
}

pip_install() {   # the same requirements for the plan and the install
  .venv/bin/pip install --disable-pip-version-check "${torch_from[@]}" "$TORCH" -e ".[test]" "$@"
}

echo "[1/5] checking this machine"
[ "$(id -u)" -eq 0 ] ||
  die "run as root, or run \`make setup\` (it uses sudo): Mininet and network namespaces need root"
. /etc/os-release
case "${ID:-}-${VERSION_ID:-}" in
  debian-12 | ubuntu-24.04) ;;
  *) die "${PRETTY_NAME:-this system} is not supported: use Debian 12 or Ubuntu 24.04 (or the VM of vagrant/Vagrantfile)" ;;
esac
case "$(uname -m)" in
  x86_64 | aarch64) ;;
  *) die "the $(uname -m) architecture is not supported: use an x86_64 or aarch64 machine" ;;
esac
if [ -x "$PY" ] && ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  die "$PY is $("$PY" -V 2>&1), trainet needs Python 3.11 or newer: restore the distribution's python3"
fi
case "$build" in
  cpu | cuda | cu[0-9]*) ;;
  *) die "TRAINET_TORCH=$build is not a torch build: use cpu (the default), cuda, or an index name such as cu130" ;;
esac
mapfile -t PACKAGES < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' vagrant/packages.txt)

# The venv is planned before the other system packages are installed, so a machine that
# cannot get the torch it asked for is told so before anything but pip is installed.
want="$build $(sha256sum pyproject.toml | cut -c1-16)"
venv=kept   # kept | new | changing | ok: what to undo when the script stops early
trap '[ "$venv" = new ] || [ "$venv" = changing ] && rm -rf .venv &&
      echo "removed the unfinished .venv; a run after the fix starts it again" >&2' EXIT
if [ -x .venv/bin/python ] && [ "$(cat .venv/.installed 2>/dev/null)" = "$want" ]; then
  echo "[2/5] .venv is up to date (torch: $build)"
  venv=ok
else
  missing=$(missing_packages "${PLAN_TOOLS[@]}")
  if [ -n "$missing" ]; then
    echo "[2/5] installing what pip needs to plan: $(echo $missing)"
    apt_install --no-install-recommends $missing
  fi
  torch_from=()
  answered=no
  case "$build" in
    cpu)
      if answers "$index/cpu/torch/"; then
        answered=yes
        torch_from=(--extra-index-url "$index/cpu")
        echo "[2/5] planning .venv: torch from PyTorch's CPU index $index/cpu"
      else
        echo "[2/5] planning .venv: $index/cpu did not answer, torch from pip's configured indexes"
      fi ;;
    cu*)
      answers "$index/$build/torch/" ||
        die "TRAINET_TORCH=$build needs $index/$build, which did not answer: check the name against $index/ and the network"
      torch_from=(--extra-index-url "$index/$build")
      echo "[2/5] planning .venv: torch from $index/$build" ;;
    cuda) echo "[2/5] planning .venv: torch from pip's configured indexes, CUDA allowed" ;;
  esac
  # A venv made for another torch build, or left unfinished, is made again from scratch.
  [ "$(cut -d' ' -f1 .venv/.installed 2>/dev/null)" = "$build" ] || rm -rf .venv
  if [ ! -x .venv/bin/python ]; then
    venv=new
    "$PY" -m venv --system-site-packages .venv
  fi
  pip_install --dry-run --quiet --report .venv/plan.json ||
    die "pip could not plan the install (its message is above): check the network and pip's configuration (pip config list), then run again"
  .venv/bin/python vagrant/dry_run_check.py .venv/plan.json "$build" "$index/cpu" "$answered" ||
    exit 2
fi

missing=$(missing_packages "${PACKAGES[@]}")
if [ -n "$missing" ]; then
  echo "[3/5] installing system packages: $(echo $missing)"
  apt_install $missing   # with recommends: Mininet then brings the Open vSwitch tools it calls
  if [[ " $missing " == *" openssh-server "* ]] && command -v systemctl >/dev/null &&
     systemctl disable --now ssh >/dev/null 2>&1; then
    # a server listening on every interface is the user's choice, not a side effect of
    # setting up: cluster servers turn it on (README, Cluster mode)
    echo "      sshd installed, not started: a cluster server enables it (systemctl enable --now ssh)"
  fi
else
  echo "[3/5] system packages present"
fi

if [ "$venv" != ok ]; then
  echo "[4/5] installing .venv as planned"
  venv=changing
  pip_install --quiet ||
    die "pip stopped while installing (its message is above): check the network and disk space, then run again"
  echo "$want" > .venv/.installed
  venv=ok
else
  echo "[4/5] checking .venv"
fi
# p4runtime's generated modules, rewritten in the style protobuf 6's compiled runtime loads
# (the script says why; it leaves modules already rewritten alone)
.venv/bin/python vagrant/p4runtime_bindings.py ||
  die "could not rewrite p4runtime's generated modules in .venv (the error is above)"
torch=$(.venv/bin/python - <<'PY'
import p4.v1.p4runtime_pb2, p4.config.v1.p4info_pb2
from google.protobuf.internal import api_implementation
assert api_implementation.Type() != "python", "protobuf runs pure Python: reinstall protobuf"
import grpc, lark, mininet.net, pydantic, scapy, torch, yaml
print(torch.__version__, f"(CUDA {torch.version.cuda})" if torch.version.cuda else "(CPU only)")
PY
) || die "trainet's modules do not load in .venv (the error is above): remove it (rm -rf .venv) and run again"

# The outside P4Runtime clients (vagrant/clients.txt) get a venv of their own from the same
# Python, made again when their list or the Python changes: their pins are not trainet's.
# p4runtime-shell 0.0.6 pins protobuf<3.21, finsy needs 4.21 or newer: the shell and its
# bindings go in without their pins (vagrant/clients-nodeps.txt) and run on finsy's protobuf
# with the bindings rewritten as in .venv (each client in a process of its own: both
# register p4runtime's .proto files with protobuf). Without PyPI it is skipped: their tests then
# skip, saying so. The public
# axonn package (vagrant/axonn.txt), the cross-check of the axonn strategy, goes unpacked
# into .venv-clients/axonn without its one dependency, torch: the test's ranks run it on
# .venv's torch.
clients_want="$("$PY" -V 2>&1) $(cat vagrant/clients.txt vagrant/clients-nodeps.txt vagrant/axonn.txt \
                                   vagrant/p4runtime_bindings.py | sha256sum | cut -c1-16)"
if [ -x .venv-clients/bin/python ] &&
   [ "$(cat .venv-clients/.installed 2>/dev/null)" = "$clients_want" ]; then
  echo "[5/5] .venv-clients is up to date"
else
  echo "[5/5] installing .venv-clients: $(sed -e 's/#.*//' vagrant/clients.txt \
                                          vagrant/clients-nodeps.txt vagrant/axonn.txt | xargs)"
  rm -rf .venv-clients
  if ! failed=$("$PY" -m venv .venv-clients 2>&1 &&
                .venv-clients/bin/pip install --disable-pip-version-check --quiet --retries 1 \
                  --timeout 15 -r vagrant/clients.txt 2>&1 >/dev/null &&
                .venv-clients/bin/pip install --disable-pip-version-check --quiet --retries 1 \
                  --timeout 15 --no-deps -r vagrant/clients-nodeps.txt 2>&1 >/dev/null &&
                .venv-clients/bin/python vagrant/p4runtime_bindings.py 2>&1 >/dev/null &&
                .venv-clients/bin/python -c 'import finsy' 2>&1 &&
                .venv-clients/bin/python -c 'import p4runtime_sh.shell' 2>&1 &&
                .venv-clients/bin/pip install --disable-pip-version-check --quiet --retries 1 \
                  --timeout 15 --no-deps --target .venv-clients/axonn -r vagrant/axonn.txt \
                  2>&1 >/dev/null); then
    rm -rf .venv-clients
    echo "[5/5] skipped .venv-clients ($(echo "$failed" | grep -v '^ *$' | tail -n1));" \
         "the p4runtime-shell, finsy and axonn package tests skip; run again with PyPI reachable"
  else
    echo "$clients_want" > .venv-clients/.installed
  fi
fi
# DeepSpeed, optional: the cross-check of zero3 and zeropp against DeepSpeed's own ZeRO-3
# and hpZ (tests/experiment/test_deepspeed_crosscheck.py). Its pins agree with trainet's, so
# it goes into .venv, torch held at its version and none of its C++ ops built ahead.
DEEPSPEED=deepspeed==0.19.8
if .venv/bin/python -c 'import importlib.metadata as m, sys; sys.exit(m.version("deepspeed") != sys.argv[1])' \
     "${DEEPSPEED#*==}" 2>/dev/null; then
  echo "extra: DeepSpeed ${DEEPSPEED#*==} present"
elif failed=$(DS_BUILD_OPS=0 .venv/bin/pip install --disable-pip-version-check --quiet \
                --retries 1 --timeout 15 "$TORCH" "$DEEPSPEED" 2>&1); then
  echo "extra: DeepSpeed ${DEEPSPEED#*==} installed (no C++ ops built)"
else
  echo "extra: skipped DeepSpeed ($(echo "$failed" | grep -v '^ *$' | tail -n1)); the" \
       "DeepSpeed cross-check skips; run again with PyPI reachable"
fi
bash vagrant/link-command.sh
echo "ready: .venv takes $(du -sh .venv | cut -f1) on disk, torch $torch"
