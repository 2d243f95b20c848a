"""decode_block, decode_transaction and decode_header against python-bitcoinlib's reading of two real mainnet blocks
(every transaction, input and output), Bitcoin Core's decoderawtransaction objects (bitcoin-tx's expected outputs and
the regtest node's getblock 3), and the buffers the module takes and gives."""

import decimal
import gc
import glob
import hashlib
import json
import os
import pickle
import sys
import weakref

import bitcoin
from bitcoin.core import b2lx
from bitcoin.wallet import CBitcoinAddress
import pytest

import blockwire
from core_expect import address_template, assert_core_json, decoderawtransaction, display_hash

TX_JSON_DIR = os.path.join(os.environ['BLOCKWIRE_TEST_DATA'], 'core-tx-json')


def tx_json_files():
    files = sorted(glob.glob(os.path.join(TX_JSON_DIR, '*.json')))
    assert files, f'no Core transaction JSON in {TX_JSON_DIR}'
    return files


def load_tx_json(path):
    with open(path) as f:
        return json.load(f, parse_float=decimal.Decimal)


def with_inputs(path):
    return bool(load_tx_json(path)['vin'])


def blank(path):
    j = load_tx_json(path)
    return not j['vin'] and not j['vout']


def witness_stack(tx, i):
    """python-bitcoinlib's witness items of input i (a transaction without witness data has no CTxInWitness)."""
    return list(tx.wit.vtxinwit[i].scriptWitness.stack) if tx.has_witness() else []


def expected_sizes(ctx):
    """size, vsize and weight of a python-bitcoinlib transaction, from BIP141's definitions."""
    total = len(ctx.serialize())
    stripped = len(ctx.serialize({'include_witness': False}))
    weight = 3 * stripped + total
    return total, (weight + 3) // 4, weight


def test_block_facts(real_block):
    facts, cblock = real_block.facts, real_block.cblock
    block = blockwire.decode_block(real_block.raw)
    assert block.hash == facts['hash'] == b2lx(cblock.GetHash()), f'{real_block.name}: block hash'
    assert block.header.hash == block.hash, f'{real_block.name}: the header\'s hash is the block\'s'
    assert block.size == facts['size'] == len(real_block.raw), f'{real_block.name}: size'
    assert block.weight == facts['weight'], f'{real_block.name}: weight'
    assert len(block.transactions) == facts['transactions'] == len(cblock.vtx), f'{real_block.name}: transaction count'
    txids = block.txids()
    assert isinstance(txids, list) and len(txids) == facts['transactions'], f'{real_block.name}: txids(), a list'
    assert (txids[0], txids[-1]) == (facts['first_txid'], facts['last_txid']), f'{real_block.name}: first, last txid'
    last = block.transactions[len(block.transactions) - 1]
    assert last.wtxid == facts['last_wtxid'], f'{real_block.name}: last wtxid'
    assert sum(tx.has_witness() for tx in block.transactions) == facts['with_witness'], \
        f'{real_block.name}: transactions with witness data'


def test_header_fields(real_block):
    cblock = real_block.cblock
    header = blockwire.decode_block(real_block.raw).header
    expected = {
        'hash': b2lx(cblock.GetHash()),
        'version': cblock.nVersion,
        'prev_block': b2lx(cblock.hashPrevBlock),
        'merkle_root': b2lx(cblock.hashMerkleRoot),
        'time': cblock.nTime,
        'bits': cblock.nBits,
        'nonce': cblock.nNonce,
    }
    got = {k: getattr(header, k) for k in expected}
    assert got == expected, f'{real_block.name}: header fields differ from python-bitcoinlib\'s'
    assert header.merkle_root == real_block.facts['merkle_root'], f'{real_block.name}: merkle root'
    assert header.encode() == real_block.raw[:80], f'{real_block.name}: header.encode() is not the first 80 bytes'
    alone = blockwire.decode_header(real_block.raw[:80])
    assert {k: getattr(alone, k) for k in expected} == expected, f'{real_block.name}: decode_header of 80 bytes'


