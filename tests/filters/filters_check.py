"""`blockwire filters` checked by an independent implementation of BIP158 written here from the BIP (SipHash-2-4,
hash_to_range, Golomb-Rice, filter headers), itself checked first against Bitcoin Core's vectors. python-bitcoinlib
parses the chain make_chain wrote (its --hex lines) and keeps the coin set that gives each input's spent script.
Every filter and header `filters --json` prints must match; --from/--count and --threads change nothing but what is
shown; a directory without its rev files stops at the first block that spends, exit 1.
  filters_check.py BLOCKWIRE MAKE_CHAIN DATA_DIR WORK_DIR"""
import hashlib
import json
import os
import shutil
import subprocess
import sys

import bitcoin
from bitcoin.core import CBlock

bitcoin.SelectParams('regtest')
blockwire, make_chain, data_dir, work = sys.argv[1:5]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
M64 = (1 << 64) - 1


def siphash24(k0, k1, data):
    v = [k0 ^ 0x736f6d6570736575, k1 ^ 0x646f72616e646f6d, k0 ^ 0x6c7967656e657261, k1 ^ 0x7465646279746573]

    def rotl(x, b):
        return ((x << b) | (x >> (64 - b))) & M64

    def rounds(n):
        for _ in range(n):
            v[0] = (v[0] + v[1]) & M64; v[1] = rotl(v[1], 13); v[1] ^= v[0]; v[0] = rotl(v[0], 32)
            v[2] = (v[2] + v[3]) & M64; v[3] = rotl(v[3], 16); v[3] ^= v[2]
            v[0] = (v[0] + v[3]) & M64; v[3] = rotl(v[3], 21); v[3] ^= v[0]
            v[2] = (v[2] + v[1]) & M64; v[1] = rotl(v[1], 17); v[1] ^= v[2]; v[2] = rotl(v[2], 32)

    tail = len(data) % 8
    for i in range(0, len(data) - tail, 8):
        m = int.from_bytes(data[i:i + 8], 'little')
        v[3] ^= m; rounds(2); v[0] ^= m
    m = (len(data) & 0xff) << 56 | int.from_bytes(data[len(data) - tail:] + bytes(8 - tail), 'little')
    v[3] ^= m; rounds(2); v[0] ^= m
    v[2] ^= 0xff; rounds(4)
    return v[0] ^ v[1] ^ v[2] ^ v[3]


def compact_size(n):
    if n < 0xfd:
        return bytes([n])
    if n <= 0xffff:
        return b'\xfd' + n.to_bytes(2, 'little')
    if n <= 0xffffffff:
        return b'\xfe' + n.to_bytes(4, 'little')
    return b'\xff' + n.to_bytes(8, 'little')


def gcs(block_hash, elements, p=19, m=784931):
    """block_hash: the 32 bytes in hash order; elements: a set of byte strings."""
    k0, k1 = int.from_bytes(block_hash[0:8], 'little'), int.from_bytes(block_hash[8:16], 'little')
    n = len(elements)
    f = n * m
    values = sorted((siphash24(k0, k1, e) * f) >> 64 for e in elements)
    bits, last = [], 0
    for v in values:
        d = v - last
        last = v
        bits += [1] * (d >> p) + [0]
        bits += [(d >> i) & 1 for i in range(p - 1, -1, -1)]
    bits += [0] * (-len(bits) % 8)
    stream = bytes(int(''.join(map(str, bits[i:i + 8])), 2) for i in range(0, len(bits), 8))
    return compact_size(n) + stream


def sha256d(b):
    return hashlib.sha256(hashlib.sha256(b).digest()).digest()


def basic_elements(block, spent):
    out = set()
    for tx in block.vtx:
        for o in tx.vout:
            s = bytes(o.scriptPubKey)
            if s and s[0] != 0x6a:
                out.add(s)
    out.update(s for s in spent if s)
    return out


def check(condition, what):
    if not condition:
        print('FAILED:', what)
        sys.exit(1)


# The implementation here, on Core's vectors first.
vectors = json.load(open(os.path.join(data_dir, 'blockfilters.json')))[1:]
for height, hash_hex, block_hex, scripts, prev_header, filter_hex, header_hex, note in vectors:
    block = CBlock.deserialize(bytes.fromhex(block_hex))
    f = gcs(block.GetHash(), basic_elements(block, [bytes.fromhex(s) for s in scripts]))
    check(f.hex() == filter_hex, f'the check\'s own BIP158 on vector {height} ({note})')
    check(sha256d(sha256d(f) + bytes.fromhex(prev_header)[::-1])[::-1].hex() == header_hex, f'header of vector {height}')
