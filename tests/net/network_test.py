"""The network commands on loopback, one scenario a run:
  network_test.py BLOCKWIRE MAKE_CHAIN DATA_DIR WORK_DIR SCENARIO
Every process a scenario starts is stopped by its PID, whatever happens."""
import hashlib
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'support'))
import peers  # noqa: E402
import scenario as scenarios  # noqa: E402
from bitcoin.core import CBlock  # noqa: E402
from bitcoin.messages import msg_getblocks, msg_getdata, msg_getheaders, msg_pong, msg_verack  # noqa: E402
from bitcoin.net import CInv  # noqa: E402

blockwire, make_chain, data_dir, work, scenario = scenarios.arguments('blockwire', 'make_chain', 'data_dir', 'work', 'scenario')
CHAIN_LENGTH = 300


run = scenarios.runner(blockwire)


def chain():
    """A regtest chain of 300 blocks after genesis, every third with a segwit spend, made by the library."""
    return scenarios.make_chain(make_chain, work, 'chain', CHAIN_LENGTH)


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


def scenario_core_undo():
    """fetch of the chain Bitcoin Core's node wrote (served from its own directory) into an empty directory: every
    undo record fetch writes is the one Core wrote for the same block (its checksum binds it to the block's
    parent), the UTXO set fetch kept hashes as Core's gettxoutsetinfo says, and filters and export of the fetched
    directory equal those of Core's."""
    core = os.path.join(work, 'core')
    shutil.copytree(os.path.join(data_dir, 'core-regtest', 'blocks'), core)
    target = os.path.join(work, 'fetched')
    server, port = peers.start_serve(blockwire, core, '--network', 'regtest')
    with server:
        r = fetch(port, target)
        assert r.returncode == 0, r.stderr
        server.stop()
    hashes = json.load(open(os.path.join(data_dir, 'core-regtest', 'rpc', 'getblockhash.json')))
    ours, theirs = peers.undo_records(target), peers.undo_records(core)
    assert len(ours) == len(hashes) - 1 == 237 and len(theirs) == 240
    for height, record in enumerate(ours, start=1):
        parent = bytes.fromhex(hashes[height - 1])[::-1]
        assert hashlib.sha256(hashlib.sha256(parent + record[:-32]).digest()).digest() == record[-32:], height
        assert record in theirs, f'the undo record of block {height} is not the one Core wrote'
    info = json.load(open(os.path.join(data_dir, 'core-regtest', 'rpc', 'gettxoutsetinfo_hash_serialized_3.json')))
    utxos = run('utxos', os.path.join(target, 'blockwire-utxos'), '--json')
    assert utxos.returncode == 0, utxos.stderr
    ours_info = json.loads(utxos.stdout)
    for key in ('bestblock', 'txouts', 'transactions', 'bogosize', 'hash_serialized_3'):
        assert ours_info[key] == info[key], key
    filters = [run('filters', d, '--json') for d in (target, core)]
    assert filters[0].returncode == 0 and filters[0].stdout == filters[1].stdout, filters[0].stderr
    exports = []
    for d in (target, core):
        out = d + '-export'
        e = run('export', d, '-o', out, '--no-progress')
        assert e.returncode == 0, e.stderr
        exports.append({os.path.relpath(os.path.join(p, n), out): open(os.path.join(p, n), 'rb').read()
                        for p, _, names in os.walk(out) for n in names if not n.startswith('.')})
    assert exports[0] == exports[1] and len(exports[0]) >= 2, sorted(exports[0])
    # Into a copy of the node's data directory (blocks beside chainstate): the set is copied from Core's chainstate,
    # not built from the blocks, and Core's rev files are left as they were.
    node = os.path.join(work, 'node')
    for part in ('blocks', 'chainstate'):
        shutil.copytree(os.path.join(data_dir, 'core-regtest', part), os.path.join(node, part))
    rev = open(os.path.join(node, 'blocks', 'rev00000.dat'), 'rb').read()
    server, port = peers.start_serve(blockwire, core, '--network', 'regtest')
    with server:
        r = fetch(port, os.path.join(node, 'blocks'))
        assert r.returncode == 0, r.stderr
        server.stop()
    assert "the UTXO set copied from Bitcoin Core's" in r.stderr and '316 coins at height 237' in r.stderr, r.stderr
    assert open(os.path.join(node, 'blocks', 'rev00000.dat'), 'rb').read() == rev
    copied = run('utxos', os.path.join(node, 'blocks', 'blockwire-utxos'), '--json')
    assert copied.returncode == 0 and json.loads(copied.stdout)['hash_serialized_3'] == info['hash_serialized_3'], copied.stderr