def test_every_transaction_matches_bitcoinlib(real_block):
    block = blockwire.decode_block(real_block.raw)
    txs = list(block.transactions)
    assert len(txs) == len(real_block.cblock.vtx), f'{real_block.name}: transaction count'
    assert block.txids() == [b2lx(c.GetTxid()) for c in real_block.cblock.vtx], f'{real_block.name}: txids()'
    for n, (tx, ctx) in enumerate(zip(txs, real_block.cblock.vtx)):
        where = f'{real_block.name} tx {n} ({b2lx(ctx.GetTxid())})'
        serialized = ctx.serialize()
        assert tx.txid == b2lx(ctx.GetTxid()), f'{where}: txid'
        assert tx.wtxid == display_hash(serialized), f'{where}: wtxid (SHA256d of the witness serialization)'
        assert (tx.size, tx.vsize, tx.weight) == expected_sizes(ctx), f'{where}: (size, vsize, weight)'
        assert (tx.version, tx.lock_time) == (ctx.nVersion, ctx.nLockTime), f'{where}: version, lock time'
        assert tx.is_coinbase() == ctx.is_coinbase(), f'{where}: is_coinbase()'
        assert tx.has_witness() == ctx.has_witness(), f'{where}: has_witness()'
        assert tx.encode() == serialized, f'{where}: encode() is not the transaction\'s bytes'
        assert len(tx.inputs) == len(ctx.vin), f'{where}: input count'
        for i, (txin, cin) in enumerate(zip(tx.inputs, ctx.vin)):
            expected = (b2lx(cin.prevout.hash), cin.prevout.n, bytes(cin.scriptSig), cin.nSequence,
                        witness_stack(ctx, i))
            got = (txin.prevout.txid, txin.prevout.vout, txin.script_sig, txin.sequence, list(txin.witness))
            assert got == expected, f'{where} input {i}: (prevout txid, vout, script_sig, sequence, witness)'
            assert tuple(txin.prevout) == expected[:2], f'{where} input {i}: iterating the OutPoint gives (txid, vout)'
        assert len(tx.outputs) == len(ctx.vout), f'{where}: output count'
        for i, (out, cout) in enumerate(zip(tx.outputs, ctx.vout)):
            assert (out.value, out.script_pubkey) == (cout.nValue, bytes(cout.scriptPubKey)), \
                f'{where} output {i}: (value, script_pubkey)'


def test_output_addresses_match_bitcoinlib(real_block):
    """python-bitcoinlib encodes P2PKH, P2SH, P2WPKH and P2WSH as Core does; for those the address and Core's type name
    must agree. Where bitcoinlib cannot make an address, blockwire may still know one (taproot) or say None."""
    bitcoin.SelectParams('mainnet')
    block = blockwire.decode_block(real_block.raw)
    checked = 0
    for n, (tx, ctx) in enumerate(zip(block.transactions, real_block.cblock.vtx)):
        for i, (out, cout) in enumerate(zip(tx.outputs, ctx.vout)):
            kind = address_template(cout.scriptPubKey)
            if kind is None:
                continue
            expected = str(CBitcoinAddress.from_scriptPubKey(cout.scriptPubKey))
            where = f'{real_block.name} tx {n} output {i} ({bytes(cout.scriptPubKey).hex()})'
            assert out.address() == expected, f'{where}: address()'
            assert out.address('mainnet') == expected, f'{where}: address(\'mainnet\')'
            assert out.type == kind, f'{where}: type'
            checked += 1
    assert checked > 1000, f'{real_block.name}: only {checked} outputs of a known template'


def core_tx_json_cases(select):
    return [pytest.param(p, id=os.path.basename(p)) for p in tx_json_files() if select(p)]


@pytest.mark.parametrize('path', core_tx_json_cases(lambda p: with_inputs(p) or blank(p)))
def test_decoderawtransaction_matches_core(path):
    expected = load_tx_json(path)
    tx = blockwire.decode_transaction(bytes.fromhex(expected['hex']))
    assert_core_json(tx.to_json(), decoderawtransaction(expected), f'to_json() of {os.path.basename(path)}')
    assert tx.encode().hex() == expected['hex'], f'{os.path.basename(path)}: encode() is not the bytes decoded'


