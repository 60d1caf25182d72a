#!/usr/bin/env bash
# Install everything trainet needs on a Debian/Ubuntu machine, as root:
# system packages (Mininet, iproute2, ethtool, tcpdump, iperf3) and the virtual
# environment .venv (torch 2.13.0 CPU, P4Runtime protobufs, ...) with trainet in it.
# Safe to run again: it skips what is already in place.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" -ne 0 ]; then
  echo "error: run as root (sudo $0): Mininet and network namespaces need it" >&2
  exit 2
fi

# With recommends: Mininet then brings the Open vSwitch tools its cleanup calls.
APT_PACKAGES="python3 python3-venv python3-pip mininet iproute2 ethtool tcpdump iperf3 iputils-ping procps tshark"
missing=""
for p in $APT_PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "[1/3] installing system packages:$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq $missing >/dev/null
else
  echo "[1/3] system packages present"
fi

# Mininet's Python package comes from Debian and lives in the system interpreter's
# dist-packages, so the venv is made from /usr/bin/python3 with system site packages.
PY=/usr/bin/python3
stamp=.venv/.installed
want="$(sha256sum pyproject.toml | cut -c1-16)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "[2/3] virtual environment .venv up to date"
else
  echo "[2/3] creating .venv (torch 2.13.0 CPU and the other Python dependencies)"
  [ -x .venv/bin/python ] || "$PY" -m venv --system-site-packages .venv
  .venv/bin/pip install -q --disable-pip-version-check --upgrade pip
  # torch first and pinned: an unpinned request would pull the multi-GB CUDA build.
  .venv/bin/pip install -q --disable-pip-version-check torch==2.13.0
  .venv/bin/pip install -q --disable-pip-version-check -e ".[test]"
  echo "$want" > "$stamp"
fi

echo "[3/3] checking the installation"
.venv/bin/python - <<'PY'
import p4.v1.p4runtime_pb2, p4.config.v1.p4info_pb2  # protobuf 3.x bindings must load
import grpc, lark, pydantic, scapy, torch, yaml, mininet.net
print(f"  torch {torch.__version__}, grpc {grpc.__version__}, pydantic {pydantic.__version__}: ok")
PY
