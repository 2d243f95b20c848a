"""blockwire export on a Dask cluster: the same shards as `blockwire export`, made by the cluster's workers.

    from distributed import Client
    import blockwire.distributed
    report = blockwire.distributed.export(Client('tcp://scheduler:8786'), '~/.bitcoin/blocks', '/shared/tables',
                                          compress='zstd')
    print(report.summary())

The caller locks OUT (OUT/.blockwire-export.lock, as the command does), opens the directory, plans the shards and
removes what left the chain; each shard is then a Dask task in which a worker opens the directory itself (a path
every worker sees, or a copy on each machine at the same path) and makes the shard with the library, under a
temporary name of its own, renamed into place whole. A worker that dies has its task run again by Dask elsewhere;
what it left under its temporary names is removed at the end. The shards are the bytes the command makes.

export_utxos(client, chainstate, out) makes `blockwire utxos --tables`'s table by the same route: the caller locks
OUT, a worker (on the machine that has the node: workers=) reads the chainstate and writes the table. It is one task:
a chainstate is one LevelDB database read in key order.

From a shell: python3 -m blockwire.distributed export DIR -o OUT --scheduler ADDRESS [options], and
python3 -m blockwire.distributed utxos CHAINSTATE --tables OUT --scheduler ADDRESS [options] (what
`blockwire export --scheduler` and `blockwire utxos --scheduler` run).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import dataclasses
import logging
import os
import socket
import sys
import threading
import time
import traceback
import typing
import uuid

from . import _blockwire

if typing.TYPE_CHECKING:
    from ._blockwire import _ShardOutcome, _UtxoExport

__all__ = ['ExportReport', 'export', 'export_utxos', 'main']


@dataclasses.dataclass
class ExportReport:
    """What an export came to, as the command reports it. `shards`: each shard's outcome (a dict: first, last,
    reached (False for one not begun), made, skipped, problem (why it was not made, or None), io_failure,
    transactions, block_bytes: export_shard's), in height order."""
    out: str
    shards: typing.List[_ShardOutcome]
    removed: int
    seconds: float
    notes: typing.List[str]
    damaged: bool = False  # the directory has damage (its chain may be cut short): the command's exit status 1
    sweep_failure: typing.Optional[str] = None  # removing what the workers left failed (an I/O failure)
    walked: bool = True  # False: nothing to read (a directory with no block yet, a pruned range): no summary, as the command

    @property
    def made(self) -> int:
        return sum(1 for s in self.shards if s['made'])

    @property
    def skipped(self) -> int:
        return sum(1 for s in self.shards if s['skipped'] and not s['problem'])

    @property
    def failed(self) -> int:
        return sum(1 for s in self.shards if s['problem'])

    @property
    def not_reached(self) -> int:
        return sum(1 for s in self.shards if not s['reached'])

    @property
    def io_failed(self) -> bool:
        return self.sweep_failure is not None or any(s['io_failure'] for s in self.shards)

    @property
    def transactions(self) -> int:
        return sum(s['transactions'] for s in self.shards if s['made'])

    @property
    def block_bytes(self) -> int:
        return sum(s['block_bytes'] for s in self.shards if s['made'])

    def _said(self) -> typing.Tuple[str, int]:
        return _blockwire.export_summary(self.out, len(self.shards), self.made, self.skipped, self.failed, self.transactions,
                                         self.block_bytes, self.removed, self.seconds, self.io_failed, self.damaged)

    def summary(self) -> str:
        """The command's summary line (the library's words)."""
        return self._said()[0]

    @property
    def exit_status(self) -> int:
        """The command's exit status for this report: 2 for an I/O failure, 1 for a shard not made or a damaged
        directory, else 0 (the library's table)."""
        return self._said()[1] if self.walked else 0  # (nothing read: the command's 0)


def _count(n: int, noun: str) -> str:
    return f'{n:,} {noun}' + ('' if n == 1 else 's')


