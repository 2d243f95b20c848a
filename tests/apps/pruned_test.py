"""A pruned node's directory (tests/data/core-pruned, written by Bitcoin Core's node) against what the node
answered of it:
  pruned_test.py BLOCKWIRE DATA_DIR WORK_DIR
blocks, export, filters and rest as a user runs them. The rest server is started here and stopped by its PID
whatever happens."""
import http.client
import json
import os
import shutil
import socket
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'net'))
import peers  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'support'))
import scenario as scenarios  # noqa: E402
from bitcoin.core import b2lx  # noqa: E402

blockwire, data_dir, work = scenarios.arguments('blockwire', 'data_dir', 'work')
fixture = os.path.join(data_dir, 'core-pruned')
blocks = os.path.join(work, 'blocks')
shutil.copytree(os.path.join(fixture, 'blocks'), blocks)
env = dict(os.environ, XDG_CACHE_HOME=os.path.join(work, 'cache'))
rpc = lambda name: json.load(open(os.path.join(fixture, 'rpc', name + '.json')))  # noqa: E731
info = rpc('getblockchaininfo')
prune, tip = info['pruneheight'], info['blocks']
hashes = rpc('getblockhash')


run = scenarios.runner(blockwire, env=env)


# blocks: from the prune height to the tip, each as Core's getblock 0 and 3; the pruning said once, exit 0.
# (Twice: from Core's index, then from the index blockwire kept of it.)
for attempt in ('Core\'s index', 'the kept index'):
    r = run('blocks', blocks, '--json', '--verbosity', '3')
    assert r.returncode == 0, (attempt, r.stderr)
    assert r.stderr.count(f'below height {prune} were pruned') == 1, r.stderr
    assert json.loads(r.stdout) == rpc('getblock3_from_pruneheight'), attempt
r = run('blocks', blocks, '--json', '--verbosity', '0')
assert r.returncode == 0 and json.loads(r.stdout) == rpc('getblock0_from_pruneheight'), r.stderr
lines = run('blocks', blocks).stdout.splitlines()
assert [line.split()[1] for line in lines] == hashes[prune:], lines[:3]
# --from below the prune height: said, and started there; a range wholly pruned: nothing, exit 0.
r = run('blocks', blocks, '--from', '100', '--count', f'{prune - 100 + 5}')
assert r.returncode == 0 and [line.split()[1] for line in r.stdout.splitlines()] == hashes[prune:prune + 5], (r.stdout, r.stderr)
r = run('blocks', blocks, '--from', '10', '--count', '5', '--json')
assert r.returncode == 0 and json.loads(r.stdout) == [] and 'nothing left to read' in r.stderr, (r.stdout, r.stderr)

# export: from the first multiple of --shard-blocks at or above the prune height, every block's hash Core's.
out = os.path.join(work, 'export')
r = run('export', blocks, '-o', out, '--shard-blocks', '100', '--no-progress')
assert r.returncode == 0, r.stderr
assert 'from height 400 (a multiple of 100)' in r.stderr, r.stderr
exported = {}
for root, _, files in os.walk(os.path.join(out, 'blocks')):
    for name in files:
        for line in open(os.path.join(root, name)):
            row = json.loads(line)
            exported[row['number']] = row['hash']
assert exported == {h: hashes[h] for h in range(400, tip + 1)}, sorted(exported)[:3]

# filters need every block from genesis: refused with the reason.
r = run('filters', blocks)
assert r.returncode == 2 and 'pruned' in r.stderr and 'genesis' in r.stderr, r.stderr
r = run('rest', blocks, '--txindex', '--listen', '127.0.0.1:0')
assert r.returncode == 2 and '--txindex needs every block' in r.stderr, r.stderr

# prune: a node's own directory is the node's to prune; nothing is touched.
listing = sorted(os.listdir(blocks))
r = run('prune', blocks)
assert r.returncode == 2 and "is a node's own block index" in r.stderr, r.stderr
assert sorted(os.listdir(blocks)) == listing

# serve: a peer's getheaders from genesis gets every header to the tip, the pruned ones too (from the index).
server = peers.Process([blockwire, 'serve', blocks, '--listen', '127.0.0.1:0'], env=env)
try:
    line = server.proc.stdout.readline()
    assert line.startswith('listening on 127.0.0.1:'), line
    port = int(line.rsplit(':', 1)[1])
    with socket.create_connection(('127.0.0.1', port), timeout=30) as s:
        wire = peers.Wire(s)
        peers.handshake(wire)
        wire.send(peers.envelope(b'getheaders', (70016).to_bytes(4, 'little') + b'\x01' + bytes.fromhex(hashes[0])[::-1] + bytes(32)))
        while True:
            command, payload = wire.receive()
            if command == b'headers':
                break
    got = peers.read_headers(payload)
    assert len(got) == tip, len(got)
    assert [b2lx(h.GetHash()) for h in got] == hashes[1:], 'headers'
finally:
    server.stop()

# rest: each answer Core's node gave (status, content type, body; JSON in key order), but its build's warnings.
failures, compared = [], 0
with peers.Process([blockwire, 'rest', blocks, '--listen', '127.0.0.1:0'], env=env) as server:
    line = server.proc.stdout.readline()
    assert line.startswith('listening on '), (line, server.stop()[2])
    port = int(line.strip().rsplit(':', 1)[1])
    ordered = lambda text: json.loads(text, object_pairs_hook=lambda pairs: [(k, v) for k, v in pairs])  # noqa: E731
    connection = http.client.HTTPConnection('127.0.0.1', port, timeout=10)
    for entry in json.load(open(os.path.join(fixture, 'rest', 'manifest.json'))):
        compared += 1
        connection.request('GET', entry['path'])
        response = connection.getresponse()
        body = response.read()
        want = open(os.path.join(fixture, 'rest', entry['body_file']), 'rb').read()
        what = f"{entry['label']}: GET {entry['path']}"
        if (response.status, response.getheader('Content-Type')) != (entry['status'], entry['content_type']):
            failures.append(f'{what}: {response.status} {response.getheader("Content-Type")}, Core {entry["status"]} {entry["content_type"]}')
        elif entry['content_type'] == 'application/json' and entry['status'] == 200:
            ours, theirs = ordered(body), ordered(want)
            if entry['label'] == 'chaininfo':  # (Core's pre-release build warns of itself)
                theirs = [(k, [] if k == 'warnings' else v) for k, v in theirs]
            if ours != theirs:
                failures.append(f'{what}: {body[:200]!r}, Core {want[:200]!r}')
        elif body != want:
            failures.append(f'{what}: {body[:120]!r}, Core {want[:120]!r}')
    server.stop()
for f in failures:
    print('FAIL:', f)
print(f'{compared - len(failures)} of {compared} REST answers equal Core\'s; blocks, export, filters as above')
sys.exit(1 if failures else 0)
