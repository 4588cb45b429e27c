#!/usr/bin/env bash
# How good the compile-time diagnostics are, per compiler, over tests/compile_fail/ (one
# file per rule: the mistake under PALLAS_COMPILE_FAIL, the expected message on line 1):
#
#   g++: <caught>/<rules> rules caught, <n>/<caught> with one error, <m>/<caught> with numbers in the message
#
# caught: the compiler rejects the file and its output matches the expected message.
# one error: one `error:` line per mistake, no cascade after the library's message (a file
#   with two mistakes says so on line 2, `// expect-error-count: gcc=2 clang=2`, as ctest reads it).
# numbers: the library's diagnostic (its error line with the instantiation context g++ prints
#   before it and the notes both compilers print after it, locations and source excerpts
#   left out) carries a digit: the sizes it compares, in the message, the static_assert's
#   condition or the failing template's arguments. A rule that compares no numbers (a
#   semaphore's kind) says `// expect-no-numbers: <why>` in its header and counts as numbered
#   when its message is caught.
# Each file is compiled -fsyntax-only against a precompiled umbrella header (again without
# it when clang crashes on the file with it, as clang 14 does on some).
#
#   bash scripts/diagnostics.sh                       # g++ and clang++
#   PALLAS_DIAG_COMPILERS=g++ bash scripts/diagnostics.sh
#   bash scripts/diagnostics.sh -v                    # one line per rule
#   PALLAS_DIAG_LOGS=/tmp/d bash scripts/diagnostics.sh  # keep the compilers' outputs there
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

verbose=0
[ "${1:-}" = "-v" ] && verbose=1
compilers=${PALLAS_DIAG_COMPILERS:-g++ clang++}
if [ -n "${PALLAS_DIAG_LOGS:-}" ]; then
  work=$PALLAS_DIAG_LOGS
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi

# The library's diagnostic in a compiler output: the first error whose line names pallas::
# (else the first error), with its context and notes, without locations, source excerpts,
# g++'s `auto:N` parameter names and clang's `(lambda at file:line:col)`.
library_diagnostic() {
  awk '
    function flush() { if (open && (chosen == "" || (!named && cur_named))) { chosen = cur; named = cur_named } open = 0 }
    / error: / { flush(); cur = pending $0 "\n"; cur_named = ($0 ~ /error: .*pallas::/); pending = ""; open = 1; next }
    / note: / { if (open) cur = cur $0 "\n"; else pending = pending $0 "\n"; next }
    /: In |In file included from|^ +from |required from|required by substitution|In substitution of/ {
      flush(); pending = pending $0 "\n"; next }
    END { flush(); printf "%s", chosen }
  ' "$1" | sed -E -e 's/[^ ]*:[0-9]+:[0-9]+:?//g' -e 's/[^ ]*:[0-9]+[:,]//g' -e 's/auto:[0-9]+//g' \
               -e 's/\(lambda at [^)]*\)//g' -e 's/[0-9]+ errors? generated//g'
}

flags=(-std=c++20 -Wall -Wextra -Wpedantic -Werror -DPALLAS_CHECKED=1 -Iinclude -isystem /usr/include/eigen3)
printf '#include <pallas/pallas.hpp>\n' >"$work/pch.hpp"

for cxx in $compilers; do
  command -v "$cxx" >/dev/null || { echo "diagnostics.sh: $cxx not found; skipped" >&2; continue; }
  pch=("$work/pch_$cxx.hpp")
  cp "$work/pch.hpp" "${pch[0]}"
  ext=gch
  [[ $cxx == clang* ]] && ext=pch
  "$cxx" "${flags[@]}" -x c++-header "${pch[0]}" -o "${pch[0]}.$ext"
  total=0 caught=0 single=0 numbered=0
  for source in tests/compile_fail/*.cpp; do
    total=$((total + 1))
    rule=$(basename "$source" .cpp)
    regex=$(head -n 1 "$source" | sed -n 's|^// expect-error: ||p')
    out="$work/$rule.$cxx.log"
    status=0
    "$cxx" "${flags[@]}" -include "${pch[0]}" -fsyntax-only -DPALLAS_COMPILE_FAIL "$source" >"$out" 2>&1 || status=$?
    if [ "$status" -eq 139 ] || grep -q 'PLEASE submit a bug report' "$out"; then  # a crash on the PCH
      status=0
      "$cxx" "${flags[@]}" -fsyntax-only -DPALLAS_COMPILE_FAIL "$source" >"$out" 2>&1 || status=$?
    fi
    if [ "$status" -eq 0 ]; then
      verdict="NOT CAUGHT (compiles)"
    elif ! grep -Ezq -- "$regex" "$out"; then  # -z: the whole output, as ctest matches it
      verdict="NOT CAUGHT (message does not match)"
    else
      caught=$((caught + 1))
      errors=$(grep -c 'error:' "$out" || true)
      message=$(library_diagnostic "$out")
      key=gcc
      [[ $cxx == clang* ]] && key=clang
      expected=$(sed -n '2s|^// expect-error-count:.*'"$key"'=\([0-9][0-9]*\).*|\1|p' "$source")
      expected=${expected:-1}
      verdict="$errors error(s)"
      [ "$expected" -eq 1 ] || verdict="$verdict for $expected mistakes"
      [ "$errors" -eq "$expected" ] && single=$((single + 1))
      if [[ $message =~ [0-9] ]] || grep -q '^// expect-no-numbers:' "$source"; then
        numbered=$((numbered + 1))
      else
        verdict="$verdict, no numbers"
      fi
    fi
    [ "$verbose" -eq 0 ] || printf '  %-8s %-50s %s\n' "$cxx" "$rule" "$verdict"
  done
  echo "$cxx: $caught/$total rules caught, $single/$caught with one error per mistake, $numbered/$caught with numbers in the message"
done
