#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# run_unprivileged.sh <program> [args...]: runs a test program as user nobody with no
# capabilities (setpriv), as most users run it, from a copy in a fresh directory that user
# can enter (the build tree may sit under /root). Exit 77 (skipped) unless run as root with
# setpriv.
set -eu
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null 2>&1; then
  echo "run_unprivileged.sh: needs root and setpriv (util-linux) to drop to user nobody: skipped"
  exit 77
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp "$1" "$dir/program"
chmod 755 "$dir" "$dir/program"
shift
cd "$dir"
# Not exec: the trap removes the copy afterwards.
setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all ./program "$@"
