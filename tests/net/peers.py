"""Peers for the network tests, on python-bitcoinlib's messages (bitcoin.messages):
framing and message encoding by code not written here. Hostile peers build
their bad bytes by hand on top of it."""
import hashlib
import io
import os
import signal
import socket
import struct
import subprocess
import threading
import time

import bitcoin
from bitcoin.core import CBlock, CBlockHeader
from bitcoin.messages import MsgSerializable, msg_getheaders, msg_ping, msg_pong, msg_verack, msg_version
from bitcoin.net import CInv

bitcoin.SelectParams('regtest')
MSG_BLOCK, MSG_WITNESS_BLOCK = 2, 0x40000002


def envelope(command: bytes, payload: bytes, magic: bytes = None, checksum: bytes = None, length: int = None) -> bytes:
    magic = bitcoin.params.MESSAGE_START if magic is None else magic
    if checksum is None:
        checksum = hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4]
    length = len(payload) if length is None else length
    return magic + command + b'\0' * (12 - len(command)) + struct.pack('<I', length) + checksum + payload


def relay(source, sink, change=None):
    """Forwards whole messages from `source` to `sink` until either end closes: each message's payload passes
    through change(command, payload) (None: unchanged) and is sent re-framed. Then shuts `sink` for writing."""
    buffer = b''
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            buffer += data
            while len(buffer) >= 24:
                (length,) = struct.unpack('<I', buffer[16:20])
                if len(buffer) < 24 + length:
                    break
                command = buffer[4:16].split(b'\0', 1)[0]
                payload = buffer[24:24 + length]
                sink.sendall(envelope(command, change(command, payload) if change else payload))
                buffer = buffer[24 + length:]
    except OSError:
        pass
    finally:
        try:
            sink.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def compact_size(n: int) -> bytes:
    if n < 0xfd:
        return bytes([n])
    if n <= 0xffff:
        return b'\xfd' + struct.pack('<H', n)
    return b'\xfe' + struct.pack('<I', n)


def headers_payload(headers) -> bytes:
    """Core's headers: each header followed by a transaction count of 0 (bitcoinlib's msg_headers leaves it out)."""
    return compact_size(len(headers)) + b''.join(h.serialize() + b'\0' for h in headers)


def read_headers(payload: bytes):
    f = io.BytesIO(payload)
    first = f.read(1)[0]
    n = first if first < 0xfd else struct.unpack('<H', f.read(2))[0]
    out = []
    for _ in range(n):
        out.append(CBlockHeader.deserialize(f.read(80)))
        assert f.read(1) == b'\0', 'a header without its zero transaction count'
    return out


class Wire:
    """One peer's socket: whole messages out, (command, payload) in."""

    def __init__(self, sock):
        self.sock = sock
        self.file = sock.makefile('rb')

    def send(self, message):
        self.sock.sendall(message.to_bytes() if isinstance(message, MsgSerializable) else message)

    def receive(self):
        head = self.file.read(24)
        if len(head) < 24:
            return None, None
        assert head[:4] == bitcoin.params.MESSAGE_START, head[:4]
        command = head[4:16].split(b'\0', 1)[0]
        (length,) = struct.unpack('<I', head[16:20])
        payload = self.file.read(length)
        assert hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4] == head[20:24], 'bad checksum'
        return command, payload

    def message(self, command, payload):
        """bitcoinlib's reading of a message (None for commands it does not know)."""
        return MsgSerializable.from_bytes(envelope(command, payload))


def version(height=0, protocol=70016):
    v = msg_version(protocol)
    v.nServices = 0
    v.nStartingHeight = height
    v.fRelay = False
    return v


