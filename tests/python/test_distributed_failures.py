"""blockwire.distributed when a task fails or the caller is interrupted, on an in-process cluster (2 workers of one
thread, whose tasks this test replaces with wrappers of its own): a task's failure that is not the library's (a
TypeError: a bug) is raised as what it is, not made an I/O failure of a shard, once the run's tasks have ended; the
library's I/O failure is one; `python3 -m blockwire.distributed` says the first as an internal error; an interrupt
(SIGINT) of export() or export_utxos() is raised only once the tasks a worker had begun have ended, so that none
writes into OUT after its lock is released; the worker's directories are kept a run at a time, the least recently
used dropped."""

import contextlib
import itertools
import os
import shutil
import signal
import threading
import time

import pytest

distributed = pytest.importorskip('distributed')

import blockwire  # noqa: E402
import blockwire.distributed  # noqa: E402
from blockwire import _blockwire  # noqa: E402


@pytest.fixture(scope='module')
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as c:
        yield c


@pytest.fixture(scope='module')
def client(cluster):
    with distributed.Client(cluster) as c:
        yield c


@pytest.fixture
def blocks(regtest_dir):
    return os.path.join(regtest_dir, 'blocks')  # 238 blocks: 5 shards of 50


def shard_tasks(client):
    return [key for keys in client.processing().values() for key in keys if 'blockwire-' in str(key)]


def out_is_free(out):
    with _blockwire.lock_export_output(str(out)):
        return True


_tasks = {}
_numbers = itertools.count()


def _tasks_numbered(number):
    return _tasks[number]


