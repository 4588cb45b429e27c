#!/usr/bin/env bash
# Installs what is missing (scripts/setup.sh), builds the examples (Release, build/examples)
# and runs each one in build/examples/examples (where files they write land). Exits
# non-zero if an example fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup.sh

dir=build/examples
jobs=${PALLAS_JOBS:-2}
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DPALLAS_BUILD_TESTS=OFF -DPALLAS_BUILD_EXAMPLES=ON -DPALLAS_INSTALL=OFF
cmake --build "$dir" --parallel "$jobs"

shopt -s nullglob
mains=(examples/*/main.cpp)
if [ ${#mains[@]} -eq 0 ]; then
  echo "examples.sh: there is no example yet (examples/<name>/main.cpp)"
  exit 0
fi

failed=()
for main in "${mains[@]}"; do
  name=$(basename "$(dirname "$main")")
  echo
  echo "=== example_$name"
  if (cd "$dir/examples" && "./example_$name"); then
    echo "=== example_$name: ok"
  else
    echo "=== example_$name: FAILED (exit $?)"
    failed+=("$name")
  fi
done

echo
if [ ${#failed[@]} -ne 0 ]; then
  echo "examples.sh: ${#failed[@]} of ${#mains[@]} examples failed: ${failed[*]}"
  exit 1
fi
echo "examples.sh: all ${#mains[@]} examples ran correctly"
