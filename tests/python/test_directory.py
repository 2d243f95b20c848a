"""open_directory on the blocks directory Bitcoin Core's regtest node wrote (tests/data/core-regtest), against Core's
own RPC answers about it: getblockhash for every height, getblock at verbosities 0-3, fees and the spent coins (undo
data) from getblock 3's prevout objects."""

import errno
import os
import subprocess

import pytest

import blockwire
from core_expect import (assert_core_json, block_bytes, getblock1, getblock2, is_coinbase, sats)

PAST_TIP = (blockwire.UsageError, IndexError)


def test_open_missing_directory(tmp_path):
    missing = str(tmp_path / 'no-such-blocks-dir')
    with pytest.raises(blockwire.Error) as caught:
        blockwire.open_directory(missing)
    assert isinstance(caught.value, (blockwire.IOFailure, blockwire.DataError)), \
        f'a missing directory raised {type(caught.value).__name__}, not IOFailure or DataError'
    assert missing in str(caught.value), f'the error does not name the path: {caught.value}'
    if isinstance(caught.value, blockwire.IOFailure):
        assert caught.value.errno == errno.ENOENT, f'errno of a missing directory: {caught.value.errno}'


def test_open_as_another_network(regtest_dir):
    # Core's regtest node wrote these records: opened as mainnet's, the library says so (not a directory of no
    # chain), in the words and with the condition the command has for the same request (exit 2: usage).
    path = os.path.join(regtest_dir, 'blocks')
    with pytest.raises(blockwire.UsageError) as caught:
        blockwire.open_directory(path, network='mainnet')
    e = caught.value
    assert (e.condition, e.category) == ('usage', 'blockwire.directory'), (e.condition, e.category)
    assert str(e) == f"{path}: reading blk files: its records are regtest's (their magic), not mainnet's: " \
                     'records of another network than the one asked for', str(e)
    command = os.environ.get('BLOCKWIRE_COMMAND')
    if not command:
        pytest.fail('BLOCKWIRE_COMMAND must name the blockwire binary', pytrace=False)
    r = subprocess.run([command, 'blocks', path, '--network', 'mainnet'], capture_output=True, text=True, timeout=120)
    assert (r.returncode, r.stdout, r.stderr) == (2, '', f'blockwire blocks: {e}\n')


def test_opens_core_directory(directory, regtest_dir, getblockhash):
    assert directory.network == 'regtest', 'network of Core\'s regtest directory'
    assert len(directory) == len(getblockhash) == 238, 'len(directory) is not the best chain\'s 238 blocks'
    assert os.path.samefile(directory.path, os.path.join(regtest_dir, 'blocks')), 'directory.path'
    assert directory.has_undo, 'Core\'s directory has rev files'


def test_block_hash_of_every_height(directory, getblockhash):
    got = [directory.block_hash(h) for h in range(len(getblockhash))]
    wrong = [h for h, (g, e) in enumerate(zip(got, getblockhash)) if g != e]
    assert not wrong, f'block_hash differs from Core\'s getblockhash at heights {wrong[:10]}'


def test_past_the_tip(directory):
    tip = len(directory)
    calls = {
        'block_hash': lambda: directory.block_hash(tip),
        'header': lambda: directory.header(tip),
        'block': lambda: directory.block(tip),
        'getblock': lambda: directory.getblock(tip, 1),
        'undo': lambda: directory.undo(tip),
        'fee': lambda: directory.fee(tip),
    }
    for name, call in calls.items():
        with pytest.raises(PAST_TIP):
            call()
            pytest.fail(f'{name}({tip}) past the tip did not raise')


def test_headers(directory, getblock3):
    for b in getblock3:
        header = directory.header(b['height'])
        expected = (b['hash'], b['version'], b.get('previousblockhash', '00' * 32), b['merkleroot'], b['time'],
                    int(b['bits'], 16), b['nonce'])
        got = (header.hash, header.version, header.prev_block, header.merkle_root, header.time, header.bits,
               header.nonce)
        assert got == expected, f'header({b["height"]}) differs from Core\'s getblock'


def test_blocks_is_lazy(directory, getblockhash):
    it = directory.blocks()
    assert not isinstance(it, (list, tuple)), 'blocks() must be an iterator, not a list'
    assert iter(it) is it, 'blocks() must be an iterator'
    first = next(it)
    assert first.hash == getblockhash[0], 'the first of blocks() is not the regtest genesis block'
    assert next(it).hash == getblockhash[1], 'the second of blocks() is not height 1'


def test_blocks_range(directory, getblockhash):
    assert [b.hash for b in directory.blocks(230)] == getblockhash[230:], 'blocks(230): heights 230 to the tip'
    assert [b.hash for b in directory.blocks(10, 15)] == getblockhash[10:15], 'blocks(10, 15)'
    assert [b.hash for b in directory.blocks()] == getblockhash, 'blocks(): every height'


def test_blocks_and_their_bytes(directory, getblock3):
    for b in getblock3:
        h = b['height']
        raw = block_bytes(b)
        block = directory.block(h)
        assert block.hash == b['hash'], f'block({h}).hash'
        assert block.txids() == [t['txid'] for t in b['tx']], f'block({h}).txids()'
        assert (block.size, block.weight) == (b['size'], b['weight']), f'block({h}): size, weight'
        assert block.encode() == raw, f'block({h}).encode() is not the block Core\'s getblock describes'
        assert directory.getblock(h, 0) == raw.hex(), f'getblock({h}, 0) is not the block\'s hex'


def test_getblock3_matches_core(directory, getblock3):
    for b in getblock3:
        assert_core_json(directory.getblock(b['height'], 3), b, f'getblock({b["height"]}, 3)')


def test_getblock2_matches_core(directory, getblock3):
    for b in getblock3:
        assert_core_json(directory.getblock(b['height'], 2), getblock2(b), f'getblock({b["height"]}, 2)')


def test_getblock1_matches_core(directory, getblock3):
    for b in getblock3:
        h = b['height']
        assert_core_json(directory.getblock(h, 1), getblock1(b), f'getblock({h}, 1)')
        assert_core_json(directory.getblock(h), getblock1(b), f'getblock({h}) (verbosity 1 by default)')


def test_fees(directory, getblock3):
    # Genesis has no undo record in Core's rev files, so no fee from them.
    for b in getblock3[1:]:
        expected = sum(sats(t['fee']) for t in b['tx'] if not is_coinbase(t))
        assert directory.fee(b['height']) == expected, f'fee({b["height"]}) differs from the sum of Core\'s fees'


def test_undo_matches_core_prevouts(directory, getblock3):
    spent = 0
    for b in getblock3[1:]:
        h = b['height']
        undo = directory.undo(h)
        txs = b['tx']
        assert len(undo) == len(txs) - 1, f'undo({h}): {len(undo)} entries for {len(txs) - 1} non-coinbase transactions'
        for t, coins in zip(txs[1:], undo):
            expected = [(p['height'], p['generated'], sats(p['value']), bytes.fromhex(p['scriptPubKey']['hex']))
                        for p in (i['prevout'] for i in t['vin'])]
            got = [(c.height, c.coinbase, c.value, c.script_pubkey) for c in coins]
            assert got == expected, f'undo({h}) of {t["txid"]}: (height, coinbase, value, script) of the coins spent'
            spent += len(got)
    assert spent == 302, f'{spent} spent coins compared, Core\'s chain spends 302'
