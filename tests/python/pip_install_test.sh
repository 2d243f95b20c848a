#!/usr/bin/env bash
# pip install . of blockwire into a new virtual environment (Debian's
# system packages visible: setuptools, offline), the extension taken from
# BUILD_DIR's, then the installed package imported from elsewhere and used.
# Usage: pip_install_test.sh PYTHON SOURCE_DIR BUILD_DIR WORK_DIR
set -euo pipefail
python=$1 source=$2 build=$3 work=$4
rm -rf "$work"
mkdir -p "$work/src"
# The sources pip is given: the project without its build trees and test data.
tar -C "$source" --exclude=./build --exclude=./tests --exclude=./.git -cf - . | tar -C "$work/src" -xf -
"$python" -m venv --system-site-packages "$work/venv"
unset PYTHONPATH
BLOCKWIRE_CMAKE_BUILD_DIR=$build "$work/venv/bin/pip" install --no-build-isolation --no-index --quiet "$work/src"
cd "$work"
"$work/venv/bin/python" - "$BLOCKWIRE_TEST_DATA" <<'PY'
import os
import sys

import blockwire

package = os.path.dirname(blockwire.__file__)
assert package.startswith(sys.prefix), f'imported from {package}, not the environment {sys.prefix}'
for f in ('_blockwire.pyi', 'py.typed'):
    assert os.path.exists(os.path.join(package, f)), f'{f} not installed'
raw = open(os.path.join(sys.argv[1], 'block413567.raw'), 'rb').read()
block = blockwire.decode_block(raw)
# Block 413567's hash and last txid (tests/data/README.md).
assert block.hash == '0000000000000000025aff8be8a55df8f89c77296db6198f272d6577325d4069', block.hash
assert block.txids()[-1] == '63434bb06525615f43954598d281d03feaae70658c4187ccb3ba7fa7b093a0b8'
print('installed and imported from', package)
PY