class Tasks:
    """What the wrapped tasks did, from the workers' threads (the cluster is in this process: a task pickled with
    its function finds the same object)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.began, self.ended = [], []
        self.number = next(_numbers)
        _tasks[self.number] = self

    def __reduce__(self):
        return _tasks_numbered, (self.number,)

    def begin(self, what):
        with self.lock:
            self.began.append(what)

    def end(self, what):
        with self.lock:
            self.ended.append(what)


def wrap_shards(monkeypatch, tasks, *, fail=None, seconds=0.0):
    """_make_shard replaced: a shard not stopped is noted, takes `seconds`, and `fail(first)` raises for it."""
    original = blockwire.distributed._make_shard

    def make(first, last, last_hash, **kw):
        if blockwire.distributed._stopping(kw['run']):
            return original(first, last, last_hash, **kw)
        tasks.begin(first)
        try:
            time.sleep(seconds)
            if fail is not None:
                fail(first)
            return original(first, last, last_hash, **kw)
        finally:
            tasks.end(first)

    monkeypatch.setattr(blockwire.distributed, '_make_shard', make)


@contextlib.contextmanager
def interrupt_once(tasks, after=0.2):
    """SIGINT to this (the main) thread `after` seconds after the first task began (none once the block is left)."""
    main = threading.main_thread().ident
    leaving = threading.Event()

    def run():
        deadline = time.monotonic() + 60
        while not tasks.began and time.monotonic() < deadline and not leaving.is_set():
            time.sleep(0.005)
        if not leaving.wait(after):
            signal.pthread_kill(main, signal.SIGINT)

    sender = threading.Thread(target=run)
    sender.start()
    try:
        yield
    finally:
        leaving.set()
        sender.join()


def test_a_task_failure_that_is_not_the_librarys_is_raised_as_it_is(client, blocks, tmp_path, monkeypatch):
    tasks = Tasks()

    def fail(first):
        if first == 50:
            raise TypeError('a bug in a task')

    wrap_shards(monkeypatch, tasks, fail=fail, seconds=0.05)
    with pytest.raises(TypeError, match='a bug in a task'):
        blockwire.distributed.export(client, blocks, tmp_path / 'out', shard_blocks=50, progress=False,
                                     note=lambda line: None)
    assert sorted(tasks.began) == sorted(tasks.ended) and 50 in tasks.began
    assert shard_tasks(client) == [] and out_is_free(tmp_path / 'out')


def test_the_librarys_io_failure_is_an_io_failure(client, blocks, tmp_path, monkeypatch):
    tasks = Tasks()

    def fail(first):
        if first == 0:
            blockwire.open_directory(str(tmp_path / 'none'))  # raises blockwire.IOFailure (ENOENT)

    wrap_shards(monkeypatch, tasks, fail=fail)
    report = blockwire.distributed.export(client, blocks, tmp_path / 'out', shard_blocks=50, progress=False,
                                          note=lambda line: None)
    assert report.io_failed and report.failed >= 1
    failed = [s for s in report.shards if s['problem']]
    assert failed[0]['first'] == 0 and failed[0]['io_failure'] and str(tmp_path / 'none') in failed[0]['problem']
    assert all(s['io_failure'] for s in failed)


def test_the_command_says_a_tasks_bug_as_an_internal_error(cluster, blocks, tmp_path, monkeypatch, capsys):
    tasks = Tasks()

    def fail(first):
        raise TypeError('a bug in a task')

    wrap_shards(monkeypatch, tasks, fail=fail)
    status = blockwire.distributed.main(['export', blocks, '-o', str(tmp_path / 'out'), '--shard-blocks', '50',
                                         '--scheduler', cluster.scheduler_address, '--no-progress'])
    err = capsys.readouterr().err
    assert status == 2, err
    assert 'blockwire export: internal error' in err and 'TypeError: a bug in a task' in err, err
    assert 'not made' not in err and 'the cluster at' not in err, err


def test_an_interrupted_export_waits_for_the_shards_begun(client, blocks, tmp_path, monkeypatch):
    tasks = Tasks()
    wrap_shards(monkeypatch, tasks, seconds=1.0)
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt), interrupt_once(tasks):
        blockwire.distributed.export(client, blocks, tmp_path / 'out', shard_blocks=50, progress=False,
                                     note=lambda line: None)
    seconds = time.monotonic() - start
    with tasks.lock:
        began, ended = sorted(tasks.began), sorted(tasks.ended)
    # The shards begun (one a worker thread) ended before export() raised; none began after the interrupt.
    assert 1 <= len(began) <= 2 and ended == began, (began, ended)
    assert seconds >= 1.0, seconds
    assert shard_tasks(client) == [] and out_is_free(tmp_path / 'out')


@pytest.fixture
def node(tmp_path, regtest_dir):
    node = tmp_path / 'node'
    shutil.copytree(os.path.join(regtest_dir, 'blocks'), node / 'blocks')
    shutil.copytree(os.path.join(regtest_dir, 'chainstate'), node / 'chainstate')
    return node


def test_an_interrupted_utxos_export_waits_for_its_task(client, node, tmp_path, monkeypatch):
    tasks = Tasks()
    original = blockwire.distributed._make_utxos

    def make(*args):
        if blockwire.distributed._stopping(args[-1]):
            return original(*args)
        tasks.begin('utxos')
        time.sleep(1.0)
        try:
            return original(*args)
        finally:
            tasks.end('utxos')

    monkeypatch.setattr(blockwire.distributed, '_make_utxos', make)
    out = tmp_path / 'out'
    with pytest.raises(KeyboardInterrupt), interrupt_once(tasks):
        blockwire.distributed.export_utxos(client, node / 'chainstate', out)
    # The task ended before the caller let go of OUT's lock.
    assert tasks.began == ['utxos'] and tasks.ended == ['utxos'], tasks.ended
    assert shard_tasks(client) == [] and out_is_free(out)


def test_worker_directories_are_kept_a_run_at_a_time(blocks):
    """A worker's directories (_WorkerDirectories): one object a run and path, the least recently used dropped past
    `keep`, a task's block past the tip met with a refresh rather than an IndexError."""
    kept = blockwire.distributed._WorkerDirectories()
    d = blockwire.open_directory(blocks)
    tip = len(d) - 1
    first = kept.get(blocks, None, 'run-0', tip, d.block_hash(tip))
    assert kept.get(blocks, None, 'run-0', 3, d.block_hash(3)) is first
    # Past the tip (a block the caller's copy has and this one lacks): refreshed, no IndexError; the task's own
    # check (export_shard's, under the hold that makes the shard) says the rest.
    assert kept.get(blocks, None, 'run-0', tip + 10, 'ab' * 32) is first
    others = [kept.get(blocks, None, f'run-{n}', 3, d.block_hash(3)) for n in range(1, kept.keep)]
    assert len({id(o) for o in [first, *others]}) == kept.keep
    kept.get(blocks, None, 'run-0', 3, d.block_hash(3))  # run-0 used last: run-1 is the least recently used
    kept.get(blocks, None, 'run-new', 3, d.block_hash(3))
    assert kept.get(blocks, None, 'run-0', 3, d.block_hash(3)) is first
    assert kept.get(blocks, None, 'run-1', 3, d.block_hash(3)) is not others[0]
