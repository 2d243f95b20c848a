"""The network commands on loopback, one scenario a run:
  network_test.py BLOCKWIRE MAKE_CHAIN DATA_DIR WORK_DIR SCENARIO
Every process a scenario starts is stopped by its PID, whatever happens."""
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import peers  # noqa: E402
from bitcoin.core import CBlock  # noqa: E402
from bitcoin.messages import msg_getdata, msg_getheaders  # noqa: E402
from bitcoin.net import CInv  # noqa: E402

blockwire, make_chain, data_dir, work, scenario = sys.argv[1:6]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
CHAIN_LENGTH = 300


def run(*args, timeout=120):
    return subprocess.run([blockwire, *args], capture_output=True, text=True, timeout=timeout)


def chain():
    """A regtest chain of 300 blocks after genesis, every third with a segwit spend, made by the library."""
    directory, hex_file = os.path.join(work, 'chain'), os.path.join(work, 'chain.hex')
    subprocess.run([make_chain, directory, str(CHAIN_LENGTH), '--hex', hex_file], check=True)
    return directory, peers.read_chain(hex_file)


def check_fetched(directory, expected):
    """scan passes, and the records are the expected blocks, byte for byte, in chain order."""
    scan = run('scan', '--no-progress', directory)
    assert scan.returncode == 0, scan.stdout + scan.stderr
    got = peers.records(directory)
    assert got == expected, f'{len(got)} records, {len(expected)} expected; first difference at ' + str(
        next((i for i, (a, b) in enumerate(zip(got, expected)) if a != b), min(len(got), len(expected))))


def getdata(*items):
    message = msg_getdata()
    message.inv = list(items)
    return message


def fetch(port, directory, *extra):
    return run('fetch', f'127.0.0.1:{port}', '-o', directory, '--network', 'regtest', '--no-progress', *extra)


def scenario_serve_fetch_resume():
    directory, blocks = chain()
    server, port = peers.start_serve(blockwire, directory)
    with server:
        target = os.path.join(work, 'fetched')
        first = fetch(port, target, '--max-blocks', '120')  # interrupted: a third of the way
        assert first.returncode == 0, first.stderr
        assert peers.records(target) == blocks[:120]
        second = fetch(port, target, '--json')  # resumes from its tip
        assert second.returncode == 0, second.stderr
        summary = json.loads(second.stdout)
        assert summary['start_height'] == 119 and summary['blocks'] == CHAIN_LENGTH + 1 - 120, summary
        assert summary['height'] == CHAIN_LENGTH and summary['peer_height'] == CHAIN_LENGTH, summary
        check_fetched(target, blocks)
        before = {n: open(os.path.join(target, n), 'rb').read() for n in os.listdir(target) if n.endswith('.dat')}
        third = fetch(port, target, '--json')  # nothing new
        assert third.returncode == 0 and json.loads(third.stdout)['blocks'] == 0, third.stdout + third.stderr
        assert before == {n: open(os.path.join(target, n), 'rb').read() for n in os.listdir(target) if n.endswith('.dat')}
        status, _, err = server.stop()
        assert status == 0, err  # SIGTERM: a clean stop
        assert 'stopping' in err, err


def scenario_bitcoinlib_client():
    """python-bitcoinlib downloads headers and blocks from serve: the chain, and two real mainnet blocks."""
    directory, blocks = chain()
    server, port = peers.start_serve(blockwire, directory)
    with server:
        sock = socket.create_connection(('127.0.0.1', port), timeout=20)
        wire = peers.Wire(sock)
        theirs = peers.handshake(wire)
        assert theirs.nVersion == 70016 and theirs.nStartingHeight == CHAIN_LENGTH and not theirs.fRelay
        assert theirs.nServices == 9  # NODE_NETWORK | NODE_WITNESS: Core's outbound peers must offer both
        request = msg_getheaders()
        request.locator.vHave = [CBlock.deserialize(blocks[0]).GetHash()]
        wire.send(request)
        command, payload = wire.receive()
        while command != b'headers':
            command, payload = wire.receive()
        headers = peers.read_headers(payload)
        assert [h.GetHash() for h in headers] == [CBlock.deserialize(b).GetHash() for b in blocks[1:]]
        every = []
        for h in headers:
            inv = CInv()
            inv.type, inv.hash = peers.MSG_WITNESS_BLOCK, h.GetHash()
            every.append(inv)
        wire.send(getdata(*every))
        for expected in blocks[1:]:
            command, payload = wire.receive()
            assert command == b'block', command
            assert payload == expected
            assert wire.message(command, payload).block.GetHash() == CBlock.deserialize(expected).GetHash()
        sock.close()
        server.stop()

    # Real blocks (mainnet): each as it is (witness) and stripped, as bitcoinlib strips it.
    raws = [open(os.path.join(data_dir, n), 'rb').read() for n in sorted(os.listdir(data_dir)) if n.endswith('.raw')]
    packed = os.path.join(work, 'real')
    assert run('pack', '-o', packed, *[os.path.join(data_dir, n) for n in sorted(os.listdir(data_dir)) if n.endswith('.raw')]).returncode == 0
    import bitcoin
    bitcoin.SelectParams('mainnet')
    server, port = peers.start_serve(blockwire, packed)
    with server:
        wire = peers.Wire(socket.create_connection(('127.0.0.1', port), timeout=20))
        peers.handshake(wire)
        for raw in raws:
            block = CBlock.deserialize(raw)
            for kind, expected in ((peers.MSG_WITNESS_BLOCK, raw), (peers.MSG_BLOCK, block.serialize(dict(include_witness=False)))):
                inv = CInv()
                inv.type, inv.hash = kind, block.GetHash()
                wire.send(getdata(inv))
                command, payload = wire.receive()
                assert command == b'block' and payload == expected, (command, kind, len(payload), len(expected))
        inv = CInv()
        inv.type, inv.hash = peers.MSG_WITNESS_BLOCK, b'\x42' * 32
        wire.send(getdata(inv))
        command, payload = wire.receive()
        assert command == b'notfound' and payload == peers.compact_size(1) + inv.serialize(), command
        server.stop()


