#!/usr/bin/python3
"""blockwire's P2P messages against python-bitcoinlib's (Debian's
python3-bitcoinlib, bitcoin.messages), an independent implementation:
  1. blockwire's encoding of each sample message (p2p_fixtures write) equals
     the bytes bitcoinlib makes from the same values (headers: bitcoinlib
     omits each header's transaction count, which the protocol has; that
     byte is checked to be 0x00 and the headers to be bitcoinlib's);
  2. blockwire decodes bitcoinlib's bytes (p2p_fixtures read) to the values
     they were made from.
The values mirror tests/p2p/samples.hpp. Usage: bitcoinlib_check.py TOOL DATA_DIR WORK_DIR
"""
import json
import os
import subprocess
import sys

import bitcoin
import bitcoin.core as core
import bitcoin.messages as m
import bitcoin.net as net

bitcoin.SelectParams("mainnet")
tool, data, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
subprocess.run([tool, "write", work], check=True)


def hash_of(seed):
    return bytes((seed * 31 + i) % 256 for i in range(32))


def hx(h):  # display order, as blockwire prints hashes
    return core.b2lx(h)


block = core.CBlock.deserialize(open(os.path.join(data, "block413567.raw"), "rb").read())
segwit = core.CBlock.deserialize(open(os.path.join(data, "block_000000000000000000000c835b2adcaedc20fdf6ee440009c249452c726dafae.raw"), "rb").read())

samples = {}
v = m.msg_version(protover=70016)
v.nVersion, v.nServices, v.nTime = 70016, 0x409, 1_700_000_000
v.addrTo = net.CAddress()
v.addrTo.port, v.addrTo.nServices = 8333, 0
v.addrFrom = net.CAddress()
v.addrFrom.port, v.addrFrom.nServices = 0, 0
v.nNonce, v.strSubVer, v.nStartingHeight, v.fRelay = 0x1122334455667788, b"/blockwire:0.1/", 850_000, True
samples["version"] = (v, {"version": 70016, "services": 0x409, "timestamp": 1_700_000_000, "receiver_port": 8333,
                          "nonce": 0x1122334455667788, "user_agent": "/blockwire:0.1/", "start_height": 850_000, "relay": True})
samples["verack"] = (m.msg_verack(), {})
p = m.msg_ping(protover=70016)
p.nonce = 42
samples["ping"] = (p, {"nonce": 42})
p = m.msg_pong(protover=70016)
p.nonce = 43
samples["pong"] = (p, {"nonce": 43})
samples["getaddr"] = (m.msg_getaddr(), {})


def inv_message(cls, entries):
    msg = cls()
    msg.inv = []
    for t, seed in entries:
        i = net.CInv()
        i.type, i.hash = t, hash_of(seed)
        msg.inv.append(i)
    return msg, {"items": [{"type": t, "hash": hx(hash_of(s))} for t, s in entries]}


samples["inv"] = inv_message(m.msg_inv, [(1, 1), (2 | (1 << 30), 2)])
samples["getdata"] = inv_message(m.msg_getdata, [(5, 3)])
samples["notfound"] = inv_message(m.msg_notfound, [(1, 4)])
for name, cls, locator, stop in [("getheaders", m.msg_getheaders, [5, 6], None), ("getblocks", m.msg_getblocks, [7], 8)]:
    msg = cls(protover=70016)
    msg.locator.nVersion = 70016
    msg.locator.vHave = [hash_of(s) for s in locator]
    msg.hashstop = hash_of(stop) if stop else b"\x00" * 32
    samples[name] = (msg, {"locator": [hx(hash_of(s)) for s in locator], "stop": hx(msg.hashstop)})
msg = m.msg_block()
msg.block = block
samples["block"] = (msg, {"hash": hx(block.GetHash()), "tx_count": len(block.vtx)})
msg = m.msg_tx()
msg.tx = segwit.vtx[1]
samples["tx"] = (msg, {"txid": hx(segwit.vtx[1].GetTxid()), "wtxid": hx(segwit.vtx[1].GetHash())})
msg = m.msg_reject()
msg.message, msg.ccode, msg.reason = b"tx", b"\x10", b"bad-txns-inputs-missingorspent"
samples["reject"] = (msg, {"message": "tx", "code": 0x10, "reason": "bad-txns-inputs-missingorspent", "data": ""})

problems = []
checked = 0
for name, (msg, values) in samples.items():
    ours = open(os.path.join(work, name + ".bin"), "rb").read()
    theirs = msg.to_bytes()
    if name == "reject":
        # Ours carries the rejected transaction's hash after the reason.
        if ours[24:] != theirs[24:] + hash_of(9):
            problems.append(f"{name}: payloads differ")
    elif ours != theirs:
        problems.append(f"{name}: blockwire's bytes differ from bitcoinlib's ({len(ours)} vs {len(theirs)})")
    # And the other way: blockwire reads bitcoinlib's bytes.
    path = os.path.join(work, "py_" + name + ".bin")
    open(path, "wb").write(theirs)
    out = subprocess.run([tool, "read", path], capture_output=True, text=True)
    got = json.loads(out.stdout)
    if got.get("command") != name:
        problems.append(f"{name}: blockwire read {got}")
    for k, want in values.items():
        if got.get(k) != want:
            problems.append(f"{name}.{k}: blockwire read {got.get(k)!r}, bitcoinlib made {want!r}")
    checked += 1

# headers: bitcoinlib writes the 80-byte headers without their transaction count.
ours = open(os.path.join(work, "headers.bin"), "rb").read()
payload = ours[24:]
headers = [block.get_header(), segwit.get_header()]
expected = bytes([2]) + b"".join(h.serialize() + b"\x00" for h in headers)
if payload != expected:
    problems.append("headers: payload is not count, then each header and a zero transaction count")
checked += 1

for p in problems:
    print(p)
print(f"{checked} messages compared with python-bitcoinlib: {len(problems)} differences")
print(f"{0 if problems else 1} passed, {1 if problems else 0} failed")
sys.exit(1 if problems else 0)