def scenario_core_reorg():
    """fetch of the branch Bitcoin Core's node later left (its blocks 234-236, which it connected, then
    invalidated), then of its best chain: fetch takes the three off its UTXO set with their undo records and
    connects the four of the new branch. Every undo record written, stale ones too, is the one Core wrote; the set
    hashes as Core's gettxoutsetinfo; filters equal those of Core's directory."""
    core = os.path.join(work, 'core')
    shutil.copytree(os.path.join(data_dir, 'core-regtest', 'blocks'), core)
    rpc = os.path.join(data_dir, 'core-regtest', 'rpc')
    hashes = json.load(open(os.path.join(rpc, 'getblockhash.json')))
    by_hash = {CBlock.deserialize(b).GetHash()[::-1].hex(): b for b in peers.records(core)}
    stale = [bytes.fromhex(s['getblock0']) for s in json.load(open(os.path.join(rpc, 'stale_blocks.json')))]
    old_branch = [by_hash[h] for h in hashes[:234]]
    while stale:  # in chain order: each one's parent the branch's last
        tip = CBlock.deserialize(old_branch[-1]).GetHash()
        following = next(b for b in stale if CBlock.deserialize(b).hashPrevBlock == tip)
        old_branch.append(following)
        stale.remove(following)
    target = os.path.join(work, 'fetched')
    _, first = fetch_from_node(old_branch, target)
    assert first.returncode == 0, first.stderr
    server, port = peers.start_serve(blockwire, core, '--network', 'regtest')
    with server:
        second = fetch(port, target)
        assert second.returncode == 0, second.stderr
        server.stop()
    ours, theirs = peers.undo_records(target), peers.undo_records(core)
    assert len(ours) == 240 and sorted(ours) == sorted(theirs), (len(ours), len([r for r in ours if r not in theirs]))
    info = json.load(open(os.path.join(rpc, 'gettxoutsetinfo_hash_serialized_3.json')))
    utxos = run('utxos', os.path.join(target, 'blockwire-utxos'), '--json')
    assert utxos.returncode == 0, utxos.stderr
    assert json.loads(utxos.stdout)['hash_serialized_3'] == info['hash_serialized_3']
    filters = [run('filters', d, '--json') for d in (target, core)]
    assert filters[0].returncode == 0 and filters[0].stdout == filters[1].stdout, filters[0].stderr


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


def scenario_v2_transport():
    """BIP324: fetch and serve meet over v2 by default (both logs give the same session id); fetch --v1 speaks v1 at
    once; serve --v1 hangs up at a v2 key, fetch comes again with v1 and says so; a v1-only node the same."""
    directory, blocks = chain()
    server, port = peers.start_serve(blockwire, directory)
    with server:
        r = fetch(port, os.path.join(work, 'v2'), '--json')
        assert r.returncode == 0, r.stderr
        summary = json.loads(r.stdout)
        assert summary['transport'] == 'v2' and len(summary['session_id']) == 64, summary
        check_fetched(os.path.join(work, 'v2'), blocks)
        r = fetch(port, os.path.join(work, 'v1'), '--v1')
        assert r.returncode == 0, r.stderr
        assert 'transport: v1, plaintext\n' in r.stdout, r.stdout
        status, _, err = server.stop()
    assert status == 0, err
    assert f'v2 transport (session {summary["session_id"]})' in err, err
    assert 'v1 transport' in err, err

    server, port = peers.start_serve(blockwire, directory, '--v1')
    with server:
        r = fetch(port, os.path.join(work, 'refused'), '--max-blocks', '10')
        assert r.returncode == 0, r.stderr
        assert 'hung up at our v2 (BIP324) key: connected again with v1' in r.stderr, r.stderr
        assert 'transport: v1, plaintext (the peer speaks v1 only)' in r.stdout, r.stdout
        status, _, err = server.stop()
    assert status == 0 and 'bad magic' in err, err

    node, r = fetch_from_node(blocks, os.path.join(work, 'node'))
    assert r.returncode == 0 and node.v2_refused == 1, (node.v2_refused, r.stderr)
    node, r = fetch_from_node(blocks, os.path.join(work, 'node-v1'), '--v1')
    assert r.returncode == 0 and node.v2_refused == 0, (node.v2_refused, r.stderr)


