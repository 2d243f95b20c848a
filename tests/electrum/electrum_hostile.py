"""blockwire electrum from outside, one scenario a run:
  electrum_hostile.py BLOCKWIRE MAKE_CHAIN DATA_DIR WORK_DIR SCENARIO
Blocks appended while it serves (fetch from serve into its directory), and clients that break the protocol or its
limits; each ends with a well-formed request answered. Every process is started here and stopped by its PID."""
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'support'))
import scenario as scenarios  # noqa: E402
import mempool_node  # noqa: E402 (beside this script)
import peers  # noqa: E402 (tests/net, through mempool_node)
from bitcoin.core import CBlock  # noqa: E402

blockwire, make_chain, data_dir, work, scenario = scenarios.arguments('blockwire', 'make_chain', 'data_dir', 'work', 'scenario')
core = os.path.join(data_dir, 'core-regtest')
# make_chain's coinbase script (P2WPKH of 0x66 bytes), by Electrum's scripthash (SHA-256, reversed).
COINBASE = hashlib.sha256(bytes([0, 20]) + bytes([0x66] * 20)).digest()[::-1].hex()


class Server:
    def __init__(self, directory, *extra):
        self.proc = subprocess.Popen([blockwire, 'electrum', directory, '--listen', '127.0.0.1:0', *extra], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=dict(os.environ, XDG_CACHE_HOME=os.path.join(work, 'cache')))
        line = self.proc.stdout.readline()
        assert line.startswith('listening on '), (line, self.proc.stderr.read())
        self.port = int(line.strip().rsplit(':', 1)[1])

    def __enter__(self):
        return self

    def __exit__(self, *rest):
        scenarios.stop(self.proc)

    def client(self, **kw):
        return Client(self.port, **kw)

    def alive(self):
        with self.client() as c:
            assert c.call('server.ping') is None


class Client:
    def __init__(self, port, source='127.0.0.1', timeout=20):
        self.sock = socket.create_connection(('127.0.0.1', port), timeout=timeout, source_address=(source, 0))
        self.file = self.sock.makefile('rb')
        self.next_id = 0
        self.notes = []

    def __enter__(self):
        return self

    def __exit__(self, *rest):
        self.sock.close()

    def send(self, data):
        self.sock.sendall(data)

    def line(self):
        return json.loads(self.file.readline())

    def call(self, method, *params):
        self.next_id += 1
        self.send(json.dumps({'jsonrpc': '2.0', 'id': self.next_id, 'method': method, 'params': list(params)}).encode() + b'\n')
        while True:
            answer = self.line()
            if 'method' in answer:  # (a notification on the way)
                self.notes.append(answer)
                continue
            assert answer['id'] == self.next_id, answer
            assert 'error' not in answer, answer
            return answer['result']

    def error(self, method, *params):
        """The error a request is answered with (an answer with a result fails)."""
        self.next_id += 1
        self.send(json.dumps({'jsonrpc': '2.0', 'id': self.next_id, 'method': method, 'params': list(params)}).encode() + b'\n')
        while True:
            answer = self.line()
            if 'method' in answer:
                self.notes.append(answer)
                continue
            assert answer['id'] == self.next_id and 'error' in answer, answer
            return answer['error']

    def notification(self, method, seconds):
        deadline = time.time() + seconds
        while time.time() < deadline:
            for i, note in enumerate(self.notes):
                if note['method'] == method:
                    return self.notes.pop(i)
            self.sock.settimeout(max(0.1, deadline - time.time()))
            try:
                self.notes.append(self.line())
            except (socket.timeout, TimeoutError):
                break
        raise AssertionError(f'no {method} within {seconds} s; got {self.notes}')


def fetching_from_serve(blocks):
    """A chain of `blocks` served by blockwire serve, and the fetch command that copies it into WORK/target
    (scenarios.fetching_from_serve)."""
    return scenarios.fetching_from_serve(blockwire, make_chain, work, blocks, '--undo')


def status_of(history):
    """The protocol's status of a history, computed here."""
    return hashlib.sha256(''.join(f'{h["tx_hash"]}:{h["height"]}:' for h in history).encode()).hexdigest() if history else None