_Path = typing.Union[str, 'os.PathLike[str]']


class _Opened:
    """One directory of a worker's, and the lock its tasks hold while it is opened or brought to a task's chain (a
    worker's other directories go on meanwhile)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.directory: typing.Optional[_blockwire.Directory] = None


class _WorkerDirectories:
    """A worker's directories, kept on the worker itself (its attribute `_blockwire_directories`: a process may hold
    several workers): each run's opened at its first task there (files replaced between runs would not be seen by one
    kept longer), brought up to date when a task's block is not its own (a copy being brought up to date), the least
    recently used dropped past `keep` (a few exports may share a cluster). Its threads share one (the library's reads
    go side by side)."""
    keep = 4

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._opened: collections.OrderedDict[typing.Tuple[str, typing.Optional[str], str], _Opened] = \
            collections.OrderedDict()

    def get(self, path: str, network: typing.Optional[str], run: str, last: int, last_hash: str) -> _blockwire.Directory:
        key = (path, network, run)
        with self._lock:
            entry = self._opened.get(key)
            if entry is None:
                entry = self._opened[key] = _Opened()
            self._opened.move_to_end(key)
            while len(self._opened) > self.keep:
                self._opened.popitem(last=False)  # (a task using it keeps it until it ends)
        with entry.lock:
            if entry.directory is None:
                entry.directory = _blockwire.open_directory(path, network)
            d = entry.directory
            try:
                stale = d.block_hash(last) != last_hash
            except IndexError:  # past its tip (asked once: a refresh elsewhere may shorten the chain between two calls)
                stale = True
            if stale:
                d.refresh()  # (export_shard checks the block again, under the hold that makes the shard)
        return d


_attach_lock = threading.Lock()


def _worker_directories() -> _WorkerDirectories:
    """This worker's directories (made at its first task)."""
    from distributed import get_worker
    worker = get_worker()
    with _attach_lock:
        kept = getattr(worker, '_blockwire_directories', None)
        if kept is None:
            kept = _WorkerDirectories()
            setattr(worker, '_blockwire_directories', kept)
    return typing.cast(_WorkerDirectories, kept)


def _outcome(first: int, last: int, problem: typing.Optional[str], io_failure: bool = False,
             reached: bool = True) -> _ShardOutcome:
    return {'first': first, 'last': last, 'reached': reached, 'made': False, 'skipped': False, 'problem': problem,
            'io_failure': io_failure, 'transactions': 0, 'block_bytes': 0}


def _stopping(run: str) -> bool:
    from distributed import Event, get_client
    return Event(f'blockwire-stop-{run}', client=get_client()).is_set()


def _make_shard(first: int, last: int, last_hash: str, *, directory: str, network: typing.Optional[str], run: str,
                out: str, format: str, shard_blocks: int, compress: str) -> _ShardOutcome:
    """One shard, on a worker: none once the run is stopping; its directory opened (once a worker and run) and its
    block at `last` checked to be the caller's."""
    if _stopping(run):
        return _outcome(first, last, None, reached=False)
    try:
        d = _worker_directories().get(directory, network, run, last, last_hash)
    except _blockwire.Error as e:
        return _outcome(first, last, f'{socket.gethostname()} could not read {directory}: {e}',
                        isinstance(e, _blockwire.IOFailure))
    return _blockwire.export_shard(d, out, first, last, format=typing.cast(typing.Any, format),
                                   shard_blocks=shard_blocks, compress=typing.cast(typing.Any, compress),
                                   last_hash=last_hash)


