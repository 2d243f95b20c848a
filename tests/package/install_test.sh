#!/usr/bin/env bash
# The Debian packages scripts/package made (build/packages), installed and
# used from where they land: with dpkg -i and purged with dpkg -P after
# (whatever happens) when this runs as root, else unpacked into a scratch
# root with dpkg -x. From there:
# - blockwire --version says the project's version;
# - the man pages and bash completion in step with --help
#   (tests/package/pages_check.sh);
# - the README's sample job (pack the two real blocks, scan them);
# - the units and the settings file are where the docs say;
# - Debian's python3 imports the module and decodes a real block (its hash
#   is the file's name);
# - tests/consumer built with pkg-config's flags alone against the
#   installed headers and libraries, decoding a real block.
# usage: tests/package/install_test.sh (from the repository's top folder)
set -euo pipefail
cd "$(dirname "$0")/../.."
shopt -s nullglob
debs=(build/packages/*.deb)
[ ${#debs[@]} -eq 3 ] || { echo "install_test: expected 3 packages in build/packages, found ${#debs[@]}" >&2; exit 1; }
version=$(sed -n 's/^project(blockwire VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
work=$(mktemp -d)
root=""
installed=0
cleanup() {
  if [ "$installed" -eq 1 ]; then dpkg -P python3-blockwire libblockwire-dev blockwire >/dev/null; fi
  rm -rf "$work"
}
trap cleanup EXIT

# (a blockwire the machine had before is left alone: unpacked beside it instead)
if [ "$(id -u)" -eq 0 ] && ! dpkg-query -W -f='${Status}' blockwire 2>/dev/null | grep -q "ok installed"; then
  echo "install_test: dpkg -i ${debs[*]}"
  installed=1
  dpkg -i "${debs[@]}" >/dev/null
else
  root=$work/root
  echo "install_test: dpkg -x into $root"
  for d in "${debs[@]}"; do dpkg -x "$d" "$root"; done
fi
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
bin=$root/usr/bin/blockwire
export PKG_CONFIG_PATH=$root/usr/lib/$multiarch/pkgconfig
export PYTHONPATH=$root/usr/lib/python3/dist-packages

echo "version"
[ "$("$bin" --version)" = "blockwire $version" ]

echo "man pages and completion"
tests/package/pages_check.sh "$bin" "$root/usr/share/man/man1" "$root/usr/share/bash-completion/completions/blockwire"

echo "units and settings"
for unit in rest serve electrum; do
  grep -q "^ExecStart=/usr/bin/blockwire $unit --conf /etc/blockwire/blockwire.conf$" "$root/usr/lib/systemd/system/blockwire-$unit.service"
done
"$bin" config --show rest --conf "$root/etc/blockwire/blockwire.conf" >/dev/null
if [ "$installed" -eq 1 ]; then grep -qx /etc/blockwire/blockwire.conf /var/lib/dpkg/info/blockwire.conffiles; fi

echo "the README's sample job"
"$bin" pack -o "$work/sample-blocks" --random-key tests/data/*.raw
"$bin" scan "$work/sample-blocks"

echo "python3-blockwire"
block=$(ls tests/data/block_*.raw)
hash=$(basename "$block" .raw)
hash=${hash#block_}
/usr/bin/python3 - "$block" "$hash" "$root" <<'EOF'
import sys
import blockwire
assert blockwire.__file__.startswith(sys.argv[3] + '/usr/lib/python3/dist-packages/'), blockwire.__file__
with open(sys.argv[1], 'rb') as f:
    block = blockwire.decode_block(f.read())
assert block.hash == sys.argv[2], (block.hash, sys.argv[2])
EOF

echo "libblockwire-dev with pkg-config"
# shellcheck disable=SC2046
c++ -std=c++20 -O1 tests/consumer/main.cpp -o "$work/consumer" $(pkg-config --cflags --libs blockwire)
[ "$(pkg-config --modversion blockwire)" = "$version" ]
out=$("$work/consumer" "$block")
[ "${out%% *}" = "$hash" ]
echo "install_test: ok"
