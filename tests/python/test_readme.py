"""The README's Python example, run as written on Core's regtest directory: its fees by year equal those of Core's
own getblock 3 answers."""
import collections
import contextlib
import datetime
import io
import os
import re

from core_expect import sats


def readme_example(data_dir):
    root = os.path.dirname(os.path.dirname(os.path.abspath(data_dir)))
    text = open(os.path.join(root, 'README.md')).read()
    section = text[text.index('## From Python'):]
    blocks = re.findall(r'```python\n(.*?)```', section, re.S)
    assert blocks, 'no python block in the README\'s "From Python"'
    return blocks[0]


def test_fees_by_year_as_cores_getblock_3(data_dir, getblock3):
    code = readme_example(data_dir)
    assert "'~/.bitcoin/blocks'" in code
    code = code.replace("'~/.bitcoin/blocks'", repr(os.path.join(data_dir, 'core-regtest', 'blocks')))
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, 'README.md', 'exec'), {})
    got = eval(printed.getvalue())

    expected = collections.Counter()
    for block in getblock3[1:]:
        year = datetime.datetime.fromtimestamp(block['time'], datetime.timezone.utc).year
        expected[year] += sum(sats(tx['fee']) for tx in block['tx'][1:])
    assert got == {year: total / 1e8 for year, total in sorted(expected.items())}
    assert sum(expected.values()) > 0, 'the fixture has fees: the check could fail'
