"""The network's edges as users and hostile clients meet them (issue 57), one scenario a run:
  edges_test.py BLOCKWIRE MAKE_CHAIN DATA_DIR WORK_DIR SCENARIO
Attackers connect from 127.3.x.x and other /16s of the loopback range, the polite client from 127.0.0.1. Every
process a scenario starts is stopped by its PID, whatever happens; every attacker thread is bounded in time."""
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'support'))
import peers  # noqa: E402
import scenario as scenarios  # noqa: E402
import bitcoin  # noqa: E402
from bitcoin.core import CBlock, b2lx  # noqa: E402
from bitcoin.messages import msg_getheaders, msg_pong, msg_verack  # noqa: E402

blockwire, make_chain, data_dir, work, scenario = scenarios.arguments('blockwire', 'make_chain', 'data_dir', 'work', 'scenario')
env = dict(os.environ, XDG_CACHE_HOME=os.path.join(work, 'cache'))
run = scenarios.runner(blockwire, env=env)
CHAIN_LENGTH = 120


def chain(n=CHAIN_LENGTH):
    return scenarios.make_chain(make_chain, work, 'chain', n)


def fetch(port, directory, *extra):
    return run('fetch', f'127.0.0.1:{port}', '-o', directory, '--network', 'regtest', '--no-progress', *extra)


def fetched_equal(directory, blocks):
    got = peers.records(directory)
    assert got == blocks, f'{len(got)} records, {len(blocks)} expected'


class Log(list):
    """A process's standard error, read line by line as it comes by a thread of its own (a log no one reads
    must never be what stops a server)."""

    def __init__(self, stream):
        super().__init__()
        self.reader = threading.Thread(target=self.read, args=(stream,), daemon=True)
        self.reader.start()

    def read(self, stream):
        for line in iter(stream.readline, ''):
            self.append(line)


def serve(directory, *extra):
    """serve on loopback (stopped by its PID whatever happens), and its log."""
    server, port = peers.start_serve(blockwire, directory, *extra)
    return server, port, Log(server.proc.stderr)


def stop(server, log):
    """SIGINT, then its exit status and its whole log."""
    if server.proc.poll() is None:
        os.kill(server.proc.pid, signal.SIGINT)
    try:
        status = server.proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.proc.kill()
        status = server.proc.wait()
    log.reader.join(timeout=5)
    return status, ''.join(log)


def polite_handshake(port, within=1.0):
    """A peer from 127.0.0.1 that finishes its handshake (and reads serve's sendcmpct) within `within` seconds."""
    started = time.time()
    s = socket.create_connection(('127.0.0.1', port), timeout=10)
    peers.handshake(peers.Wire(s))
    took = time.time() - started
    s.close()
    assert took < within, f'the polite peer took {took:.2f} s'
    return took


class Attack:
    """Threads that keep connections of a kind open against a port from `sources`, each reopened `gap` seconds
    after it closes, until stop() (and never past `bound` seconds)."""

    def __init__(self, port, sources, kind, gap=0.0, bound=120):
        self.port, self.kind, self.gap = port, kind, gap
        self.done = threading.Event()
        self.opened = 0
        self.deadline = time.time() + bound
        self.threads = [threading.Thread(target=self.keep, args=(source,), daemon=True) for source in sources]
        for t in self.threads:
            t.start()

    def keep(self, source):
        while not self.done.is_set() and time.time() < self.deadline:
            try:
                s = socket.create_connection(('127.0.0.1', self.port), timeout=5, source_address=(source, 0))
            except OSError:
                time.sleep(0.05)
                continue
            self.opened += 1
            try:
                if self.kind == 'version':
                    s.sendall(peers.version().to_bytes())
                elif self.kind == 'v2_key':
                    s.sendall(os.urandom(64))
                s.settimeout(0.5)
                while not self.done.is_set():
                    try:
                        if not s.recv(65536):
                            break
                    except socket.timeout:
                        continue
            except OSError:
                pass
            finally:
                s.close()
            if self.gap:
                self.done.wait(self.gap)

    def stop(self):
        self.done.set()
        for t in self.threads:
            t.join(timeout=10)


