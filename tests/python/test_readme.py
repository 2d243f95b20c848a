"""The README's Python example, run as written on Core's regtest directory: its fees by year equal those of Core's
own getblock 3 answers."""
import collections
import contextlib
import datetime
import decimal
import io
import json
import os
import re


def readme_example():
    root = os.path.dirname(os.path.dirname(os.path.abspath(os.environ['BLOCKWIRE_TEST_DATA'])))
    text = open(os.path.join(root, 'README.md')).read()
    section = text[text.index('## From Python'):]
    blocks = re.findall(r'```python\n(.*?)```', section, re.S)
    assert blocks, 'no python block in the README\'s "From Python"'
    return blocks[0]


def test_fees_by_year_as_cores_getblock_3():
    data = os.environ['BLOCKWIRE_TEST_DATA']
    code = readme_example()
    assert "'~/.bitcoin/blocks'" in code
    code = code.replace("'~/.bitcoin/blocks'", repr(os.path.join(data, 'core-regtest', 'blocks')))
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, 'README.md', 'exec'), {})
    got = eval(printed.getvalue())

    with open(os.path.join(data, 'core-regtest', 'rpc', 'getblock3.json')) as f:
        core = json.load(f, parse_float=decimal.Decimal)
    expected = collections.Counter()
    for block in core[1:]:
        year = datetime.datetime.fromtimestamp(block['time'], datetime.timezone.utc).year
        expected[year] += sum(int(tx['fee'] * 100_000_000) for tx in block['tx'][1:])
    assert got == {year: sats / 1e8 for year, sats in sorted(expected.items())}
    assert sum(expected.values()) > 0, 'the fixture has fees: the check could fail'
