"""The data the tests compare blockwire with: tests/data (BLOCKWIRE_TEST_DATA, set by the test harness), the two real
mainnet blocks as python-bitcoinlib reads them, and Bitcoin Core's own answers about the regtest directory it wrote."""

import collections
import decimal
import json
import os

import bitcoin.core
import pytest

import blockwire

SEGWIT_HASH = '000000000000000000000c835b2adcaedc20fdf6ee440009c249452c726dafae'

# tests/data/README.md's facts about the two blocks.
RealBlock = collections.namedtuple('RealBlock', 'name raw cblock facts')
FACTS = {
    'block413567': {
        'file': 'block413567.raw',
        'hash': '0000000000000000025aff8be8a55df8f89c77296db6198f272d6577325d4069',
        'size': 999_887,
        'transactions': 1557,
        'merkle_root': '64a50c649fc816baaa2effda230c39cacf1504e4e616a2863685b72aaa7dce05',
        'first_txid': '5b4aaef3f4e4625d70385ddf0bd2a0b7d7141e4c2fd36d2ff2cad37fff3deb0f',
        'last_txid': '63434bb06525615f43954598d281d03feaae70658c4187ccb3ba7fa7b093a0b8',
        'last_wtxid': '63434bb06525615f43954598d281d03feaae70658c4187ccb3ba7fa7b093a0b8',
        'weight': 3_999_548,
        'with_witness': 0,
    },
    'segwit': {
        'file': f'block_{SEGWIT_HASH}.raw',
        'hash': SEGWIT_HASH,
        'size': 1_381_836,
        'transactions': 2500,
        'merkle_root': '407d72768cec1a244b7599af79f554055c72d6b2356c890f8c25abf797679022',
        'first_txid': '764b60c3d9a2c3c5bb6fe7141d9ca6e6778122df75f19366a2c5cb948d1d7d84',
        'last_txid': '2947daf667b1914a2f060e8cf10267ca1d056f0dab3ccb273da474f063b7f412',
        'last_wtxid': '87adb95df3cadce2bf86d4c58d68bd02412bd9e99d64ab46b9f6603debfa69ab',
        'weight': 3_993_054,
        'with_witness': 2065,
    },
}

REGTEST_BLOCKS = 238


@pytest.fixture(scope='session')
def data_dir():
    path = os.environ.get('BLOCKWIRE_TEST_DATA')
    if not path:
        pytest.fail('BLOCKWIRE_TEST_DATA is not set: it must be the absolute path of tests/data', pytrace=False)
    if not os.path.isdir(path):
        pytest.fail(f'BLOCKWIRE_TEST_DATA={path!r} is not a directory (it must be tests/data)', pytrace=False)
    return path


@pytest.fixture(scope='session')
def real_blocks(data_dir):
    """Both real blocks by name: their bytes, python-bitcoinlib's CBlock of them, and the README's facts."""
    out = {}
    for name, facts in FACTS.items():
        with open(os.path.join(data_dir, facts['file']), 'rb') as f:
            raw = f.read()
        out[name] = RealBlock(name, raw, bitcoin.core.CBlock.deserialize(raw), facts)
    return out


@pytest.fixture(scope='session', params=sorted(FACTS))
def real_block(request, real_blocks):
    return real_blocks[request.param]


@pytest.fixture(scope='session')
def legacy_block(real_blocks):
    return real_blocks['block413567']


@pytest.fixture(scope='session')
def segwit_block(real_blocks):
    return real_blocks['segwit']


@pytest.fixture(scope='session')
def regtest_dir(data_dir):
    return os.path.join(data_dir, 'core-regtest')


@pytest.fixture(scope='session')
def core_rpc(regtest_dir):
    """Core's answer in core-regtest/rpc/NAME.json, amounts as Decimal."""
    cache = {}

    def load(name):
        if name not in cache:
            with open(os.path.join(regtest_dir, 'rpc', name + '.json')) as f:
                cache[name] = json.load(f, parse_float=decimal.Decimal)
        return cache[name]

    return load


@pytest.fixture(scope='session')
def getblock3(core_rpc):
    blocks = core_rpc('getblock3')
    assert [b['height'] for b in blocks] == list(range(REGTEST_BLOCKS)), 'getblock3.json is not heights 0-237 in order'
    return blocks


@pytest.fixture(scope='session')
def getblockhash(core_rpc):
    return core_rpc('getblockhash')


@pytest.fixture(scope='session')
def directory(regtest_dir):
    return blockwire.open_directory(os.path.join(regtest_dir, 'blocks'))