def handshaked(port, source, ask_every=None):
    """A peer from `source` past its handshake that answers pings; with `ask_every`, it sends a getheaders that
    often (a peer that uses the server, a little). Returns the socket and an Event that stops its thread."""
    s = socket.create_connection(('127.0.0.1', port), timeout=10, source_address=(source, 0))
    wire = peers.Wire(s)
    peers.handshake(wire)
    done = threading.Event()

    def answer():
        next_ask = time.time()
        s.settimeout(0.2)
        while not done.is_set():
            if ask_every is not None and time.time() >= next_ask:
                wire.send(msg_getheaders())
                next_ask = time.time() + ask_every
            try:
                command, payload = wire.receive()
            except socket.timeout:
                continue
            except (OSError, AssertionError, ValueError):
                return
            if command is None:
                return
            if command == b'ping':
                wire.send(msg_pong(nonce=wire.message(command, payload).nonce))

    threading.Thread(target=answer, daemon=True).start()
    return s, done


def is_closed(s, wait=1.0):
    s.settimeout(wait)
    try:
        while True:
            data = s.recv(65536)
            if not data:
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except (socket.timeout, OSError):
        return False


# --- fetch against v1 nodes that speak first ---------------------------------------------------------------------

def fetch_from_speaking_node(**node_options):
    """fetch, no flags, from a FakeNode made with `node_options`: it reaches the tip, the node saw no error; the
    fetch's result and the node."""
    _, blocks = chain()
    node = peers.FakeNode(blocks, **node_options)
    node.start()
    target = os.path.join(work, 'fetched')
    r = fetch(node.port, target)
    node.join(timeout=10)
    assert r.returncode == 0, r.stderr
    assert node.error is None, node.error
    fetched_equal(target, blocks)
    return r, node


def scenario_v1_speaks_first():
    """fetch, no flags, against a v1 node that sends its version as soon as it accepts and bans an address whose
    first bytes are not its magic: fetch sees the version before it sends its key, speaks v1 on that connection,
    reaches the tip with one connection (the node never banned it), and says why it speaks v1."""
    r, node = fetch_from_speaking_node(speaks_first=0.0, bans=True)
    assert node.connections == 1 and not node.banned, (node.connections, node.banned)
    assert 'sent its v1 version before our v2 (BIP324) key' in r.stderr and 'transport: v1' in r.stdout, (r.stdout, r.stderr)


def scenario_v1_speaks_late():
    """The same node, its version sent 0.5 s after it accepts (past fetch's wait): it reads fetch's v2 key as a bad
    envelope and hangs up, but its version came first where the key belongs: fetch connects again with v1 at once
    and reaches the tip; the node saw exactly two connections (never v2 again)."""
    r, node = fetch_from_speaking_node(speaks_first=0.5)
    assert node.connections == 2, node.connections
    assert 'answered our v2 (BIP324) key with a v1 version: connected again with v1' in r.stderr, r.stderr


def scenario_refusing_peer():
    """A node that closes every connection as it accepts it (full, or this address banned): fetch says it refuses
    us, not that it speaks v1 only or that it is of another network; exit 2."""
    server = socket.create_server(('127.0.0.1', 0))
    port = server.getsockname()[1]
    stop_event = threading.Event()

    def refuse():
        server.settimeout(0.2)
        while not stop_event.is_set():
            try:
                conn, _ = server.accept()
                conn.close()
            except socket.timeout:
                pass

    t = threading.Thread(target=refuse, daemon=True)
    t.start()
    try:
        r = fetch(port, os.path.join(work, 'fetched'))
    finally:
        stop_event.set()
        t.join()
        server.close()
    assert r.returncode == 2, r.stderr
    assert 'closed the connection as it accepted it' in r.stderr and 'refuses us' in r.stderr, r.stderr
    assert 'hung up at our v2' not in r.stderr and 'node? (--network)' not in r.stderr, r.stderr
    assert not os.path.exists(os.path.join(work, 'fetched')), 'a fetch that never reached its peer left a directory'


# --- serve under floods --------------------------------------------------------------------------------------------