@pytest.mark.parametrize('path', core_tx_json_cases(lambda p: not with_inputs(p) and not blank(p)))
def test_inputless_transactions_decode_as_core_does(path):
    """A transaction with no inputs and some outputs begins 00 01 after its version: the BIP144 marker and flag to a
    witness-aware reader. Core's decoderawtransaction (DecodeHexTx) reads it as the legacy form when the extended one
    does not decode, and so does bitcoin-tx, whose output this is."""
    expected = load_tx_json(path)
    tx = blockwire.decode_transaction(bytes.fromhex(expected['hex']))
    assert_core_json(tx.to_json(), decoderawtransaction(expected), f'to_json() of {os.path.basename(path)}')
    assert tx.encode().hex() == expected['hex'], f'{os.path.basename(path)}: encode() is not the bytes decoded'


def regtest_transactions(getblock3, core_rpc):
    """Every transaction object Core's regtest node gave with getblock 3: the best chain's and the stale blocks'."""
    for block in getblock3:
        yield from block['tx']
    for stale in core_rpc('stale_blocks'):
        yield from core_rpc(f'stale_{stale["hash"]}_getblock3')['tx']


def test_regtest_to_json_matches_core(getblock3, core_rpc):
    """Every script type Core's wallet makes (taproot, multisig, P2PK, OP_RETURN) on regtest, its addresses with
    regtest's prefixes: to_json('regtest') is getblock 3's transaction object without what undo data and the hex add."""
    count = 0
    for t in regtest_transactions(getblock3, core_rpc):
        tx = blockwire.decode_transaction(bytes.fromhex(t['hex']))
        assert (tx.txid, tx.wtxid, tx.size, tx.vsize, tx.weight) == (t['txid'], t['hash'], t['size'], t['vsize'],
                                                                      t['weight']), f'{t["txid"]}: ids and sizes'
        assert_core_json(tx.to_json('regtest'), decoderawtransaction(t), f'to_json(\'regtest\') of {t["txid"]}')
        for n, (out, vout) in enumerate(zip(tx.outputs, t['vout'])):
            spk = vout['scriptPubKey']
            assert out.type == spk['type'], f'{t["txid"]} output {n}: type'
            assert out.address('regtest') == spk.get('address'), f'{t["txid"]} output {n}: address(\'regtest\')'
        count += 1
    assert count >= 379, f'only {count} regtest transactions compared'


def test_stale_blocks_decode(core_rpc):
    for stale in core_rpc('stale_blocks'):
        raw = bytes.fromhex(stale['getblock0'])
        block = blockwire.decode_block(raw)
        core = core_rpc(f'stale_{stale["hash"]}_getblock2')
        assert block.hash == stale['hash'], 'hash of a stale block'
        assert block.txids() == [t['txid'] for t in core['tx']], f'{stale["hash"]}: txids'
        assert (block.size, block.weight) == (core['size'], core['weight']), f'{stale["hash"]}: size, weight'
        assert block.encode() == raw, f'{stale["hash"]}: encode()'


def test_inputs_of_every_buffer_kind(legacy_block):
    raw = legacy_block.raw
    padded = b'\x00garbage' + raw + b'more garbage'
    kinds = {
        'bytes': raw,
        'bytearray': bytearray(raw),
        'memoryview': memoryview(raw),
        'slice of a larger buffer': memoryview(padded)[8:8 + len(raw)],
    }
    for kind, data in kinds.items():
        block = blockwire.decode_block(data)
        assert block.hash == legacy_block.facts['hash'], f'decode_block of {kind}: hash'
        assert block.encode() == raw, f'decode_block of {kind}: encode() is not the input\'s bytes'
    tx_bytes = legacy_block.cblock.vtx[1].serialize()
    for kind, data in {'bytes': tx_bytes, 'bytearray': bytearray(tx_bytes), 'memoryview': memoryview(tx_bytes)}.items():
        assert blockwire.decode_transaction(data).txid == b2lx(legacy_block.cblock.vtx[1].GetTxid()), \
            f'decode_transaction of {kind}'
    assert blockwire.decode_header(bytearray(raw[:80])).hash == legacy_block.facts['hash'], 'decode_header of bytearray'


