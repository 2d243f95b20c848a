"""blockwire rest under hostile requests, one scenario a run:
  rest_hostile.py BLOCKWIRE MAKE_CHAIN DATA_DIR WORK_DIR SCENARIO
Each ends with a well-formed request answered as Core answers it: nothing
a client sends stops the serving. The server is started here and stopped by
its PID whatever happens."""
import hashlib
import http.client
import json
import os
import resource
import select
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'support'))
import scenario as scenarios  # noqa: E402

blockwire, make_chain, data_dir, work, scenario = scenarios.arguments('blockwire', 'make_chain', 'data_dir', 'work', 'scenario')
core = os.path.join(data_dir, 'core-regtest')
TIP = '066c550b69c6c4352a1e90e7413daabdf9b29da0b85ca7dd6d796f24d299b618'


class Server:
    """blockwire rest on a copy of Core's directory, on a free port."""

    def __init__(self, directory, *extra):
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(work, 'cache'))
        self.proc = subprocess.Popen([blockwire, 'rest', directory, '--listen', '127.0.0.1:0', *extra], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=env)
        line = self.proc.stdout.readline()
        assert line.startswith('listening on '), (line, self.proc.stderr.read())
        self.port = int(line.strip().rsplit(':', 1)[1])

    def get(self, path, timeout=10):
        c = http.client.HTTPConnection('127.0.0.1', self.port, timeout=timeout)
        c.request('GET', path)
        r = c.getresponse()
        body = r.read()
        c.close()
        return r.status, body

    def rss_mib(self):
        for line in open(f'/proc/{self.proc.pid}/status'):
            if line.startswith('VmRSS:'):
                return int(line.split()[1]) / 1024
        return 0

    def alive(self):
        status, body = self.get(f'/rest/blockhashbyheight/237.hex')
        assert status == 200 and body == (TIP + '\n').encode(), (status, body)

    def __enter__(self):
        return self

    def __exit__(self, *rest):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def core_copy():
    directory = os.path.join(work, 'blocks')
    shutil.copytree(os.path.join(core, 'blocks'), directory)
    return directory


def scenario_bad_requests():
    """Long paths, huge counts, bad hex, garbage instead of HTTP: a 4xx each (Core's text where Core has one)."""
    with Server(core_copy()) as s:
        status, _ = s.get('/rest/block/' + 'a' * 100_000 + '.json')
        assert status == 414, status  # the request line past its bound (RFC 9112)
        for path, want in [
            (f'/rest/headers/{TIP}.json?count=99999999999999999999999', b'Header count is invalid or out of acceptable range (1-2000): 99999999999999999999999\r\n'),
            (f'/rest/headers/{TIP}.json?count=%32%30%30%31', b'Header count is invalid or out of acceptable range (1-2000): 2001\r\n'),
            ('/rest/block/' + 'g' * 64 + '.bin', b'Invalid hash: ' + b'g' * 64 + b'\r\n'),
            (f'/rest/blockpart/{TIP}.bin?offset=18446744073709551615&size=2', f'Bad block part offset/size 18446744073709551615/2 for {TIP}\r\n'.encode()),
            ('/rest/getutxos/' + '/'.join([f'{TIP}-{i}' for i in range(16)]) + '.json', b'Error: max outpoints exceeded (max: 15, tried: 16)\r\n'),
        ]:
            status, body = s.get(path)
            assert status == 400 and body == want, (path[:80], status, body)
        # Not HTTP at all: the connection is closed (a 400 first), and the next client is served.
        with socket.create_connection(('127.0.0.1', s.port), timeout=10) as raw:
            raw.sendall(b'\x16\x03\x01\x02\x00' + os.urandom(200) + b'\r\n\r\n')
            answer = raw.recv(4096)
            assert answer == b'' or answer.startswith(b'HTTP/1.1 400'), answer[:40]
        s.alive()