def polite_fetches(port, blocks, n):
    for i in range(n):
        target = os.path.join(work, f'fetched{i}')
        started = time.time()
        r = fetch(port, target)
        assert r.returncode == 0, (i, r.stderr)
        fetched_equal(target, blocks)
        assert time.time() - started < 30, time.time() - started


def scenario_serve_one_address_floods():
    """One address (127.3.0.1) holds 4 peers past their handshake that say nothing more, and keeps 30 connections
    that send a version alone refilled as they close: a polite peer from 127.0.0.1 finishes its handshake within a
    second, and three fetches (v2, as a user runs it) reach the tip."""
    directory, blocks = chain()
    server, port, log = serve(directory)
    with server:
        held = [handshaked(port, '127.3.0.1') for _ in range(4)]
        attack = Attack(port, ['127.3.0.1'] * 30, 'version')
        try:
            time.sleep(1)
            polite_handshake(port)
            polite_fetches(port, blocks, 3)
        finally:
            attack.stop()
            for _, done in held:
                done.set()
        assert attack.opened > 30, attack.opened
        status, text = stop(server, log)
    assert status == 0, text


def silent_reconnectors(kind, gap):
    """12 sockets from 12 /16s (127.10.0.1 to 127.21.0.1) that each send `kind` and nothing more, reopened `gap`
    seconds after each close: a polite peer finishes its handshake within a second, and three fetches reach the
    tip."""
    directory, blocks = chain()
    server, port, log = serve(directory)
    with server:
        attack = Attack(port, [f'127.{10 + i}.0.1' for i in range(12)], kind, gap=gap)
        try:
            time.sleep(1.5)
            polite_handshake(port)
            polite_fetches(port, blocks, 3)
        finally:
            attack.stop()
        status, text = stop(server, log)
    assert status == 0, text


def scenario_serve_silent_reconnect():
    silent_reconnectors('nothing', 0.2)


def scenario_serve_silent_reconnect_no_gap():
    silent_reconnectors('nothing', 0)


def scenario_serve_version_reconnect():
    silent_reconnectors('version', 0)


def scenario_serve_v2_key_reconnect():
    silent_reconnectors('v2_key', 0)


def newcomers_get_in(port, blocks, held):
    """Every slot taken by `held` (handshaked()'s): a polite peer gets in within a second, and a fetch reaches the
    tip. One of the held is evicted for the polite peer; the fetch takes the slot it left, or evicts another when it
    comes before serve has seen the polite peer go."""
    try:
        time.sleep(0.5)
        polite_handshake(port)
        polite_fetches(port, blocks, 1)
        evicted = sum(1 for s, _ in held if is_closed(s, 0.2))
        assert 1 <= evicted <= 2, evicted
    finally:
        for _, done in held:
            done.set()


def scenario_serve_askers_of_one_netgroup():
    """Two addresses of one /16 (127.3.0.1, 127.3.0.2) fill every slot (--max-peers 40, 20 each) and each peer sends
    a getheaders every second (asking is not what Core protects): a polite peer from 127.0.0.1 is admitted within a
    second, one of theirs evicted for it as that netgroup's youngest, and a fetch reaches the tip."""
    directory, blocks = chain()
    server, port, log = serve(directory, '--max-peers', '40')
    with server:
        newcomers_get_in(port, blocks, [handshaked(port, f'127.3.0.{1 + i % 2}', ask_every=1.0) for i in range(40)])
        status, text = stop(server, log)
    assert status == 0 and 'held the most slots' in text and '127.3.0.0/16' in text, text


def scenario_serve_distinct_netgroups():
    """8 peers past their handshake from 8 /16s hold their slots (the 8 of old): every newcomer is served (125
    slots, as Core's); then, with --max-peers 30 and 30 peers of 30 /16s, a newcomer still gets in: one of them is
    evicted for it as Core picks one (the protected ones aside), and a fetch reaches the tip."""
    directory, blocks = chain()
    server, port, log = serve(directory)
    with server:
        held = [handshaked(port, f'127.{30 + i}.0.1') for i in range(8)]
        try:
            for _ in range(5):
                polite_handshake(port)
            assert not any(is_closed(s, 0.05) for s, _ in held), 'a peer was evicted with slots free'
        finally:
            for _, done in held:
                done.set()
        stop(server, log)
    server, port, log = serve(directory, '--max-peers', '30')
    with server:
        newcomers_get_in(port, blocks, [handshaked(port, f'127.{30 + i}.0.1') for i in range(30)])
        status, text = stop(server, log)
    assert status == 0 and 'evicted' in text, text


