"""A real wallet nobody here wrote, Debian's Electrum (4.3.4), on blockwire electrum over the chain Bitcoin Core's node
wrote (tests/data/core-regtest), one scenario a run:
  electrum_wallet.py BLOCKWIRE ELECTRUM MAKE_CHAIN DATA_DIR WORK_DIR SCENARIO
Electrum's daemon connects to the server alone (--oneserver), checks every header to the tip, and answers through its
own JSON-RPC; what it says of each address is compared with Core's getblock 3 JSON. The server and the daemon are
started here and stopped by their PIDs whatever happens."""
import base64
import contextlib
from decimal import Decimal
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'support'))
import scenario as scenarios  # noqa: E402
import mempool_node  # noqa: E402 (beside this script)
import peers  # noqa: E402 (tests/net, through mempool_node)
from bitcoin.core import CBlock  # noqa: E402
from bitcoin.core.script import CScript  # noqa: E402
from bitcoin.wallet import CBitcoinAddress  # noqa: E402

blockwire, electrum, make_chain, data_dir, work, scenario = scenarios.arguments('blockwire', 'electrum', 'make_chain', 'data_dir', 'work',
                                                                                'scenario')
core = os.path.join(data_dir, 'core-regtest')
getblock3 = json.load(open(os.path.join(core, 'rpc', 'getblock3.json')))
TIP_HEIGHT = len(getblock3) - 1


def truth():
    """Each address's history (txids with heights, in the chain's order) and confirmed balance, from Core's JSON."""
    out = {}
    for block in getblock3:
        for tx in block['tx']:
            touched = set()
            for vin in tx['vin']:
                script = vin.get('prevout', {}).get('scriptPubKey', {})
                if 'address' in script:
                    a = out.setdefault(script['address'], {'history': [], 'balance': 0})
                    a['balance'] -= round(vin['prevout']['value'] * 1e8)
                    touched.add(script['address'])
            for vout in tx['vout']:
                if 'address' in vout['scriptPubKey']:
                    a = out.setdefault(vout['scriptPubKey']['address'], {'history': [], 'balance': 0})
                    a['balance'] += round(vout['value'] * 1e8)
                    touched.add(vout['scriptPubKey']['address'])
            for address in touched:
                out[address]['history'].append({'height': block['height'], 'tx_hash': tx['txid']})
    return out