def scenario_idle_connections():
    """10,000 connections opened and left idle from one address (its cap raised: what a server holds, not what
    it lets one address hold, is measured here): each holds a descriptor and little memory (the RSS is said and
    bounded), none stops a new client from being answered at once; with --timeout 2 they are closed after it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 10_000
    if hard < wanted + 100:
        wanted = hard - 100
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    with Server(core_copy(), '--timeout', '2', '--max-per-address', str(wanted + 100)) as s:
        before = s.rss_mib()
        sockets = []
        for _ in range(wanted):
            sockets.append(socket.create_connection(('127.0.0.1', s.port), timeout=10, source_address=(ATTACKER, 0)))
        time.sleep(0.5)
        during = s.rss_mib()
        started = time.time()
        s.alive()
        took = time.time() - started
        assert took < 2, took
        assert during - before < 256, (before, during)
        print(f'{wanted} idle connections: resident {before:.0f} MiB -> {during:.0f} MiB; a new request answered in {took * 1000:.0f} ms')
        time.sleep(3)  # past --timeout: every idle connection closed by the server
        closed = 0
        for sock in sockets:
            sock.settimeout(0.01)
            try:
                closed += sock.recv(1) == b''
            except (socket.timeout, ConnectionResetError):
                pass
            sock.close()
        assert closed > wanted * 0.99, (closed, wanted)
        s.alive()


def scenario_slow_headers():
    """A client that sends its request a byte a second (slowloris) is cut off at --timeout, and others are served meanwhile."""
    with Server(core_copy(), '--timeout', '2') as s:
        raw = socket.create_connection(('127.0.0.1', s.port), timeout=10)
        started = time.time()
        cut = None
        for byte in b'GET /rest/chaininfo.json HTTP/1.1\r\nHost: x\r\n\r\n':
            try:
                raw.sendall(bytes([byte]))
            except (BrokenPipeError, ConnectionResetError):
                cut = time.time() - started
                break
            s.alive()
            time.sleep(0.5)
            raw.settimeout(0.01)
            try:
                if raw.recv(1) == b'':
                    cut = time.time() - started
                    break
            except socket.timeout:
                pass
        raw.close()
        assert cut is not None and cut < 5, cut
        s.alive()


def fetching_from_serve(blocks):
    """A chain of `blocks` served by blockwire serve, and the fetch command that copies it into WORK/target
    (scenarios.fetching_from_serve)."""
    return scenarios.fetching_from_serve(blockwire, make_chain, work, blocks)


def scenario_live_directory():
    """Blocks appended while rest serves (fetch from serve into its directory): the tip is read within a second,
    and every answer meanwhile is whole."""
    with fetching_from_serve(300) as (fetch, target):
        subprocess.run(fetch + ['--max-blocks', '100'], check=True, capture_output=True)
        with Server(target, '--network', 'regtest') as s:
            status, body = s.get('/rest/chaininfo.json')
            assert status == 200 and json.loads(body)['blocks'] == 99, body
            appending = subprocess.Popen(fetch, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            heights = []
            while appending.poll() is None:
                status, body = s.get('/rest/chaininfo.json')
                assert status == 200, (status, body)
                heights.append(json.loads(body)['blocks'])
            assert appending.returncode == 0
            deadline = time.time() + 5
            while json.loads(s.get('/rest/chaininfo.json')[1])['blocks'] != 300 and time.time() < deadline:
                time.sleep(0.1)
            status, body = s.get('/rest/chaininfo.json')
            assert json.loads(body)['blocks'] == 300, body
            assert heights == sorted(heights), heights
            status, body = s.get('/rest/blockhashbyheight/300.json')
            assert status == 200, (status, body)


def scenario_live_addresses():
    """rest --addresses while blocks are appended (fetch from serve into its directory): the address index follows
    within seconds, and a script's totals and transactions at the end are what the blocks' JSON (/rest/block, Core's
    shape with prevouts) says of it."""
    with fetching_from_serve(200) as (fetch, target):
        subprocess.run(fetch + ['--max-blocks', '50'], check=True, capture_output=True)
        with Server(target, '--network', 'regtest', '--addresses') as s:
            subprocess.run(fetch, check=True, capture_output=True)
            deadline = time.time() + 10
            while json.loads(s.get('/rest/chaininfo.json')[1])['blocks'] != 200 and time.time() < deadline:
                time.sleep(0.1)
            # Every script of the chain, from the blocks' JSON: its transactions, funded and spent sums.
            want = {}
            for height in range(201):
                h = json.loads(s.get(f'/rest/blockhashbyheight/{height}.json')[1])['blockhash']
                for tx in json.loads(s.get(f'/rest/block/{h}.json')[1])['tx']:
                    touched = set()
                    def add(script_pubkey, value, spent):
                        if script_pubkey['type'] == 'nulldata':
                            return
                        sh = hashlib.sha256(bytes.fromhex(script_pubkey['hex'])).hexdigest()
                        t = want.setdefault(sh, {'tx_count': 0, 'funded_txo_sum': 0, 'spent_txo_sum': 0})
                        if sh not in touched:
                            touched.add(sh)
                            t['tx_count'] += 1
                        t['spent_txo_sum' if spent else 'funded_txo_sum'] += round(value * 1e8)
                    for vin in tx['vin']:
                        if 'prevout' in vin:
                            add(vin['prevout']['scriptPubKey'], vin['prevout']['value'], True)
                    for vout in tx['vout']:
                        add(vout['scriptPubKey'], vout['value'], False)
            assert len(want) >= 3 and max(t['tx_count'] for t in want.values()) > 50, want
            got = {}
            while time.time() < deadline:
                got = {sh: json.loads(s.get(f'/api/scripthash/{sh}')[1])['chain_stats'] for sh in want}
                if all(got[sh]['tx_count'] == want[sh]['tx_count'] for sh in want):
                    break
                time.sleep(0.2)
            for sh, t in want.items():
                assert {k: got[sh][k] for k in t} == t, (sh, got[sh], t)


def scenario_busy_address():
    """An address with over 100,000 transactions (make_chain --one-payer: every copied transaction spends from one
    script): its totals are those of the blocks' JSON (Core's shape, prevouts from the rev files); its pages, walked
    to the end by /txs/chain/LAST_SEEN while other clients ask for pages at random points, list exactly the blocks'
    transactions, newest first, 25 a page; past the end, an unknown or malformed last seen and a huge query, a
    well-formed answer; the server's memory bounded."""
    directory = scenarios.make_chain(make_chain, work, 'busy', 80, '--undo', '--one-payer', '--fill',
                                     os.path.join(data_dir, 'block413567.raw'), blocks=False)
    payer = hashlib.sha256(bytes([0, 20]) + bytes([0x77] * 20)).hexdigest()  # (make_chain --one-payer's script)
    with Server(directory, '--network', 'regtest', '--addresses') as s:
        txids, funded, spent = [], 0, 0
        for height in range(81):
            h = json.loads(s.get(f'/rest/blockhashbyheight/{height}.json')[1])['blockhash']
            for tx in json.loads(s.get(f'/rest/block/{h}.json', timeout=60)[1])['tx']:
                ins = [round(v['prevout']['value'] * 1e8) for v in tx['vin']
                       if 'prevout' in v and hashlib.sha256(bytes.fromhex(v['prevout']['scriptPubKey']['hex'])).hexdigest() == payer]
                outs = [round(v['value'] * 1e8) for v in tx['vout'] if hashlib.sha256(bytes.fromhex(v['scriptPubKey']['hex'])).hexdigest() == payer]
                if ins or outs:
                    txids.append(tx['txid'])
                    spent, funded = spent + sum(ins), funded + sum(outs)
        assert len(txids) >= 100_000, len(txids)
        status, body = s.get(f'/api/scripthash/{payer}')
        stats = json.loads(body)['chain_stats']
        assert status == 200 and stats['tx_count'] == len(txids) and stats['spent_txo_sum'] == spent and stats['funded_txo_sum'] == funded, stats
        newest_first = txids[::-1]

        wrong = []

        def pages_at_random_points(seed):
            import random
            rng = random.Random(seed)
            for _ in range(150):
                k = rng.randrange(len(newest_first))
                status, body = s.get(f'/api/scripthash/{payer}/txs/chain/{newest_first[k]}', timeout=30)
                got = [t['txid'] for t in json.loads(body)] if status == 200 else None
                if got != newest_first[k + 1:k + 26]:
                    wrong.append((k, status, body[:200]))

        others = [threading.Thread(target=pages_at_random_points, args=(seed,)) for seed in range(2)]
        for t in others:
            t.start()
        try:
            walked, path, peak = [], f'/api/scripthash/{payer}/txs', 0
            while True:
                status, body = s.get(path, timeout=30)
                page = [t['txid'] for t in json.loads(body)]
                assert status == 200 and len(page) <= 25, (path, status, len(page))
                if not page:
                    break
                walked += page
                path = f'/api/scripthash/{payer}/txs/chain/{page[-1]}'
                if len(walked) % 10_000 < 25:
                    peak = max(peak, s.rss_mib())
        finally:
            for t in others:
                t.join()
        assert walked == newest_first, (len(walked), len(newest_first))
        assert not wrong, wrong[:3]
        assert peak < 256, f'{peak:.0f} MiB while paging'

        # The query form of mempool.space's client pages the same; past the end, unknown or malformed: well-formed.
        status, body = s.get(f'/api/scripthash/{payer}/txs?after_txid={newest_first[5000]}')
        assert status == 200 and [t['txid'] for t in json.loads(body)] == newest_first[5001:5026]
        for last, want in [(newest_first[-1], []), ('f' * 64, []), ('9' * 1000, newest_first[:25]), ('not-a-txid', newest_first[:25])]:
            status, body = s.get(f'/api/scripthash/{payer}/txs/chain/{last}', timeout=30)
            assert status == 200 and [t['txid'] for t in json.loads(body)] == want, (last[:70], status, body[:200])
        status, _ = s.get(f'/api/scripthash/{payer}/txs/chain/' + '9' * 100_000)
        assert status == 414, status  # (the request line past its bound)
        status, body = s.get(f'/api/scripthash/{payer}/utxo')
        assert status == 200 or (status == 400 and b'Too many unspent' in body), (status, body[:200])
        status, body = s.get('/rest/chaininfo.json')
        assert status == 200 and json.loads(body)['blocks'] == 80, (status, body[:200])


