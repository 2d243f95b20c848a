"""Crashes, full disks, damage and hostile peers, from outside: the blockwire command as a user (or an
attacker) meets it. One scenario a run:
  reliability_test.py BLOCKWIRE MAKE_CHAIN DATA_DIR WORK_DIR SCENARIO
Every process a scenario starts is stopped by its PID, whatever happens; every loop is bounded in count and
time."""
import hashlib
import json
import os
import random
import resource
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'net'))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'support'))
import peers  # noqa: E402
import scenario as scenarios  # noqa: E402
from bitcoin.core import CBlock  # noqa: E402
from bitcoin.messages import msg_getdata, msg_getheaders, msg_ping, msg_pong  # noqa: E402
from bitcoin.net import CInv  # noqa: E402

blockwire, make_chain, data_dir, work, scenario = scenarios.arguments('blockwire', 'make_chain', 'data_dir', 'work', 'scenario')
FILL = os.path.join(data_dir, 'block413567.raw')
random.seed(int.from_bytes(os.urandom(4), 'little'))


run = scenarios.runner(blockwire)


def chain(name, n, *extra):
    """A regtest chain made by the library: its directory and its blocks' bytes in order."""
    return scenarios.make_chain(make_chain, work, name, n, *extra)


key_of, xor = peers.key_of, peers.xor


def record_offsets(directory, name='blk00000.dat'):
    """(offset, length) of each record of a blk file, in file order."""
    data = xor(open(os.path.join(directory, name), 'rb').read(), key_of(directory), 0)
    out, at = [], 0
    while at + 8 <= len(data):
        (n,) = struct.unpack('<I', data[at + 4:at + 8])
        out.append((at, n))
        at += 8 + n
    return out


def patch(directory, name, offset, plain):
    """Writes `plain` (un-obfuscated bytes) at `offset` of a file, obfuscated as the file is."""
    path = os.path.join(directory, name)
    with open(path, 'r+b') as f:
        f.seek(offset)
        f.write(xor(plain, key_of(directory), offset))


def blocks_count(directory):
    r = run('blocks', directory, '--network', 'regtest')
    return r, len([line for line in r.stdout.splitlines() if line.strip()])


def check_records(directory, expected):
    scan = run('scan', '--no-progress', directory)
    assert scan.returncode == 0, scan.stdout + scan.stderr
    got = peers.records(directory)
    assert got == expected, f'{len(got)} records, {len(expected)} expected'
    # The index kept across the crashes (DIR/blockwire-index; made now where none was) gives the chain a
    # fresh rebuild gives.
    run('blocks', directory, '--count', '1')
    assert os.path.exists(os.path.join(directory, 'blockwire-index', 'state.dat'))
    kept = run('blocks', directory, '--json', '--verbosity', '1')
    fresh = os.path.join(work, 'rebuilt')
    shutil.rmtree(fresh, ignore_errors=True)
    shutil.copytree(directory, fresh, ignore=shutil.ignore_patterns('blockwire-index'))
    rebuilt = run('blocks', fresh, '--json', '--verbosity', '1')
    assert kept.returncode == 0 and rebuilt.returncode == 0, kept.stderr + rebuilt.stderr
    assert json.loads(kept.stdout) == json.loads(rebuilt.stdout)
    assert 'index' not in kept.stderr, kept.stderr  # used, not made again


def fetch_args(port, directory, *extra):
    return [blockwire, 'fetch', f'127.0.0.1:{port}', '-o', directory, '--network', 'regtest', '--no-progress', *extra]


def scenario_kill_fetch():
    """kill -9 of fetch at random moments, again and again: every rerun goes on (a torn record is cut off and
    said), and the end is the source, byte for byte."""
    source, blocks = chain('source', 40, '--fill', FILL)  # about 55 MB of megabyte blocks
    target = os.path.join(work, 'fetched')
    server, port = peers.start_serve(blockwire, source)
    repaired = 0
    with server:
        started = time.time()
        assert subprocess.run(fetch_args(port, os.path.join(work, 'timing'), '--no-undo'), capture_output=True, timeout=60).returncode == 0
        took = time.time() - started
        for trial in range(10):
            shutil.rmtree(target, ignore_errors=True) if trial % 3 == 0 else None  # from the start again, now and then
            with peers.Process(fetch_args(port, target, '--no-undo')) as p:
                time.sleep(random.uniform(0.1, 0.9) * took)
                os.kill(p.proc.pid, signal.SIGKILL)
                p.proc.wait()
            # Never refused for what a crash leaves; each rerun may be killed too, so look at the last one.
            r = subprocess.run(fetch_args(port, target, '--no-undo', '--max-blocks', '1'), capture_output=True, text=True, timeout=60)
            assert r.returncode == 0, (trial, r.returncode, r.stderr)
            repaired += 'cut off a torn record' in r.stderr
        final = subprocess.run(fetch_args(port, target, '--no-undo'), capture_output=True, text=True, timeout=60)
        assert final.returncode == 0, final.stderr
        server.stop()
    check_records(target, blocks)
    print(f'{repaired} of the reruns cut off a torn record')


