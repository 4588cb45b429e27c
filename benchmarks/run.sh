#!/usr/bin/env bash
# Builds every benchmarks/*.cpp (Release, -O3 -march=native, build/bench), runs each, and
# prints one line per goal: `<name>: <ratio> (goal >= <value>)` or `(goal <= <value>)`.
# Arguments are passed to every benchmark program (e.g. --benchmark_min_time=0.1).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup.sh libbenchmark-dev libopenblas-dev  # Eigen is in the base set

shopt -s nullglob
sources=(benchmarks/*.cpp)
if [ ${#sources[@]} -eq 0 ]; then
  echo "run.sh: there is no benchmark yet (benchmarks/<name>.cpp)"
  exit 0
fi

dir=build/bench
jobs=${PALLAS_JOBS:-2}
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPALLAS_BUILD_BENCHMARKS=ON \
  -DPALLAS_BUILD_TESTS=OFF -DPALLAS_BUILD_EXAMPLES=OFF -DPALLAS_INSTALL=OFF
cmake --build "$dir" --parallel "$jobs"

goal_re='^[a-z0-9_ .-]+: [0-9.]+ \(goal [<>]= [0-9.]+\)$'
goals=()
failed=()
for source in "${sources[@]}"; do
  name=$(basename "$source" .cpp)
  log=$dir/bench_$name.log
  echo
  echo "=== bench_$name"
  set +e
  "$dir/benchmarks/bench_$name" "$@" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  set -e
  [ "$status" -eq 0 ] || failed+=("bench_$name (exit $status)")
  while IFS= read -r line; do goals+=("$line"); done < <(sed -E 's/\x1b\[[0-9;]*m//g' "$log" | grep -E "$goal_re" || true)
done

echo
echo "=== goals"
if [ ${#goals[@]} -eq 0 ]; then
  echo "(no benchmark printed a goal line)"
else
  printf '%s\n' "${goals[@]}"
fi
if [ ${#failed[@]} -ne 0 ]; then
  echo "run.sh: failed: ${failed[*]}" >&2
  exit 1
fi