# Raw connections: an attacker's from 127.3.0.2 (all of 127.0.0.0/8 is local on Linux), so that a limit by address
# can tell it from the polite client on 127.0.0.1.
ATTACKER = '127.3.0.2'
CHAININFO = b'GET /rest/chaininfo.json HTTP/1.1\r\nHost: x\r\n\r\n'


def request(method, target, *headers, body=b''):
    """A request's bytes: its line, Host, the headers given, a Content-Length for a body."""
    lines = [f'{method} {target} HTTP/1.1', 'Host: x', *headers] + ([f'Content-Length: {len(body)}'] if body else [])
    return ('\r\n'.join(lines) + '\r\n\r\n').encode() + body


class Raw:
    """A connection from a given source address; answers read as they come, in order (a body the server sends
    where none belongs shows as the next answer's status line)."""

    def __init__(self, port, source='127.0.0.1', timeout=10, rcvbuf=None):
        self.sock = socket.socket()
        if rcvbuf:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)  # before connect: the window is set by it
        self.sock.settimeout(timeout)
        self.sock.bind((source, 0))
        self.sock.connect(('127.0.0.1', port))
        self.stream = self.sock.makefile('rb')

    def send(self, data):
        self.sock.sendall(data)

    def head(self):
        """The status and the headers (names in lower case) of the next answer."""
        line = self.stream.readline(65536)
        assert line.startswith(b'HTTP/1.1 '), ('not a status line', line[:80])
        headers = {}
        while (field := self.stream.readline(65536)) not in (b'\r\n', b'\n'):
            assert field, 'closed within the headers'
            name, _, value = field.decode('latin-1').partition(':')
            headers[name.strip().lower()] = value.strip()
        return int(line.split()[1]), headers

    def answer(self):
        """The next answer: status, headers and its Content-Length body."""
        status, headers = self.head()
        assert 'content-length' in headers, (status, headers)
        length = int(headers['content-length'])
        body = self.stream.read(length)
        assert len(body) == length, ('closed within the body', len(body), length)
        return status, headers, body

    def closed_within(self, seconds):
        """Whether the server closes the connection (an end or a reset) within seconds; an answer's bytes before
        are skipped, so a connection answered and held open is not closed."""
        deadline = time.time() + seconds
        try:
            while (left := deadline - time.time()) > 0:
                self.sock.settimeout(left)
                if self.sock.recv(65536) == b'':
                    return True
        except socket.timeout:
            pass
        except ConnectionResetError:
            return True
        return False

    def close(self):
        self.stream.close()
        self.sock.close()