def scenario_bitcoinlib_client():
    """python-bitcoinlib downloads headers and blocks from serve: the chain, and two real mainnet blocks."""
    directory, blocks = chain()
    server, port = peers.start_serve(blockwire, directory)
    with server:
        sock = socket.create_connection(('127.0.0.1', port), timeout=20)
        wire = peers.Wire(sock)
        theirs = peers.handshake(wire)
        assert theirs.nVersion == 70016 and theirs.nStartingHeight == CHAIN_LENGTH and not theirs.fRelay
        # NODE_NETWORK | NODE_WITNESS (Core's outbound peers must offer both) | NODE_P2P_V2 (BIP324: 1 << 11)
        assert theirs.nServices == 9 | 2048, theirs.nServices
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


def expect(wire, *commands, timeout=20):
    """The next message whose command is one of `commands` (pings answered, the rest passed by)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        command, payload = wire.receive()
        assert command is not None, f'closed while waiting for {commands}'
        if command in commands:
            return command, payload
        if command == b'ping':
            wire.send(msg_pong(nonce=wire.message(command, payload).nonce))
    raise AssertionError(f'no {commands} within {timeout} s')


def block_inv(kind, block):
    inv = CInv()
    inv.type, inv.hash = kind, CBlock.deserialize(block).GetHash()
    return inv


def read_varint(data, at):
    first = data[at]
    if first < 0xfd:
        return first, at + 1
    size = {0xfd: 2, 0xfe: 4, 0xff: 8}[first]
    return int.from_bytes(data[at + 1:at + 1 + size], 'little'), at + 1 + size


def scenario_getblocks_sync():
    """A client that syncs only by getblocks and inv, as nodes without checkpoints and older nodes do: from
    genesis through full batches of 500 (each ended by an inv of the tip) to the tip."""
    length = 1300
    directory, blocks = scenarios.make_chain(make_chain, work, 'chain', length)
    hashes = [CBlock.deserialize(b).GetHash() for b in blocks]
    server, port = peers.start_serve(blockwire, directory)
    with server:
        wire = peers.Wire(socket.create_connection(('127.0.0.1', port), timeout=20))
        peers.handshake(wire)
        have, batches = [blocks[0]], 0
        while len(have) < len(blocks):
            request = msg_getblocks()
            request.locator.vHave = [hashes[len(have) - 1], hashes[0]]
            wire.send(request)
            _, payload = expect(wire, b'inv')
            items = wire.message(b'inv', payload).inv
            assert [i.hash for i in items] == hashes[len(have):len(have) + 500], (len(have), len(items))
            assert all(i.type == peers.MSG_BLOCK for i in items)
            wire.send(getdata(*[block_inv(peers.MSG_WITNESS_BLOCK, blocks[len(have) + k]) for k in range(len(items))]))
            for k in range(len(items)):
                _, payload = expect(wire, b'block')
                assert payload == blocks[len(have)], len(have)
                have.append(payload)
            batches += 1
            if len(items) == 500 and len(have) < len(blocks):
                # The last of a full batch was fetched: an inv of the tip asks us to go on.
                _, payload = expect(wire, b'inv')
                assert [i.hash for i in wire.message(b'inv', payload).inv] == [hashes[-1]]
        assert batches == 3 and have == blocks
        # At the tip, getblocks has nothing to say: no inv (Core sends none); a ping is still answered.
        request = msg_getblocks()
        request.locator.vHave = [hashes[-1]]
        wire.send(request)
        wire.send(peers.msg_ping(nonce=99))
        command, payload = expect(wire, b'inv', b'pong')
        assert command == b'pong', command
        # A stop hash ends the inv before it.
        request = msg_getblocks()
        request.locator.vHave = [hashes[10]]
        request.hashstop = hashes[15]
        wire.send(request)
        _, payload = expect(wire, b'inv')
        assert [i.hash for i in wire.message(b'inv', payload).inv] == hashes[11:15]
        server.stop()


def scenario_compact_blocks():
    """A client asking for compact blocks: a cmpctblock of a recent block (its coinbase prefilled), the missing
    transactions by getblocktxn, the block rebuilt equal; a deep block asked for compactly comes whole; a
    getblocktxn past the block's transactions is a disconnect (as Core); tx and filtered-block requests get notfound,
    getaddr an empty addr."""
    fill = os.path.join(data_dir, 'block413567.raw')
    directory, blocks = scenarios.make_chain(make_chain, work, 'chain', 12, '--fill', fill)
    server, port = peers.start_serve(blockwire, directory)
    with server:
        wire = peers.Wire(socket.create_connection(('127.0.0.1', port), timeout=20))
        peers.handshake(wire)
        wire.send(peers.envelope(b'sendcmpct', b'\x00' + struct.pack('<Q', 2)))
        tip = blocks[-1]
        block = CBlock.deserialize(tip)
        wire.send(getdata(block_inv(4, tip)))  # MSG_CMPCT_BLOCK
        _, payload = expect(wire, b'cmpctblock')
        assert payload[:80] == tip[:80]
        n_ids, at = read_varint(payload, 88)
        at += 6 * n_ids
        n_prefilled, at = read_varint(payload, at)
        assert n_prefilled == 1 and n_ids == len(block.vtx) - 1, (n_prefilled, n_ids)
        index, at = read_varint(payload, at)
        assert index == 0
        coinbase = block.vtx[0].serialize()
        assert payload[at:at + len(coinbase)] == coinbase
        # Every other transaction by getblocktxn (differential indexes: 1, then 0 for each next one).
        wanted = list(range(1, len(block.vtx)))
        request = CBlock.deserialize(tip).GetHash() + peers.compact_size(len(wanted)) + peers.compact_size(1) + b'\x00' * (len(wanted) - 1)
        wire.send(peers.envelope(b'getblocktxn', request))
        _, payload = expect(wire, b'blocktxn')
        assert payload[:32] == block.GetHash()
        count, at = read_varint(payload, 32)
        assert count == len(wanted)
        rebuilt = tip[:80] + peers.compact_size(len(block.vtx)) + coinbase + payload[at:]
        assert rebuilt == tip, 'the block rebuilt from the cmpctblock and blocktxn is not the block'
        # Deep (more than 5 below the tip): the whole block.
        wire.send(getdata(block_inv(4, blocks[2])))
        command, payload = expect(wire, b'block', b'cmpctblock')
        assert command == b'block' and payload == blocks[2]
        # A transaction, a filtered block: notfound; getaddr: an empty addr.
        tx, filtered = CInv(), CInv()
        tx.type, tx.hash = 1, block.vtx[1].GetTxid()
        filtered.type, filtered.hash = 3, block.GetHash()
        wire.send(getdata(tx, filtered))
        _, payload = expect(wire, b'notfound')
        assert payload == peers.compact_size(2) + tx.serialize() + filtered.serialize()
        wire.send(peers.envelope(b'getaddr', b''))
        wire.send(peers.envelope(b'mempool', b''))
        _, payload = expect(wire, b'addr')
        assert payload == b'\x00'
        # Past the end: disconnected.
        wire.send(peers.envelope(b'getblocktxn', block.GetHash() + peers.compact_size(1) + peers.compact_size(60000)))
        assert wire.receive() == (None, None)
        status, _, err = server.stop()
    assert "getblocktxn index past" in err, err


def scenario_live_directory():
    """Blocks appended to a directory while serve runs are picked up and announced: headers to a peer that sent
    sendheaders, a cmpctblock to a high-bandwidth one, an inv of the tip to the rest; and a second fetch from serve
    gets them."""
    _, blocks = chain()
    directory = os.path.join(work, 'live')
    inputs = []
    for i, b in enumerate(blocks):
        path = os.path.join(work, f'b{i:04}.raw')
        open(path, 'wb').write(b)
        inputs.append(path)
    assert run('pack', '-o', directory, '--network', 'regtest', *inputs[:200]).returncode == 0
    server, port = peers.start_serve(blockwire, directory)
    with server:
        clients = {}
        for kind in ('headers', 'compact', 'inv'):
            wire = peers.Wire(socket.create_connection(('127.0.0.1', port), timeout=20))
            peers.handshake(wire)
            if kind == 'headers':
                wire.send(peers.envelope(b'sendheaders', b''))
            if kind == 'compact':
                wire.send(peers.envelope(b'sendcmpct', b'\x01' + struct.pack('<Q', 2)))
            clients[kind] = wire
        time.sleep(0.3)
        # One block appended: each peer told its way, within a couple of seconds.
        assert run('pack', '--append', '-o', directory, '--network', 'regtest', inputs[200]).returncode == 0
        _, payload = expect(clients['headers'], b'headers', timeout=5)
        assert [h.GetHash() for h in peers.read_headers(payload)] == [CBlock.deserialize(blocks[200]).GetHash()]
        _, payload = expect(clients['compact'], b'cmpctblock', timeout=5)
        assert payload[:80] == blocks[200][:80]
        _, payload = expect(clients['inv'], b'inv', timeout=5)
        assert [i.hash for i in clients['inv'].message(b'inv', payload).inv] == [CBlock.deserialize(blocks[200]).GetHash()]
        # Ten more at once: more than 8, so the headers peer gets an inv of the tip too.
        assert run('pack', '--append', '-o', directory, '--network', 'regtest', *inputs[201:211]).returncode == 0
        _, payload = expect(clients['headers'], b'inv', b'headers', timeout=5)
        tip = CBlock.deserialize(blocks[210]).GetHash()
        assert [i.hash for i in clients['headers'].message(b'inv', payload).inv] == [tip]
        # And served: a fetch from serve gets all 211.
        target = os.path.join(work, 'copy')
        result = fetch(port, target)
        assert result.returncode == 0, result.stderr
        check_fetched(target, blocks[:211])
        server.stop()


def scenario_relay():
    """fetch from a node into DIR while serve DIR feeds another fetch: a working relay; both directories end equal,
    byte for byte."""
    source, blocks = chain()
    upstream, up_port = peers.start_serve(blockwire, source)
    relay_dir, copy = os.path.join(work, 'relay'), os.path.join(work, 'copy')
    with upstream:
        first = fetch(up_port, relay_dir, '--max-blocks', '50')
        assert first.returncode == 0, first.stderr
        relay, relay_port = peers.start_serve(blockwire, relay_dir)
        with relay:
            with peers.Process([blockwire, 'fetch', f'127.0.0.1:{up_port}', '-o', relay_dir, '--network', 'regtest', '--no-progress']) as rest:
                partway = fetch(relay_port, copy)  # while the relay directory grows
                assert partway.returncode == 0, partway.stderr
                assert rest.proc.wait(timeout=60) == 0, rest.proc.stderr.read()
            time.sleep(1.5)  # serve reads what was appended within a second
            again = fetch(relay_port, copy)
            assert again.returncode == 0, again.stderr
            relay.stop()
        upstream.stop()
    check_fetched(relay_dir, blocks)
    check_fetched(copy, blocks)
    assert peers.records(relay_dir) == peers.records(copy)


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
    # An empty headers answer is not the ping's pong: its own words, not "ignores our getheaders".
    _, result = fetch_from_node(blocks, os.path.join(work, 'ibd_empty'), '--timeout', '5', mode='ibd_empty')
    assert result.returncode == 2 and 'no header past ours' in result.stderr, result.stderr
    assert 'ignores our getheaders' not in result.stderr, result.stderr
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


def scenario_filters_bip157():
    """A light client against serve (BIP157): NODE_COMPACT_FILTERS in its version, a cfcheckpt at height 1000, the
    cfheaders and cfilters of the whole chain equal to what `filters DIR --json` prints (itself checked against an
    independent BIP158 in filters_check.py); a range one wider than Core's limit, an unknown filter type and a stop
    hash not on the chain each end the connection, as Core ends it."""
    directory, hex_file = os.path.join(work, 'chain'), os.path.join(work, 'chain.hex')
    subprocess.run([make_chain, directory, '1100', '--undo', '--hex', hex_file], check=True)
    listed = run('filters', directory, '--json')
    assert listed.returncode == 0, listed.stderr
    expected = json.loads(listed.stdout)
    hashes = [bytes.fromhex(e['hash'])[::-1] for e in expected]
    tip = len(expected) - 1

    message = peers.envelope

    def connect():
        wire = peers.Wire(socket.create_connection(('127.0.0.1', port), timeout=20))
        theirs = peers.handshake(wire)
        return wire, theirs

    def closed(wire):
        try:
            wire.send(peers.msg_ping(nonce=5))
            while True:
                command, _ = wire.receive()
                if command is None:
                    return True
                if command == b'pong':
                    return False
        except (ConnectionError, OSError):
            return True

    server, port = peers.start_serve(blockwire, directory)
    with server:
        wire, theirs = connect()
        assert theirs.nServices & (1 << 6), f'no NODE_COMPACT_FILTERS in {theirs.nServices:#x}'
        wire.send(message(b'getcfcheckpt', b'\0' + hashes[tip]))
        _, payload = expect(wire, b'cfcheckpt')
        assert payload[0] == 0 and payload[1:33] == hashes[tip]
        count, at = read_varint(payload, 33)
        assert count == 1 and payload[at:at + 32][::-1].hex() == expected[1000]['header'], payload.hex()
        # Every filter header, from its hash and the one before.
        wire.send(message(b'getcfheaders', b'\0' + struct.pack('<I', 0) + hashes[tip]))
        _, payload = expect(wire, b'cfheaders')
        assert payload[1:33] == hashes[tip] and payload[33:65] == bytes(32)
        count, at = read_varint(payload, 65)
        assert count == tip + 1, count
        header = bytes(32)
        for h in range(count):
            filter_hash = payload[at + 32 * h:at + 32 * h + 32]
            assert filter_hash == hashlib.sha256(hashlib.sha256(bytes.fromhex(expected[h]['filter'])).digest()).digest(), h
            header = hashlib.sha256(hashlib.sha256(filter_hash + header).digest()).digest()
            assert header[::-1].hex() == expected[h]['header'], h
        # A later start: the header before it comes first.
        wire.send(message(b'getcfheaders', b'\0' + struct.pack('<I', 700) + hashes[710]))
        _, payload = expect(wire, b'cfheaders')
        assert payload[33:65][::-1].hex() == expected[699]['header'] and read_varint(payload, 65)[0] == 11
        # The most filters Core sends for one request: 1,000, in height order.
        wire.send(message(b'getcfilters', b'\0' + struct.pack('<I', 100) + hashes[1099]))
        for h in range(100, 1100):
            _, payload = expect(wire, b'cfilter')
            assert payload[0] == 0 and payload[1:33] == hashes[h], h
            size, at = read_varint(payload, 33)
            assert payload[at:at + size].hex() == expected[h]['filter'] and at + size == len(payload), h
        assert not closed(wire)
        # The client side: filters --from-peer checks every header and filter and prints the same.
        fetched = run('filters', '--from-peer', f'127.0.0.1:{port}', '--network', 'regtest', '--json')
        assert fetched.returncode == 0, fetched.stderr
        assert json.loads(fetched.stdout) == expected, 'filters --from-peer differs from filters DIR'
        # One more than Core allows: the connection ends.
        wire.send(message(b'getcfilters', b'\0' + struct.pack('<I', 99) + hashes[1099]))
        assert closed(wire), 'a getcfilters of 1,001 blocks was answered'
        wire, _ = connect()
        wire.send(message(b'getcfheaders', b'\x01' + struct.pack('<I', 0) + hashes[10]))
        assert closed(wire), 'an unknown filter type was answered'
        wire, _ = connect()
        wire.send(message(b'getcfcheckpt', b'\0' + bytes(range(32))))
        assert closed(wire), 'a stop hash not on the chain was answered'
        server.stop()
    # Those answers came from the filters `filters DIR` kept; without them, serve makes them from the blk and rev
    # files, the same.
    shutil.rmtree(os.path.join(directory, 'blockwire-filters'))
    server, port = peers.start_serve(blockwire, directory)
    with server:
        fetched = run('filters', '--from-peer', f'127.0.0.1:{port}', '--network', 'regtest', '--json')
        assert fetched.returncode == 0 and json.loads(fetched.stdout) == expected, fetched.stderr
        server.stop()
    # A directory without rev files: no NODE_COMPACT_FILTERS, and the client says so.
    for name in os.listdir(directory):
        if name.startswith('rev'):
            os.remove(os.path.join(directory, name))
    server, port = peers.start_serve(blockwire, directory)
    with server:
        wire, theirs = connect()
        assert not theirs.nServices & (1 << 6)
        fetched = run('filters', '--from-peer', f'127.0.0.1:{port}', '--network', 'regtest')
        assert fetched.returncode == 1 and 'does not serve compact block filters' in fetched.stderr, fetched.stderr
        server.stop()


def scenario_filters_tampered():
    """filters --from-peer against a node whose answers are changed on the way (a proxy in front of serve): one byte
    of one filter, or one filter hash of a cfheaders. Each is caught (exit 1, bad_filter) and nothing is printed for
    that block or any after it."""
    directory, hex_file = os.path.join(work, 'chain'), os.path.join(work, 'chain.hex')
    subprocess.run([make_chain, directory, '40', '--undo', '--hex', hex_file], check=True)
    expected = json.loads(run('filters', directory, '--json').stdout)

    def tamper_filter(command, payload, seen):
        if command == b'cfilter':
            seen['cfilter'] = seen.get('cfilter', 0) + 1
            if seen['cfilter'] == 21:  # height 20's: flip its last byte
                return payload[:-1] + bytes([payload[-1] ^ 1])
        return payload

    def tamper_header(command, payload, seen):
        if command == b'cfheaders':
            return payload[:-1] + bytes([payload[-1] ^ 1])  # the last filter hash
        return payload

    # The filter of height 20 changed: 0..19 printed. The last filter hash (height 40's) changed: its filter then
    # does not hash to it, so 0..39 are printed.
    for name, tamper, printed in (('a filter', tamper_filter, 20), ('a filter hash', tamper_header, 40)):
        server, port = peers.start_serve(blockwire, directory)
        with server:
            proxy = socket.create_server(('127.0.0.1', 0))
            proxy_port = proxy.getsockname()[1]
            client = peers.Process([blockwire, 'filters', '--from-peer', f'127.0.0.1:{proxy_port}', '--network', 'regtest', '--json'])
            with client:
                # A v1 proxy: the client's v2 key is hung up on, and it comes again with v1 (v2 would make any
                # change on the way a failed tag).
                inbound, refused = peers.accept_v1(proxy)
                assert refused == 1, refused
                upstream = socket.create_connection(('127.0.0.1', port), timeout=20)

                seen = {}
                threads = [threading.Thread(target=peers.relay, args=(inbound, upstream), daemon=True),
                           threading.Thread(target=peers.relay, args=(upstream, inbound, lambda c, p: tamper(c, p, seen)),
                                            daemon=True)]
                for t in threads:
                    t.start()
                client.proc.wait(timeout=60)
                out, err = client.proc.communicate()
                status = client.proc.returncode
                inbound.close()
                upstream.close()
            proxy.close()
            assert status == 1, (name, status, err)
            assert 'does not match' in err, (name, err)
            assert json.loads(out) == expected[:printed], (name, 'printed', len(json.loads(out)))
            server.stop()


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
    server, port = peers.start_serve(blockwire, directory, '--max-peers', '2', '--max-per-address', '3')
    with server:
        good = peers.Wire(socket.create_connection(('127.0.0.1', port), timeout=20))
        peers.handshake(good)
        # Not a v1 version's first bytes: a v2 key, then garbage with no terminator in its 4,095 bytes.
        bad = socket.create_connection(('127.0.0.1', port), timeout=20)
        bad.sendall(b'\x00' * (64 + 4095 + 16))
        bad.shutdown(socket.SHUT_WR)
        while bad.recv(65536):  # serve's key, garbage, terminator and version packet, then the close
            pass
        time.sleep(0.5)  # the bad peer's thread ends; a third peer would be the second now
        inv = CInv()
        inv.type, inv.hash = peers.MSG_WITNESS_BLOCK, CBlock.deserialize(blocks[7]).GetHash()
        good.send(getdata(inv))
        command, payload = good.receive()
        assert command == b'block' and payload == blocks[7]
        second = peers.Wire(socket.create_connection(('127.0.0.1', port), timeout=20))
        peers.handshake(second)
        # A third peer finishes its handshake and finds both slots taken by peers too few to be anything but
        # protected (Core protects 4 by netgroup and 8 by ping): it is closed, never served.
        third = peers.Wire(socket.create_connection(('127.0.0.1', port), timeout=20))
        third.send(peers.version())
        seen = []
        while True:
            command, _ = third.receive()
            if command is None:
                break
            seen.append(command)
            if command == b'version':
                third.send(msg_verack())
        assert b'verack' in seen and b'sendcmpct' not in seen, seen
        status, _, err = server.stop(signal.SIGINT)
        assert status == 0, err
        assert 'dropped' in err and 'no v2 garbage terminator' in err and 'refused' in err and 'protected peer' in err, err


ATTACKERS = '127.3.0.'  # one /16 (a netgroup), another than the polite clients' 127.0.0.1


def silent_peer(port, n):
    """A peer from 127.3.0.N that finishes its handshake and then says nothing."""
    s = socket.create_connection(('127.0.0.1', port), timeout=10, source_address=(ATTACKERS + str(n), 0))
    peers.handshake(peers.Wire(s))
    return s


def scenario_serve_silent_peers():
    """Twenty peers of one netgroup finish their handshake and stay silent, holding every slot (--max-peers 20): a
    peer from another netgroup is served at once (the youngest unprotected silent one evicted for it, as Core's
    eviction picks it: 4 protected by netgroup, 8 by ping, half the rest by age), and so is a whole fetch."""
    directory, blocks = chain()
    server, port = peers.start_serve(blockwire, directory, '--max-peers', '20')
    with server:
        held = [silent_peer(port, n) for n in range(1, 21)]
        started = time.time()
        polite = peers.Wire(socket.create_connection(('127.0.0.1', port), timeout=10))
        peers.handshake(polite)
        assert time.time() - started < 1, time.time() - started
        target = os.path.join(work, 'fetched')
        r = fetch(port, target)
        assert r.returncode == 0, r.stderr
        check_fetched(target, blocks)
        evicted = sum(1 for s in held if closed(s))
        assert evicted >= 2, evicted  # one for each newcomer of the other netgroup
        status, _, err = server.stop(signal.SIGINT)
        assert status == 0 and 'held the most slots' in err, err


def closed(s):
    s.settimeout(0.5)
    try:
        while s.recv(65536):
            pass
        return True
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False


def scenario_serve_unanswered_ping():
    """Every slot taken (--max-peers 2) by a peer that answers our pings and one that does not, from two /16s, so
    that no netgroup holds more than another: with --ping-interval 1 a newcomer of a third /16 takes the slot of
    the one that left a ping unanswered; the one that answers keeps its own."""
    directory, _ = chain()
    server, port = peers.start_serve(blockwire, directory, '--max-peers', '2', '--ping-interval', '1')
    with server:
        mute = silent_peer(port, 1)  # reads nothing, answers nothing
        polite = peers.Wire(socket.create_connection(('127.0.0.1', port), timeout=10))
        peers.handshake(polite)
        pongs, gone = [0], threading.Event()

        def answer():
            while True:
                try:
                    command, payload = polite.receive()
                except OSError:
                    command = None
                if command is None:
                    gone.set()
                    return
                if command == b'ping':
                    polite.send(msg_pong(nonce=polite.message(command, payload).nonce))
                    pongs[0] += 1

        threading.Thread(target=answer, daemon=True).start()
        time.sleep(2.5)  # past a whole ping interval: the mute peer's ping unanswered
        newcomer = peers.Wire(socket.create_connection(('127.0.0.1', port), timeout=10, source_address=('127.5.0.1', 0)))
        peers.handshake(newcomer)
        assert closed(mute), 'the peer that answers no ping kept its slot'
        time.sleep(1.5)
        assert not gone.is_set() and pongs[0] >= 2, (gone.is_set(), pongs[0])
        status, _, err = server.stop(signal.SIGINT)
        assert status == 0 and 'had not answered a ping' in err, err


def scenario_serve_version_flood():
    """Thirty sockets of one netgroup send a version alone and are opened again as they close, for as long as
    fetches from another netgroup run: every fetch ends at the tip."""
    directory, blocks = chain()
    server, port = peers.start_serve(blockwire, directory)
    stop = threading.Event()
    opened = [0]

    def flood(n):
        while not stop.is_set():
            try:
                s = socket.create_connection(('127.0.0.1', port), timeout=5, source_address=(ATTACKERS + str(n % 30 + 1), 0))
                s.sendall(peers.version().to_bytes())
                opened[0] += 1
                s.settimeout(5)
                while not stop.is_set() and s.recv(65536):
                    pass
                s.close()
            except OSError:
                time.sleep(0.01)

    with server:
        threads = [threading.Thread(target=flood, args=(n,)) for n in range(30)]
        for t in threads:
            t.start()
        try:
            time.sleep(2)  # the flood in place: every slot taken, again and again
            for i in range(4):
                target = os.path.join(work, f'fetched{i}')
                r = fetch(port, target)
                assert r.returncode == 0, (i, r.stderr)
                check_fetched(target, blocks)
        finally:
            stop.set()
            for t in threads:
                t.join()
        assert opened[0] > 30, opened[0]
        server.stop(signal.SIGINT)


scenarios.dispatch(scenario, globals(), {'hostile_': scenario_hostile})