def scenario_notifications():
    """Blocks appended while clients are subscribed: each is told the new tip's header (within seconds) and the new
    status of a scripthash whose history grew, and that status is the one its new history makes; a scripthash that did
    not change is not notified."""
    with fetching_from_serve(120) as (fetch, target):
        subprocess.run(fetch + ['--max-blocks', '60'], check=True, capture_output=True)
        with Server(target, '--network', 'regtest') as s, s.client() as c:
            c.call('server.version', 'test', '1.4')
            tip = c.call('blockchain.headers.subscribe')
            assert 50 < tip['height'] < 120, tip
            old = c.call('blockchain.scripthash.subscribe', COINBASE)
            assert old == status_of(c.call('blockchain.scripthash.get_history', COINBASE))
            untouched = hashlib.sha256(b'\x51\x20' + bytes(32)).digest()[::-1].hex()
            assert c.call('blockchain.scripthash.subscribe', untouched) is None
            subprocess.run(fetch, check=True, capture_output=True)
            deadline = time.time() + 20
            while True:
                header = c.notification('blockchain.headers.subscribe', deadline - time.time())['params'][0]
                if header['height'] == 120:
                    break
            assert header['hex'] == c.call('blockchain.block.header', 120), header
            note = c.notification('blockchain.scripthash.subscribe', 10)['params']
            history = c.call('blockchain.scripthash.get_history', COINBASE)
            assert note == [COINBASE, status_of(history)] and note[1] != old, (note, old)
            assert history[-1]['height'] > tip['height'] and len(history) >= 120, history[-3:]
            assert not [n for n in c.notes if n['params'][0] == untouched], c.notes


def scripthash(script):
    return hashlib.sha256(script).digest()[::-1].hex()


def wait_for(condition, seconds, what):
    deadline = time.time() + seconds
    while not condition():
        assert time.time() < deadline, what
        time.sleep(0.05)


def chain_with_node(blocks):
    """make_chain's coinbase-only chain of `blocks` (every coinbase unspent), a MempoolNode serving it, and fetch's
    copy of it in WORK/target (rev files written by fetch): (node, target, fetch command)."""
    source = scenarios.make_chain(make_chain, work, 'source', blocks, '--coinbase-only', '--undo', blocks=False)
    node = mempool_node.MempoolNode(peers.records(source))
    node.start()
    target = os.path.join(work, 'target')
    fetch = [blockwire, 'fetch', f'127.0.0.1:{node.port}', '-o', target, '--network', 'regtest', '--no-progress']
    subprocess.run(fetch, check=True, capture_output=True, timeout=120)
    return node, target, fetch


def coinbase_coin(node, height):
    """(txid, index, value) of the coinbase output of the node's block at `height`."""
    cb = CBlock.deserialize(node.blocks[height]).vtx[0]
    return cb.GetTxid(), 0, cb.vout[0].nValue