def scenario_serve_dripped_v2_handshake():
    """A v2 key sent a byte a second: serve ends it at the handshake's deadline and says so (not the idle
    timeout), while a polite peer is served within a second."""
    directory, _ = chain()
    server, port, log = serve(directory, '--timeout', '2')
    with server:
        s = socket.create_connection(('127.0.0.1', port), timeout=10, source_address=('127.3.0.1', 0))
        key = os.urandom(64)
        started = time.time()
        closed_at = None
        for b in key:
            try:
                s.sendall(bytes([b]))
            except OSError:
                closed_at = time.time()
                break
            polite_handshake(port) if b == key[0] else None
            if is_closed(s, 1.0):
                closed_at = time.time()
                break
        assert closed_at is not None and closed_at - started < 5, 'a dripped handshake lived past its deadline'
        status, text = stop(server, log)
    # (its connection's deadline, or serve's own for the whole handshake, whichever came first)
    assert ('the handshake did not end within the handshake timeout' in text
            or 'its handshake was not done within the handshake timeout' in text), text
    assert 'within the idle timeout' not in text, text


def scenario_fetch_from_pruned_serve():
    """serve of a pruned directory (NODE_NETWORK_LIMITED): a fetch from genesis gets the blocks it needs refused
    (notfound) and says the peer is pruned, without telling the user to run it again (a rerun gets the same); exit 2."""
    directory = os.path.join(work, 'pruned')
    subprocess.run([make_chain, directory, '700', '--file-size', '20000'], check=True, capture_output=True)
    pruned = run('prune', directory)
    assert pruned.returncode == 0, pruned.stderr
    server, port, log = serve(directory)
    with server:
        target = os.path.join(work, 'fetched')
        for _ in range(2):
            r = fetch(port, target)
            assert r.returncode == 2, r.stderr
            assert 'pruned node (NODE_NETWORK_LIMITED' in r.stderr, r.stderr
            assert 'run fetch again' not in r.stderr, r.stderr
        stop(server, log)


# --- a server whose directory is pruned while it runs --------------------------------------------------------------

def prunable():
    """A directory of small blk files (700 blocks, 20 kB files) and the hashes of its chain, in order."""
    directory = os.path.join(work, 'prunable')
    subprocess.run([make_chain, directory, '700', '--undo', '--file-size', '20000', '--hex', directory + '.hex'], check=True,
                   capture_output=True)
    hashes = [b2lx(CBlock.deserialize(b).GetHash()) for b in scenarios.read_chain(directory + '.hex')]
    return directory, hashes


def get(port, path):
    c = http.client.HTTPConnection('127.0.0.1', port, timeout=10)
    c.request('GET', path)
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, body


def start_rest(directory, *extra):
    p = peers.Process([blockwire, 'rest', directory, '--listen', '127.0.0.1:0', *extra], env=env)
    line = p.proc.stdout.readline()
    assert 'listening on' in line, line + p.stop()[2]
    return p, int(line.strip().rsplit(':', 1)[1])