def handshake(wire, height=0, first=True, protocol=70016, seen=None, version_sent=False):
    """Ours first (a client of serve) or theirs first (a server); returns their version. `seen` collects the
    commands received. A client also reads serve's sendcmpct, which follows the handshake. `version_sent`: a
    server that sent its version before the client's (a v1 node that speaks first) does not send it again."""
    if first:
        wire.send(version(height, protocol))
    theirs, verack = None, False
    while theirs is None or not verack:
        command, payload = wire.receive()
        assert command is not None, 'closed during the handshake'
        if seen is not None:
            seen.append(command)
        if command == b'version':
            theirs = wire.message(command, payload)
            if not first and not version_sent:
                wire.send(version(height, protocol))
            wire.send(msg_verack())
        elif command == b'verack':
            verack = True
        elif command == b'ping':
            wire.send(msg_pong(nonce=wire.message(command, payload).nonce))
    if first and protocol >= 70014:
        # The server (serve) says next, as Bitcoin Core does after the handshake, that it can send compact blocks:
        # sendcmpct(0, 2) (BIP152: not high bandwidth, version 2), so that a peer may pick it as a high-bandwidth one.
        while True:
            command, payload = wire.receive()
            assert command is not None, 'closed before its sendcmpct'
            if seen is not None:
                seen.append(command)
            if command == b'ping':
                wire.send(msg_pong(nonce=wire.message(command, payload).nonce))
                continue
            assert (command, payload) == (b'sendcmpct', b'\x00' + struct.pack('<Q', 2)), (command, payload.hex())
            break
    return theirs


def records(directory):
    """The block bytes of every record of a blocks directory, in file order (un-XORed by file offset)."""
    key = b'\0' * 8
    path = os.path.join(directory, 'xor.dat')
    if os.path.exists(path):
        key = open(path, 'rb').read()
    blocks = []
    for name in sorted(n for n in os.listdir(directory) if n.startswith('blk') and n.endswith('.dat')):
        data = open(os.path.join(directory, name), 'rb').read()
        data = bytes(b ^ key[i % 8] for i, b in enumerate(data)) if any(key) else data
        at = 0
        while at + 8 <= len(data) and data[at:at + 4] == bitcoin.params.MESSAGE_START:
            (n,) = struct.unpack('<I', data[at + 4:at + 8])
            blocks.append(data[at + 8:at + 8 + n])
            at += 8 + n
    return blocks


def undo_records(directory):
    """Every undo record of every rev file (its data and its 32-byte checksum), un-XORed, in file order, up to
    Core's zeros in each file."""
    key = key_of(directory)
    out = []
    for name in sorted(n for n in os.listdir(directory) if n.startswith('rev') and n.endswith('.dat')):
        data = xor(open(os.path.join(directory, name), 'rb').read(), key, 0)
        at = 0
        while at + 8 <= len(data) and data[at:at + 4] == bitcoin.params.MESSAGE_START:
            (n,) = struct.unpack('<I', data[at + 4:at + 8])
            out.append(data[at + 8:at + 8 + n + 32])
            at += 8 + n + 32
    return out


def sha256d(data):
    return hashlib.sha256(hashlib.sha256(data).digest()).digest()


def key_of(directory):
    """A blocks directory's XOR key (xor.dat; none: zeros)."""
    path = os.path.join(directory, 'xor.dat')
    return open(path, 'rb').read() if os.path.exists(path) else b'\0' * 8


def xor(data, key, offset):
    """`data` XOR'd with `key` as it would lie at `offset` of a blk or rev file."""
    return bytes(b ^ key[(offset + i) % 8] for i, b in enumerate(data))


class Process:
    """A command in the background, stopped by its PID whatever happens."""

    def __init__(self, args, **kwargs):
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs)

    def stop(self, sig=signal.SIGTERM, timeout=10):
        if self.proc.poll() is None:
            os.kill(self.proc.pid, sig)
        try:
            out, err = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.kill(self.proc.pid, signal.SIGKILL)
            out, err = self.proc.communicate()
        return self.proc.returncode, out, err

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def start_serve(blockwire, directory, *extra):
    p = Process([blockwire, 'serve', directory, '--listen', '127.0.0.1:0', *extra])
    line = p.proc.stdout.readline()
    assert line.startswith('listening on 127.0.0.1:'), line + p.stop()[2]
    return p, int(line.rsplit(':', 1)[1])