def scenario_mempool():
    """blockwire electrum --peer a node: a transaction the node announces is in the histories of the scripts it funds
    and spends from at height 0 with its fee (-1 for one spending it), in balances as unconfirmed, in listunspent
    (and what it spends out of it), in the fee histogram and transaction.get, each subscriber told with the status its
    new history makes; a double spend announced later replaces it and its child; once a block with it is fetched it is
    confirmed (its block's height, no fee, out of get_mempool)."""
    node, target, fetch = chain_with_node(110)
    with Server(target, '--peer', f'127.0.0.1:{node.port}') as s, s.client() as c:
        wait_for(lambda: node.relaying, 20, 'the server never connected to the node for its mempool')
        pay, child_script, other = bytes([0, 20]) + bytes([0x11] * 20), bytes([0, 20]) + bytes([0x22] * 20), bytes([0x51, 0x20]) + bytes(32)
        PAY, CHILD, OTHER = scripthash(pay), scripthash(child_script), scripthash(other)
        c.call('server.version', 'test', '1.4')
        assert 'mempool' in c.call('server.banner')
        for h in (PAY, CHILD, OTHER, COINBASE):
            c.call('blockchain.scripthash.subscribe', h)
        assert c.call('blockchain.scripthash.get_mempool', PAY) == []
        txid, n, value = coinbase_coin(node, 1)
        t1 = mempool_node.spend([(txid, n)], [(pay, value - 1_000)])  # a fee of 1,000
        node.announce(t1)
        note = c.notification('blockchain.scripthash.subscribe', 20)['params']
        while note[0] != PAY:
            note = c.notification('blockchain.scripthash.subscribe', 20)['params']
        t1_id = t1.GetTxid()[::-1].hex()
        history = c.call('blockchain.scripthash.get_history', PAY)
        assert history == [{'height': 0, 'tx_hash': t1_id, 'fee': 1_000}], history
        assert note[1] == status_of(history), (note, history)
        assert c.call('blockchain.scripthash.get_mempool', PAY) == history
        assert c.call('blockchain.scripthash.get_balance', PAY) == {'confirmed': 0, 'unconfirmed': value - 1_000}
        assert c.call('blockchain.scripthash.listunspent', PAY) == [{'tx_pos': 0, 'value': value - 1_000, 'tx_hash': t1_id,
                                                                     'height': 0}]
        spent_from = c.call('blockchain.scripthash.get_history', COINBASE)
        assert spent_from[-1] == {'height': 0, 'tx_hash': t1_id, 'fee': 1_000}, spent_from[-2:]
        assert c.call('blockchain.scripthash.get_balance', COINBASE)['unconfirmed'] == -value
        assert [u for u in c.call('blockchain.scripthash.listunspent', COINBASE) if u['tx_hash'] == txid[::-1].hex()] == []
        assert c.call('blockchain.transaction.get', t1_id) == t1.serialize().hex()
        assert c.call('blockchain.transaction.get', t1_id, True)['txid'] == t1_id
        # A child: its coin unconfirmed, height -1.
        t2 = mempool_node.spend([(t1.GetTxid(), 0)], [(child_script, value - 3_000)])
        node.announce(t2)
        wait_for(lambda: c.call('blockchain.scripthash.get_history', CHILD), 20, 'the child never came')
        assert c.call('blockchain.scripthash.get_history', CHILD) == [{'height': -1, 'tx_hash': t2.GetTxid()[::-1].hex(),
                                                                       'fee': 2_000}]
        assert c.call('blockchain.scripthash.listunspent', PAY) == []  # (spent by the child)
        assert c.call('mempool.get_fee_histogram') == []  # (under a bin's 30,000 vbytes, as ElectrumX and Fulcrum show it)
        assert c.call('blockchain.relayfee') == 250 / 1e8  # (the node's feefilter, sat/kvB, in BTC/kvB)
        assert c.call('blockchain.estimatefee', 2) == 250 / 1e8  # (all fits in the next blocks: the relay fee)
        # A double spend of the coinbase coin, announced later: it replaces t1 and t1's child.
        c.notes.clear()
        t3 = mempool_node.spend([(txid, n)], [(other, value - 5_000)])
        node.announce(t3)
        # (the mempool's changes are told once a second: the child's may have come and gone within one, untold)
        told = {}
        deadline = time.time() + 20
        while not told.keys() >= {PAY, OTHER} and time.time() < deadline:
            script, status = c.notification('blockchain.scripthash.subscribe', deadline - time.time())['params']
            told[script] = status
        assert c.call('blockchain.scripthash.get_history', PAY) == []
        assert c.call('blockchain.scripthash.get_history', CHILD) == []
        for script in (PAY, CHILD, OTHER):
            if script in told:
                assert told[script] == status_of(c.call('blockchain.scripthash.get_history', script)), (script, told)
        assert told[PAY] is None, told
        assert c.call('blockchain.scripthash.get_balance', PAY) == {'confirmed': 0, 'unconfirmed': 0}
        t3_id = t3.GetTxid()[::-1].hex()
        assert c.call('blockchain.scripthash.get_history', OTHER) == [{'height': 0, 'tx_hash': t3_id, 'fee': 5_000}]
        # Mined: fetched into the directory, confirmed at its block's height.
        height = node.mine([t3])
        subprocess.run(fetch, check=True, capture_output=True, timeout=120)
        wait_for(lambda: c.call('blockchain.scripthash.get_history', OTHER) == [{'height': height, 'tx_hash': t3_id}], 20,
                 'the mined transaction never confirmed')
        assert c.call('blockchain.scripthash.get_mempool', OTHER) == []
        assert c.call('blockchain.scripthash.get_balance', OTHER) == {'confirmed': value - 5_000, 'unconfirmed': 0}
        assert c.call('mempool.get_fee_histogram') == []
        assert c.call('blockchain.transaction.get_merkle', t3_id, height)['pos'] == 1
        assert not node.errors, node.errors
    node.stop()