print('the check\'s BIP158 gives Core\'s', len(vectors), 'vectors')

chain_dir, hex_file = os.path.join(work, 'chain'), os.path.join(work, 'chain.hex')
subprocess.run([make_chain, chain_dir, '250', '--undo', '--hex', hex_file], check=True, capture_output=True)
blocks = [CBlock.deserialize(bytes.fromhex(line)) for line in open(hex_file) if line.strip()]
coins, expected, header = {}, [], bytes(32)
for height, block in enumerate(blocks):
    spent = []
    for t, tx in enumerate(block.vtx):
        if t > 0:
            spent += [coins.pop((i.prevout.hash, i.prevout.n)) for i in tx.vin]
        for n, out in enumerate(tx.vout):
            coins[(tx.GetTxid(), n)] = bytes(out.scriptPubKey)
    f = gcs(block.GetHash(), basic_elements(block, spent))
    header = sha256d(sha256d(f) + header)
    expected.append({'height': height, 'hash': block.GetHash()[::-1].hex(), 'filter': f.hex(), 'header': header[::-1].hex()})
check(sum(len(b.vtx) > 1 for b in blocks) >= 80, 'make_chain\'s blocks spend: 80 or more of them hold more than a coinbase')


def filters(*args):
    r = subprocess.run([blockwire, 'filters', chain_dir, '--json', *args], capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, f'filters {args}: exit {r.returncode}: {r.stderr}')
    return json.loads(r.stdout)


got = filters()
check(got == expected, 'every filter and header of the chain equals the independent one')
check(filters('--threads', '1') == expected, '--threads 1 gives the same')
check(filters('--from', '100', '--count', '7') == expected[100:107], '--from 100 --count 7 shows those, their headers chained from genesis')
print('filters --json: all', len(expected), 'filters and headers equal the independent ones')

# Kept: DIR/blockwire-filters/basic.dat. Without the rev files, a rerun prints the same from it; a torn last record,
# or a changed byte in a record, is cut off with all after it and made again.
kept = os.path.join(chain_dir, 'blockwire-filters', 'basic.dat')
check(os.path.getsize(kept) > 251 * 65, 'the filters are kept in DIR/blockwire-filters/basic.dat')
with_revs = os.path.join(work, 'with_revs')
shutil.copytree(chain_dir, with_revs)
for name in os.listdir(chain_dir):
    if name.startswith('rev'):
        os.rename(os.path.join(chain_dir, name), os.path.join(work, name))
check(filters() == expected, 'a rerun without the rev files prints the kept filters')
for name in os.listdir(work):
    if name.startswith('rev'):
        os.rename(os.path.join(work, name), os.path.join(chain_dir, name))
size = os.path.getsize(kept)
with open(kept, 'r+b') as f:
    f.truncate(size - 10)
check(filters() == expected and os.path.getsize(kept) == size, 'a torn last record is made again')
with open(kept, 'r+b') as f:
    f.seek(size // 2)
    b = f.read(1)
    f.seek(size // 2)
    f.write(bytes([b[0] ^ 0x20]))
check(filters() == expected and open(kept, 'rb').read() == open(os.path.join(with_revs, 'blockwire-filters', 'basic.dat'), 'rb').read(),
      'a changed record is cut off with all after it and made again, byte for byte')
print('kept filters: reused, a torn record and a changed one made again')

# Without the rev files or kept filters: the first block that spends stops the run, exit 1, and what came before is whole.
bare = os.path.join(work, 'bare')
shutil.copytree(chain_dir, bare)
shutil.rmtree(os.path.join(bare, 'blockwire-filters'))
for name in os.listdir(bare):
    if name.startswith('rev'):
        os.remove(os.path.join(bare, name))
r = subprocess.run([blockwire, 'filters', bare, '--json'], capture_output=True, text=True, timeout=120)
first_spending = next(h for h, b in enumerate(blocks) if len(b.vtx) > 1)
check(r.returncode == 1, f'no rev files: exit 1 (got {r.returncode})')
check(f'filters and headers end at height {first_spending - 1}' in r.stderr and 'rev00000.dat' in r.stderr, f'says where and why: {r.stderr}')
check(json.loads(r.stdout) == expected[:first_spending], 'prints the whole filters before it')
print('without rev files: exit 1 at block', first_spending)
