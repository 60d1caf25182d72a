#!/usr/bin/env bash
# Optional: BMv2 (simple_switch_grpc) and p4c from the p4lang packages on the openSUSE
# build service, so the `bmv2` switch target can be compared with the software target.
# Failure here is not fatal: trainet's own target needs neither.
set -u
. /etc/os-release
repo="https://download.opensuse.org/repositories/home:/p4lang/Debian_${VERSION_ID}"
if curl -fsSL "$repo/Release.key" -o /tmp/p4lang.key 2>/dev/null; then
  gpg --dearmor < /tmp/p4lang.key > /etc/apt/trusted.gpg.d/p4lang.gpg
  echo "deb $repo/ /" > /etc/apt/sources.list.d/p4lang.list
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq p4lang-bmv2 p4lang-p4c \
    || echo "BMv2/p4c packages not installed; the software target is still available"
else
  echo "p4lang package repository not reachable; skipping BMv2/p4c"
fi