def _stop_and_wait(client: typing.Any, stop: typing.Any, futures: typing.List[typing.Any]) -> None:
    """A run given up (interrupted, or a task failed with what is no failure of the library's): no task of it begins
    its work after this (each looks at `stop` first), those no worker holds are cancelled, and those a worker holds
    are waited for: a task a worker has begun cannot be stopped (and cancelling its future would only keep us from
    hearing that it ended), so that nothing of the run is written after this returns and the caller releases OUT's
    lock. A second interrupt ends the wait."""
    from distributed import wait
    try:
        stop.set()
        held = {key for keys in client.processing().values() for key in keys}
    except Exception:  # the cluster gone: nothing left to hear of
        return
    with contextlib.suppress(Exception):
        client.cancel([f for f in futures if f.key not in held])
    with contextlib.suppress(Exception):
        wait([f for f in futures if f.key in held])


class _Bar:
    """The command's progress bar, on a terminal: shards and blocks done, MB/s of blocks."""

    def __init__(self, enabled: bool, shards: int, blocks: int) -> None:
        self.enabled, self.shards, self.blocks = enabled, shards, blocks
        self.start = time.monotonic()

    def update(self, shards_done: int, blocks_done: int, block_bytes: int) -> None:
        if not self.enabled:
            return
        fraction = blocks_done / self.blocks if self.blocks else 1.0
        seconds = time.monotonic() - self.start
        rate = block_bytes / seconds / 1e6 if seconds > 0 else 0.0
        sys.stderr.write(f'\r[{"#" * int(fraction * 30):<30}] {shards_done:,} of {self.shards:,} shards, '
                         f'{_count(blocks_done, "block")} of {self.blocks:,}  {rate:.0f} MB/s ')
        sys.stderr.flush()

    def finish(self) -> None:
        if self.enabled:
            sys.stderr.write('\r\033[K')
            sys.stderr.flush()


def export(client: typing.Any, directory: _Path, out: _Path, *, format: str = 'ndjson', shard_blocks: int = 1000,
           from_height: int = 0, count: typing.Optional[int] = None, compress: typing.Optional[str] = None,
           network: typing.Optional[str] = None, progress: typing.Optional[bool] = None,
           note: typing.Optional[typing.Callable[[str], None]] = None) -> ExportReport:
    """Makes `blockwire export`'s shards of `directory`'s best chain in `out` on the Dask cluster of `client` (a
    distributed.Client). Options as the command's: format 'ndjson' or 'csv', shard_blocks, from_height (a multiple
    of shard_blocks), count (blocks; None: to the tip), compress None/'none', 'zstd' or 'gzip', network (of the
    directory, when its files do not say). Every worker must see `directory` (or a copy) and `out` at the same
    paths as the caller. progress: a bar on stderr (default: when it is a terminal); note: called with each line
    the export has to say (the directory's notes, a shard removed and why), by default printed to stderr.

    Raises blockwire.IOFailure when another export holds OUT, blockwire.UsageError when OUT holds shards of another
    size than shard_blocks (nothing made or removed), blockwire.Error for a directory that cannot be opened,
    DataError for one of no chain, UsageError for from_height past the tip, ValueError for options the command
    refuses; a shard not made is in the
    report (`failed`, its `problem`), not raised. A task that fails with what is not the library's (the cluster's:
    a task whose workers all died, distributed.KilledWorker; or a bug) stops the run and is raised as it is, once
    the tasks begun have ended, as is an interrupt: nothing of the run is written after it returns or raises."""
    given = os.fspath(out)
    shown = os.fspath(directory)  # (named in what is said as the caller named it, as the command does)
    directory = os.path.abspath(os.path.expanduser(shown))
    out = os.path.abspath(os.path.expanduser(given))
    compress = compress or 'none'
    if format not in ('ndjson', 'csv'):
        raise ValueError(f"format {format!r} is not 'ndjson' or 'csv'")
    if compress not in ('none', 'zstd', 'gzip'):
        raise ValueError(f"compress {compress!r} is not 'none', 'zstd' or 'gzip'")
    if shard_blocks < 1 or from_height < 0:
        raise ValueError('shard_blocks must be at least 1, from_height at least 0')
    if from_height % shard_blocks != 0:
        raise ValueError(f'from_height {from_height} is not a multiple of shard_blocks {shard_blocks}: shards start at '
                         'multiples of it, so that separate runs make the same shards')
    if count is not None and count < 1:
        raise ValueError('count must be at least 1')
    if note is None:
        def note(line: str) -> None:
            print(f'blockwire export: {line}', file=sys.stderr)
    if progress is None:
        progress = sys.stderr.isatty()
    notes: typing.List[str] = []
    told = note

    def say(line: str) -> None:
        notes.append(line)
        told(line)

    # OUT locked before the directory is read (minutes on mainnet): a second export hears of the first at once.
    with _blockwire.lock_export_output(os.path.expanduser(given)) as output:  # (said as the caller named it)
        d = _blockwire.open_directory(os.path.expanduser(shown), network)  # (its words name it as the caller did)
        for line in d.notes:
            say(line)
        # The command's walk of the chain, and what it says first (the index's problems, a pruned range).
        first, end = _blockwire.plan_chain_walk(d, shown, from_height, count or 0, shard_blocks, say)
        if first == end:
            return ExportReport(given, [], 0, 0.0, notes, d.damaged, walked=False)
        if not d.has_undo:
            say(f'{shown} has no rev files: the inputs\' value, type, addresses and required_signatures, and the '
                'transactions\' input_value and fee, are null')
        planned = _blockwire.plan_shards(d, shard_blocks, first, end)
        removed, said_first = _blockwire.remove_stale_shards(d, output, shard_blocks)  # OUT of another size: UsageError
        for line in said_first:
            say(line)
        start = time.monotonic()
        outcomes = _run_shards(client, d, directory, out, planned, format, shard_blocks, compress, progress)
        seconds = time.monotonic() - start
        # What workers that died (or were thought dead) left under their temporary names, and tables of shards
        # not made whole: removed as a rerun of the command would remove them.
        swept = None
        try:
            _, lines = _blockwire.remove_stale_shards(d, output, shard_blocks)
        except _blockwire.Error as e:  # the shards are made: said, the report kept, the status an I/O failure's
            swept = str(e)
            lines = [f'removing what the workers left: {e}']
        for line in lines:
            if line not in said_first:  # (what the first sweep said of the directory, as the command says it: once)
                say(line)
    return ExportReport(given, outcomes, removed, seconds, notes, d.damaged, swept)


