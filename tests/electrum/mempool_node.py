"""A regtest node on loopback for the Electrum server's mempool tests, on python-bitcoinlib's messages: it serves its
chain (headers and blocks, to fetch), announces the transactions of its mempool to every peer that asked for relay
(by wtxid to those that sent wtxidrelay, as Core does), answers getdata for them, and takes the transactions peers
send as `policy` says: 'accept' (into its mempool, then announced to the other peers), 'reject' (BIP61's reject, as
old nodes sent it) or 'silent' (Core's way: nothing said). It speaks v1 only and closes a v2 attempt, as Core with
-v2transport=0 does. mine() makes the next block of some transactions."""
import os
import socket
import struct
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'net'))
import peers  # noqa: E402
from bitcoin.core import CBlock, COutPoint, CMutableTransaction, CMutableTxIn, CMutableTxOut, CTransaction  # noqa: E402
from bitcoin.core.script import CScript  # noqa: E402
from bitcoin.messages import msg_pong  # noqa: E402

MSG_TX, MSG_WTX, MSG_WITNESS_FLAG = 1, 5, 1 << 30


def inv_payload(items):
    return peers.compact_size(len(items)) + b''.join(struct.pack('<I', t) + h for t, h in items)


def read_inv(payload):
    n, at = payload[0], 1
    assert n < 0xfd, 'a test inv is short'
    return [(struct.unpack('<I', payload[at + 36 * i:at + 36 * i + 4])[0], payload[at + 36 * i + 4:at + 36 * i + 36]) for i in range(n)]


def spend(coins, outputs, lock_time=0):
    """A transaction (no witness: its txid is its wtxid) spending `coins` [(txid bytes, index)] to `outputs`
    [(script bytes, value)]. Scripts are not checked by the server: the inputs carry a dummy signature."""
    tx = CMutableTransaction([CMutableTxIn(COutPoint(txid, n), CScript([b'\x01' * 71])) for txid, n in coins],
                             [CMutableTxOut(value, CScript(script)) for script, value in outputs], nLockTime=lock_time)
    return CTransaction.from_tx(tx)


class MempoolNode(threading.Thread):
    def __init__(self, blocks):
        super().__init__(daemon=True)
        self.blocks = [bytes(b) for b in blocks]
        self.headers = [CBlock.deserialize(b).get_header() for b in self.blocks]
        self.hashes = [h.GetHash() for h in self.headers]
        self.mempool = {}  # txid -> CTransaction
        self.policy = 'accept'
        self.received = []  # transactions peers sent (txids)
        self.relaying = []  # (wire, by_wtxid) of the peers that asked for relay
        self.lock = threading.Lock()
        self.server = socket.create_server(('127.0.0.1', 0))
        self.port = self.server.getsockname()[1]
        self.errors = []
        self.stopped = False

    def run(self):
        while not self.stopped:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self.connection, args=(conn,), daemon=True).start()

    def stop(self):
        self.stopped = True
        self.server.close()
        with self.lock:
            for wire, _ in self.relaying:
                try:
                    wire.sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def connection(self, conn):
        try:
            conn.settimeout(20)
            first = conn.recv(4, socket.MSG_WAITALL | socket.MSG_PEEK)
            if first != peers.bitcoin.params.MESSAGE_START:
                conn.close()  # a v2 key: a v1-only node hangs up
                return
            conn.settimeout(None)
            wire = peers.Wire(conn)
            seen = []
            theirs = peers.handshake(wire, height=len(self.blocks) - 1, first=False, seen=seen)
            if theirs.fRelay:
                wire.send(peers.envelope(b'feefilter', struct.pack('<q', 250)))  # (sat/kvB: the least it relays)
                with self.lock:
                    self.relaying.append((wire, b'wtxidrelay' in seen))
            self.serve(wire)
        except (OSError, AssertionError) as e:
            if not self.stopped and not isinstance(e, (BrokenPipeError, ConnectionResetError)):
                self.errors.append(repr(e))
        finally:
            with self.lock:
                self.relaying = [(w, b) for w, b in self.relaying if w.sock is not conn]
            conn.close()

    def serve(self, wire):
        while True:
            command, payload = wire.receive()
            if command is None:
                return
            if command == b'ping':
                wire.send(msg_pong(nonce=wire.message(command, payload).nonce))
            elif command == b'getheaders':
                request = wire.message(command, payload)
                start = 0
                for h in request.locator.vHave:
                    if h in self.hashes:
                        start = self.hashes.index(h) + 1
                        break
                wire.send(peers.envelope(b'headers', peers.headers_payload(self.headers[start:start + 2000])))
            elif command == b'getdata':
                for kind, h in read_inv(payload):
                    if kind & ~MSG_WITNESS_FLAG == 2:
                        wire.send(peers.envelope(b'block', self.blocks[self.hashes.index(h)]))
                        continue
                    with self.lock:
                        tx = self.mempool.get(h)  # (no witness here: wtxid == txid)
                    if tx is None:
                        wire.send(peers.envelope(b'notfound', inv_payload([(kind, h)])))
                    else:
                        wire.send(peers.envelope(b'tx', tx.serialize()))
            elif command == b'mempool':
                with self.lock:
                    ids = list(self.mempool)
                if ids:
                    wire.send(peers.envelope(b'inv', inv_payload([(MSG_TX, i) for i in ids])))
            elif command == b'tx':
                tx = CTransaction.deserialize(payload)
                self.received.append(tx.GetTxid())
                if self.policy == 'accept':
                    self.announce(tx)
                elif self.policy == 'reject':
                    reason = b'insufficient fee'
                    wire.send(peers.envelope(b'reject', peers.compact_size(2) + b'tx' + b'\x42' + peers.compact_size(len(reason)) +
                                             reason + tx.GetTxid()))

    def announce(self, tx):
        """Into the mempool, then an inv to every peer that asked for relay."""
        with self.lock:
            self.mempool[tx.GetTxid()] = tx
            targets = list(self.relaying)
        for wire, by_wtxid in targets:
            try:
                wire.send(peers.envelope(b'inv', inv_payload([(MSG_WTX if by_wtxid else MSG_TX, tx.GetTxid())])))
            except OSError:
                pass

    def mine(self, txs):
        """The next block: a coinbase of its height (BIP34) and `txs`, which leave the mempool. Returns its height."""
        tip = self.headers[-1]
        height = len(self.blocks)
        coinbase = CMutableTransaction([CMutableTxIn(COutPoint(), CScript([height, b'mempool node']))],
                                       [CMutableTxOut(1, CScript([1]))])
        block = CBlock(nVersion=0x20000000, hashPrevBlock=self.hashes[-1], nTime=tip.nTime + 1, nBits=0x207fffff,
                       vtx=[CTransaction.from_tx(coinbase)] + list(txs))
        block = CBlock(block.nVersion, block.hashPrevBlock, block.calc_merkle_root(), block.nTime, block.nBits, 0, block.vtx)
        nonce = 0
        while int.from_bytes(block.GetHash(), 'little') > 0x7fffff << (8 * (0x20 - 3)):
            nonce += 1
            block = CBlock(block.nVersion, block.hashPrevBlock, block.hashMerkleRoot, block.nTime, block.nBits, nonce, block.vtx)
        with self.lock:
            self.blocks.append(block.serialize())
            self.headers.append(block.get_header())
            self.hashes.append(block.GetHash())
            for tx in txs:
                self.mempool.pop(tx.GetTxid(), None)
        return height