def answered_in(s):
    """Seconds for the polite client's alive() check (from 127.0.0.1, on a new connection)."""
    started = time.time()
    s.alive()
    return time.time() - started


def scenario_per_address():
    """200 connections from one address, each with a request it never reads, against --max-per-address 20: those
    past 20 are closed at once, and a client from another address is answered within a second."""
    with Server(core_copy(), '--max-per-address', '20') as s:
        attackers = []
        try:
            for _ in range(200):
                attackers.append(Raw(s.port, ATTACKER))
                try:
                    attackers[-1].send(CHAININFO)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # already closed by the server: what the limit does
            took = answered_in(s)
            assert took < 1.0, took
            time.sleep(1)  # every connection accepted (and those past the limit closed) by now, by a wide margin
            held = sum(not raw.closed_within(0.2) for raw in attackers)
            assert held <= 20, held
            print(f'200 connections from {ATTACKER}: {held} held; another address answered in {took * 1000:.0f} ms')
        finally:
            for raw in attackers:
                raw.close()
        s.alive()


def scenario_evict_idle():
    """--max-connections 30, full of kept-alive connections each answered once and idle: a newcomer is answered
    within a second, the oldest idle connection closed to make room, the newest still served."""
    with Server(core_copy(), '--max-connections', '30', '--max-per-address', '100') as s:
        idle = []
        try:
            for _ in range(30):  # one after the other: the first is the oldest idle one
                idle.append(Raw(s.port, ATTACKER))
                idle[-1].send(CHAININFO)
                status, _, _ = idle[-1].answer()
                assert status == 200, status
            took = answered_in(s)
            assert took < 1.0, took
            # The oldest idle one closed: the first, or, on a loaded machine, one of the next (the server orders them
            # by when each answer's write completed, and a second connection's may complete before the first's).
            deadline, closed = time.time() + 5, []
            while not closed and time.time() < deadline:
                closed = [i for i, raw in enumerate(idle) if raw.closed_within(0.02)]
            assert len(closed) == 1 and closed[0] < 3, f'closed: {closed} (one of the oldest expected)'
            idle[-1].send(CHAININFO)
            status, _, _ = idle[-1].answer()
            assert status == 200, status
            print(f'30 idle connections of 30: a newcomer answered in {took * 1000:.0f} ms, the oldest closed')
        finally:
            for raw in idle:
                raw.close()