def _run_shards(client: typing.Any, d: _blockwire.Directory, directory: str, out: str,
                planned: typing.List[typing.Tuple[int, int, str]], format: str, shard_blocks: int, compress: str,
                progress: bool) -> typing.List[_ShardOutcome]:
    """Each shard a task (client.map); their outcomes in height order. An I/O error stops the run as it stops the
    command: the shards not begun are not made (a task looks at the run's Event before it starts), and the run waits
    for those begun, so that nothing of it is written after it returns. A task's failure that is not the library's,
    and an interrupt, stop it the same way (_stop_and_wait) and are raised."""
    from distributed import Event, as_completed
    run = uuid.uuid4().hex
    stop = Event(f'blockwire-stop-{run}', client=client)
    outcomes = {first: _outcome(first, last, None, reached=False) for first, last, _ in planned}
    bar = _Bar(progress, len(planned), sum(last - first + 1 for first, last, _ in planned))
    futures: typing.List[typing.Any] = []
    done = blocks = block_bytes = 0
    try:
        if planned:
            firsts, lasts, hashes = (list(column) for column in zip(*planned))
            futures = client.map(_make_shard, firsts, lasts, hashes, directory=directory, network=d.network, run=run,
                                 out=out, format=format, shard_blocks=shard_blocks, compress=compress, pure=False,
                                 key=[f'blockwire-shard-{first:08}-{last:08}-{run[:8]}' for first, last, _ in planned])
        shard_of = {future.key: (first, last) for future, (first, last, _) in zip(futures, planned)}
        for future in as_completed(futures):
            first, last = shard_of[future.key]
            try:
                made = future.result()
            except _blockwire.Error as e:  # the library's, raised by a task rather than said in its outcome
                made = _outcome(first, last, str(e), isinstance(e, _blockwire.IOFailure))
            outcomes[first] = made
            done += 1
            blocks += last - first + 1
            block_bytes += made['block_bytes']
            bar.update(done, blocks, block_bytes)
            if made['io_failure']:
                stop.set()
    except BaseException:
        # Interrupted, or a task failed with what is not the library's (the cluster's, a bug): raised as it is, once
        # no task of the run can write into OUT.
        _stop_and_wait(client, stop, futures)
        raise
    finally:
        bar.finish()
    with contextlib.suppress(Exception):
        stop.clear()
    return [outcomes[first] for first, _, _ in planned]