def scenario_broadcast():
    """blockchain.transaction.broadcast through --peer: the node gets the transaction on a connection of its own and
    the answer is its txid once the node announced it (then in get_mempool); a node's BIP61 reject is the error's
    text; a node that stays silent is an error after --broadcast-timeout; not hex or not a transaction, an error;
    without --peer, an error that names it."""
    node, target, _ = chain_with_node(105)
    pay = bytes([0, 20]) + bytes([0x33] * 20)
    with Server(target, '--peer', f'127.0.0.1:{node.port}', '--broadcast-timeout', '2') as s, s.client() as c:
        wait_for(lambda: node.relaying, 20, 'the server never connected to the node for its mempool')
        txid, n, value = coinbase_coin(node, 2)
        tx = mempool_node.spend([(txid, n)], [(pay, value - 2_000)])
        assert c.call('blockchain.transaction.broadcast', tx.serialize().hex()) == tx.GetTxid()[::-1].hex()
        assert tx.GetTxid() in node.received
        assert c.call('blockchain.scripthash.get_mempool', scripthash(pay))[0]['tx_hash'] == tx.GetTxid()[::-1].hex()
        assert c.call('blockchain.transaction.broadcast', tx.serialize().hex()) == tx.GetTxid()[::-1].hex()  # (known)
        node.policy = 'reject'
        txid, n, value = coinbase_coin(node, 3)
        rejected = mempool_node.spend([(txid, n)], [(pay, value - 1)])
        e = c.error('blockchain.transaction.broadcast', rejected.serialize().hex())
        assert 'insufficient fee' in e['message'], e
        node.policy = 'silent'
        started = time.time()
        e = c.error('blockchain.transaction.broadcast', mempool_node.spend([(txid, n)], [(pay, value - 500)]).serialize().hex())
        assert 'did not announce it within 2 s' in e['message'] and time.time() - started < 10, e
        assert 'not hex' in c.error('blockchain.transaction.broadcast', 'zz')['message']
        assert 'not a transaction' in c.error('blockchain.transaction.broadcast', '0100')['message']
        s.alive()
        assert not node.errors, node.errors
    node.stop()
    with Server(target) as s, s.client() as c:
        e = c.error('blockchain.transaction.broadcast', tx.serialize().hex())
        assert '--peer' in e['message'], e
        assert 'no mempool' in c.call('server.banner')


def scenario_limits():
    """A line past --max-line's 4 MiB without its end: an error, then closed. A batch of 20,001: refused. A client that
    asks for headers again and again and reads nothing: cut off past 32 MiB unsent, while another client is answered.
    Connections past --max-per-address from one address: closed at once, another address served."""
    directory = os.path.join(work, 'blocks')
    shutil.copytree(os.path.join(core, 'blocks'), directory)
    with Server(directory, '--max-per-address', '8') as s:
        with s.client() as c:
            c.send(b'[' * (5 << 20))
            answer = c.line()
            assert answer['error']['code'] == -32600 and 'longer than' in answer['error']['message'], answer
            assert c.file.readline() == b''  # (closed after it)
        with s.client() as c:
            c.send(json.dumps([{'id': i, 'method': 'server.ping'} for i in range(20_001)]).encode() + b'\n')
            assert c.line()['error']['code'] == -32600
        hog = Client(s.port, source='127.3.0.2')
        hog.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        request = json.dumps({'id': 1, 'method': 'blockchain.block.headers', 'params': [0, 2016]}).encode() + b'\n'
        sent, cut = 0, False
        hog.sock.settimeout(5)
        try:
            for _ in range(2000):  # (each answer 38 kB: 76 MB asked for)
                hog.send(request * 10)
                sent += 10
        except (BrokenPipeError, ConnectionResetError, socket.timeout, TimeoutError):
            cut = True
        started = time.time()
        s.alive()
        assert time.time() - started < 2
        if not cut:  # (the kernel's buffers took it all: the server's side must have closed)
            hog.sock.settimeout(10)
            try:
                while hog.sock.recv(1 << 20):
                    pass
            except (ConnectionResetError, socket.timeout, TimeoutError):
                pass
        hog.sock.close()
        many = [Client(s.port, source='127.3.0.3') for _ in range(12)]
        closed = 0
        for m in many:
            m.sock.settimeout(2)
            try:
                m.send(b'{"id":1,"method":"server.ping"}\n')
                closed += m.file.readline() == b''
            except (ConnectionResetError, BrokenPipeError, socket.timeout, TimeoutError):
                closed += 1
            m.sock.close()
        assert closed == 4, closed  # (12 from one address, 8 let in)
        s.alive()


