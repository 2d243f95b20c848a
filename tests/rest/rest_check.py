"""blockwire rest against Bitcoin Core's own REST answers for the same chain:
  rest_check.py BLOCKWIRE CORE_REGTEST_DIR WORK_DIR
Core's node (-rest=1 -txindex=1 -blockfilterindex=1) answered every request
of CORE_REGTEST_DIR/rest/manifest.json over this very chain; blockwire rest
serves a copy of the node's blocks directory, is asked the same, and must
answer the same: the status, the content type, and the body byte for byte
(binary, hex, text), or for JSON the same values with the keys in the same
order. The process is started here and stopped by its PID whatever happens.
The routes not served yet are listed (PENDING) and reported, not compared:
each one that comes off the list is compared from then on."""
import http.client
import json
import os
import shutil
import signal
import subprocess
import sys
import time

blockwire, core, work = sys.argv[1:4]

# Routes whose answers need what blockwire rest does not have yet: none now.
PENDING = ()
# What no directory holds: the warnings of Core's own build (a pre-release
# one, which says so). blockwire has none to give; the key is still there.
BUILD_SPECIFIC = {'/rest/chaininfo.json': {'warnings': []}}

shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
blocks = os.path.join(work, 'blocks')  # a node's data directory: blocks beside chainstate
shutil.copytree(os.path.join(core, 'blocks'), blocks)
shutil.copytree(os.path.join(core, 'chainstate'), os.path.join(work, 'chainstate'))
manifest = json.load(open(os.path.join(core, 'rest', 'manifest.json')))

env = dict(os.environ, XDG_CACHE_HOME=os.path.join(work, 'cache'))
server = subprocess.Popen([blockwire, 'rest', blocks, '--listen', '127.0.0.1:0', '--txindex'], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, env=env)
failures = []
compared = 0
pending = 0
try:
    line = server.stdout.readline()
    if not line.startswith('listening on '):
        sys.exit(f'blockwire rest did not start: {line!r} {server.stderr.read()}')
    port = int(line.strip().rsplit(':', 1)[1])

    def ordered(text):
        """JSON with every object's keys in order: a list of pairs."""
        return json.loads(text, object_pairs_hook=lambda pairs: [(k, v) for k, v in pairs])

    connection = http.client.HTTPConnection('127.0.0.1', port, timeout=10)  # one connection: keep-alive
    for entry in manifest:
        path = entry['path']
        if path.startswith(PENDING):
            pending += 1
            continue
        compared += 1
        connection.request(entry.get('method', 'GET'), path)
        response = connection.getresponse()
        body = response.read()
        want = open(os.path.join(core, 'rest', entry['body_file']), 'rb').read()
        what = f"{entry['label']}: GET {path}"
        if response.status != entry['status']:
            failures.append(f'{what}: status {response.status}, Core {entry["status"]} ({body[:80]!r})')
            continue
        content_type = response.getheader('Content-Type')
        if content_type != entry['content_type']:
            failures.append(f'{what}: Content-Type {content_type!r}, Core {entry["content_type"]!r}')
            continue
        if entry['content_type'] == 'application/json' and entry['status'] == 200:
            ours, theirs = ordered(body), ordered(want)
            for key, value in BUILD_SPECIFIC.get(path, {}).items():
                if (key, value) not in ours:
                    failures.append(f'{what}: {key} is not {value!r}')
                theirs = [(k, value if k == key else v) for k, v in theirs]
            if ours != theirs:
                failures.append(f'{what}: JSON differs: {body[:200]!r} against Core {want[:200]!r}')
        elif body != want:
            failures.append(f'{what}: body {body[:120]!r}, Core {want[:120]!r}')
    # getutxos with its outpoints posted (BIP64's binary request, in .hex and .bin): Core's answer for the same
    # outpoint asked in the URI.
    txid = '7f980f7e145ab9e2ef371ef598d5edba4c5465ac62167945bffb4fcbc2da7d7d'
    request = b'\x00\x01' + bytes.fromhex(txid)[::-1] + (0).to_bytes(4, 'little')
    for ext, body in (('hex', request.hex().encode()), ('bin', request)):
        compared += 1
        connection.request('POST', f'/rest/getutxos.{ext}', body=body)
        response = connection.getresponse()
        got = response.read()
        uri = next(e for e in manifest if e['path'] == f'/rest/getutxos/{txid}-0.hex')
        want = open(os.path.join(core, 'rest', uri['body_file']), 'rb').read()
        if ext == 'bin':
            want = bytes.fromhex(want.decode().strip())
        if response.status != 200 or got != want:
            failures.append(f'POST /rest/getutxos.{ext}: {response.status} {got[:80]!r}, Core (by URI) {want[:80]!r}')
finally:
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()

for f in failures:
    print('FAIL:', f)
print(f'{compared - len(failures)} of {compared} answers equal Core\'s' + (f'; {pending} not compared (routes pending: {", ".join(PENDING)})' if PENDING else ''))
sys.exit(1 if failures else 0)