def test_block_copies_its_input(legacy_block):
    raw = legacy_block.raw
    data = bytearray(raw)
    block = blockwire.decode_block(data)
    data[:] = bytes(len(data))
    assert block.hash == legacy_block.facts['hash'], 'the Block changed when the bytearray it came from did'
    assert block.txids() == [b2lx(c.GetTxid()) for c in legacy_block.cblock.vtx], 'txids changed with the bytearray'
    assert block.encode() == raw, 'encode() changed with the bytearray'
    assert bytes(memoryview(block)) == raw, 'memoryview(block) changed with the bytearray'
    # A buffer still exported to the Block would make resizing raise BufferError.
    data.extend(b'\x00')
    del data[:]


def test_memoryview_of_block_outlives_it(legacy_block):
    raw = legacy_block.raw
    block = blockwire.decode_block(raw)
    view = memoryview(block)
    assert view.readonly, 'memoryview(block) must be read-only: the block\'s hashes are of those bytes'
    assert view.nbytes == len(raw), 'memoryview(block) has the block\'s size'
    del block
    gc.collect()
    assert view.tobytes() == raw, 'memoryview(block) after the Block was deleted is not the block\'s bytes'
    assert hashlib.sha256(view).digest() == hashlib.sha256(raw).digest(), 'the view does not hash as the block\'s bytes'
    view.release()


def test_transaction_outlives_its_block(segwit_block):
    ctx = segwit_block.cblock.vtx[-1]
    block = blockwire.decode_block(segwit_block.raw)
    tx = block.transactions[len(block.transactions) - 1]
    inputs, outputs = tx.inputs, tx.outputs
    del block
    gc.collect()
    assert tx.txid == segwit_block.facts['last_txid'], 'txid of a Transaction kept after its Block was deleted'
    assert tx.wtxid == segwit_block.facts['last_wtxid'], 'wtxid of a Transaction kept after its Block was deleted'
    assert tx.encode() == ctx.serialize(), 'encode() of a Transaction kept after its Block was deleted'
    assert [i.script_sig for i in inputs] == [bytes(i.scriptSig) for i in ctx.vin], 'inputs kept after the Block'
    assert [o.value for o in outputs] == [o.nValue for o in ctx.vout], 'outputs kept after the Block'


def test_transactions_is_a_sequence(legacy_block):
    block = blockwire.decode_block(legacy_block.raw)
    txs = block.transactions
    n = len(txs)
    assert n == legacy_block.facts['transactions'], 'len(block.transactions)'
    assert [tx.txid for tx in txs] == [txs[i].txid for i in range(n)], 'iteration and indexing disagree'
    with pytest.raises(IndexError):
        txs[n]


def test_transaction_round_trip(segwit_block):
    for ctx in segwit_block.cblock.vtx[:50]:
        raw = ctx.serialize()
        tx = blockwire.decode_transaction(raw)
        assert tx.txid == b2lx(ctx.GetTxid()), 'decode_transaction: txid'
        assert tx.encode() == raw, f'{tx.txid}: encode() of decode_transaction is not the bytes'


def test_error_classes():
    assert issubclass(blockwire.Error, Exception)
    assert issubclass(blockwire.DataError, blockwire.Error) and issubclass(blockwire.DataError, ValueError)
    assert issubclass(blockwire.IOFailure, blockwire.Error) and issubclass(blockwire.IOFailure, OSError)
    assert issubclass(blockwire.UsageError, blockwire.Error) and issubclass(blockwire.UsageError, ValueError)