def scenario_kill_fetch_undo():
    """kill -9 of fetch while it writes undo records and flushes its UTXO set (--dbcache 1: often): every rerun
    goes on, and the end holds the undo records the source's chain has (made_chain's, made by a coin set in
    memory), record for record, and the UTXO set of a fetch never killed."""
    source, _ = chain('source', 40000, '--undo')
    target, clean = os.path.join(work, 'fetched'), os.path.join(work, 'clean')
    server, port = peers.start_serve(blockwire, source)
    cut = 0
    with server:
        started = time.time()
        assert subprocess.run(fetch_args(port, clean, '--dbcache', '1'), capture_output=True, timeout=60).returncode == 0
        took = time.time() - started
        for trial in range(8):
            shutil.rmtree(target, ignore_errors=True) if trial % 4 == 0 else None
            with peers.Process(fetch_args(port, target, '--dbcache', '1')) as p:
                time.sleep(random.uniform(0.05, 0.95) * took)
                os.kill(p.proc.pid, signal.SIGKILL)
                p.proc.wait()
            r = subprocess.run(fetch_args(port, target, '--max-blocks', '1', '--dbcache', '1'), capture_output=True, text=True,
                               timeout=60)
            assert r.returncode == 0, (trial, r.returncode, r.stderr)
            cut += 'the UTXO set was at height' in r.stderr
        final = subprocess.run(fetch_args(port, target), capture_output=True, text=True, timeout=60)
        assert final.returncode == 0, final.stderr
        server.stop()
    ours, theirs = peers.undo_records(target), peers.undo_records(source)
    assert len(ours) == 40000 and ours == theirs, (len(ours), len(theirs))
    assert peers.undo_records(clean) == theirs
    sets = [run('utxos', os.path.join(d, 'blockwire-utxos'), '--json') for d in (target, clean)]
    assert all(r.returncode == 0 for r in sets), [r.stderr for r in sets]
    assert json.loads(sets[0].stdout) == json.loads(sets[1].stdout)
    check_records(target, peers.records(source))
    print(f'{cut} of the reruns connected blocks a crash left past the last flush')


def scenario_unconnectable_block():
    """A peer's block that spends what its chain never made (proof of work and merkle root fine: check_block
    cannot tell): fetch says which block and why (exit 1: bad data), takes it out of the files again, and keeps the blocks
    before it; a rerun is refused the same way, never stuck on a directory it cannot open."""
    source, blocks = chain('source', 3, '--fill', FILL)  # block 1 on spends real mainnet coins
    target = os.path.join(work, 'fetched')
    server, port = peers.start_serve(blockwire, source)
    with server:
        for attempt in range(2):
            r = subprocess.run(fetch_args(port, target), capture_output=True, text=True, timeout=60)
            assert r.returncode == 1, (attempt, r.returncode, r.stderr)
            assert 'an input spends an output that is not in the coin set' in r.stderr and '(height 1)' in r.stderr, r.stderr
            assert 'taken out again' in r.stderr, r.stderr
            shown = run('blocks', target, '--network', 'regtest', '--json')
            assert shown.returncode == 0 and len(json.loads(shown.stdout)) == 1, shown.stderr  # the genesis block alone
        server.stop()


def pack_inputs(blocks, first, count):
    """Block files for pack: one raw file a block."""
    paths = []
    for i in range(first, first + count):
        path = os.path.join(work, f'in{i:04}.raw')
        with open(path, 'wb') as f:
            f.write(blocks[i])
        paths.append(path)
    return paths


def kill_once_writing(args, writing, spread):
    """Starts `args`, waits until writing() says it has begun to write (at most 30 s), lets it go on for a
    random moment of up to `spread` seconds, and kills it (-9). Returns whether it was still running then."""
    with peers.Process(args) as p:
        deadline = time.time() + 30
        while p.proc.poll() is None and not writing() and time.time() < deadline:
            time.sleep(0.002)
        time.sleep(random.uniform(0, spread))
        alive = p.proc.poll() is None
        if alive:
            os.kill(p.proc.pid, signal.SIGKILL)
        p.proc.wait()
        return alive


