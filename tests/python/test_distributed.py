"""blockwire.distributed on a LocalCluster of 3 worker processes (one thread each, on loopback): its shards are the
bytes `blockwire export` makes (Core's regtest directory, a make_chain chain with rev files, NDJSON and CSV); a worker
killed with SIGKILL while it makes a shard changes nothing and leaves no temporary file; a change of chain between
two runs removes the shards the command removes; compressed shards decompress (zstd's own tool, Python's gzip) to
the uncompressed export's bytes; `blockwire export --scheduler` is the same route from the command line."""

import filecmp
import gzip
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

import pytest

distributed = pytest.importorskip('distributed')

import blockwire  # noqa: E402
import blockwire.distributed  # noqa: E402

COMMAND = os.environ.get('BLOCKWIRE_COMMAND')
MAKE_CHAIN = os.environ.get('BLOCKWIRE_MAKE_CHAIN')


@pytest.fixture(scope='module')
def cluster():
    with distributed.LocalCluster(n_workers=3, threads_per_worker=1, processes=True, host='127.0.0.1',
                                  dashboard_address=None) as c:
        yield c


@pytest.fixture(scope='module')
def client(cluster):
    with distributed.Client(cluster) as c:
        yield c


@pytest.fixture
def tools():
    if not COMMAND or not MAKE_CHAIN:
        pytest.fail('BLOCKWIRE_COMMAND and BLOCKWIRE_MAKE_CHAIN must name the blockwire and make_chain binaries',
                    pytrace=False)
    return COMMAND, MAKE_CHAIN