def fetch_from_node(blocks, target, *extra, **node_options):
    """fetch from a python-bitcoinlib node serving `blocks`; the node's own failures fail the test."""
    node = peers.FakeNode(blocks, **node_options)
    node.start()
    result = fetch(node.port, target, *extra)
    node.join(30)
    assert node.error is None, node.error
    return node, result


def scenario_bitcoinlib_server():
    """fetch from a node written on python-bitcoinlib."""
    _, blocks = chain()
    target = os.path.join(work, 'fetched')
    node, result = fetch_from_node(blocks, target)
    assert result.returncode == 0, result.stderr
    check_fetched(target, blocks)
    # Its unasked ping was answered, its getheaders too (with no headers: fetch serves nothing).
    assert (b'pong', struct.pack('<Q', 0x1234)) in node.answers, node.answers
    assert (b'headers', b'\0') in node.answers, node.answers


def scenario_old_peer():
    """A protocol 70015 node (before BIP339): no wtxidrelay or sendaddrv2 sent to it, and the sync works."""
    _, blocks = chain()
    target = os.path.join(work, 'fetched')
    node, result = fetch_from_node(blocks, target, protocol=70015)
    assert result.returncode == 0, result.stderr
    assert node.handshake_commands == [b'version', b'verack'], node.handshake_commands
    check_fetched(target, blocks)
    # And a 70016 one gets both, before the verack (Core's order).
    node, result = fetch_from_node(blocks, os.path.join(work, 'again'))
    assert result.returncode == 0, result.stderr
    assert node.handshake_commands == [b'version', b'wtxidrelay', b'sendaddrv2', b'verack'], node.handshake_commands


def scenario_tip_without_empty_headers():
    """A node that sends nothing (no empty headers) when it has nothing more: fetch ends at its tip, exit 0, and
    says so; again when it has nothing at all to give."""
    _, blocks = chain()
    target = os.path.join(work, 'fetched')
    node, result = fetch_from_node(blocks, target, mode='no_empty_headers')
    assert result.returncode == 0, result.stderr
    assert "stopped: the peer's tip reached" in result.stdout, result.stdout
    check_fetched(target, blocks)
    node, result = fetch_from_node(blocks, target, '--json', mode='no_empty_headers')
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary['blocks'] == 0 and summary['stopped'] == 'tip_reached' and summary['height'] == CHAIN_LENGTH, summary
    node, result = fetch_from_node(blocks, os.path.join(work, 'part'), '--max-blocks', '50', mode='no_empty_headers')
    assert result.returncode == 0 and 'stopped: --max-blocks 50' in result.stdout, result.stdout


def scenario_ignoring_peers():
    """A node in initial block download (it answers pings, not getheaders) and one that answers nothing: each a
    clear error within the handshake timeout, exit 2."""
    _, blocks = chain()
    started = time.time()
    _, result = fetch_from_node(blocks, os.path.join(work, 'ibd'), '--timeout', '5', mode='ibd')
    assert result.returncode == 2 and 'initial block download' in result.stderr, result.stderr
    assert time.time() - started < 5, time.time() - started  # the pong says it at once
    started = time.time()
    _, result = fetch_from_node(blocks, os.path.join(work, 'deaf'), '--timeout', '3', mode='ignore_all')
    assert result.returncode == 2 and 'answered neither' in result.stderr, result.stderr
    assert time.time() - started < 10, time.time() - started