def scenario_kill_pack_append():
    """kill -9 of pack --append at random moments: the directory holds the blocks before it or every block of
    it, never part (the index leaves an unfinished append out, the next writer removes it), and a rerun adds
    them once."""
    _, blocks = chain('source', 200, '--fill', FILL)
    target = os.path.join(work, 'packed')
    base = pack_inputs(blocks, 0, 1)
    assert run('pack', '-o', target, '--network', 'regtest', *base).returncode == 0
    rest = pack_inputs(blocks, 1, 199)
    landed = 0
    for trial in range(6):
        batch = os.path.join(target, '.blockwire-batch')
        landed += kill_once_writing([blockwire, 'pack', '--append', '-o', target, '--network', 'regtest', *rest],
                                    lambda: os.path.exists(batch), 0.2)
        r, n = blocks_count(target)
        assert n in (1, 200), (trial, n, r.stderr)
        if n == 200:
            break  # it finished before the kill
        assert r.returncode in (0, 1), r.stderr
        if r.returncode == 1:
            assert 'did not finish' in r.stderr, r.stderr
    assert landed, 'no kill landed while pack was writing'
    r = run('pack', '--append', '-o', target, '--network', 'regtest', *rest)
    assert r.returncode == 0, r.stderr
    check_records(target, blocks[:200])
    again = run('pack', '--append', '-o', target, '--network', 'regtest', *rest)
    assert again.returncode == 0 and 'packed nothing' in again.stdout, again.stdout + again.stderr
    check_records(target, blocks[:200])


def scenario_kill_pack_new():
    """kill -9 of pack into a new directory leaves a hidden .partial directory; the next run removes it, and a
    directory pack makes has the umask's mode, not 0700."""
    _, blocks = chain('source', 100, '--fill', FILL)
    inputs = pack_inputs(blocks, 0, 100)
    target = os.path.join(work, 'new')
    def partials():
        return [n for n in os.listdir(work) if n.startswith('.new.partial-')]
    for _ in range(4):
        if kill_once_writing([blockwire, 'pack', '-o', target, '--network', 'regtest', *inputs], lambda: bool(partials()), 0.05):
            break
        shutil.rmtree(target, ignore_errors=True)
    left = partials()
    assert left and not os.path.exists(target), 'no kill landed while pack was writing'
    old = os.umask(0o027)
    try:
        r = run('pack', '-o', target, '--network', 'regtest', *inputs)
    finally:
        os.umask(old)
    assert r.returncode == 0, r.stderr
    assert 'left by a pack that did not finish' in r.stderr, r.stderr
    assert not [n for n in os.listdir(work) if n.startswith('.new.partial-')], os.listdir(work)
    assert os.stat(target).st_mode & 0o777 == 0o750, oct(os.stat(target).st_mode)
    check_records(target, blocks[:100])


def limited_disk(size_bytes):
    """A tmpfs of that size where mounting is allowed (root), else None (the caller limits file sizes)."""
    path = os.path.join(work, 'tmpfs')
    os.makedirs(path, exist_ok=True)
    r = subprocess.run(['mount', '-t', 'tmpfs', '-o', f'size={size_bytes}', 'tmpfs', path], capture_output=True)
    return path if r.returncode == 0 else None


def scenario_disk_full():
    """A disk that fills during fetch: the error says so (exit 2) and, with room again, the rerun finishes:
    nothing it left (xor.dat above all) keeps the directory from being resumed."""
    source, blocks = chain('source', 6, '--fill', FILL)
    server, port = peers.start_serve(blockwire, source)
    mount = limited_disk(3 * 1024 * 1024)
    try:
        with server:
            for limit in (0, 4, 2_000_000):  # bytes of room: none (not even xor.dat), a few, part of the blocks
                target = os.path.join(mount or work, f'full{limit}')
                if mount:
                    filler = os.path.join(mount, 'filler')
                    free = os.statvfs(mount).f_bavail * os.statvfs(mount).f_frsize
                    with open(filler, 'wb') as f:
                        f.write(b'\0' * max(0, free - limit))
                    r = subprocess.run(fetch_args(port, target, '--no-undo'), capture_output=True, text=True, timeout=60)
                    os.remove(filler)
                else:
                    def cap(n=limit):
                        resource.setrlimit(resource.RLIMIT_FSIZE, (n, n))
                    r = subprocess.run(fetch_args(port, target, '--no-undo'), capture_output=True, text=True, timeout=60, preexec_fn=cap)
                assert r.returncode == 2, (limit, r.returncode, r.stderr)
                assert 'No space left' in r.stderr or 'File too large' in r.stderr, r.stderr
                if mount:  # room for the rest: a directory beside it on the real disk holds the same files
                    moved = os.path.join(work, f'moved{limit}')
                    shutil.copytree(target, moved, symlinks=True) if os.path.exists(target) else os.makedirs(moved)
                    target = moved
                again = subprocess.run(fetch_args(port, target, '--no-undo'), capture_output=True, text=True, timeout=60)
                assert again.returncode == 0, (limit, again.stderr)
                check_records(target, blocks)
            server.stop()
    finally:
        if mount:
            subprocess.run(['umount', mount], capture_output=True)