def scenario_rest_pruned_while_running():
    """rest serves a directory, then blockwire prune prunes it: within a few seconds /rest/block of a pruned block is
    404 "pruned data" (not 500), /rest/chaininfo says pruned with the prune height, as a fresh start answers."""
    directory, hashes = prunable()
    server, port = start_rest(directory)
    with server:
        assert get(port, f'/rest/block/{hashes[5]}.json')[0] == 200
        pruned = run('prune', directory)
        assert pruned.returncode == 0, pruned.stderr
        deadline = time.time() + 5
        while time.time() < deadline:
            status, body = get(port, '/rest/chaininfo.json')
            if json.loads(body).get('pruned'):
                break
            time.sleep(0.1)
        info = json.loads(body)
        live = {k: info[k] for k in ('pruned', 'pruneheight', 'blocks', 'bestblockhash')}
        status, body = get(port, f'/rest/block/{hashes[5]}.json')
        server.stop()
    fresh, port = start_rest(directory)
    with fresh:
        info = json.loads(get(port, '/rest/chaininfo.json')[1])
        fresh_status, fresh_body = get(port, f'/rest/block/{hashes[5]}.json')
        fresh.stop()
    assert live == {k: info[k] for k in live} and live['pruned'] is True and live['pruneheight'] > 5, (live, info)
    assert (status, body) == (fresh_status, fresh_body) and status == 404 and b'pruned' in body.lower(), (status, body)


def scenario_serve_pruned_while_running():
    """serve's directory pruned while it runs: a block below the new prune height gets notfound (not a dropped
    peer), and serve announces NODE_NETWORK_LIMITED to the next peer, as a fresh start does."""
    directory, hashes = prunable()
    server, port, log = serve(directory)
    with server:
        pruned = run('prune', directory)
        assert pruned.returncode == 0, pruned.stderr
        time.sleep(2.5)  # two refreshes
        s = socket.create_connection(('127.0.0.1', port), timeout=10)
        wire = peers.Wire(s)
        theirs = peers.handshake(wire)
        assert theirs.nServices & 1024 and not theirs.nServices & 1, hex(theirs.nServices)
        inv = peers.CInv()
        inv.type, inv.hash = peers.MSG_WITNESS_BLOCK, bytes.fromhex(hashes[5])[::-1]
        from bitcoin.messages import msg_getdata
        ask = msg_getdata()
        ask.inv = [inv]
        wire.send(ask)
        while True:
            command, _ = wire.receive()
            assert command is not None, 'dropped for asking a pruned block'
            if command == b'notfound':
                break
        s.close()
        status, text = stop(server, log)
    assert status == 0, text


# --- rest under silent connections, and HTTP's Host rule -----------------------------------------------------------

def scenario_rest_silent_connections():
    """4 addresses x 50 connections that never send a byte, reopened as they close, against --max-connections 200:
    a polite client from 127.0.0.1 is answered within a second each time (a connection that sent nothing is idle, and
    the oldest of the most crowded address goes first)."""
    directory, _ = chain()
    server, port = start_rest(directory, '--max-connections', '200', '--max-per-address', '50')
    with server:
        attack = Attack(port, [f'127.{40 + i // 50}.0.1' for i in range(200)], 'nothing')
        try:
            time.sleep(2)
            for _ in range(10):
                started = time.time()
                status, _ = get(port, '/rest/chaininfo.json')
                took = time.time() - started
                assert status == 200 and took < 1, (status, took)
        finally:
            attack.stop()
        assert attack.opened >= 200, attack.opened
        server.stop()


def raw_request(port, text):
    s = socket.create_connection(('127.0.0.1', port), timeout=10)
    s.sendall(text.encode())
    data = b''
    while True:
        more = s.recv(65536)
        if not more:
            break
        data += more
        if b'\r\n\r\n' in data and b'Connection: close' not in data and b'HTTP/1.0' not in data[:9]:
            break
    s.close()
    return int(data.split(b' ', 2)[1])


def scenario_rest_host_header():
    """RFC 9112 3.2: an HTTP/1.1 request without Host is 400, any with two Host lines is 400; HTTP/1.0 without Host is
    answered."""
    directory, _ = chain()
    server, port = start_rest(directory)
    with server:
        path = '/rest/chaininfo.json'
        assert raw_request(port, f'GET {path} HTTP/1.1\r\nConnection: close\r\n\r\n') == 400
        assert raw_request(port, f'GET {path} HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n') == 400
        assert raw_request(port, f'GET {path} HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n') == 400
        assert raw_request(port, f'GET {path} HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n') == 200
        assert raw_request(port, f'GET {path} HTTP/1.0\r\n\r\n') == 200
        server.stop()


scenarios.dispatch(scenario, globals())