def command_export(directory, out, *extra, shard=50):
    r = subprocess.run([COMMAND, 'export', directory, '-o', out, '--shard-blocks', str(shard), '--no-progress', *extra],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return r


def tree(out):
    """Every file under OUT but the lock, by its path relative to OUT."""
    found = {}
    for root, _, names in os.walk(out):
        for name in names:
            if name != '.blockwire-export.lock':
                path = os.path.join(root, name)
                found[os.path.relpath(path, out)] = path
    return found


def same_tree(a, b):
    ta, tb = tree(a), tree(b)
    assert sorted(ta) == sorted(tb), sorted(set(ta) ^ set(tb))
    for rel in ta:
        assert filecmp.cmp(ta[rel], tb[rel], shallow=False), rel


def hidden(out):
    return [p for p in tree(out) if os.path.basename(p).startswith('.')]


@pytest.fixture(scope='module')
def fill_chain(tmp_path_factory, data_dir):
    """Heights 0-24, the two real blocks' transactions in turn (about 29 MB), with rev files."""
    if not MAKE_CHAIN:
        pytest.fail('BLOCKWIRE_MAKE_CHAIN is not set', pytrace=False)
    path = str(tmp_path_factory.mktemp('fill') / 'chain')
    subprocess.run([MAKE_CHAIN, path, '24', '--undo', '--fill', os.path.join(data_dir, 'block413567.raw'), '--fill',
                    os.path.join(data_dir, 'block_000000000000000000000c835b2adcaedc20fdf6ee440009c249452c726dafae.raw')],
                   check=True, capture_output=True, timeout=300)
    return path


@pytest.mark.parametrize('fmt', ['ndjson', 'csv'])
def test_core_directory_as_the_command_makes_it(client, tools, regtest_dir, tmp_path, fmt):
    blocks = os.path.join(regtest_dir, 'blocks')
    command_export(blocks, str(tmp_path / 'command'), '--format', fmt)
    report = blockwire.distributed.export(client, blocks, tmp_path / 'cluster', format=fmt, shard_blocks=50,
                                          progress=False)
    assert (report.made, report.failed, report.skipped, report.removed) == (5, 0, 0, 0)
    assert report.transactions == sum(b['nTx'] for b in _getblock3(regtest_dir))
    same_tree(tmp_path / 'command', tmp_path / 'cluster')
    # A rerun finds every shard whole.
    again = blockwire.distributed.export(client, blocks, tmp_path / 'cluster', format=fmt, shard_blocks=50,
                                         progress=False)
    assert (again.made, again.skipped) == (0, 5)


def _getblock3(regtest_dir):
    import json
    return json.load(open(os.path.join(regtest_dir, 'rpc', 'getblock3.json')))


@pytest.mark.parametrize('fmt', ['ndjson', 'csv'])
def test_chain_with_rev_files_as_the_command_makes_it(client, tools, fill_chain, tmp_path, fmt):
    command_export(fill_chain, str(tmp_path / 'command'), '--format', fmt, shard=8)
    report = blockwire.distributed.export(client, fill_chain, tmp_path / 'cluster', format=fmt, shard_blocks=8,
                                          progress=False)
    assert (report.made, report.failed) == (4, 0)
    same_tree(tmp_path / 'command', tmp_path / 'cluster')


def shard_hidden(out, key):
    """The temporary files of the shard of task `key` (blockwire-shard-FIRST-LAST-RUN)."""
    first, last = key.split('-')[2:4]
    found = []
    for table in ('blocks', 'transactions'):
        shard = os.path.join(out, table, f'start_block={first}', f'end_block={last}')
        if os.path.isdir(shard):
            found += [n for n in os.listdir(shard) if n.startswith('.')]
    return found


def worker_pids(client):
    return client.run(os.getpid)  # {worker address: its process id}


def test_worker_killed_while_making_a_shard(client, tools, fill_chain, tmp_path):
    """SIGKILL of a worker busy with a shard, once its temporary files are there: Dask runs the shard again on
    another worker; OUT ends as the command's, with nothing hidden left."""
    command_export(fill_chain, str(tmp_path / 'command'), shard=10)
    out = tmp_path / 'cluster'
    results = {}

    def run():
        try:
            results['report'] = blockwire.distributed.export(client, fill_chain, out, shard_blocks=10, progress=False)
        except BaseException as e:  # handed to the test's thread
            results['error'] = e

    pids = worker_pids(client)
    exporting = threading.Thread(target=run)
    exporting.start()
    killed = None
    deadline = time.monotonic() + 60
    while killed is None and exporting.is_alive() and time.monotonic() < deadline:
        # A worker whose shard has temporary files: it is writing them.
        for worker, tasks in client.processing().items():
            writing = [t for t in tasks if 'blockwire-shard' in str(t) and shard_hidden(out, str(t))]
            if writing:
                killed = (worker, writing)
                os.kill(pids[worker], signal.SIGKILL)
                break
        else:
            time.sleep(0.002)
    exporting.join(300)
    assert not exporting.is_alive()
    assert killed is not None, 'no worker was seen making a shard'
    assert 'error' not in results, results.get('error')
    report = results['report']
    # (a shard the killed worker had renamed whole before the scheduler heard of it is found whole: skipped)
    assert (report.made + report.skipped, report.failed) == (3, 0), report.shards
    same_tree(tmp_path / 'command', out)
    assert hidden(out) == []
    # The nanny starts a new worker in its place: the cluster has 3 again for the tests after.
    client.wait_for_workers(3, timeout=60)


def test_change_of_chain_removes_what_the_command_removes(client, tools, tmp_path):
    """A chain of 250 blocks exported; then the directory holds a chain of 180 that shares its first 180 blocks (the
    shards past them are removed), then another chain of 150 (every shard removed: one differs, one is past its tip): both routes remove the
    same shards, say the same, and leave the same bytes."""
    chains = {}
    for name, n, extra in (('long', 250, ['--coinbase-only']), ('short', 180, ['--coinbase-only']), ('other', 150, [])):
        chains[name] = str(tmp_path / name)
        subprocess.run([MAKE_CHAIN, chains[name], str(n), '--undo', *extra], check=True, capture_output=True, timeout=120)
    directory = str(tmp_path / 'dir')
    shutil.copytree(chains['long'], directory)
    command_out, cluster_out = str(tmp_path / 'command'), str(tmp_path / 'cluster')
    command_export(directory, command_out, shard=100)
    blockwire.distributed.export(client, directory, cluster_out, shard_blocks=100, progress=False)
    same_tree(command_out, cluster_out)
    for name, removed in (('short', 2), ('other', 2)):
        shutil.rmtree(directory)
        shutil.copytree(chains[name], directory)
        said = command_export(directory, command_out, shard=100).stderr
        notes = []
        report = blockwire.distributed.export(client, directory, cluster_out, shard_blocks=100, progress=False,
                                              note=notes.append)
        assert report.removed == removed, (name, report.removed, notes)
        assert report.failed == 0, [s["problem"] for s in report.shards]
        assert [line for line in said.splitlines() if 'removed shard' in line] == \
            ['blockwire export: ' + line.replace(cluster_out, command_out) for line in notes if 'removed shard' in line]
        same_tree(command_out, cluster_out)


@pytest.mark.parametrize('fmt,compress,suffix', [('ndjson', 'zstd', '.zst'), ('csv', 'gzip', '.gz')])
def test_compressed_shards_decompress_to_the_export(client, tools, fill_chain, tmp_path, fmt, compress, suffix):
    command_export(fill_chain, str(tmp_path / 'plain'), '--format', fmt, shard=20)
    out = tmp_path / compress
    report = blockwire.distributed.export(client, fill_chain, out, format=fmt, shard_blocks=20, compress=compress,
                                          progress=False)
    assert (report.made, report.failed) == (2, 0)
    plain, packed = tree(tmp_path / 'plain'), tree(out)
    assert sorted(packed) == sorted(p + suffix for p in plain)
    total_plain = total_packed = 0
    for rel, path in plain.items():
        if compress == 'zstd':
            text = subprocess.run(['zstd', '-dc', packed[rel + suffix]], check=True, capture_output=True).stdout
        else:
            text = gzip.open(packed[rel + suffix]).read()
        assert text == open(path, 'rb').read(), rel
        total_plain += len(text)
        total_packed += os.path.getsize(packed[rel + suffix])
    assert total_packed < total_plain / 3, (compress, total_packed, total_plain)
    # The command's compressed shards are the same bytes.
    command_export(fill_chain, str(tmp_path / f'command-{compress}'), '--format', fmt, '--compress', compress, shard=20)
    same_tree(out, tmp_path / f'command-{compress}')


def test_command_with_scheduler(cluster, tools, regtest_dir, tmp_path):
    """blockwire export --scheduler: the shards, summary line and status of the command, made on the cluster."""
    blocks = os.path.join(regtest_dir, 'blocks')
    command_export(blocks, str(tmp_path / 'command'), '--compress', 'zstd')
    r = subprocess.run([COMMAND, 'export', blocks, '-o', str(tmp_path / 'cluster'), '--shard-blocks', '50', '--compress',
                        'zstd', '--scheduler', cluster.scheduler_address, '--no-progress'],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    transactions = sum(b['nTx'] for b in _getblock3(regtest_dir))
    assert '5 shards into' in r.stdout and f'5 made ({transactions} transactions' in r.stdout, r.stdout
    same_tree(tmp_path / 'command', tmp_path / 'cluster')
    # Another export holding OUT: refused, as the command refuses it.
    with blockwire._blockwire.lock_export_output(str(tmp_path / 'cluster')):
        locked = subprocess.run([COMMAND, 'export', blocks, '-o', str(tmp_path / 'cluster'), '--scheduler',
                                 cluster.scheduler_address, '--no-progress'], capture_output=True, text=True, timeout=120)
    assert locked.returncode == 2 and 'another process holds its lock' in locked.stderr, locked.stderr
    # No scheduler there: said, status 2 (the Python route itself, to wait 2 s rather than the default 30).
    gone = subprocess.run([sys.executable, '-m', 'blockwire.distributed', 'export', blocks, '-o', str(tmp_path / 'x'), '--scheduler',
                           'tcp://127.0.0.1:9', '--connect-timeout', '2', '--no-progress'],
                          capture_output=True, text=True, timeout=120)
    assert gone.returncode == 2 and '--scheduler tcp://127.0.0.1:9' in gone.stderr, gone.stderr


def test_utxos_table_on_the_cluster(cluster, client, tools, regtest_dir, tmp_path):
    """The utxos table by the same route: blockwire.distributed.export_utxos and `blockwire utxos --tables
    --scheduler` write what `blockwire utxos --tables` writes, byte for byte (compressed too), and say Core's
    gettxoutsetinfo."""
    import json
    node = tmp_path / 'node'
    shutil.copytree(os.path.join(regtest_dir, 'blocks'), node / 'blocks')
    shutil.copytree(os.path.join(regtest_dir, 'chainstate'), node / 'chainstate')
    core = json.load(open(os.path.join(regtest_dir, 'rpc', 'gettxoutsetinfo_hash_serialized_3.json')))
    chainstate = str(node / 'chainstate')
    for compress in ('none', 'zstd'):
        alone = subprocess.run([COMMAND, 'utxos', chainstate, '--tables', str(tmp_path / f'alone-{compress}'), '--compress',
                                compress, '--no-progress'], capture_output=True, text=True, timeout=120)
        assert alone.returncode == 0, alone.stderr
        report = blockwire.distributed.export_utxos(client, chainstate, tmp_path / f'api-{compress}', compress=compress)
        assert (report['txouts'], report['transactions'], report['hash_serialized_3'], report['best_block']) == \
            (core['txouts'], core['transactions'], core['hash_serialized_3'], core['bestblock'])
        assert report['total_amount'] == round(core['total_amount'] * 100_000_000)
        same_tree(tmp_path / f'alone-{compress}', tmp_path / f'api-{compress}')
        shell = subprocess.run([COMMAND, 'utxos', chainstate, '--tables', str(tmp_path / f'shell-{compress}'), '--compress',
                                compress, '--scheduler', cluster.scheduler_address, '--no-progress'],
                               capture_output=True, text=True, timeout=120)
        assert shell.returncode == 0, shell.stderr
        assert shell.stdout.replace(f'shell-{compress}', f'alone-{compress}') == alone.stdout
        same_tree(tmp_path / f'alone-{compress}', tmp_path / f'shell-{compress}')
    # --json as the command's.
    alone = subprocess.run([COMMAND, 'utxos', chainstate, '--tables', str(tmp_path / 'j1'), '--json'], capture_output=True,
                           text=True, timeout=120)
    shell = subprocess.run([COMMAND, 'utxos', chainstate, '--tables', str(tmp_path / 'j2'), '--json', '--scheduler',
                            cluster.scheduler_address], capture_output=True, text=True, timeout=120)
    assert shell.returncode == 0 and json.loads(shell.stdout) == json.loads(alone.stdout), shell.stderr
    # A chainstate that is not there: the worker's error, said, status 2.
    missing = subprocess.run([COMMAND, 'utxos', str(tmp_path / 'none'), '--tables', str(tmp_path / 'j3'), '--blocks',
                              str(node / 'blocks'), '--scheduler', cluster.scheduler_address], capture_output=True,
                             text=True, timeout=120)
    assert missing.returncode == 2 and str(tmp_path / 'none') in missing.stderr, (missing.returncode, missing.stderr)


def test_pruned_directory_as_the_command_makes_it(client, tools, data_dir, tmp_path):
    """Core's pruned node's directory: the range moved up to where its data is, said as the command says it, and
    the same shards."""
    blocks = os.path.join(data_dir, 'core-pruned', 'blocks')
    said = command_export(blocks, str(tmp_path / 'command'), '--count', '100000').stderr
    notes = []
    report = blockwire.distributed.export(client, blocks, tmp_path / 'cluster', shard_blocks=50, count=100000,
                                          progress=False, note=notes.append)
    assert report.failed == 0 and report.made > 0, report.shards
    pruned = [line for line in notes if 'a pruned directory' in line]
    assert len(pruned) == 1 and f'blockwire export: {pruned[0]}' in said, (notes, said)
    same_tree(tmp_path / 'command', tmp_path / 'cluster')



def _said(r, directory, out):
    """A run's status and words with the paths (as given) and the timing taken out."""
    def clean(text):
        text = text.replace(out, 'OUT').replace(directory, 'DIR')
        return re.sub(r'in [0-9.]+ s, [0-9]+ MB/s', 'in T', text)
    return r.returncode, clean(r.stdout), clean(r.stderr)


def _damaged_copy(source, to):
    """A copy of `source` whose block at height 12 names another parent (its header's prev_block overwritten, through
    the directory's XOR key): it and every block after it linked to nothing, the chain ending at height 11. (Without
    the index kept of `source`, which still holds the block: a damage its check of a sample of records may miss.)"""
    shutil.copytree(source, to, ignore=shutil.ignore_patterns('blockwire-index'))
    with open(os.path.join(to, 'xor.dat'), 'rb') as f:
        key = f.read()

    with open(os.path.join(to, 'blk00000.dat'), 'r+b') as f:
        offset = 0
        for _ in range(12):  # (each record: magic, length, block)
            f.seek(offset)
            length = bytes(b ^ key[(offset + i) % len(key)] for i, b in enumerate(f.read(8)))[4:]
            offset += 8 + int.from_bytes(length, 'little')
        prev = offset + 8 + 4
        f.seek(prev)
        f.write(bytes(0xa5 ^ key[(prev + i) % len(key)] for i in range(32)))


def _routes_directories(kind, fill_chain, data_dir, to):
    """The directory a case reads, made at `to`, and the options it runs with."""
    if kind == 'damaged':
        _damaged_copy(fill_chain, to)
        return []
    if kind == 'pruned, nothing left':
        shutil.copytree(os.path.join(data_dir, 'core-pruned', 'blocks'), to)
        return ['--count', '100']
    if kind == 'just made':
        os.makedirs(to)
        return []
    if kind == 'bad xor.dat':
        shutil.copytree(fill_chain, to, ignore=shutil.ignore_patterns('blockwire-index'))
        with open(os.path.join(to, 'xor.dat'), 'wb') as f:
            f.write(b'\x01\x02\x03')
        return []
    if kind == 'no chain':  # one mainnet block whose parent is not there
        subprocess.run([COMMAND, 'pack', '-o', str(to), os.path.join(data_dir, 'block413567.raw')], check=True,
                       capture_output=True, timeout=120)
        return []
    if kind == 'past the tip':
        shutil.copytree(fill_chain, to, ignore=shutil.ignore_patterns('blockwire-index'))
        return ['--from', '1000']
    raise AssertionError(kind)


@pytest.mark.parametrize('kind', ['damaged', 'pruned, nothing left', 'just made', 'bad xor.dat', 'no chain',
                                  'past the tip'])
def test_cluster_route_says_what_the_command_says(cluster, tools, fill_chain, data_dir, tmp_path, kind):
    """The same directory read by `blockwire export` and by `blockwire export --scheduler` (Python's route): the same
    exit status, the same lines on stderr (the index's problems, the notes) and the same summary on stdout, paths
    and timing aside."""
    runs = {}
    for route in ('command', 'cluster'):
        # (paths relative to the working directory, as a user types them: each route must name them as given)
        directory, out = f'{route}-dir', f'{route}-out'
        extra = _routes_directories(kind, fill_chain, data_dir, tmp_path / directory)
        scheduler = ['--scheduler', cluster.scheduler_address] if route == 'cluster' else []
        r = subprocess.run([COMMAND, 'export', directory, '-o', out, '--shard-blocks', '50', '--no-progress', *extra,
                            *scheduler], capture_output=True, text=True, timeout=300, cwd=tmp_path)
        runs[route] = _said(r, directory, out)
    assert runs['command'] == runs['cluster'], runs
    status, stdout, stderr = runs['command']
    expected = {'damaged': (1, 'left out of the chain'), 'pruned, nothing left': (0, 'nothing left to read'),
                'just made': (0, 'no blocks yet'), 'bad xor.dat': (2, 'xor.dat'), 'no chain': (1, 'no chain'),
                'past the tip': (2, 'the best chain ends at height')}[kind]
    assert status == expected[0] and expected[1] in stderr, runs['command']
    # A summary only where there was something to read.
    assert (' into OUT: ' in stdout) == (kind == 'damaged'), runs['command']