def _make_utxos(chainstate: str, blocks: str, network: typing.Optional[str], out: str, format: str, compress: str,
                part_coins: int, run: str) -> typing.Optional[_UtxoExport]:
    if _stopping(run):  # (the caller gave up before this began)
        return None
    d = _blockwire.open_directory(blocks, network)
    return _blockwire.export_utxos(chainstate, d, out, format=typing.cast(typing.Any, format),
                                   compress=typing.cast(typing.Any, compress), part_coins=part_coins)


def export_utxos(client: typing.Any, chainstate: _Path, out: _Path, *, blocks: typing.Optional[_Path] = None,
                 format: str = 'ndjson', compress: typing.Optional[str] = None, network: typing.Optional[str] = None,
                 workers: typing.Optional[typing.Union[str, typing.List[str]]] = None,
                 part_coins: int = 1 << 20) -> _UtxoExport:
    """`blockwire utxos CHAINSTATE --tables OUT` on a worker of `client`'s cluster (one of `workers`, when given:
    the addresses or host names of those that have the node's directory): the chainstate's coins as the utxos table
    in OUT/utxos/height=H/, each coin's block from `blocks` (default CHAINSTATE/../blocks), while the caller holds
    OUT's lock. Returns the worker's report: height, folder, parts, and gettxoutsetinfo's best_block, transactions,
    txouts, bogosize, total_amount (satoshis), hash_serialized_3. Raises what the worker met (blockwire.Error).
    Interrupted (or the task lost), the task is cancelled when no worker has begun it, else waited for (a second
    interrupt ends the wait), so that the worker writes nothing into OUT once its lock is released."""
    from distributed import Event
    chainstate = os.path.abspath(os.path.expanduser(os.fspath(chainstate)))
    out = os.path.abspath(os.path.expanduser(os.fspath(out)))
    blocks = os.path.abspath(os.path.expanduser(os.fspath(blocks))) if blocks else \
        os.path.join(os.path.dirname(chainstate), 'blocks')
    with _blockwire.lock_export_output(out):
        run = uuid.uuid4().hex
        stop = Event(f'blockwire-stop-{run}', client=client)
        future = client.submit(_make_utxos, chainstate, blocks, network, out, format, compress or 'none', part_coins,
                               run, workers=workers, pure=False, key=f'blockwire-utxos-{run[:8]}')
        try:
            made = future.result()
        except BaseException:
            _stop_and_wait(client, stop, [future])
            raise
        if made is None:  # (only when the run's Event was set, which only this does)
            raise RuntimeError('the utxos task was stopped before it began')
        return typing.cast('_UtxoExport', made)


def _cluster_failure(e: BaseException) -> bool:
    """Whether `e` is the cluster's own failure (not the library's, nor a bug): the scheduler or a worker not
    reached, a task whose workers all died, one cancelled or timed out."""
    import asyncio
    import concurrent.futures
    from distributed import KilledWorker
    return isinstance(e, (OSError, KilledWorker, asyncio.TimeoutError, asyncio.CancelledError,
                          concurrent.futures.CancelledError)) and not isinstance(e, _blockwire.Error)