def scenario_stop():
    """SIGTERM with 200 connections open, some subscribed: the server exits within a second, status 0."""
    directory = os.path.join(work, 'blocks')
    shutil.copytree(os.path.join(core, 'blocks'), directory)
    with Server(directory, '--max-per-address', '1000') as s:
        clients = [s.client() for _ in range(200)]
        for c in clients[:20]:
            c.call('blockchain.headers.subscribe')
        started = time.time()
        s.proc.send_signal(signal.SIGTERM)
        assert s.proc.wait(timeout=5) == 0
        took = time.time() - started
        assert took < 1, took
        for c in clients:
            c.sock.close()


def scenario_tls():
    """--tls-listen with a self-signed certificate (openssl req): a TLS client that checks the certificate is answered
    as a plain one is, on its own port, the plain port still plain; a client that sends no handshake, or plain JSON to
    the TLS port, is closed and serving goes on; a key that does not load is refused at start, naming the file."""
    import ssl
    directory = os.path.join(work, 'blocks')
    shutil.copytree(os.path.join(core, 'blocks'), directory)
    cert, key = os.path.join(work, 'cert.pem'), os.path.join(work, 'key.pem')
    subprocess.run(['openssl', 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=localhost',
                    '-addext', 'subjectAltName=IP:127.0.0.1'], check=True, capture_output=True)
    with Server(directory, '--tls-listen', '127.0.0.1:0', '--tls-cert', cert, '--tls-key', key) as s:
        line = s.proc.stdout.readline()
        assert line.startswith('listening with TLS on '), line
        tls_port = int(line.strip().rsplit(':', 1)[1])
        context = ssl.create_default_context(cafile=cert)
        with socket.create_connection(('127.0.0.1', tls_port), timeout=20) as raw, context.wrap_socket(raw, server_hostname='127.0.0.1') as tls:
            f = tls.makefile('rwb')
            f.write(b'{"jsonrpc":"2.0","id":1,"method":"server.version","params":["t","1.4"]}\n'
                    b'{"jsonrpc":"2.0","id":2,"method":"blockchain.headers.subscribe","params":[]}\n')
            f.flush()
            assert json.loads(f.readline())['result'][1] == '1.4'
            assert json.loads(f.readline())['result']['height'] == 237
        s.alive()  # (the plain port)
        with socket.create_connection(('127.0.0.1', tls_port), timeout=20) as raw:
            raw.sendall(b'{"jsonrpc":"2.0","id":1,"method":"server.ping"}\n')
            raw.settimeout(20)  # (a TLS alert or nothing, then closed: a timeout here fails)
            try:
                while raw.recv(4096):
                    pass
            except ConnectionResetError:
                pass
        idle = socket.create_connection(('127.0.0.1', tls_port), timeout=20)  # (no handshake: closed within 10 s)
        idle.settimeout(15)
        started = time.time()
        try:
            assert idle.recv(1) == b''
        except ConnectionResetError:
            pass
        assert time.time() - started < 14
        idle.close()
        s.alive()
    bad = subprocess.run([blockwire, 'electrum', directory, '--listen', '127.0.0.1:0', '--tls-listen', '127.0.0.1:0', '--tls-cert', cert,
                          '--tls-key', cert], capture_output=True, text=True, timeout=60, env=dict(os.environ, XDG_CACHE_HOME=os.path.join(work, 'cache')))
    assert bad.returncode == 2 and 'TLS key' in bad.stderr and cert in bad.stderr, (bad.returncode, bad.stderr)


scenarios.dispatch(scenario, globals())
