"""utxo_set_info and read_utxos on the chainstate Bitcoin Core's regtest node wrote, against Core's gettxoutsetinfo, the
coins of Core's own dumptxoutset file (utxo.dat, read here from Core's serialization rules), and the set worked out
from Core's getblock 3 answers."""

import gc
import io
import os

import pytest

import blockwire
from core_expect import is_coinbase, sats

# secp256k1's field prime: an uncompressed key is kept as its x and the parity of y (Core's CompressScript).
FIELD_PRIME = 2**256 - 2**32 - 977
UTXO_MAGIC = b'utxo\xff'
REGTEST_MAGIC = bytes.fromhex('fabfb5da')


def read_varint(f):
    """Core's VARINT (serialize.h, VarIntMode::DEFAULT): base 128, most significant first, each continuation minus 1."""
    n = 0
    while True:
        byte = f.read(1)
        assert byte, 'utxo.dat ends inside a VARINT'
        n = (n << 7) | (byte[0] & 0x7f)
        if byte[0] & 0x80:
            n += 1
        else:
            return n


def read_compact_size(f):
    first = f.read(1)[0]
    if first < 0xfd:
        return first
    return int.from_bytes(f.read({0xfd: 2, 0xfe: 4, 0xff: 8}[first]), 'little')


def decompress_amount(x):
    """Core's DecompressAmount (compressor.cpp)."""
    if x == 0:
        return 0
    x -= 1
    e = x % 10
    x //= 10
    if e < 9:
        d = x % 9 + 1
        x //= 9
        n = x * 10 + d
    else:
        n = x + 1
    return n * 10**e


