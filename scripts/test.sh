#!/usr/bin/env bash
# The whole pallas-cpp test suite, as CI runs it (.ci/run):
#   gcc    g++ Debug: unit tests, examples, headers, compile-fail, single header, packaging
#   clang  clang++ Debug: unit tests, examples, compile-fail messages, single header
#   asan   clang++ with -fsanitize=address,undefined: unit tests, examples, two-TU test
#          (not the unit tests' second build under separate compilation)
#   tsan   clang++ with -fsanitize=thread: the same
# The sanitizer builds use clang++ because it builds them in half the time g++ does (asan:
# 674 s of CPU against about 1,300 s; its tests ran in 2m37s against 4m27s), and both
# compilers' plain builds already ran. PALLAS_SANITIZER_CXX=g++ uses g++ instead.
# Each configuration builds in build/<name> with Ninja (-O0, line tables only: -g1). gcc and
# clang run the tests with the automatic DMA executor, then the unit tests once more under
# each executor (PALLAS_DMA_ENGINE=inline, thread), and gcc under the eager and random DMA
# orders (PALLAS_DMA_ORDER; random with seed 1 or PALLAS_TEST_DMA_SEED); the sanitizer
# builds run everything once with the DMA thread (PALLAS_DMA_ENGINE=thread). It stops at the first failure. The soak test builds with -O2 in gcc
# and clang: its results check optimized code.
#
#   bash scripts/test.sh                                # everything
#   PALLAS_TEST_CONFIGS=gcc bash scripts/test.sh        # a subset: gcc,clang,asan,tsan
#   PALLAS_JOBS=4 bash scripts/test.sh                  # build/test parallelism (2)
#   PALLAS_CTEST_ARGS='-R unit\.' bash scripts/test.sh  # extra ctest arguments
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

configs=${PALLAS_TEST_CONFIGS:-gcc,clang,asan,tsan}
# The random DMA order's seed for the gcc run: fixed, so that a run repeats the last one's
# copy orders; PALLAS_TEST_DMA_SEED tries another.
random_seed=${PALLAS_TEST_DMA_SEED:-1}
configs=${configs//,/ }
jobs=${PALLAS_JOBS:-2}
read -r -a extra_ctest <<<"${PALLAS_CTEST_ARGS:-}"
for config in $configs; do
  case $config in
    gcc | clang | asan | tsan) ;;
    *) echo "test.sh: unknown configuration '$config' (use gcc, clang, asan, tsan)" >&2; exit 2 ;;
  esac
done

bash scripts/setup.sh

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}

summary=()
total_passed=0
total_failed=0
script_start=$SECONDS
current=""

elapsed() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

on_exit() {
  local status=$?
  if [ $status -ne 0 ]; then
    echo
    for line in "${summary[@]}"; do echo "test.sh: $line"; done
    echo "test.sh: FAILED in ${current:-set-up} after $(elapsed $((SECONDS - script_start)))"
  fi
}
trap on_exit EXIT

# TSan maps its shadow memory at fixed addresses; on kernels with more mmap randomisation
# bits than it expects it dies with "unexpected memory mapping". Then run it with address
# space randomisation off (setarch -R), which children inherit.
tsan_wrapper() {
  local cxx=$1 dir=build/tsan-probe
  mkdir -p "$dir"
  printf '%s\n' '#include <thread>' \
    'int main() { int x = 0; std::jthread t([&] { x = 1; }); t.join(); return x - 1; }' \
    >"$dir/probe.cpp"
  "$cxx" -std=c++20 -fsanitize=thread -g "$dir/probe.cpp" -o "$dir/probe" -pthread >&2
  if "$dir/probe" >"$dir/probe.log" 2>&1; then
    return 0
  fi
  if setarch "$(uname -m)" -R "$dir/probe" >>"$dir/probe.log" 2>&1; then
    echo "setarch $(uname -m) -R"
    return 0
  fi
  echo "test.sh: a trivial TSan program fails here, with and without setarch -R:" >&2
  cat "$dir/probe.log" >&2
  return 1
}