def big_chain(wide):
    """30 blocks of `wide` outputs a transaction (several hundred kB a block at 2000, about 1 MB at 6000), with
    undo data: answers of MBs. The directory is the blocks directory (blk, rev and xor.dat in it)."""
    directory = os.path.join(work, 'big')
    subprocess.run([make_chain, directory, '30', '--wide', str(wide), '--undo'], check=True, capture_output=True)
    return directory


def best_hash(s):
    status, body = s.get('/rest/chaininfo.json')
    assert status == 200, (status, body)
    return json.loads(body)['bestblockhash']


def slow_read(port, path, rate):
    """GET path with a 16 kB receive buffer and the body read a little at a time at about rate bytes a second:
    the server's write is held back by the reader all along. (status, body, seconds)."""
    raw = Raw(port, rcvbuf=16384)
    try:
        raw.send(request('GET', path))
        started = time.time()
        status, headers = raw.head()
        length = int(headers['content-length'])
        body = bytearray()
        while len(body) < length:
            chunk = raw.stream.read1(min(4096, length - len(body)))
            assert chunk, ('closed within the body', len(body), length, time.time() - started)
            body += chunk
            time.sleep(max(0.0, len(body) / rate - (time.time() - started)))
        return status, bytes(body), time.time() - started
    finally:
        raw.close()


