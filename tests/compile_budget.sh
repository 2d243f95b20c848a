#!/bin/sh
# What a program that uses blockwire compiles: bench/compile/public_api.cpp
# (<blockwire/codec.hpp> and a block encoded to a sink of its own),
# preprocessed with the compiler the build uses. Its lines and headers are
# held to the bounds in tests/compile_budget.txt, so that what a change adds
# to every user's translation unit is seen at once, not in the next round's
# timings. A change that must grow them raises the bounds there, and says
# why in its commit.
# Usage: compile_budget.sh CXX SOURCE_DIR
set -eu
cxx=$1
src=$2
. "$src/tests/compile_budget.txt"
flags="-std=c++20 -O2 -DNDEBUG -I$src/io/include -I$src/codec/primitives/include"
tu="$src/bench/compile/public_api.cpp"
# One pass: the preprocessed lines on standard output, the headers (-H) on
# standard error.
included=$(mktemp)
trap 'rm -f "$included"' EXIT
lines=$($cxx $flags -E -H "$tu" 2>"$included" | wc -l)
headers=$(grep -c '^\.' "$included" || true)
echo "preprocessed: $lines lines (at most $max_lines), $headers headers (at most $max_headers)"
status=0
if [ "$lines" -gt "$max_lines" ]; then
  echo "a program's translation unit of <blockwire/codec.hpp> grew past $max_lines lines; the headers it takes:"
  status=1
fi
if [ "$headers" -gt "$max_headers" ]; then
  echo "a program's translation unit of <blockwire/codec.hpp> includes more than $max_headers headers:"
  status=1
fi
if [ "$status" -ne 0 ]; then
  grep '^\.\{1,3\} ' "$included"
fi
exit $status
