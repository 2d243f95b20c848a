"""Threads against the module's waits: an export output closed by one thread while another sweeps it (the sweep keeps
it, and close() returns once OUT's lock is released, never under the sweep); and every call that waits for a
directory's lock (a refresh holds it alone), or for a block iterator's read-ahead when the iterator is dropped, waits
with the interpreter's lock released, so that another Python thread goes on meanwhile."""

import os
import random
import subprocess
import sys
import threading
import time

import pytest

import blockwire
from blockwire import _blockwire

MAKE_CHAIN = os.environ.get('BLOCKWIRE_MAKE_CHAIN')


# -- close() against a sweep --------------------------------------------------------------------------------------

@pytest.fixture(scope='module')
def shards_out(tmp_path_factory, directory):
    """OUT holding a whole shard of each height of Core's regtest chain (238 shards of 1 block), so that a sweep of
    it reads 238 blocks tables and removes none: one can be run again and again."""
    out = str(tmp_path_factory.mktemp('sweep') / 'out')
    with _blockwire.lock_export_output(out):
        for first, last, last_hash in _blockwire.plan_shards(directory, 1):
            made = _blockwire.export_shard(directory, out, first, last, shard_blocks=1, last_hash=last_hash)
            assert made['made'], made
    return out


def test_close_while_another_thread_sweeps(directory, shards_out):
    """100 times: remove_stale_shards in one thread, close() in another at a moment within the sweep's time. The sweep
    ends with nothing removed or is refused (closed before it began: ValueError), and once close() has returned, OUT's
    lock is free (another export takes it at once): close() waited for the sweep rather than leaving it an output
    whose lock was released, or destroyed."""
    with _blockwire.lock_export_output(shards_out) as output:
        started = time.monotonic()
        assert _blockwire.remove_stale_shards(directory, output, 1) == (0, [])
        sweep_seconds = time.monotonic() - started
    rng = random.Random(63)
    outcomes = {'swept': 0, 'refused': 0, 'close waited': 0}
    for _ in range(100):
        output = _blockwire.lock_export_output(shards_out)
        ready = threading.Barrier(2)
        failures = []

        def sweep():
            ready.wait()
            try:
                assert _blockwire.remove_stale_shards(directory, output, 1) == (0, [])
                outcomes['swept'] += 1
            except ValueError as e:
                assert 'closed' in str(e), e
                outcomes['refused'] += 1
            except BaseException as e:  # handed to the test's thread
                failures.append(e)

        sweeper = threading.Thread(target=sweep)
        sweeper.start()
        ready.wait()
        time.sleep(rng.uniform(0, sweep_seconds))
        closing = time.monotonic()
        output.close()
        outcomes['close waited'] += time.monotonic() - closing > sweep_seconds / 10
        # Free once close() has returned, the sweep still running or not.
        with _blockwire.lock_export_output(shards_out):
            pass
        sweeper.join(60)
        assert not sweeper.is_alive()
        assert not failures, failures
        with pytest.raises(ValueError):
            output.path  # closed
    assert outcomes['swept'] + outcomes['refused'] == 100
    # Sweeps under way when close() was called, which it waited for: the race was run (most loops: 80 of 100 here).
    assert outcomes['swept'] > 0 and outcomes['close waited'] >= 10, outcomes


def test_close_in_a_with_block_while_sweeping(directory, shards_out):
    """The with block's end is close(): the same wait."""
    done = []
    with _blockwire.lock_export_output(shards_out) as output:
        sweeper = threading.Thread(target=lambda: done.append(_blockwire.remove_stale_shards(directory, output, 1)))
        sweeper.start()
    with _blockwire.lock_export_output(shards_out):
        pass
    sweeper.join(60)
    assert done in ([(0, [])], []) and not sweeper.is_alive()


# -- waits with the interpreter's lock released ------------------------------------------------------------------

def fds_open_on(path):
    """How many of this process's descriptors are open on `path`."""
    n = 0
    for fd in os.listdir('/proc/self/fd'):
        try:
            n += os.readlink(f'/proc/self/fd/{fd}') == path
        except OSError:
            pass
    return n


class Hold:
    """d.refresh() in a thread of its own, holding the directory's lock alone while it reads its next blk file: a
    FIFO, whose write end a child process keeps open for `seconds` (outside this interpreter: nothing here can keep
    the hold from ending). Entered once the refresh has opened the FIFO (it holds the lock then)."""

    def __init__(self, d, fifo, seconds):
        self.d, self.fifo, self.seconds = d, fifo, seconds

    def __enter__(self):
        self.child = subprocess.Popen(
            [sys.executable, '-c', 'import os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR); print("open", flush=True); '
             'time.sleep(float(sys.argv[2]))', self.fifo, str(self.seconds)], stdout=subprocess.PIPE)
        assert self.child.stdout.readline() == b'open\n'
        self.result = []
        self.thread = threading.Thread(target=lambda: self.result.append(self.d.refresh()))
        self.thread.start()
        deadline = time.monotonic() + 30
        while fds_open_on(self.fifo) == 0:
            assert time.monotonic() < deadline and self.thread.is_alive(), 'the refresh did not open the FIFO'
            time.sleep(0.001)
        return self

    def __exit__(self, *exc):
        self.thread.join(60)
        self.child.wait(60)
        self.child.stdout.close()
        assert not self.thread.is_alive()
        assert self.result == [False]  # (the FIFO held nothing: the chain did not move)


