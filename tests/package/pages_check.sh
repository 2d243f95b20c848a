#!/usr/bin/env bash
# pages_check.sh BLOCKWIRE MANDIR COMPLETION: the man pages in MANDIR and
# the bash completion script say what BLOCKWIRE's --help says: a page for
# the command and for each command its --help lists, each rendered by
# man -l and naming every option of that --help; completion of a command,
# an option and a network from the program's own help.
set -euo pipefail
bin=$1
man_dir=$2
completion=$3

commands=$("$bin" --help | awk '/^Subcommands:/ { s = 1; next } s && /^  [a-z]/ { print $1 }')
[ "$(wc -w <<<"$commands")" -ge 14 ] || { echo "pages_check: $bin --help lists too few commands: $commands" >&2; exit 1; }
for page in "" $commands; do
  file=$man_dir/blockwire${page:+-$page}.1.gz
  [ -f "$file" ] || { echo "pages_check: no man page $file" >&2; exit 1; }
  text=$(MANWIDTH=200 man -l "$file" 2>/dev/null)
  grep -q "^NAME" <<<"$text"
  grep -q "^SYNOPSIS" <<<"$text"
  grep -qF "blockwire${page:+ $page}" <<<"$(sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' <<<"$text")"
  for option in $("$bin" $page --help | grep -oE '^ +(-[a-zA-Z],)?--[a-z0-9-]+' | sed -E 's/^ +(-[a-zA-Z],)?//'); do
    grep -qe "$option" <<<"$text" || { echo "pages_check: the man page of '${page:-blockwire}' lacks $option" >&2; exit 1; }
  done
done
pages=$(find "$man_dir" -name 'blockwire*.1.gz' | wc -l)
[ "$pages" -eq $(($(wc -w <<<"$commands") + 1)) ] || { echo "pages_check: $pages pages for $(wc -w <<<"$commands") commands" >&2; exit 1; }

replies=$(bash -c 'source "$1"
  c() { COMP_WORDS=("$2" "${@:3}"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _blockwire; echo "${COMPREPLY[*]}"; }
  c "$1" "$2" ele; c "$1" "$2" rest --max-c; c "$1" "$2" serve --network t; c "$1" "$2" --conf x se' _ "$completion" "$bin")
[ "$replies" = $'electrum\n--max-connections\ntestnet3 testnet4\nserve' ] || { echo "pages_check: completion gave: $replies" >&2; exit 1; }
echo "pages_check: $pages pages, completion: ok"
