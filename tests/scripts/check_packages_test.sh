#!/usr/bin/env bash
# Tests scripts/check-packages on small projects of its own: a package CMake
# finds must be on the list (or brought in by it), and a file no Debian
# package installed fails. Usage: check_packages_test.sh SOURCE_DIR WORK_DIR
set -u
src=$1 work=$2
check=$src/scripts/check-packages
rm -rf "$work" && mkdir -p "$work"
failures=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }

configure() {  # configure() NAME CMAKE-LINES: a project that only finds packages
  mkdir -p "$work/$1"
  printf 'cmake_minimum_required(VERSION 3.25)\nproject(%s NONE)\n%s\n' "$1" "$2" >"$work/$1/CMakeLists.txt"
  cmake -S "$work/$1" -B "$work/$1/build" -G Ninja >"$work/$1/configure.log" 2>&1 || { cat "$work/$1/configure.log"; exit 1; }
}

# CLI11 is installed (the command needs it) and on the list.
configure uses_cli11 'find_package(CLI11 CONFIG REQUIRED)'
"$check" "$work/uses_cli11/build" >"$work/listed.out" 2>&1 || fail "CLI11 is listed, yet the check failed: $(cat "$work/listed.out")"

# The same project against a list that lacks libcli11-dev: the mistake the
# check exists for (installed on this machine, missing from the list).
grep -v '^libcli11-dev' "$src/scripts/packages" >"$work/without-cli11"
if "$check" --list "$work/without-cli11" "$work/uses_cli11/build" >"$work/unlisted.out" 2>&1; then
  fail "an unlisted package passed the check"
fi
grep -q "CLI11_DIR = .*Debian package libcli11-dev" "$work/unlisted.out" || fail "the failure does not name libcli11-dev: $(cat "$work/unlisted.out")"

# A package installed by hand (no Debian package owns its files).
mkdir -p "$work/by-hand/lib/cmake/Fake"
echo 'set(Fake_FOUND TRUE)' >"$work/by-hand/lib/cmake/Fake/FakeConfig.cmake"
configure uses_fake "find_package(Fake CONFIG REQUIRED PATHS \"$work/by-hand\" NO_DEFAULT_PATH)"
if "$check" "$work/uses_fake/build" >"$work/fake.out" 2>&1; then fail "a hand-installed package passed the check"; fi
grep -q "FakeConfig.cmake belongs to no Debian package" "$work/fake.out" || fail "the failure does not name the hand-installed file: $(cat "$work/fake.out")"

# A listed package that is not installed is reported as such.
{ cat "$src/scripts/packages"; echo "blockwire-no-such-package"; } >"$work/with-missing"
if "$check" --list "$work/with-missing" "$work/uses_cli11/build" >"$work/missing.out" 2>&1; then fail "a listed but absent package passed"; fi
grep -q "blockwire-no-such-package is on .* but not installed" "$work/missing.out" || fail "the absent package is not named: $(cat "$work/missing.out")"

# No cache: a clear error, not a pass.
if "$check" "$work/nowhere" >"$work/nocache.out" 2>&1; then fail "a build directory with no cache passed"; fi

[ "$failures" -eq 0 ] && echo "check-packages: 5 checks passed"
exit "$failures"
