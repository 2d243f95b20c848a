"""Hostile bytes: mutations of a real block and of a real segwit transaction (fixed seed) either decode, and then encode
back to the same bytes, or raise blockwire.DataError, never another exception and never a crash; truncation says at
which byte; trailing bytes, absurd counts and non-canonical sizes (refused by Core's ReadCompactSize) are DataError."""

import random

import pytest

import blockwire
from core_expect import compact_size

SEED = 413567
BLOCK_MUTATIONS = 300
TX_MUTATIONS = 600


def mutate(rng, raw):
    """One of: 1-4 bytes flipped (half of them in the first 4 KiB, where the header, the counts and the first
    transactions' framing are), a truncation, or 1-8 random bytes inserted. Returns (description, bytes, truncated)."""
    kind = rng.randrange(3)
    data = bytearray(raw)
    if kind == 0:
        spots = []
        for _ in range(rng.randint(1, 4)):
            spot = rng.randrange(min(len(data), 4096)) if rng.random() < 0.5 else rng.randrange(len(data))
            data[spot] ^= rng.randint(1, 255)
            spots.append(spot)
        return f'bytes {spots} flipped', bytes(data), False
    if kind == 1:
        cut = rng.randrange(len(data))
        return f'cut to {cut} bytes', bytes(data[:cut]), True
    spot = rng.randrange(len(data) + 1)
    extra = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
    data[spot:spot] = extra
    return f'{extra.hex()} inserted at byte {spot}', bytes(data), False


def check_data_error(error, data, what):
    assert isinstance(error.offset, int), f'{what}: DataError.offset is {error.offset!r}, not an int'
    assert 0 <= error.offset <= len(data), f'{what}: DataError.offset {error.offset} is past the input\'s {len(data)}'
    assert str(error.offset) in str(error), f'{what}: the message does not say the byte ({error.offset}): {error}'
    assert isinstance(error.code, int) and error.code != 0, f'{what}: DataError.code is {error.code!r}'
    assert isinstance(error.category, str) and error.category, f'{what}: DataError.category is {error.category!r}'
    assert error.condition == 'bad_data', f'{what}: DataError.condition is {error.condition!r}'


def touch_transaction(tx, to_json):
    """Every field of a decoded transaction (they are read from its bytes when asked for), with BIP141's relations."""
    assert len(tx.txid) == len(tx.wtxid) == 64, 'txid and wtxid are 32 bytes of hex'
    assert tx.size <= tx.weight <= 4 * tx.size and tx.vsize == (tx.weight + 3) // 4, 'size, weight and vsize'
    assert isinstance(tx.is_coinbase(), bool) and isinstance(tx.has_witness(), bool)
    for i in tx.inputs:
        assert len(tuple(i.prevout)) == 2 and isinstance(i.script_sig, bytes) and isinstance(i.sequence, int)
        assert all(isinstance(item, bytes) for item in i.witness)
    for o in tx.outputs:
        assert isinstance(o.value, int) and isinstance(o.script_pubkey, bytes) and isinstance(o.type, str)
        assert o.address() is None or isinstance(o.address(), str)
    if to_json:
        assert tx.to_json()['txid'] == tx.txid, 'to_json()\'s txid'


def touch_block(block):
    """A block's transactions are read when asked for; Core's asm of every script of some of them too."""
    assert len(block.txids()) == len(block.transactions)
    for n, tx in enumerate(block.transactions):
        touch_transaction(tx, n % 50 == 0)


def fuzz(decode, touch, raw, count, seed):
    rng = random.Random(seed)
    outcomes = {'decoded': 0, 'refused': 0}
    for n in range(count):
        what, data, truncated = mutate(rng, raw)
        what = f'mutation {n} ({what})'
        try:
            decoded = decode(data)
        except blockwire.DataError as e:
            outcomes['refused'] += 1
            if truncated:
                check_data_error(e, data, what)
            continue
        except Exception as e:  # noqa: BLE001 (any other type is the failure being looked for)
            pytest.fail(f'{what}: {type(e).__name__} instead of DataError: {e}')
        assert not truncated, f'{what}: a strict prefix decoded'
        # What decoded was checked whole: reading its parts must not fail later, not even with DataError.
        try:
            touch(decoded)
        except Exception as e:  # noqa: BLE001
            pytest.fail(f'{what}: decoded, then reading it raised {type(e).__name__}: {e}')
        assert decoded.encode() == data, f'{what}: decoded, but does not encode back to the same bytes'
        outcomes['decoded'] += 1
    return outcomes


@pytest.fixture(scope='module')
def small_tx(segwit_block):
    """A segwit transaction with two or more inputs from the real block: marker, flag and witness stacks to break."""
    for ctx in segwit_block.cblock.vtx[1:]:
        if ctx.has_witness() and len(ctx.vin) >= 2 and len(ctx.vout) >= 2:
            return ctx.serialize()
    pytest.fail('no segwit transaction with two inputs and two outputs in the segwit block')


def test_fuzz_block(legacy_block):
    outcomes = fuzz(blockwire.decode_block, touch_block, legacy_block.raw, BLOCK_MUTATIONS, SEED)
    assert outcomes['refused'] > 0, f'no mutation of the block was refused: {outcomes}'


def test_fuzz_transaction(small_tx):
    outcomes = fuzz(blockwire.decode_transaction, lambda tx: touch_transaction(tx, True), small_tx, TX_MUTATIONS,
                    SEED + 1)
    assert outcomes['refused'] > 0, f'no mutation of the transaction was refused: {outcomes}'


