"""Beside a running node and across reorgs, from outside: what a node's own directory does to the commands (rev
records written after their blocks, into pre-allocated zeros; reorgs to shorter and longer chains; stale blocks
whose undo data Core kept; another user's directory). One scenario a run:
  beside_node_test.py BLOCKWIRE MAKE_CHAIN DATA_DIR WORK_DIR SCENARIO
Every process a scenario starts is stopped by its PID, whatever happens; every loop is bounded in count and
time."""
import fcntl
import filecmp
import json
import os
import random
import re
import resource
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'net'))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'support'))
import peers  # noqa: E402
import scenario as scenarios  # noqa: E402

blockwire, make_chain, data_dir, work, scenario = scenarios.arguments('blockwire', 'make_chain', 'data_dir', 'work', 'scenario')
MAGIC = bytes.fromhex('fabfb5da')  # regtest


run = scenarios.runner(blockwire)


def chain(name, n, *extra):
    return scenarios.make_chain(make_chain, work, name, n, *extra, blocks=False)


key_of, xor = peers.key_of, peers.xor


def records(path, key):
    """(offset, payload) of each record of a blk or rev file, in file order, up to Core's zeros."""
    data = xor(open(path, 'rb').read(), key, 0)
    out, at = [], 0
    while at + 8 <= len(data) and data[at:at + 4] == MAGIC:
        (n,) = struct.unpack('<I', data[at + 4:at + 8])
        extra = 32 if os.path.basename(path).startswith('rev') else 0
        out.append((at, data[at + 8:at + 8 + n + extra]))
        at += 8 + n + extra
    return out


def best_hashes(directory):
    r = run('blocks', directory, '--network', 'regtest')
    assert r.returncode == 0, r.stderr
    return [line.split()[1] for line in r.stdout.splitlines() if line.strip()]


def append(path, key, record):
    at = os.path.getsize(path) if os.path.exists(path) else 0
    with open(path, 'ab') as f:
        f.write(xor(record, key, at))


