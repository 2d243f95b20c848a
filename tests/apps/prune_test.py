"""blockwire prune on a directory blockwire writes, as a user runs it:
  prune_test.py BLOCKWIRE MAKE_CHAIN WORK_DIR
A chain of small blk files (make_chain --file-size, as Core's -fastprune) fetched from `serve`, pruned, fetched
further and pruned again. What must be deleted comes from reading the blk files here (python-bitcoinlib hashes
each record; heights from the chain's own hex), never from blockwire; what every command answers after pruning
is what it answered of the same heights before, and what it answers of an unpruned copy of the chain. Servers
are started here and stopped by their PIDs whatever happens."""
import fcntl
import http.client
import json
import os
import shutil
import socket
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'net'))
import peers  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'support'))
import scenario as scenarios  # noqa: E402
import bitcoin  # noqa: E402
from bitcoin.core import CBlock, CBlockHeader, b2lx  # noqa: E402

bitcoin.SelectParams('regtest')
blockwire, make_chain, work = scenarios.arguments('blockwire', 'make_chain', 'work')
env = dict(os.environ, XDG_CACHE_HOME=os.path.join(work, 'cache'))
mine = os.path.join(work, 'mine')      # written in small files, then pruned
whole = os.path.join(work, 'whole')    # the same chain, 100 blocks longer, never pruned: what `serve` gives
FILE_SIZE = 20000


run = scenarios.runner(blockwire, env=env)


subprocess.run([make_chain, mine, '700', '--undo', '--file-size', str(FILE_SIZE)], check=True)
_, whole_blocks = scenarios.make_chain(make_chain, work, os.path.basename(whole), 800, '--undo')
chain = [CBlock.deserialize(raw) for raw in whole_blocks]
hashes = [b2lx(b.GetHash()) for b in chain]
height_of = {h: i for i, h in enumerate(hashes)}


def file_heights(directory):
    """Each blk file's number -> the heights of the blocks its records hold, read here."""
    key = peers.key_of(directory)
    out = {}
    for name in sorted(n for n in os.listdir(directory) if n.startswith('blk') and n.endswith('.dat')):
        data = peers.xor(open(os.path.join(directory, name), 'rb').read(), key, 0)
        heights, at = [], 0
        while at + 8 <= len(data) and data[at:at + 4] == bitcoin.params.MESSAGE_START:
            (n,) = struct.unpack('<I', data[at + 4:at + 8])
            heights.append(height_of[b2lx(CBlockHeader.deserialize(data[at + 8:at + 88]).GetHash())])
            at += 8 + n
        out[int(name[3:8])] = heights
    return out


def expected_prune(directory, keep):
    """Core's rule: a file goes once its highest block is at most tip - keep; never the last file."""
    files = file_heights(directory)
    tip = max(max(h) for h in files.values() if h)
    last = max(files)
    gone = sorted(n for n, h in files.items() if n != last and (not h or max(h) <= tip - keep))
    below = [h for n in gone for h in files[n]]
    return gone, (max(below) + 1 if below else 0)


def blk_files(directory):
    return sorted(int(n[3:8]) for n in os.listdir(directory) if n.startswith('blk') and n.endswith('.dat'))


def as_json(directory, *extra):
    r = run('blocks', directory, '--json', '--verbosity', '3', *extra, check=0)
    return json.loads(r.stdout), r.stderr