def test_every_truncation_of_a_transaction(small_tx):
    # As Core's decoderawtransaction, bytes that are no segwit transaction are read again without witness data: a
    # segwit transaction cut short can be a whole legacy one with no inputs (its marker the input count, its flag the
    # output count). Such a reading must be exactly the bytes given; every other cut raises.
    legacy_readings = 0
    for cut in range(len(small_tx)):
        data = small_tx[:cut]
        try:
            tx = blockwire.decode_transaction(data)
        except blockwire.DataError as e:
            check_data_error(e, data, f'transaction cut to {cut} of {len(small_tx)} bytes')
            continue
        assert data[4:6] == b'\x00\x01' and not tx.inputs and not tx.has_witness(), f'cut to {cut}: decoded as {tx.txid}'
        assert tx.encode() == data
        legacy_readings += 1
    assert legacy_readings < 3, f'{legacy_readings} cuts decoded'


@pytest.mark.parametrize('cut', [0, 1, 79, 80, 81, 1000, -1])
def test_truncated_block(legacy_block, cut):
    data = legacy_block.raw[:cut]
    with pytest.raises(blockwire.DataError) as caught:
        blockwire.decode_block(data)
    check_data_error(caught.value, data, f'block cut to {len(data)} bytes')


def test_truncated_header(legacy_block):
    data = legacy_block.raw[:79]
    with pytest.raises(blockwire.DataError) as caught:
        blockwire.decode_header(data)
    check_data_error(caught.value, data, 'header of 79 bytes')


@pytest.mark.parametrize('extra', [b'\x00', b'\xff' * 7])
def test_trailing_bytes(legacy_block, small_tx, extra):
    for name, decode, raw in [('decode_block', blockwire.decode_block, legacy_block.raw),
                              ('decode_transaction', blockwire.decode_transaction, small_tx),
                              ('decode_header', blockwire.decode_header, legacy_block.raw[:80])]:
        with pytest.raises(blockwire.DataError):
            decode(raw + extra)
            pytest.fail(f'{name} took {len(extra)} trailing bytes')


def test_absurd_counts(legacy_block):
    header = legacy_block.raw[:80]
    version = (1).to_bytes(4, 'little')
    prevout = b'\x11' * 32 + b'\x00' * 4
    cases = {
        'a block of 2^64-1 transactions': header + b'\xff' + b'\xff' * 8,
        'a block of 2^32-1 transactions': header + b'\xfe\xff\xff\xff\xff' + b'\x00' * 64,
        'a transaction of 2^32-1 inputs': version + b'\xfe\xff\xff\xff\xff' + b'\x00' * 64,
        'a transaction of 2^32-1 outputs': version + b'\x01' + prevout + b'\x00' + b'\xff' * 4
                                           + b'\xfe\xff\xff\xff\xff',
        'a scriptSig of 2^32-1 bytes': version + b'\x01' + prevout + b'\xfe\xff\xff\xff\xff' + b'\x00' * 64,
        'a witness of 2^32-1 items': version + b'\x00\x01\x01' + prevout + b'\x00' + b'\xff' * 4 + b'\x00'
                                     + b'\xfe\xff\xff\xff\xff' + b'\x00' * 64,
    }
    for what, data in cases.items():
        decode = blockwire.decode_block if what.startswith('a block') else blockwire.decode_transaction
        with pytest.raises(blockwire.DataError):
            decode(data)
            pytest.fail(f'{what} decoded')


def test_non_canonical_compact_size(small_tx, legacy_block):
    """Core's ReadCompactSize refuses a size written longer than it needs ("non-canonical ReadCompactSize()")."""
    legacy_tx = legacy_block.cblock.vtx[1].serialize()
    n_inputs = legacy_tx[4]
    assert n_inputs < 0xfd, 'the test needs a transaction of fewer than 253 inputs'
    long_form = legacy_tx[:4] + b'\xfd' + n_inputs.to_bytes(2, 'little') + legacy_tx[5:]
    with pytest.raises(blockwire.DataError):
        blockwire.decode_transaction(long_form)
    raw = legacy_block.raw
    count = len(legacy_block.cblock.vtx)
    short = compact_size(count)
    long_count = raw[:80] + b'\xfe' + count.to_bytes(4, 'little') + raw[80 + len(short):]
    with pytest.raises(blockwire.DataError):
        blockwire.decode_block(long_count)


def test_empty_witness_flag_refused(legacy_block):
    """The marker and flag with every witness stack empty: Core's UnserializeTransaction throws "Superfluous witness
    record"."""
    tx = legacy_block.cblock.vtx[1].serialize()
    n_inputs = tx[4]
    assert n_inputs < 0xfd, 'the test needs a transaction of fewer than 253 inputs'
    data = tx[:4] + b'\x00\x01' + tx[4:-4] + b'\x00' * n_inputs + tx[-4:]
    with pytest.raises(blockwire.DataError):
        blockwire.decode_transaction(data)


def test_unknown_witness_flag_refused(small_tx):
    """A flag other than 1 after the marker: Core throws "Unknown transaction optional data"."""
    assert small_tx[4:6] == b'\x00\x01', 'the test transaction is not in the witness form'
    data = small_tx[:5] + b'\x03' + small_tx[6:]
    with pytest.raises(blockwire.DataError):
        blockwire.decode_transaction(data)


@pytest.mark.parametrize('value', ['0100', 1234, None, [1, 2]])
def test_not_a_buffer(value):
    for decode in (blockwire.decode_block, blockwire.decode_transaction, blockwire.decode_header):
        with pytest.raises(TypeError):
            decode(value)
