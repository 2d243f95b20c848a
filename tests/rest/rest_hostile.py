"""blockwire rest under hostile requests, one scenario a run:
  rest_hostile.py BLOCKWIRE MAKE_CHAIN DATA_DIR WORK_DIR SCENARIO
Each ends with a well-formed request answered as Core answers it: nothing
a client sends stops the serving. The server is started here and stopped by
its PID whatever happens."""
import http.client
import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import time

blockwire, make_chain, data_dir, work, scenario = sys.argv[1:6]
core = os.path.join(data_dir, 'core-regtest')
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
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
        assert status == 431, status  # the request line past the header limit
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
    """10,000 connections opened and left idle: each holds a descriptor and little memory (the RSS is said and
    bounded), none stops a new client from being answered at once; with --timeout 2 they are closed after it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 10_000
    if hard < wanted + 100:
        wanted = hard - 100
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    with Server(core_copy(), '--timeout', '2') as s:
        before = s.rss_mib()
        sockets = []
        for _ in range(wanted):
            sockets.append(socket.create_connection(('127.0.0.1', s.port), timeout=10))
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


def scenario_live_directory():
    """Blocks appended while rest serves (fetch from serve into its directory): the tip is read within a second,
    and every answer meanwhile is whole."""
    source = os.path.join(work, 'source')
    subprocess.run([make_chain, source, '300'], check=True, capture_output=True)
    target = os.path.join(work, 'target')
    serve = subprocess.Popen([blockwire, 'serve', source, '--listen', '127.0.0.1:0'], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True)
    try:
        port = int(serve.stdout.readline().strip().rsplit(':', 1)[1])
        fetch = [blockwire, 'fetch', f'127.0.0.1:{port}', '-o', target, '--network', 'regtest', '--no-progress']
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
    finally:
        serve.send_signal(signal.SIGTERM)
        serve.wait(timeout=10)


globals()['scenario_' + scenario]()