_Result = typing.TypeVar('_Result')


def _on_cluster(command: str, args: argparse.Namespace, work: typing.Callable[[typing.Any], _Result], subject: str,
                data_subject: str) -> typing.Tuple[typing.Optional[_Result], typing.Optional[int]]:
    """work(client) on the scheduler's cluster: (its result, None), or (None, the exit status) with the failure said:
    the library's errors with the status the command gives them (`data_subject` before bad data, `subject` before the
    rest), ValueError 2,
    the cluster's own failures 2, anything else 2 as an internal error (a bug: its traceback)."""
    from distributed import Client
    try:
        client = Client(args.scheduler, timeout=args.connect_timeout)
    except OSError as e:
        print(f'blockwire {command}: --scheduler {args.scheduler}: {e}', file=sys.stderr)
        return None, 2
    try:
        return work(client), None
    except _blockwire.Error as e:  # the library's: its exit status from the library's table, as the command's
        print(f'blockwire {command}: {data_subject if e.exit_status == 1 else subject}{e}', file=sys.stderr)
        return None, typing.cast(int, e.exit_status)
    except ValueError as e:
        print(f'blockwire {command}: {subject}{e}', file=sys.stderr)
        return None, 2
    except Exception as e:
        if _cluster_failure(e):
            print(f'blockwire {command}: the cluster at {args.scheduler}: {type(e).__name__}: {e}', file=sys.stderr)
        else:
            traceback.print_exc()
            print(f'blockwire {command}: internal error (a bug of blockwire\'s): {type(e).__name__}: {e}',
                  file=sys.stderr)
        return None, 2
    finally:
        client.close()


def _export_main(args: argparse.Namespace) -> int:
    report, status = _on_cluster(
        'export', args,
        lambda client: export(client, args.dir, args.output, format=args.format, shard_blocks=args.shard_blocks,
                              from_height=args.from_height, count=args.count, compress=args.compress,
                              network=args.network, progress=not args.no_progress and sys.stderr.isatty()),
        '', '')
    if report is None:
        return typing.cast(int, status)
    if not report.walked:
        return report.exit_status
    for s in report.shards:
        if s['problem']:
            print(f"blockwire export: {_blockwire.shard_problem_line(s['first'], s['last'], s['problem'])}", file=sys.stderr)
    print(f'blockwire export: {report.summary()}')
    return report.exit_status


def _btc(sats: int) -> str:
    return f'{sats // 100_000_000}.{sats % 100_000_000:08d}'


def _utxos_main(args: argparse.Namespace) -> int:
    r, status = _on_cluster(
        'utxos', args,
        lambda client: export_utxos(client, args.chainstate, args.tables, blocks=args.blocks, format=args.format,
                                    compress=args.compress, network=args.network),
        f'{args.chainstate}: ', f'{args.chainstate}: ')
    if r is None:
        return typing.cast(int, status)
    total = r['total_amount']
    if args.json:
        fields = [f'"height":{r["height"]}', f'"bestblock":"{r["best_block"]}"', f'"txouts":{r["txouts"]}',
                  f'"bogosize":{r["bogosize"]}', f'"hash_serialized_3":"{r["hash_serialized_3"]}"']
        if total is not None:
            fields.append(f'"total_amount":{_btc(total)}')
        fields.append(f'"transactions":{r["transactions"]}')
        print('{' + ','.join(fields) + '}')
        return 0
    print(f'best block         {r["best_block"]} (height {r["height"]:,})')
    print(f'transactions       {r["transactions"]:,}')
    print(f'unspent outputs    {r["txouts"]:,}')
    print(f'bogosize           {r["bogosize"]:,}')
    print(f'total amount       {_btc(total) + " BTC" if total is not None else "past the money range"}')
    print(f'hash_serialized_3  {r["hash_serialized_3"]}')
    print(f'height             {r["height"]:,}')
    print(f'table              {r["folder"]} ({_count(r["parts"], "part")})')
    return 0