def scenario_slow_reader():
    """With --timeout 2, a reader slow but steady gets a whole answer that takes far longer than 2 s to read: a
    write times out only when no byte moves. The block's .json (8.7 MB at 1 MB/s: more than the kernel's socket
    buffers take, about 4 MB on loopback, so the server's write itself lasts seconds; a smaller answer would sit
    whole in those buffers and prove nothing)."""
    with Server(big_chain(6000), '--timeout', '2') as s:
        tip = best_hash(s)
        status, json_body, took = slow_read(s.port, f'/rest/block/{tip}.json', 1_000_000)
        assert status == 200 and json_body == s.get(f'/rest/block/{tip}.json')[1], (status, len(json_body))
        assert took > 3, took
        print(f'{len(json_body)} bytes of JSON read in {took:.1f} s')


def head_then_get(s):
    """HEAD then GET on one connection: the HEAD answer has no body (a 200 saying the GET's length, or a 405 with
    Allow and no length), so the GET's answer is the next thing read."""
    raw = Raw(s.port)
    try:
        raw.send(request('HEAD', '/rest/chaininfo.json'))
        status, headers = raw.head()
        if status == 200:
            assert headers.get('content-length') == str(len(s.get('/rest/chaininfo.json')[1])), headers
        else:
            assert status == 405 and 'allow' in headers and headers.get('content-length', '0') == '0', (status, headers)
        raw.send(request('GET', '/rest/blockhashbyheight/237.hex'))
        status, _, body = raw.answer()
        assert status == 200 and body == (TIP + '\n').encode(), (status, body[:80])
    finally:
        raw.close()


def refused_and_closed(s, data, want):
    """The answer to data has status want, and the connection is closed after it."""
    raw = Raw(s.port)
    try:
        raw.send(data)
        status, _, _ = raw.answer()
        assert status == want, (data[:60], status, want)
        assert raw.closed_within(5), (data[:60], 'left open')
    finally:
        raw.close()


def expect_continue(s):
    """Expect: 100-continue with the headers sent alone: a 100 Continue, then the body, then a final answer."""
    body = b'\x00\x01' + bytes(36)  # BIP64's request: no mempool check, one outpoint (a zero one)
    raw = Raw(s.port, timeout=5)
    try:
        raw.send(request('POST', '/rest/getutxos/checkmempool.json', 'Expect: 100-continue', body=body)[:-len(body)])
        try:
            status, _ = raw.head()
        except socket.timeout:
            raise AssertionError('no 100 Continue within 5 s of the headers')
        assert status == 100, status
        raw.send(body)
        status, _, _ = raw.answer()
        assert status >= 200, status
    finally:
        raw.close()


def scenario_http_rules():
    """HTTP/1.1 as RFC 9112 has it: a HEAD answer without a body (the stream stays in step), a Transfer-Encoding
    not ending in chunked refused with 400 and the connection closed, a 9,000-byte target 414, a 100 Continue."""
    with Server(core_copy()) as s:
        head_then_get(s)
        for coding in ('xchunked', 'chunked, gzip'):
            data = request('POST', '/rest/getutxos.bin', f'Transfer-Encoding: {coding}') + b'5\r\nhello\r\n0\r\n\r\n'
            refused_and_closed(s, data, 400)
        target = '/rest/block/' + 'a' * (9000 - len('/rest/block/.json')) + '.json'
        assert len(target) == 9000
        raw = Raw(s.port)
        try:
            raw.send(request('GET', target))
            status, _, _ = raw.answer()
            assert status == 414, status
        finally:
            raw.close()
        expect_continue(s)
        s.alive()


def listen_attempt(directory, address, while_listening=None):
    """blockwire rest with --listen address: ('listening', the line) once it listens (while_listening(port) run,
    then stopped by its PID), or ('exited', status, stderr, seconds)."""
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(work, 'cache'))
    started = time.time()
    proc = subprocess.Popen([blockwire, 'rest', directory, '--listen', address], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 10)
        line = proc.stdout.readline() if ready else ''
        if line.startswith('listening on '):
            if while_listening:
                while_listening(int(line.strip().rsplit(':', 1)[1]))
            return 'listening', line.strip()
        status = proc.wait(timeout=10)
        return 'exited', status, proc.stderr.read(), time.time() - started
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def ipv6_loopback():
    """Whether ::1 can be bound here (not in every container)."""
    if not socket.has_ipv6:
        return False
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(('::1', 0))
        return True
    except OSError:
        return False


