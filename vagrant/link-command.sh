#!/usr/bin/env bash
# Puts the `trainet` command on root's PATH: a link BINDIR/trainet (default /usr/local/bin,
# which sudo's secure_path holds, where .venv/bin is not) to this checkout's
# .venv/bin/trainet, so `sudo trainet run ...` works. A BINDIR/trainet that is not a link
# (installed by something else) is left alone, with a note.
set -euo pipefail
cd "$(dirname "$0")/.."
bindir=${1:-/usr/local/bin}
target="$PWD/.venv/bin/trainet"
link="$bindir/trainet"
mkdir -p "$bindir"
if [ -e "$link" ] && [ ! -L "$link" ]; then
  echo "note: $link exists and is not a link; call $target instead"
  exit 0
fi
ln -sfn "$target" "$link"
echo "trainet command: $link -> $target"