def main(argv: typing.Optional[typing.List[str]] = None) -> int:
    """python3 -m blockwire.distributed export|utxos ... --scheduler ADDRESS: blockwire export and utxos --tables on a
    Dask scheduler."""
    parser = argparse.ArgumentParser(prog='python3 -m blockwire.distributed',
                                     description='blockwire export and utxos --tables on the workers of a running Dask '
                                                 'scheduler: the same files, summary and exit status as the commands.')
    commands = parser.add_subparsers(dest='command', required=True)
    ex = commands.add_parser('export', help="export's shards, each made by a worker",
                             description="blockwire export's shards made by the workers of a Dask scheduler (each worker "
                                         "opens DIR itself: a path every worker sees, or a copy at the same path; OUT too).")
    ex.add_argument('dir', metavar='DIR', help='a blocks directory (with rev files for input values)')
    ex.add_argument('-o', '--output', required=True, metavar='OUT', help='where the shards go (created when missing)')
    ex.add_argument('--format', choices=('ndjson', 'csv'), default='ndjson')
    ex.add_argument('--shard-blocks', type=int, default=1000, metavar='N', help='heights a shard (default 1000)')
    ex.add_argument('--from', dest='from_height', type=int, default=0, metavar='HEIGHT',
                    help='the first height (default 0; a multiple of --shard-blocks)')
    ex.add_argument('--count', type=int, metavar='N', help='how many blocks (default: to the tip)')
    ex.add_argument('--no-progress', action='store_true', help='no progress bar (shown on a terminal only)')
    ut = commands.add_parser('utxos', help='the utxos table, written by a worker',
                             description="blockwire utxos --tables run by a worker of a Dask scheduler (one on the "
                                         "machine with the node), while this process holds OUT's lock.")
    ut.add_argument('chainstate', metavar='CHAINSTATE', help="a node's chainstate folder")
    ut.add_argument('--tables', required=True, metavar='OUT', help='where the utxos table goes')
    ut.add_argument('--blocks', metavar='DIR', help="the node's blocks directory (default: CHAINSTATE/../blocks)")
    ut.add_argument('--format', choices=('ndjson', 'csv'), default='ndjson')
    ut.add_argument('--json', action='store_true', help="gettxoutsetinfo's JSON")
    for p in (ex, ut):
        p.add_argument('--scheduler', required=True, metavar='ADDRESS', help="the Dask scheduler's address (tcp://HOST:8786)")
        p.add_argument('--compress', choices=('zstd', 'gzip', 'none'), default='none')
        p.add_argument('--network', metavar='NAME', help="the directory's network, when its files do not say")
        p.add_argument('--connect-timeout', type=float, default=30, metavar='SECONDS',
                       help='how long to try to reach the scheduler (default 30)')
    args = parser.parse_args(argv)
    if args.command == 'utxos':
        return _utxos_main(args)
    if args.shard_blocks < 1 or args.from_height < 0 or (args.count is not None and args.count < 1):
        ex.error('--shard-blocks and --count are at least 1, --from at least 0')
    if args.from_height % args.shard_blocks != 0:
        ex.error(f'--from {args.from_height} is not a multiple of --shard-blocks {args.shard_blocks}: shards start at '
                 'multiples of it, so that separate runs make the same shards')
    return _export_main(args)


if __name__ == '__main__':
    # Run as blockwire.distributed, not __main__: the tasks are then sent by name (the workers import the module)
    # rather than pickled by value with this module's state.
    from blockwire.distributed import main as _main
    # What the cluster's client leaves behind as it closes (asyncio's "Future exception was never retrieved" for a
    # heartbeat cut short, under load) is no word of the command's: its stderr says blockwire's alone, as the command's.
    # A failure that matters reaches us as an exception of the work, and is said.
    logging.getLogger('asyncio').setLevel(logging.CRITICAL)
    sys.exit(_main())