def answers_on_ipv6(port):
    c = http.client.HTTPConnection('::1', port, timeout=10)
    c.request('GET', '/rest/chaininfo.json')
    assert c.getresponse().status == 200
    c.close()


def scenario_listen_forms():
    """--listen with a port past 65535, not a number, or missing: exit status 2 at once, --listen named;
    [::1]:0 listens where IPv6 loopback exists (and answers there), or says why not (not "not an IP address")."""
    directory = core_copy()
    for address in ('127.0.0.1:99999', '127.0.0.1:abc', '127.0.0.1:'):
        result = listen_attempt(directory, address)
        assert result[0] == 'exited' and result[1] == 2 and '--listen' in result[2] and result[3] < 5, (address, result)
    if not ipv6_loopback():
        print('no IPv6 loopback here: [::1]:0 not tried')
        return
    result = listen_attempt(directory, '[::1]:0', answers_on_ipv6)
    assert result[0] == 'listening' or 'not an IP address' not in result[2], result
    print('[::1]:0:', result[:2])


def listing(directory):
    """Every file under directory by its path there, with its size."""
    return {os.path.relpath(os.path.join(parent, name), directory): os.path.getsize(os.path.join(parent, name))
            for parent, _, names in os.walk(directory) for name in names}


def load(port, path, stop, answers, errors):
    """GET path again and again on one kept-alive connection until stop, counting whole answers; an error before
    stop is kept (after it, the server is going away: expected)."""
    c = http.client.HTTPConnection('127.0.0.1', port, timeout=10)
    try:
        while not stop.is_set():
            c.request('GET', path)
            r = c.getresponse()
            body = r.read()
            assert r.status == 200 and len(body) == int(r.getheader('Content-Length')), (r.status, len(body))
            answers.append(len(body))
    except (OSError, http.client.HTTPException, AssertionError) as e:
        if not stop.is_set():
            errors.append(repr(e))
    finally:
        c.close()


def start_load(port, path, clients):
    """`clients` threads reading `path` again and again (load()); returns (stop, answers, errors, threads)."""
    stop = threading.Event()
    answers = [[] for _ in range(clients)]
    errors = []
    threads = [threading.Thread(target=load, args=(port, path, stop, answers[i], errors), daemon=True) for i in range(clients)]
    for thread in threads:
        thread.start()
    return stop, answers, errors, threads


def scenario_stop_under_load():
    """SIGTERM while 8 clients read a block's JSON (MBs each) again and again: exit status 0 within a second,
    and the blocks directory as it was (no file left, none changed in size)."""
    directory = big_chain(2000)
    with Server(directory) as s:
        best_hash(s)  # a first start writes its kept index beside the blocks: in the listing before, not a change
    before = listing(directory)
    with Server(directory) as s:
        stop, answers, errors, threads = start_load(s.port, f'/rest/block/{best_hash(s)}.json', 8)
        deadline = time.time() + 30
        while not all(answers) and not errors and time.time() < deadline:
            time.sleep(0.05)
        assert all(answers) and not errors, ([len(a) for a in answers], errors)
        time.sleep(1)  # every client answered once, then a second more of load
        stop.set()
        s.proc.send_signal(signal.SIGTERM)
        signalled = time.time()
        try:
            status = s.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            raise AssertionError('still running 10 s after SIGTERM')
        took = time.time() - signalled
        for thread in threads:
            thread.join(timeout=15)
        assert took < 1.0 and status == 0, (took, status)
        assert not errors, errors
        print(f'stopped in {took * 1000:.0f} ms after {sum(map(len, answers))} answers of {answers[0][0]} bytes')
    after = listing(directory)
    assert after == before, (before, after)