server, port = peers.start_serve(blockwire, whole)
try:
    peer = f'127.0.0.1:{port}'
    # The UTXO set fetch keeps (built from the directory's blocks), one block further.
    run('fetch', peer, '-o', mine, '--network', 'regtest', '--max-blocks', '1', '--no-progress', check=0)
    before, _ = as_json(mine)
    assert [b['hash'] for b in before] == hashes[:702], 'the chain before pruning'

    # Refused: fewer than 288 blocks kept; a writer holding the directory's lock.
    r = run('prune', mine, '--keep', '100', check=2)
    assert '288' in r.stderr, r.stderr
    with open(os.path.join(mine, '.lock'), 'a') as lock:
        fcntl.lockf(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        r = run('prune', mine, check=2)
        assert 'lock' in r.stderr, r.stderr
    assert not os.path.exists(os.path.join(mine, 'index'))

    # --dry-run: what would go, and nothing goes.
    gone, prune_height = expected_prune(mine, 288)
    assert gone and prune_height > 0, (gone, prune_height)
    files_before = blk_files(mine)
    r = run('prune', mine, '--dry-run', '--json', check=0)
    said = json.loads(r.stdout)
    assert said['files'] == [f'blk{n:05}.dat' for n in gone] and said['pruneheight'] == prune_height and said['dry_run'], said
    assert blk_files(mine) == files_before and not os.path.exists(os.path.join(mine, 'index'))

    r = run('prune', mine, '--json', check=0)
    said = json.loads(r.stdout)
    assert said['files'] == [f'blk{n:05}.dat' for n in gone] and said['pruneheight'] == prune_height, said
    assert blk_files(mine) == [n for n in files_before if n not in gone], blk_files(mine)
    assert not any(os.path.exists(os.path.join(mine, f'rev{n:05}.dat')) for n in gone)
    assert not os.path.exists(os.path.join(mine, 'blockwire-index')), 'the index kept before pruning stays behind'

    # Every command reads it as a pruned directory: the same answers from the prune height, said once, exit 0.
    # (Twice: from the index prune wrote, then from the one kept of it.)
    for attempt in ('the written index', 'the kept index'):
        after, said = as_json(mine)
        assert after == before[prune_height:], attempt
        assert said.count(f'below height {prune_height} were pruned') == 1, said
    run('scan', mine, check=0)
    r = run('prune', mine, check=0)
    assert 'nothing to prune' in r.stdout, r.stdout

    # rest: a pruned block as Core's REST answers it; chaininfo as a pruned node's.
    with peers.Process([blockwire, 'rest', mine, '--listen', '127.0.0.1:0'], env=env) as rest:
        line = rest.proc.stdout.readline()
        assert line.startswith('listening on '), (line, rest.stop()[2])
        http_port = int(line.strip().rsplit(':', 1)[1])
        connection = http.client.HTTPConnection('127.0.0.1', http_port, timeout=10)
        connection.request('GET', '/rest/chaininfo.json')
        info = json.loads(connection.getresponse().read())
        assert (info['pruned'], info['pruneheight'], info['blocks']) == (True, prune_height, 701), info
        connection.request('GET', f'/rest/block/{hashes[prune_height - 1]}.json')
        response = connection.getresponse()
        assert (response.status, response.read()) == (404, f'{hashes[prune_height - 1]} not available (pruned data)\r\n'.encode())
        connection.request('GET', f'/rest/block/{hashes[prune_height]}.hex')
        response = connection.getresponse()
        assert response.status == 200 and bytes.fromhex(response.read().decode().strip()) == chain[prune_height].serialize()
        rest.stop()

    # serve: NODE_NETWORK_LIMITED instead of NODE_NETWORK (BIP159); a pruned block is notfound, a kept one sent.
    pruned_server, pruned_port = peers.start_serve(blockwire, mine)
    try:
        with socket.create_connection(('127.0.0.1', pruned_port), timeout=30) as s:
            wire = peers.Wire(s)
            theirs = peers.handshake(wire)
            assert theirs.nServices & 1024 and not theirs.nServices & 1, hex(theirs.nServices)
            for h, want in ((prune_height - 1, b'notfound'), (prune_height, b'block')):
                wire.send(peers.envelope(b'getdata', b'\x01' + (0x40000002).to_bytes(4, 'little') + bytes.fromhex(hashes[h])[::-1]))
                while True:
                    command, payload = wire.receive()
                    if command in (b'block', b'notfound'):
                        break
                assert command == want, (h, command)
                if command == b'block':
                    assert payload == chain[h].serialize()
    finally:
        pruned_server.stop()

    # fetch goes on into the pruned directory: its undo records as the unpruned chain's (make_chain's own).
    run('fetch', peer, '-o', mine, '--network', 'regtest', '--no-progress', check=0)
    after, _ = as_json(mine)
    reference, _ = as_json(whole, '--from', str(prune_height))
    assert after == reference, 'fetched after pruning'

    # Pruned again, further: the index rewritten over its earlier entries (their files deleted since).
    gone2, prune_height2 = expected_prune(mine, 300)
    assert gone2 and prune_height2 > prune_height, (gone2, prune_height2)
    saved = os.path.join(work, 'saved')
    os.makedirs(saved)
    for n in gone2:
        for kind in ('blk', 'rev'):
            shutil.copy(os.path.join(mine, f'{kind}{n:05}.dat'), saved)
    r = run('prune', mine, '--keep', '300', '--json', check=0)
    said = json.loads(r.stdout)
    assert said['files'] == [f'blk{n:05}.dat' for n in gone2] and said['pruneheight'] == prune_height2, said
    after, said = as_json(mine)
    assert after == reference[prune_height2 - prune_height:], 'pruned twice'
    assert 'not used' not in said, said

    # A crash between the index's write and the files' deletion (the files put back): the files the index no
    # longer counts on are ignored, and the next prune deletes them.
    for name in os.listdir(saved):
        shutil.copy(os.path.join(saved, name), mine)
    after, said = as_json(mine)
    assert after == reference[prune_height2 - prune_height:] and 'not used' not in said, said
    r = run('prune', mine, '--keep', '300', '--json', check=0)
    assert json.loads(r.stdout)['files'] == [f'blk{n:05}.dat' for n in gone2], r.stdout
    assert not set(gone2) & set(blk_files(mine))
finally:
    server.stop()

# A directory with no UTXO set, pruned: fetch cannot build one (the blocks are gone) and says so, leaving
# nothing behind; --no-undo still fetches.
bare = os.path.join(work, 'bare')
subprocess.run([make_chain, bare, '700', '--undo', '--file-size', str(FILE_SIZE)], check=True)
run('prune', bare, check=0)
server, port = peers.start_serve(blockwire, whole)
try:
    r = run('fetch', f'127.0.0.1:{port}', '-o', bare, '--network', 'regtest', '--no-progress', check=2)
    assert 'cannot be brought to the tip' in r.stderr, r.stderr
    assert not os.path.exists(os.path.join(bare, 'blockwire-utxos'))
    run('fetch', f'127.0.0.1:{port}', '-o', bare, '--network', 'regtest', '--no-progress', '--no-undo', check=0)
    assert run('blocks', bare, check=0).stdout.splitlines()[-1].split()[1] == hashes[800]
finally:
    server.stop()

# A UTXO set behind the blocks to delete (one made at height 301, beside the same chain to 700): refused,
# nothing deleted.
early = os.path.join(work, 'early')
behind = os.path.join(work, 'behind')
subprocess.run([make_chain, early, '300'], check=True)
subprocess.run([make_chain, behind, '700', '--undo', '--file-size', str(FILE_SIZE)], check=True)
server, port = peers.start_serve(blockwire, whole)
try:
    run('fetch', f'127.0.0.1:{port}', '-o', early, '--network', 'regtest', '--no-progress', '--max-blocks', '1', check=0)
finally:
    server.stop()
shutil.copytree(os.path.join(early, 'blockwire-utxos'), os.path.join(behind, 'blockwire-utxos'))
files_before = blk_files(behind)
r = run('prune', behind, check=2)
assert 'UTXO set' in r.stderr and 'height 301' in r.stderr, r.stderr
assert blk_files(behind) == files_before and not os.path.exists(os.path.join(behind, 'index'))

# A damaged directory: refused with the damage's place, nothing deleted.
damaged = os.path.join(work, 'damaged')
subprocess.run([make_chain, damaged, '700', '--file-size', str(FILE_SIZE)], check=True)
with open(os.path.join(damaged, 'blk00003.dat'), 'r+b') as f:
    f.seek(20)
    byte = f.read(1)
    f.seek(20)
    f.write(bytes([byte[0] ^ 0xff]))
files_before = blk_files(damaged)
r = run('prune', damaged, check=1)
assert 'blk00003.dat' in r.stderr and 'damaged' in r.stderr, r.stderr
assert blk_files(damaged) == files_before
print(f'pruned at {prune_height}, then {prune_height2}; every answer as before and as the unpruned chain\'s')