class Counter:
    """A Python thread that counts, noting the longest time it went without a turn in each window."""

    def __enter__(self):
        self.stopping = False
        self.times = []
        self.thread = threading.Thread(target=self.run)
        self.thread.start()
        while not self.times:
            time.sleep(0.001)
        return self

    def run(self):
        while not self.stopping:
            self.times.append(time.monotonic())
            for _ in range(100):
                pass

    def __exit__(self, *exc):
        self.stopping = True
        self.thread.join(60)

    def longest_gap(self, start, end):
        inside = [t for t in self.times if start <= t <= end]
        points = [start] + inside + [end]
        return max(b - a for a, b in zip(points, points[1:]))


@pytest.fixture
def held_directory(tmp_path):
    """A make_chain directory of 21 blocks with rev files, opened, and a FIFO where its next blk file would be."""
    if not MAKE_CHAIN:
        pytest.fail('BLOCKWIRE_MAKE_CHAIN is not set', pytrace=False)
    path = str(tmp_path / 'chain')
    subprocess.run([MAKE_CHAIN, path, '20', '--undo'], check=True, capture_output=True, timeout=120)
    d = blockwire.open_directory(path)
    assert len(d) == 21 and d.has_undo
    fifo = os.path.join(path, 'blk00001.dat')
    os.mkfifo(fifo)
    return d, fifo


HOLD_SECONDS = 1.0

CALLS = {
    'len': len,
    'block_hash': lambda d: d.block_hash(3),
    'time': lambda d: d.time(3),
    'network': lambda d: d.network,
    'prune_height': lambda d: d.prune_height,
    'has_undo': lambda d: d.has_undo,
    'damaged': lambda d: d.damaged,
    'notes': lambda d: d.notes,
    'repr': repr,
    'blocks': lambda d: d.blocks(5),
    'rows': lambda d: d.rows('blocks', 5),
    'getblock': lambda d: d.getblock(1, 2),
    'plan_shards': lambda d: _blockwire.plan_shards(d, 5),
}


def waits_without_the_interpreter(d, fifo, call):
    """call() made while a refresh holds the directory's lock: how long it waited, and the longest time another
    Python thread went without a turn meanwhile."""
    with Hold(d, fifo, HOLD_SECONDS), Counter() as counter:
        start = time.monotonic()
        call()
        end = time.monotonic()
    return end - start, counter.longest_gap(start, end)


@pytest.mark.parametrize('name', sorted(CALLS))
def test_a_wait_for_the_directory_lets_other_threads_run(held_directory, name):
    d, fifo = held_directory
    waited, gap = waits_without_the_interpreter(d, fifo, lambda: CALLS[name](d))
    assert waited > HOLD_SECONDS / 2, f'{name} did not wait for the refresh ({waited:.3f} s): the test holds nothing'
    assert gap < waited / 3, f'while {name} waited {waited:.3f} s for the directory, another thread had no turn for {gap:.3f} s'


def test_dropping_an_iterator_waits_for_its_read_ahead_without_the_interpreter(held_directory):
    """A block iterator dropped while its read-ahead waits for the directory's lock: the drop waits for it (the
    read-ahead uses the directory) with the interpreter's lock released."""
    d, fifo = held_directory
    it = d.blocks(0)
    assert next(it).hash == d.block_hash(0)
    with Hold(d, fifo, HOLD_SECONDS), Counter() as counter:
        # Block 1 was read before the refresh took the lock; block 2's read-ahead now waits for it.
        block = next(it)
        start = time.monotonic()
        del it
        end = time.monotonic()
    assert block.hash == d.block_hash(1)
    waited, gap = end - start, counter.longest_gap(start, end)
    assert waited > HOLD_SECONDS / 2, f'the drop did not wait for the read-ahead ({waited:.3f} s)'
    assert gap < waited / 3, f'while the drop waited {waited:.3f} s, another thread had no turn for {gap:.3f} s'


# -- the interpreter's end -----------------------------------------------------------------------------------------

SHUTDOWN = '''
import sys, threading, time
import blockwire
raw = open(sys.argv[1], 'rb').read()
d = blockwire.open_directory(sys.argv[2])
view = memoryview(raw)
# Blocks that read `raw` in place (its buffer exported until they go), some in a cycle the interpreter's last
# collection frees.
kept = [blockwire.decode_block(raw), blockwire.decode_block(view)]
class Cycle: pass
cycle = Cycle(); cycle.me = cycle; cycle.block = blockwire.decode_block(view)
cycle.txs = [cycle.block.transactions[i] for i in range(20)]
cycle.blocks = d.blocks(0)
next(cycle.blocks)
def decode():
    while True:
        blockwire.decode_block(raw).txids()
def read():
    while True:
        for block in d.blocks(0):
            block.txids()
        d.refresh()
        len(d), d.notes, d.block_hash(len(d) - 1)
for work in (decode, decode, read, read):
    threading.Thread(target=work, daemon=True).start()
time.sleep(0.3)
print('exiting', flush=True)
'''


def test_the_interpreter_ends_with_daemon_threads_in_the_library(data_dir, regtest_dir):
    """Daemon threads inside the library's calls (the interpreter's lock released) when the interpreter finalizes,
    blocks holding exported buffers alive, an iterator's read-ahead under way: the process ends, status 0, nothing
    said (a thread that came back then was ended by an unwinding that std::terminate stopped: status 134)."""
    for _ in range(5):
        r = subprocess.run([sys.executable, '-c', SHUTDOWN, os.path.join(data_dir, 'block413567.raw'),
                            os.path.join(regtest_dir, 'blocks')], capture_output=True, text=True, timeout=60)
        assert (r.returncode, r.stdout, r.stderr) == (0, 'exiting\n', ''), (r.returncode, r.stdout, r.stderr)