def scenario_disk_full_undo():
    """A disk that fills while fetch flushes its UTXO set (--dbcache 1: often; the set alone on a small tmpfs, the
    blocks and undo records beside on the real disk), at five points: the error says the disk is full (exit 2),
    and with room again the rerun ends with the source's undo records, each once (the block whose connection
    failed is taken out again, and so is anything written for it)."""
    source, _ = chain('source', 400, '--undo', '--wide', '300')  # (each block's changes a sizeable share of the cache)
    theirs = peers.undo_records(source)
    server, port = peers.start_serve(blockwire, source)
    mount = limited_disk(64 * 1024 * 1024)
    if mount is None:
        print('no tmpfs can be mounted here (not root): nothing to fill')
        return

    def fetch_into(target, share=None, used=0):
        """fetch with the set on the tmpfs (`share` of `used` bytes of room there, None: all of it)."""
        os.makedirs(target, exist_ok=True)
        sets = os.path.join(mount, os.path.basename(target))
        os.makedirs(sets)
        os.symlink(sets, os.path.join(target, 'blockwire-utxos'))
        filler = os.path.join(mount, 'filler')
        if share is not None:
            free = os.statvfs(mount).f_bavail * os.statvfs(mount).f_frsize
            with open(filler, 'wb') as f:
                f.write(b'\0' * max(0, free - int(used * share)))
        try:
            return subprocess.run(fetch_args(port, target, '--dbcache', '1'), capture_output=True, text=True, timeout=120), sets
        finally:
            if os.path.exists(filler):
                os.remove(filler)

    failed = 0
    try:
        with server:
            r, sets = fetch_into(os.path.join(work, 'whole'))
            assert r.returncode == 0, r.stderr
            used = sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(sets) for f in files)
            for share in (0.2, 0.4, 0.6, 0.8, 0.95):
                target = os.path.join(work, f'full{share}')
                r, sets = fetch_into(target, share, used)
                if r.returncode != 0:
                    failed += 1
                    print(share, r.stderr.strip().splitlines()[-2:])
                    assert r.returncode == 2, (share, r.returncode, r.stderr)
                    assert 'No space left' in r.stderr and 'Input/output error' not in r.stderr, r.stderr
                # Room again: the set moved onto the real disk.
                os.remove(os.path.join(target, 'blockwire-utxos'))
                shutil.copytree(sets, os.path.join(target, 'blockwire-utxos'))
                shutil.rmtree(sets)
                again = subprocess.run(fetch_args(port, target, '--dbcache', '1'), capture_output=True, text=True, timeout=120)
                assert again.returncode == 0, (share, again.stderr)
                ours = peers.undo_records(target)
                assert len(ours) == len(set(ours)) and ours == theirs, (share, len(ours), len(set(ours)), len(theirs))
            server.stop()
    finally:
        subprocess.run(['umount', mount], capture_output=True)
    print(f'{failed} of 5 fetches ran out of room')
    assert failed >= 3, failed


def scenario_read_while_write():
    """scan and blocks of a directory that fetch is writing: never damage, whatever moment they read it."""
    _, blocks = chain('source', 60)
    node = peers.FakeNode(blocks, 'slow_blocks')  # 50 ms a block
    node.start()
    target = os.path.join(work, 'fetched')
    with peers.Process(fetch_args(node.port, target)) as writer:
        seen = 0
        deadline = time.time() + 40
        while writer.proc.poll() is None and time.time() < deadline and seen < 12:
            if not os.path.exists(os.path.join(target, 'blk00000.dat')):
                time.sleep(0.02)
                continue
            scan = run('scan', '--no-progress', '--json', target)
            assert scan.returncode == 0, scan.stdout + scan.stderr
            listed = run('blocks', target)
            assert listed.returncode == 0, listed.stderr
            seen += 1
        status, _, err = writer.stop(signal.SIGINT, timeout=30)
    print("scan and blocks ran", seen, "times while fetch wrote")
    assert seen >= 3, seen
    assert status in (0, 2), err


def no_blocks_yet(directory, why):
    """Every command that reads a directory says it has no blocks yet, exit 0."""
    out = os.path.join(work, 'export-out')
    shutil.rmtree(out, ignore_errors=True)
    for args in (['blocks', directory], ['blocks', directory, '--json'], ['filters', directory], ['export', directory, '-o', out],
                 ['scan', '--no-progress', directory]):
        r = run(*args)
        assert r.returncode == 0 and 'no blocks yet' in r.stderr, (why, args, r.returncode, r.stderr)