def test_bytes_are_read_in_place(legacy_block):
    # A memoryview of bytes is not copied: the block keeps its buffer exported, so the view cannot be released under it.
    view = memoryview(legacy_block.raw)
    block = blockwire.decode_block(view)
    with pytest.raises(BufferError):
        view.release()
    assert block.hash == legacy_block.facts['hash']
    del block
    gc.collect()
    view.release()


def test_negative_index_and_outpoints_compare(legacy_block):
    block = blockwire.decode_block(legacy_block.raw)
    assert block.transactions[-1].txid == legacy_block.facts['last_txid']
    with pytest.raises(IndexError):
        block.transactions[-len(block.transactions) - 1]
    prevout = block.transactions[1].inputs[0].prevout
    assert prevout != None  # noqa: E711 (the comparison itself is what is tested)
    assert prevout == block.transactions[1].inputs[0].prevout
    assert tuple(prevout) == (b2lx(legacy_block.cblock.vtx[1].vin[0].prevout.hash), legacy_block.cblock.vtx[1].vin[0].prevout.n)


def test_inputs_and_outputs_are_made_once(real_block):
    """tx.inputs and tx.outputs are made at the first reading and kept (each reading made every input again, so that
    tx.inputs[i] in a loop over i was quadratic): the same tuple each time, its items python-bitcoinlib's."""
    block = blockwire.decode_block(real_block.raw)
    n, at = max((len(c.vin), i) for i, c in enumerate(real_block.cblock.vtx))  # the transaction with the most inputs
    ctx = real_block.cblock.vtx[at]
    tx = block.transactions[at]
    assert n > 1 and len(tx.inputs) == n
    first = tx.inputs
    assert isinstance(first, tuple) and isinstance(tx.outputs, tuple)
    assert all(tx.inputs is first for _ in range(3)) and tx.outputs is tx.outputs
    assert [tx.inputs[i] is first[i] for i in range(n)] == [True] * n
    assert [tx.inputs[i].prevout.vout for i in range(n)] == [c.prevout.n for c in ctx.vin]
    assert [tx.inputs[i].script_sig for i in range(n)] == [bytes(c.scriptSig) for c in ctx.vin]
    assert [o.value for o in tx.outputs] == [o.nValue for o in ctx.vout]
    # A Transaction taken again from the block is another object, made afresh: the same values.
    again = block.transactions[at]
    assert again.inputs is not first and [i.prevout for i in again.inputs] == [i.prevout for i in first]


def test_transaction_type_is_the_modules_own(legacy_block):
    """Transaction is a CPython type of the module's (a block's loop makes one a transaction): Python cannot make
    one, its methods refuse another object, its attributes are read-only, and each object it made gives back its
    reference to the type when it goes (a leak would keep the type's count growing)."""
    with pytest.raises(TypeError):
        blockwire.Transaction()
    block = blockwire.decode_block(legacy_block.raw)
    with pytest.raises(TypeError):
        blockwire.Transaction.encode(block)
    tx = block.transactions[0]
    with pytest.raises(AttributeError):
        tx.txid = '00' * 32
    with pytest.raises(ValueError):
        tx.to_json(network='nonet')
    with pytest.raises(TypeError):
        type('Mine', (blockwire.Transaction,), {})
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):  # 0 and 1 would pickle it, and fail to load it
        with pytest.raises(TypeError):
            pickle.dumps(tx, protocol)
    kept = weakref.ref(tx)
    assert kept() is tx
    assert repr(tx) == f'<blockwire.Transaction {legacy_block.facts["first_txid"]}>'
    del tx
    gc.collect()
    assert kept() is None
    # (Counted outside the asserts: pytest's rewriting of an assert holds what it evaluates.)
    before = sys.getrefcount(blockwire.Transaction)
    for _ in range(3):
        made = list(blockwire.decode_block(legacy_block.raw).transactions)
        with_them = sys.getrefcount(blockwire.Transaction)
        assert with_them == before + len(made)
        del made
        after = sys.getrefcount(blockwire.Transaction)
        assert after == before