def accept_v1(server):
    """Accepts as a v1-only node does (Bitcoin Core with -v2transport=0): a connection whose first bytes are not the
    network's magic (BIP324's v2 key) is closed at once, and the next one taken. Returns the first v1 connection and
    how many were closed before it."""
    refused = 0
    while True:
        conn, _ = server.accept()
        first = b''
        try:
            conn.settimeout(20)
            deadline = time.time() + 20
            while len(first) < 4 and time.time() < deadline:
                first = conn.recv(4, socket.MSG_PEEK)
                if not first:
                    break
                if len(first) < 4:
                    time.sleep(0.01)  # the rest of the 4 bytes is on its way
        except OSError:
            pass
        conn.settimeout(None)
        if first == bitcoin.params.MESSAGE_START:
            return conn, refused
        refused += 1
        conn.close()


class FakeNode(threading.Thread):
    """A listening peer on loopback that serves `blocks` (raw bytes, a chain from genesis) with bitcoinlib's
    messages, or misbehaves as `mode` says once the handshake is done."""

    def __init__(self, blocks, mode='honest', protocol=70016, speaks_first=None, bans=False):
        """`speaks_first`: a v1 node that sends its version that many seconds after it accepts a connection (bcoin
        does at once), and closes one whose first bytes are not its magic; with `bans`, it then bans the address
        (every later connection from it closed at once), as bcoin bans for bad messages."""
        super().__init__(daemon=True)
        self.blocks, self.mode, self.protocol = blocks, mode, protocol
        self.speaks_first, self.bans = speaks_first, bans
        self.connections, self.banned = 0, set()
        self.headers = [CBlock.deserialize(b).get_header() for b in blocks]
        self.hashes = [h.GetHash() for h in self.headers]
        self.server = socket.create_server(('127.0.0.1', 0))
        self.port = self.server.getsockname()[1]
        self.error = None

    def accept_speaking_first(self):
        """The first connection whose first bytes are the magic, our version sent to each as it is accepted."""
        self.server.settimeout(60)
        while True:
            conn, (host, _) = self.server.accept()
            self.connections += 1
            if host in self.banned:
                conn.close()
                continue
            time.sleep(self.speaks_first)
            try:
                conn.sendall(version(len(self.blocks) - 1, self.protocol).to_bytes())
                conn.settimeout(20)
                first = conn.recv(4, socket.MSG_WAITALL | socket.MSG_PEEK)
            except OSError:
                first = b''
            if first == bitcoin.params.MESSAGE_START:
                conn.settimeout(None)
                return conn
            if self.bans:
                self.banned.add(host)
            conn.close()

    def run(self):
        if self.speaks_first is not None:
            conn, self.v2_refused = self.accept_speaking_first(), 0
        else:
            conn, self.v2_refused = accept_v1(self.server)
        try:
            self.serve(conn, Wire(conn))
        except (BrokenPipeError, ConnectionResetError):
            pass
        except Exception as e:  # reported by the test
            self.error = e
        finally:
            conn.close()
            self.server.close()

    def headers_after(self, locator):
        start = 0
        for h in locator:
            if h in self.hashes:
                start = self.hashes.index(h) + 1
                break
        return self.headers[start:start + 2000]

    def serve(self, conn, wire):
        m = self.mode
        if m == 'wrong_magic':
            conn.sendall(envelope(b'version', version().to_bytes()[24:], magic=b'\xf9\xbe\xb4\xd9'))
            time.sleep(1)
            return
        if m == 'silent':
            time.sleep(5)
            return
        if m == 'bad_checksum':
            wire.receive()
            conn.sendall(envelope(b'version', version().to_bytes()[24:], checksum=b'\0\0\0\0'))
            time.sleep(1)
            return
        if m == 'oversize':
            wire.receive()
            conn.sendall(envelope(b'version', b'', length=4_000_001))
            time.sleep(1)
            return
        if m == 'slow':
            wire.receive()
            for b in version().to_bytes():
                conn.sendall(bytes([b]))
                time.sleep(1)
            return
        if m == 'close_mid_message':
            wire.receive()
            conn.sendall(version().to_bytes()[:40])
            conn.shutdown(socket.SHUT_WR)
            time.sleep(1)
            return
        self.handshake_commands = []
        handshake(wire, height=len(self.blocks) - 1, first=False, protocol=self.protocol, seen=self.handshake_commands,
                  version_sent=self.speaks_first is not None)
        # What Bitcoin Core sends a new peer unasked: compact-block and fee
        # settings, a ping, and a getheaders of its own.
        wire.send(envelope(b'sendcmpct', b'\0' + struct.pack('<Q', 2)))
        wire.send(envelope(b'feefilter', struct.pack('<q', 1000)))
        wire.send(msg_ping(nonce=0x1234))
        ask = msg_getheaders()
        ask.locator.vHave = [self.hashes[0]]
        wire.send(ask)
        wire.send(envelope(b'mempool', b''))  # unknown to it: skipped
        self.answers = []
        while True:
            command, payload = wire.receive()
            if command is None:
                return
            if command == b'getheaders' and m in ('ibd', 'ignore_all'):
                continue  # a node in initial block download ignores getheaders (ignore_all: its pings too, below)
            if command == b'getheaders' and m == 'ibd_empty':
                wire.send(envelope(b'headers', b'\0'))  # current Core in its IBD: an empty headers, to say go away
                continue
            if command == b'ping' and m == 'ignore_all':
                continue
            if command == b'getheaders' and m == 'stall':
                # Never an answer, only chatter: an inv every half second.
                for _ in range(20):
                    wire.send(envelope(b'inv', compact_size(1) + struct.pack('<I', 1) + bytes(32)))
                    time.sleep(0.5)
                return
            if command == b'getheaders':
                request = wire.message(command, payload)
                headers = self.headers_after(request.locator.vHave)
                if m == 'headers_2001':
                    headers = (headers * 2001)[:2001]
                elif m == 'unlinked_header' and headers:
                    headers = headers[:5] + headers[6:]
                elif m == 'bad_pow' and len(headers) > 5:
                    h = headers[5]
                    headers[5] = CBlockHeader(h.nVersion, h.hashPrevBlock, h.hashMerkleRoot, h.nTime, 0x1d00ffff, h.nNonce)
                elif m == 'duplicate_header' and len(headers) > 5:
                    headers = headers[:6] + headers[5:6] + headers[6:]
                if m == 'no_empty_headers' and not headers:
                    continue  # some nodes send nothing when they have nothing
                payload = headers_payload(headers)
                if m == 'short_payload':  # a count of five, two headers: a whole message, checksum right
                    payload = compact_size(5) + headers_payload(headers[:2])[1:]
                wire.send(envelope(b'headers', payload))
            elif command == b'getdata':
                request = wire.message(command, payload)
                for item in request.inv:
                    i = self.hashes.index(item.hash)
                    block = self.blocks[i]
                    if m == 'unasked_block' and i == 5:
                        block = self.blocks[-1] if len(self.blocks) - 1 != i else self.blocks[1]
                    elif m == 'bad_block' and i == 6:  # one with a segwit spend
                        b = CBlock.deserialize(block)
                        block = b.serialize()[:80] + compact_size(1) + b.vtx[0].serialize()  # transactions gone
                    elif m == 'notfound' and i == 5:
                        wire.send(envelope(b'notfound', compact_size(1) + item.serialize()))
                        continue
                    if m == 'slow_blocks':
                        time.sleep(0.05)
                    wire.send(envelope(b'block', block))
            elif command == b'ping':
                wire.send(msg_pong(nonce=wire.message(command, payload).nonce))
            elif command in (b'pong', b'headers'):
                self.answers.append((command, payload))