def scenario_interrupted_and_locked():
    """SIGINT mid-sync leaves whole, checked blocks and a rerun finishes; a second fetch into a directory being
    fetched is refused (locked)."""
    directory, blocks = chain()
    node = peers.FakeNode(blocks, 'slow_blocks')  # 50 ms a block
    node.start()
    target = os.path.join(work, 'fetched')
    with peers.Process([blockwire, 'fetch', f'127.0.0.1:{node.port}', '-o', target, '--network', 'regtest', '--no-progress']) as first:
        deadline = time.time() + 30
        while time.time() < deadline and len(peers.records(target) if os.path.isdir(target) else []) < 20:
            time.sleep(0.05)
        second = fetch(node.port, target)
        assert second.returncode == 2 and 'lock' in second.stderr, second.stderr
        status, _, err = first.stop(signal.SIGINT)
    assert status == 2 and 'stopped' in err, (status, err)
    kept = peers.records(target)
    assert 20 <= len(kept) < len(blocks), len(kept)
    check_fetched(target, blocks[:len(kept)])
    server, port = peers.start_serve(blockwire, directory)
    with server:
        assert fetch(port, target).returncode == 0
        server.stop()
    check_fetched(target, blocks)


# A hostile peer: (mode, exit status, words of the error, blocks the directory holds after it)
HOSTILE = {
    'wrong_magic': (1, 'bad magic', 0),
    'bad_checksum': (1, 'checksum', 0),
    'oversize': (1, 'over', 0),
    'silent': (2, 'sent nothing', 0),
    'stall': (2, 'answered neither our getheaders nor the ping', 1),
    'slow': (2, 'did not arrive whole', 0),
    'close_mid_message': (2, 'closed the connection', 0),
    'headers_2001': (1, "'headers' message", 1),
    'unlinked_header': (1, 'links neither', 1),
    'bad_pow': (1, 'above its target', 1),
    'duplicate_header': (1, 'twice', 1),
    'short_payload': (1, 'ends before', 1),
    'unasked_block': (1, 'did not ask for', 5),
    'bad_block': (1, 'merkle', 6),
    'notfound': (2, 'notfound', 5),
}


def scenario_hostile(mode):
    status, words, kept = HOSTILE[mode]
    _, blocks = chain()
    target = os.path.join(work, 'fetched')
    _, result = fetch_from_node(blocks, target, '--timeout', '2', mode=mode)
    assert result.returncode == status, (result.returncode, result.stderr)
    assert words in result.stderr, result.stderr
    assert 'byte' in result.stderr, result.stderr  # where
    # Nothing partial: whole, checked blocks only (the genesis block is ours, written before the peer spoke).
    if kept:
        check_fetched(target, blocks[:kept])
    elif os.path.exists(target) and any(n.startswith('blk') for n in os.listdir(target)):
        check_fetched(target, blocks[:len(peers.records(target))])
        assert len(peers.records(target)) <= 1


def scenario_serve_drops_one_peer():
    """A client that sends garbage is dropped; another, mid-download, goes on; --max-peers refuses one too many."""
    directory, blocks = chain()
    server, port = peers.start_serve(blockwire, directory, '--max-peers', '2')
    with server:
        good = peers.Wire(socket.create_connection(('127.0.0.1', port), timeout=20))
        peers.handshake(good)
        bad = socket.create_connection(('127.0.0.1', port), timeout=20)
        bad.sendall(b'\x00' * 24)
        assert bad.recv(1) == b'', 'the bad peer is still connected'
        time.sleep(0.5)  # the bad peer's thread ends; a third peer would be the second now
        inv = CInv()
        inv.type, inv.hash = peers.MSG_WITNESS_BLOCK, CBlock.deserialize(blocks[7]).GetHash()
        good.send(getdata(inv))
        command, payload = good.receive()
        assert command == b'block' and payload == blocks[7]
        second = peers.Wire(socket.create_connection(('127.0.0.1', port), timeout=20))
        peers.handshake(second)
        third = socket.create_connection(('127.0.0.1', port), timeout=20)
        assert third.recv(1) == b'', 'a third peer over --max-peers 2 was served'
        status, _, err = server.stop(signal.SIGINT)
        assert status == 0, err
        assert 'dropped' in err and 'bad magic' in err and 'refused' in err, err


if scenario.startswith('hostile_'):
    scenario_hostile(scenario[len('hostile_'):])
else:
    globals()['scenario_' + scenario]()
print('ok:', scenario)