def read_compressed_script(f):
    """Core's ScriptCompression: sizes 0-5 stand for P2PKH, P2SH and P2PK scripts, any other is the length + 6."""
    size = read_varint(f)
    if size == 0:
        return b'\x76\xa9\x14' + f.read(20) + b'\x88\xac'
    if size == 1:
        return b'\xa9\x14' + f.read(20) + b'\x87'
    if size in (2, 3):
        return b'\x21' + bytes([size]) + f.read(32) + b'\xac'
    if size in (4, 5):
        x = int.from_bytes(f.read(32), 'big')
        y = pow((x**3 + 7) % FIELD_PRIME, (FIELD_PRIME + 1) // 4, FIELD_PRIME)
        if y % 2 != size - 4:
            y = FIELD_PRIME - y
        return b'\x41\x04' + x.to_bytes(32, 'big') + y.to_bytes(32, 'big') + b'\xac'
    return f.read(size - 6)


def read_dumptxoutset(path):
    """Core's dumptxoutset file (version 2): its base block hash, and its coins as
    {(txid, vout): (height, coinbase, value, script)}."""
    with open(path, 'rb') as f:
        data = f.read()
    f = io.BytesIO(data)
    assert f.read(5) == UTXO_MAGIC, 'utxo.dat: not a UTXO snapshot'
    assert int.from_bytes(f.read(2), 'little') == 2, 'utxo.dat: not version 2 of the snapshot format'
    assert f.read(4) == REGTEST_MAGIC, 'utxo.dat: not regtest'
    base = f.read(32)[::-1].hex()
    count = int.from_bytes(f.read(8), 'little')
    coins = {}
    while len(coins) < count:
        txid = f.read(32)[::-1].hex()
        for _ in range(read_compact_size(f)):
            vout = read_compact_size(f)
            code = read_varint(f)
            value = decompress_amount(read_varint(f))
            coins[(txid, vout)] = (code >> 1, bool(code & 1), value, read_compressed_script(f))
    assert f.tell() == len(data), 'utxo.dat: bytes after the coins it counts'
    return base, coins


def coins_from_blocks(getblock3):
    """The coin set at the tip from Core's blocks: every output but genesis's and the unspendable ones (OP_RETURN, or a
    script over 10,000 bytes), less those the chain's inputs spent."""
    coins = {}
    for b in getblock3[1:]:
        for t in b['tx']:
            for i in t['vin']:
                if 'txid' in i:
                    del coins[(i['txid'], i['vout'])]
            for o in t['vout']:
                script = bytes.fromhex(o['scriptPubKey']['hex'])
                if script[:1] != b'\x6a' and len(script) <= 10_000:
                    coins[(t['txid'], o['n'])] = (b['height'], is_coinbase(t), sats(o['value']), script)
    return coins


@pytest.fixture(scope='session')
def chainstate(regtest_dir):
    return os.path.join(regtest_dir, 'chainstate')


@pytest.fixture(scope='session')
def snapshot(regtest_dir, core_rpc):
    base, coins = read_dumptxoutset(os.path.join(regtest_dir, 'utxo.dat'))
    dump = core_rpc('dumptxoutset')
    assert (base, len(coins)) == (dump['base_hash'], dump['coins_written']), \
        'utxo.dat read here disagrees with Core\'s dumptxoutset answer'
    return coins


@pytest.fixture(scope='session')
def read_coins(chainstate):
    """read_utxos' best_block once every coin is read, and the coins; the Coins object is let go at once, as it may hold
    the chainstate open (LevelDB's lock) and the other tests open it too."""
    coins = blockwire.read_utxos(chainstate)
    listed = list(coins)
    best_block = coins.best_block
    del coins
    gc.collect()
    return best_block, listed


def test_utxo_set_info_matches_core(chainstate, core_rpc):
    core = core_rpc('gettxoutsetinfo_hash_serialized_3')
    info = blockwire.utxo_set_info(chainstate)
    got = {
        'bestblock': info.best_block,
        'transactions': info.transactions,
        'txouts': info.txouts,
        'bogosize': info.bogosize,
        'total_amount': info.total_amount,
        'hash_serialized_3': info.hash_serialized_3,
    }
    expected = {k: core[k] for k in got}
    expected['total_amount'] = sats(core['total_amount'])
    assert got == expected, 'utxo_set_info differs from Core\'s gettxoutsetinfo hash_serialized_3'


def test_read_utxos_totals(read_coins, core_rpc):
    core = core_rpc('gettxoutsetinfo_hash_serialized_3')
    best_block, listed = read_coins
    assert len(listed) == core['txouts'], 'read_utxos: coin count differs from Core\'s txouts'
    assert sum(c.value for c in listed) == sats(core['total_amount']), 'read_utxos: value differs from total_amount'
    keys = [(c.txid, c.vout) for c in listed]
    assert len(set(keys)) == len(keys), 'read_utxos lists an outpoint twice'
    assert len({c.txid for c in listed}) == core['transactions'], 'read_utxos: transactions differ from Core\'s'
    assert best_block == core['bestblock'], 'read_utxos(...).best_block after reading every coin'


def test_read_utxos_is_an_iterator(chainstate):
    coins = blockwire.read_utxos(chainstate)
    assert iter(coins) is coins, 'read_utxos gives an iterator'
    first = next(coins)
    assert isinstance(first.txid, str) and len(first.txid) == 64, 'a Coin\'s txid is hex'
    del coins
    gc.collect()


def test_read_utxos_equals_core_snapshot(read_coins, snapshot):
    _, listed = read_coins
    got = {(c.txid, c.vout): (c.height, c.coinbase, c.value, c.script_pubkey) for c in listed}
    missing = sorted(set(snapshot) - set(got))
    extra = sorted(set(got) - set(snapshot))
    assert not missing and not extra, f'read_utxos and Core\'s utxo.dat: missing {missing[:5]}, extra {extra[:5]}'
    wrong = [k for k in snapshot if got[k] != snapshot[k]]
    assert not wrong, f'coins differing from utxo.dat\'s (height, coinbase, value, script): {wrong[:5]}'


def test_snapshot_is_the_chain_set(snapshot, getblock3, core_rpc):
    """utxo.dat as read here is the set Core's blocks leave and sums to gettxoutsetinfo's total: the reader above, and
    so the comparison with read_utxos, is right."""
    assert snapshot == coins_from_blocks(getblock3), 'utxo.dat is not the coin set of Core\'s getblock 3 answers'
    assert sum(c[2] for c in snapshot.values()) == sats(core_rpc('gettxoutsetinfo_hash_serialized_3')['total_amount'])


def test_missing_chainstate(tmp_path):
    missing = str(tmp_path / 'no-chainstate')
    with pytest.raises(blockwire.Error):
        blockwire.utxo_set_info(missing)
    with pytest.raises(blockwire.Error):
        list(blockwire.read_utxos(missing))