def scenario_quick_under_load():
    """16 clients read a block's JSON (MBs, a second or so of work each) again and again, more than the cores can
    make: a small answer (mempool/info, chaininfo) still comes within a second each time, made by the quick
    routes' own worker instead of waiting behind the JSON."""
    directory = big_chain(2000)
    with Server(directory) as s:
        path = f'/rest/block/{best_hash(s)}.json'
        stop, answers, errors, threads = start_load(s.port, path, 16)
        try:
            deadline = time.time() + 60
            while sum(map(len, answers)) < 16 and not errors and time.time() < deadline:
                time.sleep(0.05)  # the load in place: the JSON's workers busy, its queue full
            assert not errors, errors
            took = []
            for small in ['/rest/mempool/info.json', '/rest/chaininfo.json'] * 5:
                started = time.time()
                status, _ = s.get(small)
                took.append(time.time() - started)
                assert status == 200, status
            assert max(took) < 1.0, took
            print(f'16 clients on {path[-9:]}: small answers in {min(took) * 1000:.0f}-{max(took) * 1000:.0f} ms')
        finally:
            stop.set()
            for thread in threads:
                thread.join(timeout=30)


def scenario_held_answers():
    """600 connections from ten addresses (60 each: under the cap) ask for a block's 2.2 MB hex and read nothing:
    unbounded, the answers would hold 1.3 GB; the memory held for answers not yet written is bounded (512 MiB), the
    rest get 503, and another address is answered within a second all along."""
    directory = big_chain(6000)
    with Server(directory) as s:
        tip = best_hash(s)
        before = s.rss_mib()
        held = []
        try:
            for i in range(600):
                raw = socket.create_connection(('127.0.0.1', s.port), timeout=10, source_address=(f'127.3.0.{i % 10 + 1}', 0))
                raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                raw.sendall(f'GET /rest/block/{tip}.hex HTTP/1.1\r\nHost: x\r\n\r\n'.encode())
                held.append(raw)
            peak, took = 0, 0
            for _ in range(20):  # 4 s: every answer made (or refused) meanwhile
                peak = max(peak, s.rss_mib())
                started = time.time()
                status, _ = s.get('/rest/chaininfo.json')
                took = max(took, time.time() - started)
                assert status == 200, status
                time.sleep(0.2)
            assert took < 1.0, took
            assert peak - before < 512 + 160, (before, peak)  # the bound, and room for the answers being made
            print(f'600 unread 2.2 MB answers: resident {before:.0f} -> {peak:.0f} MiB at most; another client answered within '
                  f'{took * 1000:.0f} ms')
        finally:
            for raw in held:
                raw.close()


def scenario_many_at_once():
    """One address asks for 40 blocks' JSON at once over 40 connections (a page's Promise.all, past its share of
    16 of the queue): every answer 200 and whole, made in turn as its own earlier ones are answered, not refused;
    meanwhile another address is answered within a second."""
    directory = big_chain(500)
    with Server(directory) as s:
        hashes = []
        for height in range(31):
            status, body = s.get(f'/rest/blockhashbyheight/{height}.json')
            assert status == 200, (height, status, body)
            hashes.append(json.loads(body)['blockhash'])
        results, took = [None] * 40, []

        def ask(i):
            c = http.client.HTTPConnection('127.0.0.1', s.port, timeout=60, source_address=(ATTACKER, 0))
            try:
                c.request('GET', f'/rest/block/{hashes[i % len(hashes)]}.json')
                r = c.getresponse()
                body = r.read()
                results[i] = (r.status, len(body) == int(r.getheader('Content-Length') or -1), body[:60])
            except (OSError, http.client.HTTPException) as e:
                results[i] = (repr(e), False, b'')
            finally:
                c.close()

        threads = [threading.Thread(target=ask, args=(i,), daemon=True) for i in range(40)]
        for thread in threads:
            thread.start()
        while any(thread.is_alive() for thread in threads):
            started = time.time()
            status, _ = s.get('/rest/chaininfo.json')
            took.append(time.time() - started)
            assert status == 200, status
            time.sleep(0.1)
        for thread in threads:
            thread.join()
        refused = [(i, r) for i, r in enumerate(results) if r is None or r[0] != 200 or not r[1]]
        assert not refused, refused[:5]
        assert max(took) < 1.0, took
        print(f'40 block JSONs at once from one address: all 200; another address answered in {max(took) * 1000:.0f} ms at most')


scenarios.dispatch(scenario, globals())
