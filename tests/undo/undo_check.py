"""Undo data through the command, checked by an independent implementation: python-bitcoinlib parses the chain
make_chain wrote (its --hex lines) and keeps its own coin set; every prevout and fee `blocks --json --verbosity 3`
prints must match it. Then pack --undo of the same blocks must write the same undo records (un-XORed), and damage
in a rev file must be reported by scan with its offset.
  undo_check.py BLOCKWIRE MAKE_CHAIN WORK_DIR"""
import json
import os
import subprocess
import sys

import bitcoin
from bitcoin.core import CBlock, b2lx

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'net'))
import peers  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'support'))
import scenario as scenarios  # noqa: E402

bitcoin.SelectParams('regtest')
blockwire, make_chain, work = scenarios.arguments('blockwire', 'make_chain', 'work')
run = scenarios.runner(blockwire)


chain_dir, hex_file = os.path.join(work, 'chain'), os.path.join(work, 'chain.hex')
subprocess.run([make_chain, chain_dir, '120', '--undo', '--hex', hex_file], check=True)
blocks = [CBlock.deserialize(bytes.fromhex(line)) for line in open(hex_file) if line.strip()]

# The coin set, kept here: (txid, n) -> (height, coinbase, value, script)
coins, expected = {}, []
for height, block in enumerate(blocks):
    per_tx = []
    for t, tx in enumerate(block.vtx):
        if t > 0:
            prevouts = [coins.pop((txin.prevout.hash, txin.prevout.n)) for txin in tx.vin]
            fee = sum(p[2] for p in prevouts) - sum(o.nValue for o in tx.vout)
            per_tx.append((prevouts, fee))
        for n, out in enumerate(tx.vout):
            coins[(tx.GetTxid(), n)] = (height, t == 0, out.nValue, bytes(out.scriptPubKey))
    expected.append(per_tx)

scan = run('scan', '--no-progress', '--json', chain_dir)
assert scan.returncode == 0, scan.stdout + scan.stderr
report = json.loads(scan.stdout)
assert report['undo_records'] == len(blocks) - 1 and report['undo_verified'] == len(blocks) - 1, report

printed = json.loads(run('blocks', chain_dir, '--json', '--verbosity', '3').stdout)
assert len(printed) == len(blocks)
checked_inputs = 0
for height, (block_json, per_tx) in enumerate(zip(printed, expected)):
    assert block_json['hash'] == b2lx(blocks[height].GetHash())
    txs = block_json['tx']
    assert 'fee' not in txs[0] and 'prevout' not in txs[0]['vin'][0]  # the coinbase has none
    for tx_json, (prevouts, fee) in zip(txs[1:], per_tx):
        assert round(tx_json['fee'] * 1e8) == fee, (height, tx_json['fee'], fee)
        for vin, (h, generated, value, script) in zip(tx_json['vin'], prevouts):
            p = vin['prevout']
            assert (p['height'], p['generated'], round(p['value'] * 1e8), p['scriptPubKey']['hex']) == (h, generated, value, script.hex()), p
            checked_inputs += 1
    assert list(block_json['tx'][1]['vin'][0].keys())[-2:] == ['prevout', 'sequence'] if len(txs) > 1 else True
assert checked_inputs > 30, checked_inputs
# inspect --offset of a record: the same block with its prevouts (its rev file's undo data).
raw_blocks = [bytes.fromhex(line) for line in open(hex_file) if line.strip()]
offset = sum(8 + len(b) for b in raw_blocks[:6])
shown = json.loads(run('inspect', os.path.join(chain_dir, 'blk00000.dat'), '--offset', str(offset), '--json').stdout)
assert shown == printed[6], 'inspect --offset --json differs from blocks --verbosity 3'
# Verbosity 2: the fee, no prevout (as Core's getblock 2 with undo data).
two = json.loads(run('blocks', chain_dir, '--json', '--verbosity', '2', '--from', '3', '--count', '1').stdout)[0]
assert 'fee' in two['tx'][1] and 'prevout' not in two['tx'][1]['vin'][0]


# pack --undo of the same blocks writes the same records.
inputs = []
for i, line in enumerate(open(hex_file)):
    path = os.path.join(work, f'block{i:04}.hex')
    open(path, 'w').write(line)
    inputs.append(path)
packed = os.path.join(work, 'packed')
result = run('pack', '-o', packed, '--undo', '--network', 'regtest', *inputs)
assert result.returncode == 0, result.stderr
assert peers.undo_records(packed) == peers.undo_records(chain_dir)
assert run('scan', '--no-progress', packed).returncode == 0
# Not a chain from genesis: refused, nothing written.
result = run('pack', '-o', os.path.join(work, 'gap'), '--undo', '--network', 'regtest', inputs[0], inputs[2])
assert result.returncode == 1 and 'parent' in result.stderr and not os.path.exists(os.path.join(work, 'gap')), result.stderr

# Damage: one byte of the third record's data changed: its checksum fails, scan says where.
rev = os.path.join(packed, 'rev00000.dat')
data = bytearray(open(rev, 'rb').read())
records = peers.undo_records(packed)
third = sum(8 + len(r) for r in records[:2])
data[third + 8] ^= 0x01
open(rev, 'wb').write(data)
scan = run('scan', '--no-progress', '--json', packed)
report = json.loads(scan.stdout)
assert scan.returncode == 1 and report['undo_verified'] == len(records) - 1, scan.stdout
assert [p['offset'] for p in report['problems']] == [third] and report['problems'][0]['file'].endswith('rev00000.dat'), report['problems']
# Core's padding (raw zeros) after the records: nothing to report.
data[third + 8] ^= 0x01
open(rev, 'wb').write(bytes(data) + bytes(1 << 20))
assert run('scan', '--no-progress', packed).returncode == 0
# Cut inside the last record: truncated, at its offset.
last = sum(8 + len(r) for r in records[:-1])
open(rev, 'wb').write(bytes(data[:last + 20]))
scan = run('scan', '--no-progress', '--json', packed)
report = json.loads(scan.stdout)
assert scan.returncode == 1 and report['problems'][-1]['offset'] == last and 'ends inside' in report['problems'][-1]['reason'], report
print('ok')
