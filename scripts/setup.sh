#!/usr/bin/env bash
# Installs what pallas-cpp needs to build and test on Debian 12 (bookworm), and nothing
# when it is all there already. Extra Debian packages may be named as arguments:
#   bash scripts/setup.sh                                  # the build and test set
#   bash scripts/setup.sh libbenchmark-dev libopenblas-dev # plus these
set -euo pipefail

packages=(cmake ninja-build g++ clang libclang-rt-dev libboost-dev catch2 libblis-pthread-dev libeigen3-dev python3 python3-numpy pkg-config
  doxygen libopenmpi-dev openmpi-bin
  "$@")

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null || true)
  [ "$status" = installed ] || missing+=("$package")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup.sh: all packages present (${packages[*]})"
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup.sh: missing ${missing[*]} and no apt-get here; install them by hand" >&2
  exit 1
fi
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    sudo=(sudo)
  else
    echo "setup.sh: missing ${missing[*]}; run as root or install sudo" >&2
    exit 1
  fi
fi

echo "setup.sh: installing ${missing[*]}"
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -q --no-install-recommends "${missing[@]}"
