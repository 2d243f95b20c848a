"""The package as a type checker sees it (mypy, with the package's own stubs and annotations): what the public calls
return (open_directory a Directory, not Any), a typed program that uses them checks clean under --strict, mistakes in
one are found, and the package itself (blockwire/__init__.py, distributed.py against _blockwire.pyi) checks clean."""

import os
import re
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip('mypy')

import blockwire  # noqa: E402

PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(blockwire.__file__)))

REVEALED = {
    'blockwire.open_directory(path)': 'blockwire._blockwire.Directory',
    'blockwire.open_directory("~/.bitcoin/blocks", network="regtest")': 'blockwire._blockwire.Directory',
    'blockwire.read_utxos(path)': 'blockwire._blockwire.Coins',
    'blockwire.utxo_set_info("chainstate")': 'blockwire._blockwire.UtxoSetInfo',
    'next(iter(blockwire.read_utxos(path))).value': 'builtins.int',
    'd.block(0).transactions[0].inputs': 'builtins.tuple[blockwire._blockwire.Input, ...]',
    'd.block(0).transactions[0].outputs[0].value': 'builtins.int',
    'report.shards[0]': 'TypedDict(\'blockwire._blockwire._ShardOutcome\'',
    'report.shards[0]["reached"]': 'builtins.bool',
    'report.made': 'builtins.int',
    'blockwire.distributed.export_utxos(client, path, "out")["hash_serialized_3"]': 'builtins.str',
}

GOOD = '''
import pathlib
from typing import Any

import blockwire
import blockwire.distributed


def check(client: Any) -> None:
    path = pathlib.Path("blocks")
    d = blockwire.open_directory(path)
    report = blockwire.distributed.export(client, path, "out")
{reveals}
'''

MISTAKES = {
    'blockwire.open_directory(3)': 'arg-type',
    'len(blockwire.open_directory("x")) + ""': 'operator',
    'report.shards[0]["reachd"]': 'typeddict-item',
    'blockwire.read_utxos("x").best_block.upper()': 'union-attr',
    'd.block(0).transactions[0].inputs.append(None)': 'attr-defined',
}


@pytest.fixture(scope='module')
def cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp('mypy-cache'))


def mypy(cache, tmp_path, *args):
    env = dict(os.environ, MYPYPATH=PACKAGE_ROOT)
    return subprocess.run([sys.executable, '-m', 'mypy', '--cache-dir', cache, '--no-error-summary',
                           '--show-error-codes', '--hide-error-context', *args], capture_output=True, text=True,
                          env=env, timeout=300, cwd=tmp_path)


def program(tmp_path, name, lines):
    path = tmp_path / name
    path.write_text(GOOD.format(reveals=textwrap.indent('\n'.join(lines), ' ' * 4)))
    return str(path)


def test_a_typed_program_checks_and_sees_the_types(cache, tmp_path):
    """--strict, the package's own modules' errors silenced as an installed package's are (what a user of it sees)."""
    lines = [f'reveal_type({expression})' for expression in REVEALED]
    r = mypy(cache, tmp_path, '--strict', '--follow-imports=silent', program(tmp_path, 'good.py', lines))
    revealed = re.findall(r'^good\.py:\d+: note: Revealed type is "(.*)"$', r.stdout, re.M)
    others = [line for line in r.stdout.splitlines() if 'Revealed type is' not in line]
    assert not others and r.returncode == 0, r.stdout + r.stderr
    assert len(revealed) == len(REVEALED), r.stdout
    for (expression, expected), seen in zip(REVEALED.items(), revealed):
        assert seen.startswith(expected), (expression, seen)


def test_mistakes_are_found(cache, tmp_path):
    lines = list(MISTAKES)
    r = mypy(cache, tmp_path, '--strict', '--follow-imports=silent', program(tmp_path, 'bad.py', lines))
    found = {}
    for line, code in re.findall(r'^bad\.py:(\d+): error: .*\[([a-z-]+)\]$', r.stdout, re.M):
        found.setdefault(int(line), set()).add(code)
    start = GOOD.split('\n').index('{reveals}') + 1  # the file's line of the first mistake
    for n, (expression, code) in enumerate(MISTAKES.items()):
        assert code in found.get(start + n, set()), (expression, code, r.stdout)
    assert len(found) == len(MISTAKES), r.stdout


def test_the_package_checks(cache, tmp_path):
    """blockwire/__init__.py and distributed.py against the stubs, mypy's defaults (distributed's own calls are
    untyped: --strict would flag Dask rather than the package)."""
    r = mypy(cache, tmp_path, '-p', 'blockwire')
    assert r.returncode == 0 and r.stdout == '', r.stdout + r.stderr