def scenario_just_made():
    """A directory with no block yet is a chain of length zero for every command (exit 0), whatever moment it is read."""
    _, blocks = chain('source', 40)
    # The moments a new directory goes through, made by hand.
    fresh = os.path.join(work, 'fresh')
    os.makedirs(fresh)
    no_blocks_yet(fresh, 'an empty directory')
    open(os.path.join(fresh, 'xor.dat'), 'wb').write(os.urandom(8))
    no_blocks_yet(fresh, 'xor.dat alone')
    open(os.path.join(fresh, 'blk00000.dat'), 'wb').close()
    no_blocks_yet(fresh, 'an empty blk file')
    open(os.path.join(fresh, 'blk00000.dat'), 'wb').write(bytes(4))
    no_blocks_yet(fresh, 'a record begun')
    # A fetch that cannot connect leaves nothing behind.
    gone = os.path.join(work, 'never')
    r = subprocess.run(fetch_args(1, gone), capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and not os.path.exists(gone), (r.returncode, r.stderr, os.path.exists(gone) and os.listdir(gone))
    # blocks read 40 times from the moment fetch makes the directory, a block each 50 ms: never damage.
    node = peers.FakeNode(blocks, 'slow_blocks')
    node.start()
    target = os.path.join(work, 'fetched')
    rounds, heights = 0, []
    with peers.Process(fetch_args(node.port, target)) as writer:
        deadline = time.time() + 60
        while rounds < 40 and time.time() < deadline:
            if not os.path.exists(target):
                time.sleep(0.005)
                continue
            r = run('blocks', target)
            assert r.returncode == 0, (rounds, r.stderr)
            assert 'damage' not in r.stderr and 'bad magic' not in r.stderr, r.stderr
            heights.append(len(r.stdout.splitlines()))
            rounds += 1
        writer.stop(signal.SIGINT, timeout=30)
    print("blocks read", rounds, "times as fetch began; blocks seen:", heights)
    assert rounds == 40, rounds
    assert heights == sorted(heights), heights


def scenario_checked_index():
    """The index behind blocks, serve and fetch checks proof of work and links, and says what it left out."""
    directory, blocks = chain('source', 300)
    # A block appended with its bits changed to 0x1d00ffff (far more work claimed, none done).
    tampered = os.path.join(work, 'bits')
    shutil.copytree(directory, tampered)
    b = bytearray(blocks[-1])
    b[72:76] = struct.pack('<I', 0x1d00ffff)
    path = os.path.join(work, 'bad.hex')
    open(path, 'w').write(bytes(b).hex())
    r = run('pack', '--append', '-o', tampered, '--network', 'regtest', path)
    assert r.returncode == 0, r.stderr
    r, n = blocks_count(tampered)
    assert r.returncode == 1 and n == 301, (r.returncode, n)
    assert "proof of work fails" in r.stderr, r.stderr
    # fetch into it from an honest peer: nothing to fetch, the tip is 300, and the damage is said (exit 1).
    server, port = peers.start_serve(blockwire, directory)
    with server:
        r = subprocess.run(fetch_args(port, tampered, '--json'), capture_output=True, text=True, timeout=60)
        assert r.returncode == 1 and json.loads(r.stdout)['height'] == 300, (r.returncode, r.stdout, r.stderr)
        server.stop()
    server, port = peers.start_serve(blockwire, tampered)
    with server:
        status, _, err = server.stop()
    assert 'proof of work fails' in err and 'height 300' in err, err

    # A flipped bit in block 150's merkle root: its children link to nothing
    # (found by reading the files: the copy leaves the kept index behind).
    flipped = os.path.join(work, 'merkle')
    shutil.copytree(directory, flipped, ignore=shutil.ignore_patterns('blockwire-index'))
    at, _ = record_offsets(flipped)[150]
    data = xor(open(os.path.join(flipped, 'blk00000.dat'), 'rb').read()[at + 8 + 36:at + 8 + 37], key_of(flipped), at + 8 + 36)
    patch(flipped, 'blk00000.dat', at + 8 + 36, bytes([data[0] ^ 1]))
    r, n = blocks_count(flipped)
    assert r.returncode == 1, r.stderr
    assert n <= 151, n
    assert 'links to no block' in r.stderr or 'proof of work fails' in r.stderr, r.stderr

    # Record 100's length set to 0xffffffff.
    lengths = os.path.join(work, 'length')
    shutil.copytree(directory, lengths, ignore=shutil.ignore_patterns('blockwire-index'))
    at, _ = record_offsets(lengths)[100]
    patch(lengths, 'blk00000.dat', at + 4, b'\xff\xff\xff\xff')
    r, n = blocks_count(lengths)
    assert r.returncode == 1 and 'implausible block length' in r.stderr, (r.returncode, r.stderr)


def scenario_damaged_undo():
    """A damaged rev record: blocks --verbosity 3 says which block lacks its undo data and exits 1."""
    directory, _ = chain('source', 30, '--undo')
    good = run('blocks', directory, '--json', '--verbosity', '3')
    assert good.returncode == 0, good.stderr
    path = os.path.join(directory, 'rev00000.dat')
    data = bytearray(open(path, 'rb').read())
    data[100] ^= 0xff
    open(path, 'wb').write(bytes(data))
    r = run('blocks', directory, '--json', '--verbosity', '3')
    assert r.returncode == 1, r.stderr
    assert 'no undo data for block' in r.stderr and 'fees and prevouts are left out' in r.stderr, r.stderr
    scan = run('scan', '--no-progress', directory)
    assert scan.returncode == 1, scan.stdout


def scenario_arguments():
    """What arguments and messages say when they are wrong."""
    directory, blocks = chain('source', 20)
    for args in (['blocks', directory, '--count', '-5'], ['blocks', directory, '--count', '99999999999999999999999'],
                 ['blocks', directory, '--from', '99999999999999999999999'], ['scan', directory, '--threads', '0'],
                 ['fetch', '127.0.0.1:1', '-o', os.path.join(work, 'x'), '--max-blocks', '-1']):
        r = run(*args)
        assert r.returncode == 2 and '18446744073709551615' not in r.stderr, (args, r.stderr)
    r = run('fetch', '127.0.0.1:1', '-o', os.path.join(directory, 'blk00000.dat'), '--network', 'regtest')
    assert r.returncode == 2 and 'blk00000.dat: not a directory' in r.stderr, r.stderr
    # A loop of links is named by the file, not the directory.
    looped = os.path.join(work, 'looped')
    shutil.copytree(directory, looped)
    os.symlink('blk00001.dat', os.path.join(looped, 'blk00001.dat'))
    r = run('blocks', looped)
    assert r.returncode == 1 and 'blk00001.dat: cannot be read' in r.stderr, r.stderr
    # An empty first blk file: the network is still the records' (regtest), and nothing is damage.
    shifted = os.path.join(work, 'shifted')
    os.makedirs(shifted)
    shutil.copy(os.path.join(directory, 'xor.dat'), shifted)
    open(os.path.join(shifted, 'blk00000.dat'), 'wb').close()
    shutil.copy(os.path.join(directory, 'blk00000.dat'), os.path.join(shifted, 'blk00001.dat'))
    r = run('scan', '--no-progress', shifted)
    assert r.returncode == 0, r.stdout + r.stderr
    r, n = blocks_count(shifted)
    assert r.returncode == 0 and n == len(blocks), (n, r.stderr)


def scenario_serve_slots():
    """Idle sockets cannot hold serve's slots (the oldest unfinished handshake is evicted), a ping at a byte
    a second is cut off in seconds, a client that stops reading is dropped as one, and a short payload is a
    protocol violation: each logged as what the peer did."""
    directory, blocks = chain('source', 30, '--fill', FILL)
    server, port = peers.start_serve(blockwire, directory, '--max-peers', '4')
    with server:
        idle = [socket.create_connection(('127.0.0.1', port), timeout=10) for _ in range(4)]
        time.sleep(1.5)  # past the second a handshake has before it can be evicted
        started = time.time()
        good = peers.Wire(socket.create_connection(('127.0.0.1', port), timeout=10))
        peers.handshake(good)
        assert time.time() - started < 5
        for s in idle:
            s.close()

        # A ping at one byte a second, after the handshake.
        slow = socket.create_connection(('127.0.0.1', port), timeout=20)
        peers.handshake(peers.Wire(slow))
        started = time.time()
        closed = False
        for byte in msg_ping(nonce=7).to_bytes():
            try:
                slow.sendall(bytes([byte]))
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
            time.sleep(1)
            if time.time() - started > 12:
                break
        if not closed:
            slow.settimeout(5)
            try:
                closed = slow.recv(1) == b''
            except (ConnectionResetError, socket.timeout):
                closed = True
        assert closed and time.time() - started < 12, time.time() - started
        slow.close()

        # A short payload with the right checksum: a getheaders counting 5 locator hashes and holding one.
        short = peers.Wire(socket.create_connection(('127.0.0.1', port), timeout=10))
        peers.handshake(short)
        short.send(peers.envelope(b'getheaders', struct.pack('<I', 70016) + peers.compact_size(5) + bytes(32) + bytes(32)))
        assert short.receive() == (None, None)

        status, _, err = server.stop()
    assert 'evicted' in err, err
    assert 'did not arrive whole' in err, err
    assert 'ends before the fields it announces' in err, err

    # A client that asks for every block and never reads: dropped when a message it is sent is late.
    message = msg_getdata()  # made first: hashing 30 megabyte blocks in Python may take longer than the 3 s below
    for b in blocks[1:]:
        inv = CInv()
        inv.type, inv.hash = peers.MSG_WITNESS_BLOCK, CBlock.deserialize(b).GetHash()
        message.inv.append(inv)
    server, port = peers.start_serve(blockwire, directory, '--timeout', '3')
    with server:
        reader = socket.create_connection(('127.0.0.1', port), timeout=10)
        reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        wire = peers.Wire(reader)
        peers.handshake(wire)
        wire.send(message)
        time.sleep(8)  # the first block that does not leave within 3 s ends it
        status, _, err = server.stop()
        reader.close()
    assert 'stopped reading' in err, err


def scenario_pack_append_network():
    """pack --append without --network takes the network of the directory's records (make_chain's regtest
    directory); a block or a --network of another network than the records' is refused naming both, nothing
    written; blocks --network of another network than the records' says so too."""
    _, blocks = chain('source', 6)  # blocks 0-6 (python-bitcoinlib reads them below)
    target = scenarios.make_chain(make_chain, work, 'target', 5, blocks=False)
    assert peers.records(target) == blocks[:6], 'make_chain made another chain for 5 blocks than for 6'
    hashes = [CBlock.deserialize(b).GetHash()[::-1].hex() for b in blocks]
    [further] = pack_inputs(blocks, 6, 1)

    # A regtest block into a regtest directory, no --network: the records say regtest.
    r = run('pack', '--append', '-o', target, further, check=0)
    assert 'network regtest' in r.stdout and 'damaged' not in r.stderr, r.stdout + r.stderr
    assert 'warning' not in r.stderr, r.stderr  # (the block judged as regtest's, not mainnet's)
    assert peers.records(target) == blocks[:7]
    scan = run('scan', '--no-progress', '--json', target, check=0)
    assert json.loads(scan.stdout)['blocks'] == 7, scan.stdout
    shown = run('blocks', target, '--json', check=0)
    assert [b['hash'] for b in json.loads(shown.stdout)] == hashes, shown.stdout
    before = peers.records(target)

    def refused(args, *words):
        r = run('pack', '--append', '-o', target, *args, check=2)
        assert all(w in r.stderr for w in words), (words, r.stderr)
        assert peers.records(target) == before, 'a refused pack wrote'
        return r

    # --network naming another network than the records'.
    refused(['--network', 'mainnet', further], "regtest's", "not mainnet's")
    # A mainnet block (its proof of work meets bits no regtest block has), with and without --network regtest.
    r = refused([FILL], 'mainnet', "holds regtest's blocks", 'block413567.raw')
    refused(['--network', 'regtest', FILL], 'mainnet', "holds regtest's blocks", 'block413567.raw')
    assert 'damaged' not in r.stderr, r.stderr
    # ...and a regtest block into a mainnet directory.
    mainnet = os.path.join(work, 'mainnet')
    run('pack', '-o', mainnet, FILL, check=0)
    kept = peers.records(mainnet)
    r = run('pack', '--append', '-o', mainnet, further, check=2)
    assert 'a block of regtest' in r.stderr and "holds mainnet's blocks" in r.stderr, r.stderr
    assert peers.records(mainnet) == kept
    # Reading one network's directory as another's: said so (exit 2), not "no chain" or damage.
    r = run('blocks', target, '--network', 'mainnet', check=2)
    assert "its records are regtest's (their magic), not mainnet's" in r.stderr, r.stderr
    assert 'no chain' not in r.stderr and 'problem' not in r.stderr, r.stderr


def scenario_getheaders_unknown_stop():
    """getheaders with no locator: the stop hash's header alone when serve knows it, and nothing at all (not an
    empty headers message) when it does not, as Bitcoin Core answers; a ping after each shows what came before."""
    directory, blocks = chain('source', 10)
    server, port = peers.start_serve(blockwire, directory)
    with server:
        wire = peers.Wire(socket.create_connection(('127.0.0.1', port), timeout=20))
        peers.handshake(wire)

        def ask(stop, nonce):
            """Sends the getheaders, then a ping: the messages before its pong (serve's own pings answered)."""
            request = msg_getheaders()
            request.locator.vHave = []
            request.hashstop = stop
            wire.send(request)
            wire.send(msg_ping(nonce=nonce))
            got = []
            while True:
                command, payload = wire.receive()
                assert command is not None, 'serve closed the connection'
                if command == b'pong' and wire.message(command, payload).nonce == nonce:
                    return got
                if command == b'ping':
                    wire.send(msg_pong(nonce=wire.message(command, payload).nonce))
                    continue
                got.append((command, payload))

        known = CBlock.deserialize(blocks[4]).GetHash()
        got = ask(known, 1)
        assert [c for c, _ in got] == [b'headers'], got
        assert [h.GetHash() for h in peers.read_headers(got[0][1])] == [known]
        for i, stop in enumerate([os.urandom(32), bytes(32)]):
            assert stop not in {CBlock.deserialize(b).GetHash() for b in blocks}
            got = ask(stop, 2 + i)
            assert got == [], f'an answer to an unknown stop hash: {got}'
        # The connection still serves: a locator of genesis gets the rest of the chain.
        request = msg_getheaders()
        request.locator.vHave = [CBlock.deserialize(blocks[0]).GetHash()]
        wire.send(request)
        command, payload = wire.receive()
        while command == b'ping':
            wire.send(msg_pong(nonce=wire.message(command, payload).nonce))
            command, payload = wire.receive()
        assert command == b'headers', command
        assert [h.GetHash() for h in peers.read_headers(payload)] == [CBlock.deserialize(b).GetHash() for b in blocks[1:]]
        wire.sock.close()
        server.stop()



def chain_scripthashes(blocks, heights):
    """Esplora's scripthash (SHA-256 of the script) of every spendable output of the blocks at `heights`, by
    python-bitcoinlib's reading of the blocks."""
    out = set()
    for h in heights:
        for tx in CBlock.deserialize(blocks[h]).vtx:
            for o in tx.vout:
                script = bytes(o.scriptPubKey)
                if script[:1] != b'\x6a':
                    out.add(hashlib.sha256(script).hexdigest())
    return sorted(out)


def address_totals(directory, scripts):
    """What `blockwire addresses DIR SCRIPTHASH...` says of each script (making or finishing the index first)."""
    r = run('addresses', directory, *scripts)
    assert r.returncode == 0, r.stderr
    return [json.loads(line) for line in r.stdout.splitlines() if line.startswith('{')]


def uninterrupted_totals(directory, scripts):
    """The same from an index made in one go, of a copy of `directory` without the kept index."""
    fresh = os.path.join(work, 'uninterrupted')
    shutil.rmtree(fresh, ignore_errors=True)
    shutil.copytree(directory, fresh, ignore=shutil.ignore_patterns('blockwire-index'))
    totals = address_totals(fresh, scripts)
    assert sum(t['chain_stats']['tx_count'] for t in totals) > 1000, totals[:3]
    return totals


def scenario_kill_addresses():
    """kill -9 of `blockwire addresses` at random moments, 20 times: each rerun goes on from the last batch of
    whole blocks written, and at the end every script has the totals an index made without interruption gives."""
    directory, blocks = chain('source', 300, '--undo', '--fill', FILL)
    scripts = chain_scripthashes(blocks, [1, 2, 150, 300])
    index = os.path.join(directory, 'blockwire-index', 'addresses')
    landed = 0
    for _ in range(20):
        landed += kill_once_writing([blockwire, 'addresses', '--threads', '1', directory], lambda: os.path.exists(index), 1.0)
    assert landed >= 5, f'only {landed} kills landed while the index was being made'
    assert address_totals(directory, scripts) == uninterrupted_totals(directory, scripts)


def scenario_addresses_disk_full():
    """A disk that fills while `blockwire addresses` writes its index: exit 2 with the system's words, and with room
    again the rerun goes on and ends with the totals of an index made in one go."""
    directory, blocks = chain('source', 150, '--undo', '--fill', FILL)
    scripts = chain_scripthashes(blocks, [1, 2, 150])
    chain_bytes = sum(os.path.getsize(os.path.join(directory, n)) for n in os.listdir(directory) if n.endswith('.dat'))
    mount = limited_disk(chain_bytes + 4 * 1024 * 1024)
    try:
        if mount:
            target = os.path.join(mount, 'chain')
            shutil.copytree(directory, target, ignore=shutil.ignore_patterns('blockwire-index'))
            r = run('addresses', target)
        else:
            target = directory
            def cap():
                resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))
            r = subprocess.run([blockwire, 'addresses', target], capture_output=True, text=True, timeout=120, preexec_fn=cap)
        assert r.returncode == 2, (r.returncode, r.stderr)
        assert 'No space left' in r.stderr or 'File too large' in r.stderr, r.stderr
        if mount:  # room again: the same files on the real disk
            moved = os.path.join(work, 'moved')
            shutil.copytree(target, moved)
            target = moved
        assert address_totals(target, scripts) == uninterrupted_totals(directory, scripts)
    finally:
        if mount:
            subprocess.run(['umount', mount], capture_output=True)


def scenario_addresses_pruned():
    """A pruned directory: addresses names the first pruned block it would need (exit 2), rest --addresses refuses
    at once; an index made before the pruning goes on answering, its totals unchanged."""
    directory, blocks = chain('source', 700, '--undo', '--file-size', '20000')
    made_before = os.path.join(work, 'made_before')
    shutil.copytree(directory, made_before)
    scripts = chain_scripthashes(blocks, [1, 2, 3])
    before = address_totals(made_before, scripts)
    assert sum(t['chain_stats']['tx_count'] for t in before) >= 700, before
    for d in (directory, made_before):
        r = run('prune', d, '--keep', '288')
        assert r.returncode == 0 and 'pruned' in r.stdout, r.stdout + r.stderr
    r = run('addresses', directory)
    assert r.returncode == 2 and 'height 0' in r.stderr and 'pruned' in r.stderr, (r.returncode, r.stderr)
    r = subprocess.run([blockwire, 'rest', directory, '--addresses', '--listen', '127.0.0.1:0'], capture_output=True, text=True, timeout=30)
    assert r.returncode == 2 and '--addresses needs every block' in r.stderr, (r.returncode, r.stderr)
    assert address_totals(made_before, scripts) == before


scenarios.dispatch(scenario, globals())