run_config() {
  local name=$1 cxx=$2 build_type=$3 sanitize=$4
  local dir=build/$name
  # -g1: line tables are all a failure's backtrace needs, and full debug information costs
  # 15-20% of the compile time (kernel_test.cpp, g++: 17.3 s with -g, 14.6 s with -g1).
  local cmake_args=(-S . -B "$dir" -G Ninja
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE="$build_type" -DCMAKE_CXX_FLAGS_DEBUG=-g1
    -DPALLAS_BUILD_TESTS=ON -DPALLAS_BUILD_EXAMPLES=ON -DPALLAS_SANITIZE="$sanitize")
  local ctest_args=(--test-dir "$dir" --output-on-failure -j "$jobs" --timeout 900)
  local wrapper=() executor_env=()
  if [ -n "$sanitize" ]; then
    # What the sanitizers look for (a copy outliving its memory, a race with the mover)
    # needs another thread to move the bytes, so they run every test with the DMA thread
    # (cores still move write-backs and help with fetches). The automatic rule and the
    # inline executor are the same code under gcc and clang, which run both.
    executor_env=(env PALLAS_DMA_ENGINE=thread)
    # Sanitizers check running code; the compile-time and packaging checks ran already.
    # -O0: with sanitizers, -O1 costs 2.5x the compile time and the tests run in seconds.
    # The unit tests' second build under separate compilation (the same library code, compiled
    # the other way: g++ and clang++ run it) would add about 70 s to each sanitizer build.
    cmake_args+=(-DPALLAS_TEST_HEADERS=OFF
      -DPALLAS_TEST_PACKAGING=OFF -DPALLAS_TEST_COMPILE_FAIL=OFF -DPALLAS_TEST_SEPARATE_UNITS=OFF)
    ctest_args+=(-LE 'package|compile_fail|single_include|docs')
  elif [ "$name" = clang ]; then
    # The second compiler checks what depends on the compiler: the unit tests, the
    # examples and every compile-fail message. Whether each header stands alone, the
    # packaging, and that each compile-fail test compiles without its mistake (the twins)
    # were checked with g++.
    cmake_args+=(-DPALLAS_TEST_HEADERS=OFF -DPALLAS_TEST_PACKAGING=OFF
      -DPALLAS_TEST_COMPILE_FAIL=ON -DPALLAS_COMPILE_FAIL_TWINS=OFF)
    ctest_args+=(-LE docs)  # the reference does not depend on the compiler
  else
    cmake_args+=(-DPALLAS_TEST_HEADERS=ON -DPALLAS_TEST_PACKAGING=ON
      -DPALLAS_TEST_COMPILE_FAIL=ON -DPALLAS_COMPILE_FAIL_TWINS=ON)
  fi
  if [ "$sanitize" = thread ]; then
    local w
    w=$(tsan_wrapper "$cxx")
    [ -z "$w" ] || read -r -a wrapper <<<"$w"
  fi

  echo
  echo "=== $name: $cxx $build_type${sanitize:+ -fsanitize=$sanitize}${wrapper[*]:+ (under ${wrapper[*]})}${executor_env[*]:+ (${executor_env[*]})}"
  current="$name (build)"
  local start=$SECONDS
  cmake "${cmake_args[@]}"
  "${wrapper[@]}" cmake --build "$dir" --parallel "$jobs"
  local built=$((SECONDS - start))

  current="$name (ctest)"
  start=$SECONDS
  local log=$dir/ctest.log
  set +e
  "${executor_env[@]}" "${wrapper[@]}" ctest "${ctest_args[@]}" "${extra_ctest[@]}" 2>&1 | tee "$log"
  local status=${PIPESTATUS[0]}
  set -e
  local tested=$((SECONDS - start))

  local counts passed=0 failed=0 total=0
  counts=$(grep -Eo '[0-9]+ tests? failed out of [0-9]+' "$log" | tail -n 1 || true)
  if [ -n "$counts" ]; then
    failed=${counts%% *}
    total=${counts##* }
    passed=$((total - failed))
  fi
  summary+=("$name: build $(elapsed $built), ctest $(elapsed $tested), $passed/$total passed")
  echo "test.sh: ${summary[-1]}"
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
  if [ "$status" -ne 0 ]; then
    return "$status"
  fi
  if [ "$total" -eq 0 ]; then
    echo "test.sh: $name ran no test" >&2
    return 1
  fi

  # The unit tests once more under each DMA executor (the run above used the automatic
  # choice: the DMA thread for launches that leave a CPU free, the cores otherwise), and in
  # gcc under the two other DMA orders (the runs above moved each copy's bytes at its wait).
  local setting settings=(PALLAS_DMA_ENGINE=inline PALLAS_DMA_ENGINE=thread)
  [ "$name" != gcc ] || settings+=(PALLAS_DMA_ORDER=eager "PALLAS_DMA_ORDER=random PALLAS_DMA_SEED=$random_seed")
  [ -z "$sanitize" ] || settings=()
  for setting in ${settings[@]+"${settings[@]}"}; do
    current="$name (unit tests, $setting)"
    start=$SECONDS
    log=$dir/ctest_$(echo "${setting%% *}" | tr '=' '_').log
    set +e
    # shellcheck disable=SC2086 # $setting is one or two NAME=value words
    env $setting "${wrapper[@]}" ctest "${ctest_args[@]}" -L unit "${extra_ctest[@]}" >"$log" 2>&1
    status=$?
    set -e
    counts=$(grep -Eo '[0-9]+ tests? failed out of [0-9]+' "$log" | tail -n 1 || true)
    failed=${counts%% *}
    total=${counts##* }
    summary+=("$name: unit tests with $setting $(elapsed $((SECONDS - start))), $((total - failed))/$total passed")
    echo "test.sh: ${summary[-1]}"
    total_passed=$((total_passed + total - failed))
    total_failed=$((total_failed + failed))
    if [ "$status" -ne 0 ]; then
      grep -E 'Failed|\*\*\*|FAILED' "$log" | head -40
      return "$status"
    fi
  done
}

sanitizer_cxx=${PALLAS_SANITIZER_CXX:-clang++}
for config in $configs; do
  case $config in
    gcc) run_config gcc g++ Debug "" ;;
    # -O0: clang's -O2 -g took 2.6x as long to build (kernel_test.cpp: 24.8 s, 9.4 s).
    clang) run_config clang clang++ Debug "" ;;
    asan) run_config asan "$sanitizer_cxx" Debug "address,undefined" ;;
    tsan) run_config tsan "$sanitizer_cxx" Debug thread ;;
  esac
done

current=""
echo
for line in "${summary[@]}"; do echo "test.sh: $line"; done
echo "test.sh: all configurations passed ($configs) in $(elapsed $((SECONDS - script_start)))"
echo "tests: $total_passed passed, $total_failed failed"