def append_fork(directory, parent_height, count, bits=0x207fffff):
    """`count` coinbase-only blocks on top of the best chain's block at `parent_height`, appended to blk00000.dat
    with their (empty) undo records in rev00000.dat, as a node that reorged would write them. A harder target
    (`bits`) gives each block more work: a shorter fork can then be the best chain. Returns their hashes."""
    key = key_of(directory)
    prev = bytes.fromhex(best_hashes(directory)[parent_height])[::-1]
    exponent, mantissa = bits >> 24, bits & 0xffffff
    target = mantissa << (8 * (exponent - 3))
    made = []
    for i in range(count):
        height = parent_height + 1 + i
        script_sig = bytes([4]) + struct.pack('<I', height) + b'\x01'  # BIP34's height; 0x01 unlike make_chain's
        script = b'\x00\x14' + b'\x77' * 20
        coinbase = (struct.pack('<i', 2) + b'\x01' + b'\0' * 32 + b'\xff\xff\xff\xff' + bytes([len(script_sig)]) +
                    script_sig + b'\xff\xff\xff\xff' + b'\x01' + struct.pack('<q', 50 * 10**8 >> (height // 150)) +
                    bytes([len(script)]) + script + struct.pack('<I', 0))
        merkle = peers.sha256d(coinbase)
        for nonce in range(1 << 32):
            header = (struct.pack('<i', 0x20000000) + prev + merkle +
                      struct.pack('<III', 1_700_000_000 + height * 600 + 1, bits, nonce))
            if int.from_bytes(peers.sha256d(header), 'little') <= target:
                break
        block = header + b'\x01' + coinbase
        append(os.path.join(directory, 'blk00000.dat'), key, MAGIC + struct.pack('<I', len(block)) + block)
        undo = b'\x00'  # a coinbase alone spends nothing: a CBlockUndo of no transactions
        append(os.path.join(directory, 'rev00000.dat'), key,
               MAGIC + struct.pack('<I', len(undo)) + undo + peers.sha256d(prev + undo))
        prev = peers.sha256d(header)
        made.append(prev[::-1].hex())
    return made


def tree(out):
    """Every file under OUT but the lock, by its path."""
    found = {}
    for root, _, names in os.walk(out):
        for name in names:
            path = os.path.join(root, name)
            if name != '.blockwire-export.lock':
                found[os.path.relpath(path, out)] = path
    return found


def same_tree(a, b):
    ta, tb = tree(a), tree(b)
    assert sorted(ta) == sorted(tb), (sorted(set(ta) ^ set(tb)))
    for rel in ta:
        assert filecmp.cmp(ta[rel], tb[rel], shallow=False), rel


def export(directory, out, *extra, status=0, shard=100):
    r = run('export', directory, '-o', out, '--shard-blocks', str(shard), '--no-progress', *extra)
    assert r.returncode == status, (r.returncode, r.stdout, r.stderr)
    return r


def scenario_export_reorg():
    """export after a reorg: to a shorter chain with more work, and to a longer one. The shards of blocks that left
    the chain are removed and said, and OUT equals a clean export of the new best chain, byte for byte."""
    for name, fork_at, length, bits in (('shorter', 149, 40, 0x1f7fffff), ('longer', 149, 120, 0x207fffff)):
        directory = chain(name, 250, '--coinbase-only', '--undo')
        out = os.path.join(work, name + '-out')
        export(directory, out)
        assert len([p for p in tree(out) if p.startswith('blocks/')]) == 3
        fork = append_fork(directory, fork_at, length, bits)
        hashes = best_hashes(directory)
        assert hashes[-1] == fork[-1] and len(hashes) == fork_at + 1 + length, (name, len(hashes))
        again = export(directory, out)
        if name == 'shorter':
            for shard in ('00000100-00000199', '00000200-00000250'):
                assert f'removed shard {shard}' in again.stderr, again.stderr
            assert 'removed (off the best chain)' in again.stdout, again.stdout
        else:
            assert 'removed shard 00000200-00000250' in again.stderr, again.stderr
        clean = os.path.join(work, name + '-clean')
        export(directory, clean)
        same_tree(out, clean)
        rows = sum(1 for p, full in tree(out).items() if p.startswith('blocks/') for _ in open(full))
        assert rows == len(hashes), (rows, len(hashes))
        # A rerun finds nothing to remove or make.
        third = export(directory, out)
        assert 'removed' not in third.stderr and ' 0 made' in third.stdout, third.stdout + third.stderr
    # Crash leftovers: a table without its shard's blocks table, and a temporary file; removed too.
    left = os.path.join(work, 'shorter-out', 'transactions', 'start_block=00000300', 'end_block=00000399')
    os.makedirs(left)
    open(os.path.join(left, 'transactions_00000300_00000399.json'), 'w').write('{}\n')
    partial = os.path.join(work, 'shorter-out', 'blocks', 'start_block=00000000', 'end_block=00000099',
                           '.blocks_00000000_00000099.json.partial')
    open(partial, 'w').write('{')
    swept = export(os.path.join(work, 'shorter'), os.path.join(work, 'shorter-out'))
    assert 'removed shard 00000300-00000399' in swept.stderr, swept.stderr
    assert not os.path.exists(left) and not os.path.exists(partial)
    same_tree(os.path.join(work, 'shorter-out'), os.path.join(work, 'shorter-clean'))


def scenario_export_locked():
    """Two exports into one OUT: the second is told another holds OUT's lock (exit 2), nothing else fails."""
    directory = chain('source', 400, '--coinbase-only', '--undo')
    out = os.path.join(work, 'out')
    os.makedirs(out)
    with open(os.path.join(out, '.blockwire-export.lock'), 'a') as held:
        fcntl.lockf(held, fcntl.LOCK_EX | fcntl.LOCK_NB)  # a classic lock: it conflicts with export's
        r = export(directory, out, status=2)
        assert 'another export into it is running' in r.stderr, r.stderr
        assert tree(out) == {}, tree(out)
    for _ in range(6):
        shutil.rmtree(out)
        both = [peers.Process([blockwire, 'export', directory, '-o', out, '--shard-blocks', '20', '--no-progress'])
                for _ in range(2)]
        results = []
        for p in both:
            with p:
                out_text, err_text = p.proc.communicate(timeout=60)
                results.append((out_text, err_text, p.proc.returncode))
        statuses = sorted(code for _, _, code in results)
        assert statuses in ([0, 0], [0, 2]), results
        for _, err, code in results:
            assert code == 0 or 'another export into it is running' in err, err
        clean = os.path.join(work, 'clean')
        shutil.rmtree(clean, ignore_errors=True)
        export(directory, clean, shard=20)
        same_tree(out, clean)


def scenario_filters_read_only():
    """filters of a directory the user may not write (another user's node): the filters, not kept, and said; the
    same with a kept file there. Run as nobody (setpriv), since the suite runs as root."""
    place = tempfile.mkdtemp(prefix='blockwire-read-only-')
    try:
        os.chmod(place, 0o755)
        directory = os.path.join(place, 'blocks')
        subprocess.run([make_chain, directory, '60', '--undo'], check=True, capture_output=True)
        binary = os.path.join(place, 'blockwire')
        shutil.copy(blockwire, binary)
        os.chmod(binary, 0o755)
        for root, dirs, files in os.walk(directory):
            for d in dirs:
                os.chmod(os.path.join(root, d), 0o755)
            for f in files:
                os.chmod(os.path.join(root, f), 0o644)
        os.chmod(directory, 0o755)
        expected = run('filters', directory, '--json', '--network', 'regtest', env={'HOME': place})
        assert expected.returncode == 0, expected.stderr
        shutil.rmtree(os.path.join(directory, 'blockwire-filters'))
        nobody = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', binary]
        for kept in (False, True):
            r = subprocess.run(nobody + ['filters', directory, '--json', '--network', 'regtest'], capture_output=True,
                               text=True, timeout=120, cwd=place)
            assert r.returncode == 0, (kept, r.returncode, r.stderr)
            assert r.stdout == expected.stdout, kept
            assert 'the filters are made, not kept' in r.stderr, r.stderr
            if not kept:  # root keeps them now; nobody reads them back
                assert run('filters', directory, '--network', 'regtest').returncode == 0
                for root, dirs, files in os.walk(directory):
                    for d in dirs:
                        os.chmod(os.path.join(root, d), 0o755)
    finally:
        shutil.rmtree(place, ignore_errors=True)


def scenario_damaged_coinbase_undo():
    """A damaged rev record of a block that holds only its coinbase: scan, blocks --verbosity 3, export and filters
    each say that block has no undo data and exit 1, as for any block."""
    directory = chain('source', 60, '--coinbase-only', '--undo')
    rev = os.path.join(directory, 'rev00000.dat')
    at, payload = records(rev, key_of(directory))[29]  # block 30's: make_chain writes them in height order
    hashes = best_hashes(directory)
    assert payload[-32:] == peers.sha256d(bytes.fromhex(hashes[29])[::-1] + payload[:-32]), 'the record found is block 30'
    data = bytearray(open(rev, 'rb').read())
    data[at + 8 + len(payload) - 1] ^= 0x01  # its checksum's last byte: it pairs with nothing
    open(rev, 'wb').write(bytes(data))
    scan = run('scan', '--no-progress', directory)
    assert scan.returncode == 1 and 'pairs with no block' in scan.stdout, scan.stdout
    blocks = run('blocks', directory, '--json', '--verbosity', '3')
    assert blocks.returncode == 1 and 'no undo data for block 30 ' in blocks.stderr, blocks.stderr
    out = os.path.join(work, 'out')
    ex = run('export', directory, '-o', out, '--shard-blocks', '20', '--no-progress')
    assert ex.returncode == 1 and 'shard 00000020-00000039 not made' in ex.stderr and 'block 30' in ex.stderr, ex.stderr
    filters = run('filters', directory)
    assert filters.returncode == 1 and 'block 30 ' in filters.stderr and 'end at height 29' in filters.stderr, \
        filters.stderr


def scenario_live_rev_writer():
    """scan of a directory a node is writing as Core writes it: blk and rev files pre-allocated with zeros, each
    block's record, then its undo record, while scans run. No scan reports the undo records written after it read
    the blk files as damage."""
    source = chain('source', 150, '--undo')
    key = key_of(source)
    blk = [p for _, p in records(os.path.join(source, 'blk00000.dat'), key)]
    rev = [p for _, p in records(os.path.join(source, 'rev00000.dat'), key)]
    assert len(rev) == len(blk) - 1
    live = os.path.join(work, 'live')
    os.makedirs(live)
    shutil.copy(os.path.join(source, 'xor.dat'), live)
    for name, size in (('blk00000.dat', 16 << 20), ('rev00000.dat', 1 << 20)):
        with open(os.path.join(live, name), 'wb') as f:
            f.truncate(size)  # Core's pre-allocation: zeros on disk, not XOR'd
    lock = open(os.path.join(live, '.lock'), 'a')
    fcntl.lockf(lock, fcntl.LOCK_EX)  # as a running node holds it
    done = threading.Event()
    failure = []
    started = threading.Semaphore(0)  # released as each scan starts: the writer writes while scans run, at any speed

    def writer():
        try:
            ends = {'blk00000.dat': 0, 'rev00000.dat': 0}

            def put(name, record):
                with open(os.path.join(live, name), 'r+b') as f:
                    f.seek(ends[name])
                    f.write(xor(record, key, ends[name]))
                ends[name] += len(record)
            for i, block in enumerate(blk):
                if i % 25 == 0 and not started.acquire(timeout=60):
                    raise AssertionError('no scan started in 60 s')
                put('blk00000.dat', MAGIC + struct.pack('<I', len(block)) + block)
                time.sleep(0.004)
                if i > 0:
                    undo = rev[i - 1]
                    put('rev00000.dat', MAGIC + struct.pack('<I', len(undo) - 32) + undo)
                time.sleep(0.004)
        except Exception as e:  # noqa: BLE001 (said by the main thread)
            failure.append(e)
        finally:
            done.set()
    thread = threading.Thread(target=writer)
    thread.start()
    scans = 0
    deadline = time.time() + 60
    try:
        while not done.is_set() and time.time() < deadline:
            started.release()
            r = run('scan', '--no-progress', live)
            scans += 1
            assert r.returncode == 0, r.stdout + r.stderr
    finally:
        thread.join(timeout=60)
    assert not failure, failure
    assert scans >= len(blk) // 25, scans
    fcntl.lockf(lock, fcntl.LOCK_UN)
    final = run('scan', '--no-progress', live)
    assert final.returncode == 0 and 'damage' not in final.stdout.lower().replace('no damage', ''), final.stdout


def scenario_fetched_with_undo():
    """fetch into a directory that has rev files (pack's, as a node's): the UTXO set is built from its blocks
    without writing their records again, and every fetched block gets the undo record the source's own has;
    blocks --verbosity 3 and filters then cover the whole chain, exit 0."""
    source = chain('source', 119, '--undo')  # heights 0-119
    target = chain('target', 99, '--undo')   # its first 100
    key_s, key_t = key_of(source), key_of(target)
    assert [p for _, p in records(os.path.join(target, 'blk00000.dat'), key_t)] == \
        [p for _, p in records(os.path.join(source, 'blk00000.dat'), key_s)][:100], 'make_chain is deterministic'
    server, port = peers.start_serve(blockwire, source, '--network', 'regtest')
    with server:
        fetched = run('fetch', f'127.0.0.1:{port}', '-o', target, '--network', 'regtest', '--no-progress')
        assert fetched.returncode == 0, fetched.stderr
    ours = [p for _, p in records(os.path.join(target, 'rev00000.dat'), key_t)]
    theirs = [p for _, p in records(os.path.join(source, 'rev00000.dat'), key_s)]
    assert len(ours) == 119 and ours == theirs, (len(ours), len(theirs))
    r = run('blocks', target, '--json', '--verbosity', '3')
    assert r.returncode == 0, r.stderr
    shown = json.loads(r.stdout)
    assert len(shown) == 120 and 'fee' in shown[102]['tx'][1] and 'fee' in shown[99]['tx'][1]
    filters = run('filters', target)
    assert filters.returncode == 0, filters.stderr


def scenario_kill_fetch_reorg():
    """kill -9 of fetch while it reorganizes (500 blocks off, 800 on, its UTXO set flushed often): every rerun
    goes on, and the rev files end record for record as a fetch never killed leaves them: no record written
    twice, none missing."""
    a = chain('a', 1000, '--undo', '--wide', '40')  # (its blocks' coins put back as the reorganization takes them off: flushes)
    b = os.path.join(work, 'b')
    shutil.copytree(a, b)
    append_fork(b, 500, 800)
    fetch = lambda port, target, *extra: subprocess.run(  # noqa: E731
        [blockwire, 'fetch', f'127.0.0.1:{port}', '-o', target, '--network', 'regtest', '--no-progress', '--dbcache', '1', *extra],
        capture_output=True, text=True, timeout=120)
    trials = 10
    targets = [os.path.join(work, f't{i}') for i in range(trials)]
    clean = os.path.join(work, 'clean')
    server, port = peers.start_serve(blockwire, a, '--network', 'regtest')
    with server:
        for target in [clean] + targets:
            r = fetch(port, target)
            assert r.returncode == 0, r.stderr
        server.stop()
    server, port = peers.start_serve(blockwire, b, '--network', 'regtest')
    duplicates = recovered = 0
    with server:
        started = time.time()
        r = fetch(port, clean)
        took = time.time() - started
        assert r.returncode == 0, r.stderr
        want = peers.undo_records(clean)
        assert len(want) == 1800, len(want)
        for trial, target in enumerate(targets):
            with peers.Process([blockwire, 'fetch', f'127.0.0.1:{port}', '-o', target, '--network', 'regtest', '--no-progress',
                                '--dbcache', '1']) as p:
                time.sleep(random.uniform(0.1, 0.9) * took)
                os.kill(p.proc.pid, signal.SIGKILL)
                p.proc.wait()
            for _ in range(3):
                r = fetch(port, target)
                if r.returncode == 0:
                    break
            assert r.returncode == 0, (trial, r.stderr)
            recovered += 'the UTXO set was at height' in r.stderr or 'cut off a torn undo record' in r.stderr
            got = peers.undo_records(target)
            duplicates += len(got) - len(set(got))
            assert got == want, (trial, len(got), len(want), len(got) - len(set(got)))
        server.stop()
    print(f'{trials} kills during the reorganization ({took:.2f} s): rev files as a clean fetch leaves them, {duplicates} duplicates; '
          f'{recovered} reruns connected blocks a kill left past the last flush, or cut a torn record')


def scenario_stale_undo():
    """inspect --offset --json of each stale block of a directory Core wrote (a reorg left them, Core kept their
    undo data): exactly Core's getblock HASH 3, fees and prevouts included."""
    fixture = os.path.join(data_dir, 'core-regtest')
    directory = os.path.join(work, 'blocks')
    shutil.copytree(os.path.join(fixture, 'blocks'), directory)
    stale = json.load(open(os.path.join(fixture, 'rpc', 'stale_blocks.json')))
    offsets = {peers.sha256d(p[:80])[::-1].hex(): at for at, p in records(os.path.join(directory, 'blk00000.dat'),
                                                                     key_of(directory))}
    assert len(stale) == 3
    for block in stale:
        r = run('inspect', os.path.join(directory, 'blk00000.dat'), '--offset', str(offsets[block['hash']]), '--json',
                '--network', 'regtest')
        assert r.returncode == 0, r.stderr
        core = json.load(open(os.path.join(fixture, 'rpc', f"stale_{block['hash']}_getblock3.json")))
        ours = json.loads(r.stdout)
        assert ours == core, [k for k in core if ours.get(k) != core[k]]
        assert list(ours) == list(core)
        assert all('fee' in tx for tx in ours['tx'][1:]) and 'prevout' in ours['tx'][1]['vin'][0]


def getcf(kind, start, stop_hash, filter_type=0):
    payload = bytes([filter_type]) + (struct.pack('<I', start) if kind != b'getcfcheckpt' else b'') + stop_hash
    return peers.envelope(kind, payload)


def closes(wire, seconds=10):
    """The commands received until the connection closed (None: it stayed open `seconds`)."""
    got = []
    wire.sock.settimeout(seconds)
    try:
        while True:
            command, _ = wire.receive()
            if command is None:
                return got
            got.append(command)
    except (socket.timeout, TimeoutError):
        return None
    except (ConnectionError, OSError):
        return got


def scenario_bip157_reorg():
    """A BIP157 request whose stop hash a reorg just left: serve announces its new tip, then disconnects, and says
    why; every other disconnect says its own reason (not getblocktxn's)."""
    directory = chain('chain', 120, '--coinbase-only', '--undo')
    old = [bytes.fromhex(h)[::-1] for h in best_hashes(directory)]
    server, port = peers.start_serve(blockwire, directory, '--network', 'regtest')
    with server:
        def connect():
            wire = peers.Wire(socket.create_connection(('127.0.0.1', port), timeout=20))
            peers.handshake(wire)
            return wire
        wire = connect()
        wire.send(getcf(b'getcfheaders', 0, old[100]))
        command, _ = wire.receive()
        while command != b'cfheaders':
            command, _ = wire.receive()
        fork = append_fork(directory, 90, 10, bits=0x1f7fffff)  # tip 100, more work than the old 119
        deadline = time.time() + 10
        while best_hashes(directory)[-1] != fork[-1] and time.time() < deadline:
            time.sleep(0.1)
        time.sleep(1.5)  # serve reads the directory again each second
        started = time.time()
        wire.send(getcf(b'getcfheaders', 0, old[100]))
        got = closes(wire)
        assert got is not None and time.time() - started < 5, got
        for kind, start, stop, ftype, why in (
                (b'getcfilters', 0, old[5], 1, 'filter type we do not serve'),
                (b'getcfilters', 50, old[10], 0, 'start height is past its stop block'),
                (b'getcfheaders', 0, b'\x42' * 32, 0, 'stop hash is a block we do not have'),
                (b'getcfcheckpt', 0, old[110], 0, 'off our best chain')):
            w = connect()
            w.send(getcf(kind, start, stop, ftype))
            assert closes(w) is not None, (kind, why)
        _, _, log = server.stop()
    assert 'off our best chain' in log, log
    for why in ('filter type we do not serve', 'start height is past its stop block', 'stop hash is a block we do not have'):
        assert why in log, (why, log)
    assert 'getblocktxn' not in log, log


def scenario_filters_client_reorg():
    """filters --from-peer across a reorg: its first getcfheaders is held on the way (a proxy) while the served
    directory reorgs below the peer's old tip. serve announces its new tip and ends the connection; the client says
    the chain changed, at once (exit 2), instead of waiting for an answer that never comes."""
    directory = chain('chain', 120, '--coinbase-only', '--undo')
    server, port = peers.start_serve(blockwire, directory, '--network', 'regtest')
    with server:
        proxy = socket.create_server(('127.0.0.1', 0))
        client = peers.Process([blockwire, 'filters', '--from-peer', f'127.0.0.1:{proxy.getsockname()[1]}', '--network',
                                'regtest'])
        with client:
            # A v1 proxy: the client's v2 key is hung up on, and it comes again with v1.
            inbound, _ = peers.accept_v1(proxy)
            upstream = socket.create_connection(('127.0.0.1', port), timeout=20)
            released = []

            def hold_first_getcfheaders(command, payload):
                if command == b'getcfheaders' and not released:
                    append_fork(directory, 90, 10, bits=0x1f7fffff)  # more work than the old 120 blocks
                    time.sleep(1.5)  # serve reads the directory again each second
                    released.append(time.time())
                return payload

            threads = [threading.Thread(target=peers.relay, args=(inbound, upstream, hold_first_getcfheaders), daemon=True),
                       threading.Thread(target=peers.relay, args=(upstream, inbound), daemon=True)]
            for t in threads:
                t.start()
            try:
                client.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
            code, out, err = client.stop(timeout=5)
            ended = time.time()
    assert released, 'the client asked for no filter headers'
    assert code == 2 and 'best chain changed' in err, (code, err)
    assert ended - released[0] < 10, ended - released[0]
    assert out == '', out  # the range's filters are never handed on before its headers check


def scenario_serve_stops():
    """SIGTERM while a peer's request makes filter headers for a whole chain of megabyte blocks: serve ends
    within its poll interval, not when the work is done (measured here too: it takes longer than that bound)."""
    directory = chain('chain', 600, '--fill', os.path.join(data_dir, 'block413567.raw'), '--undo')
    tip = bytes.fromhex(best_hashes(directory)[-1])[::-1]

    def ask(server, port):
        wire = peers.Wire(socket.create_connection(('127.0.0.1', port), timeout=60))
        peers.handshake(wire)
        wire.send(getcf(b'getcfheaders', 0, tip))
        return wire
    server, port = peers.start_serve(blockwire, directory, '--network', 'regtest')
    with server:
        started = time.time()
        wire = ask(server, port)
        while wire.receive()[0] != b'cfheaders':
            pass
        work_seconds = time.time() - started
        server.stop()
    timings = []
    for _ in range(3):
        server, port = peers.start_serve(blockwire, directory, '--network', 'regtest')
        with server:
            ask(server, port)
            time.sleep(0.1)  # the work under way
            started = time.time()
            os.kill(server.proc.pid, signal.SIGTERM)
            server.proc.communicate(timeout=30)
            timings.append(time.time() - started)
            assert server.proc.returncode == 0, server.proc.returncode
    assert work_seconds > 0.6 and max(timings) < 0.4, (work_seconds, timings)


def block_hash(block):
    return peers.sha256d(block[:80])[::-1].hex()


def snapshot(out):
    """Every file under OUT but the lock: its path and bytes."""
    return {rel: open(path, 'rb').read() for rel, path in tree(out).items()}


def scenario_export_other_shard_size():
    """export into an OUT made with another --shard-blocks (larger, then smaller): refused with exit 2 before anything
    is made or removed, the message naming both sizes and what to do; the blockwire.distributed route (the library's
    sweep) refuses it the same; OUT's own size then finds every shard whole, each block in one row."""
    directory, blocks = scenarios.make_chain(make_chain, work, 'source', 230, '--undo')
    python_dir = os.path.join(os.path.dirname(blockwire), '..', '..', 'python')
    for made, other in ((100, 50), (50, 100)):
        out = os.path.join(work, f'out{made}')
        export(directory, out, shard=made)
        before = snapshot(out)
        r = export(directory, out, status=2, shard=other)
        assert r.stdout == '', r.stdout  # no summary of shards that were not made
        for said in (f'-o {out}:', f'of {made} blocks', f'not {other}:', f'--shard-blocks {made}', 'another directory'):
            assert said in r.stderr, (said, r.stderr)
        assert snapshot(out) == before
        if os.path.exists(os.path.join(python_dir, 'blockwire', 'distributed.py')):
            code = ('import sys, blockwire, blockwire.distributed as d\n'
                    'try:\n'
                    f'    d.export(None, sys.argv[1], sys.argv[2], shard_blocks={other}, note=lambda line: None)\n'
                    'except blockwire.UsageError as e:\n'
                    '    print(e)\n')
            p = subprocess.run([sys.executable, '-c', code, directory, out], capture_output=True, text=True, timeout=60,
                               env=python_env(python_dir))
            assert p.returncode == 0 and f'of {made} blocks' in p.stdout and f'not {other}:' in p.stdout, (p.stdout, p.stderr)
            assert snapshot(out) == before
        again = export(directory, out, shard=made)
        shards = (len(blocks) + made - 1) // made
        assert ' 0 made' in again.stdout and f'{shards} already whole' in again.stdout, again.stdout
        rows = [json.loads(line)['hash'] for rel, path in tree(out).items() if rel.startswith('blocks/') for line in open(path)]
        assert sorted(rows) == sorted(block_hash(b) for b in blocks), (len(rows), len(blocks))


def python_env(python_dir):
    """The environment the build's Python module imports in: on PYTHONPATH, and, when the build is sanitized (the
    command links ASan's runtime), that runtime and libstdc++ preloaded, as the python tests have them."""
    env = dict(os.environ, PYTHONPATH=os.path.abspath(python_dir))
    linked = subprocess.run(['ldd', blockwire], capture_output=True, text=True).stdout.splitlines()
    found = {name: line.split('=>')[1].split()[0] for line in linked for name in ('libasan', 'libstdc++') if name in line and '=>' in line}
    if 'libasan' in found:
        env['LD_PRELOAD'] = ' '.join(found[n] for n in ('libasan', 'libstdc++') if n in found)
        env['ASAN_OPTIONS'] = 'detect_leaks=0'
    return env


def scenario_export_full_disk_summary():
    """export into a disk that fills (a small tmpfs; else a file size limit): the summary's shards made, transactions
    and bytes of blocks are those of the shards OUT holds (python-bitcoinlib counts their blocks' transactions, the
    blocks' own bytes their size), never those of the shards that failed after reading their blocks."""
    from bitcoin.core import CBlock
    directory, blocks = scenarios.make_chain(make_chain, work, 'source', 230, '--undo')
    clean = os.path.join(work, 'clean')
    export(directory, clean, shard=50)
    on_disk = {}  # shard's first height -> bytes its files take (whole pages)
    for rel, path in tree(clean).items():
        first = int(rel.split('start_block=')[1][:8])
        on_disk[first] = on_disk.get(first, 0) + (os.path.getsize(path) + 4095) // 4096 * 4096
    mount = os.path.join(work, 'tmpfs')
    os.makedirs(mount)
    # Room for two shards and half the third.
    mounted = subprocess.run(['mount', '-t', 'tmpfs', '-o', f'size={on_disk[0] + on_disk[50] + on_disk[100] // 2}', 'tmpfs', mount],
                             capture_output=True).returncode == 0
    try:
        for threads in ('1', '4'):
            out = os.path.join(mount, f'out{threads}')
            if mounted:
                shutil.rmtree(os.path.join(mount, 'out1'), ignore_errors=True)  # the room again
                r = run('export', directory, '-o', out, '--shard-blocks', '50', '--threads', threads, '--no-progress')
                assert r.returncode == 2 and 'No space left' in r.stderr, (r.returncode, r.stderr)
            else:  # no tmpfs (not root): each file's size limited, below the largest tables
                sizes = sorted(os.path.getsize(p) for p in tree(clean).values())
                cap = sizes[len(sizes) * 3 // 4]
                r = run('export', directory, '-o', out, '--shard-blocks', '50', '--threads', threads, '--no-progress',
                        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (cap, cap)))
                assert r.returncode in (1, 2) and 'File too large' in r.stderr, (r.returncode, r.stderr)
            said = re.search(r': (\d+) made \(([\d,]+) transactions?, ([\d,]+) bytes of blocks .*, (\d+) failed', r.stdout)
            assert said, r.stdout
            made, transactions, block_bytes, failed = (int(g.replace(',', '')) for g in said.groups())
            held = [tuple(int(n) for n in re.findall(r'=(\d+)', rel)[:2]) for rel in tree(out) if rel.startswith('blocks/')]
            # (one thread makes shards one after another: those before the disk is full are made; four side by side
            # may all meet it)
            assert failed >= 1 and made == len(held) >= (1 if threads == '1' else 0), (threads, r.stdout, held)
            heights = [h for first, last in held for h in range(first, last + 1)]
            assert block_bytes == sum(len(blocks[h]) for h in heights), (threads, r.stdout, held)
            assert transactions == sum(len(CBlock.deserialize(blocks[h]).vtx) for h in heights), (threads, r.stdout, held)
            print(f'--threads {threads}: {made} shards made, {failed} failed, {block_bytes:,} bytes of blocks')
    finally:
        if mounted:
            subprocess.run(['umount', mount], capture_output=True)


def scenario_utxos_while_created():
    """utxos on the set fetch is creating (DIR/blockwire-utxos, from its first file on), read again and again while
    fetch runs (its cache flushed at the end, then every megabyte): every answer is the set at a block of the chain
    (exit 0), or the documented "no best block" (exit 1), never a best block of zeros; the last one is the tip's."""
    source, blocks = scenarios.make_chain(make_chain, work, 'source', 3000, '--wide', '40')
    hashes = [block_hash(b) for b in blocks]
    known = set(hashes)
    server, port = peers.start_serve(blockwire, source, '--network', 'regtest')
    with server:
        for name, extra in (('default', []), ('dbcache1', ['--dbcache', '1'])):
            target = os.path.join(work, name)
            utxos = os.path.join(target, 'blockwire-utxos')
            answers = {'no best block': 0, 'a block of the chain': 0}
            during = 0
            with peers.Process([blockwire, 'fetch', f'127.0.0.1:{port}', '-o', target, '--network', 'regtest', '--no-progress',
                                *extra]) as fetch:
                deadline = time.time() + 120
                while time.time() < deadline:
                    running = fetch.proc.poll() is None
                    if not os.path.isdir(utxos):
                        assert running, 'fetch ended without a UTXO set'
                        time.sleep(0.002)
                        continue
                    r = run('utxos', utxos, '--json')
                    if r.returncode == 0:
                        best = json.loads(r.stdout)['bestblock']
                        assert best in known, (name, best, r.stdout)
                        answers['a block of the chain'] += 1
                    else:
                        assert r.returncode == 1 and 'no best block' in r.stderr, (name, r.returncode, r.stderr)
                        answers['no best block'] += 1
                    during += running
                    if not running:
                        break
                code, _, err = fetch.stop()
                assert code == 0, err
            assert during >= 3, (name, during, answers)
            assert r.returncode == 0 and best == hashes[-1], (name, r.stdout, r.stderr)
            print(f'{name}: {during} reads while fetch ran: {answers}')
        server.stop()


scenarios.dispatch(scenario, globals())