@contextlib.contextmanager
def server(directory=None, *extra):
    """blockwire electrum on a copy of Core's directory (or on `directory`); its port."""
    if directory is None:
        directory = os.path.join(work, 'blocks')
        shutil.copytree(os.path.join(core, 'blocks'), directory)
    proc = subprocess.Popen([blockwire, 'electrum', directory, '--listen', '127.0.0.1:0', *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=dict(os.environ, XDG_CACHE_HOME=os.path.join(work, 'cache')))
    try:
        line = proc.stdout.readline()
        assert line.startswith('listening on '), (line, proc.stderr.read())
        yield int(line.strip().rsplit(':', 1)[1])
    finally:
        scenarios.stop(proc)


class Daemon:
    """Electrum's daemon on regtest, in WORK/electrum, its JSON-RPC on a port of its own."""

    def __init__(self, port):
        self.dir = os.path.join(work, 'electrum')
        self.env = dict(os.environ, HOME=os.path.join(work, 'home'))
        os.makedirs(self.env['HOME'], exist_ok=True)
        with socket.socket() as probe:  # (a port free now for the daemon's JSON-RPC)
            probe.bind(('127.0.0.1', 0))
            self.rpc_port = probe.getsockname()[1]
        for key, value in [('rpcuser', 'test'), ('rpcpassword', 'test'), ('rpcport', str(self.rpc_port)), ('log_to_file', 'false')]:
            self.cli('--offline', 'setconfig', key, value)
        self.proc = subprocess.Popen([electrum, '--regtest', '--dir', self.dir, 'daemon', '-s', f'127.0.0.1:{port}:t', '--oneserver'],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=self.env)

    def cli(self, *args):
        return subprocess.run([electrum, '--regtest', '--dir', self.dir, *args], check=True, capture_output=True, text=True, env=self.env).stdout

    def call(self, method, **params):
        request = urllib.request.Request(f'http://127.0.0.1:{self.rpc_port}', data=json.dumps({'id': 1, 'method': method, 'params': params}).encode(),
                                         headers={'Authorization': 'Basic ' + base64.b64encode(b'test:test').decode(), 'Content-Type': 'application/json'})
        answer = json.load(urllib.request.urlopen(request, timeout=60))
        assert answer.get('error') is None, (method, params, answer['error'])
        return answer['result']

    def wait_for(self, what, seconds=60):
        deadline = time.time() + seconds
        last = None
        while time.time() < deadline:
            try:
                last = what()
                if last:
                    return last
            except (OSError, AssertionError) as e:
                last = e
            time.sleep(0.2)
        raise AssertionError(f'not within {seconds} s: {last}')

    def stop(self):
        scenarios.stop(self.proc, 20)


@contextlib.contextmanager
def daemon(port, tip=TIP_HEIGHT):
    d = Daemon(port)
    try:
        d.wait_for(lambda: (lambda i: i['connected'] and i['blockchain_height'] == tip and i['server_height'] == tip)(d.call('getinfo')))
        yield d
    finally:
        d.stop()


def btc(sats):
    """Electrum's text of an amount."""
    return format(sats / 1e8, '.8f').rstrip('0').rstrip('.') if sats else '0'


def scenario_addresses():
    """getinfo reaches the tip (Electrum checked every header); getaddressbalance and getaddresshistory of every address
    of the chain are what Core's getblock 3 JSON says."""
    want = truth()
    assert len(want) > 100
    with server() as port, daemon(port) as d:
        for address, t in sorted(want.items()):
            balance = d.call('getaddressbalance', address=address)
            assert balance == {'confirmed': btc(t['balance']), 'unconfirmed': '0'}, (address, balance, t['balance'])
            history = d.call('getaddresshistory', address=address)
            assert history == t['history'], (address, history, t['history'])


def scenario_watch_only():
    """A watch-only wallet restored from addresses of the chain: Electrum's own history lists each address's transactions,
    every one SPV-verified (get_merkle, checked against the headers it holds), and its balance is their sum."""
    want = truth()
    busy = sorted(want, key=lambda a: -len(want[a]['history']))[:10]
    with server() as port, daemon(port) as d:
        path = os.path.join(d.dir, 'regtest', 'wallets', 'watching')
        d.call('restore', text=' '.join(busy), wallet_path=path)
        d.call('load_wallet', wallet_path=path)
        d.wait_for(lambda: d.call('is_synchronized', wallet=path))
        txids = {h['tx_hash'] for a in busy for h in want[a]['history']}
        heights = {h['tx_hash']: h['height'] for a in busy for h in want[a]['history']}

        def verified():
            listed = d.call('onchain_history', wallet=path)['transactions']
            return listed if len(listed) == len(txids) and all(t['confirmations'] > 0 for t in listed) else None
        listed = d.wait_for(verified)
        assert {t['txid'] for t in listed} == txids
        for t in listed:
            assert t['height'] == heights[t['txid']] and t['confirmations'] == TIP_HEIGHT - t['height'] + 1, t
        # (Electrum tells coinbase outputs under 100 confirmations apart: "unmatured")
        balance = d.call('getbalance', wallet=path)
        total = sum(Decimal(balance.get(k, '0')) for k in ('confirmed', 'unmatured'))
        assert total == Decimal(sum(want[a]['balance'] for a in busy)) / 10**8 and 'unconfirmed' not in balance, balance


def scenario_mempool():
    """With --peer a node (the test's, over P2P) that announces a transaction: Electrum sees it unconfirmed (height 0,
    its value unconfirmed in the balance), then, once a block with it is fetched into the directory, confirmed at that
    block's height, SPV-verified; a transaction broadcast through Electrum reaches the node and comes back announced."""
    source = scenarios.make_chain(make_chain, work, 'source', 110, '--coinbase-only', '--undo', blocks=False)
    node = mempool_node.MempoolNode(peers.records(source))
    node.start()
    target = os.path.join(work, 'target')
    fetch = [blockwire, 'fetch', f'127.0.0.1:{node.port}', '-o', target, '--network', 'regtest', '--no-progress']
    subprocess.run(fetch, check=True, capture_output=True, timeout=120)
    script = bytes([0, 20]) + bytes([0x44] * 20)
    address = str(CBitcoinAddress.from_scriptPubKey(CScript(script)))
    coinbase = CBlock.deserialize(node.blocks[1]).vtx[0]
    value = coinbase.vout[0].nValue
    tx = mempool_node.spend([(coinbase.GetTxid(), 0)], [(script, value - 1_000)])
    txid = tx.GetTxid()[::-1].hex()
    try:
        with server(target, '--peer', f'127.0.0.1:{node.port}') as port, daemon(port, 110) as d:
            node.announce(tx)
            unconfirmed = d.wait_for(lambda: d.call('getaddresshistory', address=address))
            assert [(h['tx_hash'], h['height']) for h in unconfirmed] == [(txid, 0)], unconfirmed
            assert d.call('getaddressbalance', address=address) == {'confirmed': '0', 'unconfirmed': btc(value - 1_000)}
            height = node.mine([tx])
            subprocess.run(fetch, check=True, capture_output=True, timeout=120)
            d.wait_for(lambda: d.call('getaddresshistory', address=address) == [{'height': height, 'tx_hash': txid}])
            assert d.call('getaddressbalance', address=address) == {'confirmed': btc(value - 1_000), 'unconfirmed': '0'}
            # A watch-only wallet of the address verifies it (get_merkle against the headers Electrum holds).
            path = os.path.join(d.dir, 'regtest', 'wallets', 'watching')
            d.call('restore', text=address, wallet_path=path)
            d.call('load_wallet', wallet_path=path)
            listed = d.wait_for(lambda: [t for t in d.call('onchain_history', wallet=path)['transactions'] if t['confirmations'] > 0])
            assert [(t['txid'], t['height']) for t in listed] == [(txid, height)], listed
            # Broadcast through Electrum: the node receives it and announces it back.
            other = CBlock.deserialize(node.blocks[2]).vtx[0]
            sent = mempool_node.spend([(other.GetTxid(), 0)], [(script, other.vout[0].nValue - 2_000)])
            assert d.call('broadcast', tx=sent.serialize().hex()) == sent.GetTxid()[::-1].hex()
            assert sent.GetTxid() in node.received
            d.wait_for(lambda: (sent.GetTxid()[::-1].hex(), 0) in [(h['tx_hash'], h['height']) for h in
                                                                   d.call('getaddresshistory', address=address)])
        assert not node.errors, node.errors
    finally:
        node.stop()


scenarios.dispatch(scenario, globals())
