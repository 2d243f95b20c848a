#!/usr/bin/python3
"""Compares `blockwire inspect --json BLOCK` with the JSON Bitcoin Core's
getblock <hash> 2 would print for the block, built independently here: the
block decoded by python-bitcoinlib (Debian's python3-bitcoinlib), the keys,
their order and their formatting written from Core's blockheaderToJSON,
blockToJSON, TxToUniv and ScriptToUniv (src/rpc/blockchain.cpp,
src/core_write.cpp). A loose block has no chain fields (confirmations,
height, mediantime, chainwork, nextblockhash).

Checked independently of blockwire: every hash, id, size and weight, every
input and output field, amounts with 8 decimals, difficulty with 16
significant digits, target, each scriptPubKey's hex, and its address, type
and descriptor where python-bitcoinlib knows the type (P2PKH, P2SH, P2WPKH,
P2WSH, OP_RETURN), the asm of each scriptPubKey from bitcoinlib's own op
iteration. Usage: core_json_check.py BLOCKWIRE BLOCK...
"""
import json
import subprocess
import sys
from collections import OrderedDict
from decimal import Decimal

import bitcoin
import bitcoin.core as core
import bitcoin.core.script as script
import bitcoin.wallet as wallet

bitcoin.SelectParams("mainnet")

# BIP380's checksum, written from the BIP's description.
INPUT_CHARSET = "0123456789()[],'/*abcdefgh@:$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~ijklmnopqrstuvwxyzABCDEFGH`#\"\\ "
CHECKSUM_CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
GENERATOR = [0xF5DEE51989, 0xA9FDCA3312, 0x1BAB10E32D, 0x3706B1677A, 0x644D626FFD]


def checksum(desc):
    def step(chk, value):
        top = chk >> 35
        chk = (chk & 0x7FFFFFFFF) << 5 ^ value
        for i in range(5):
            if (top >> i) & 1:
                chk ^= GENERATOR[i]
        return chk

    chk, groups = 1, []
    for c in desc:
        v = INPUT_CHARSET.index(c)
        chk = step(chk, v & 31)
        groups.append(v >> 5)
        if len(groups) == 3:
            chk = step(chk, groups[0] * 9 + groups[1] * 3 + groups[2])
            groups = []
    if len(groups) == 1:
        chk = step(chk, groups[0])
    elif len(groups) == 2:
        chk = step(chk, groups[0] * 3 + groups[1])
    for _ in range(8):
        chk = step(chk, 0)
    chk ^= 1
    return "".join(CHECKSUM_CHARSET[(chk >> (5 * (7 - i))) & 31] for i in range(8))


def script_num(data):
    """CScriptNum of a push of up to 4 bytes (not required minimal)."""
    if not data:
        return 0
    value = int.from_bytes(data, "little")
    if data[-1] & 0x80:
        return -(value & ~(0x80 << (8 * (len(data) - 1))))
    return value


def asm(spk):
    """Core's ScriptToAsmStr without sighash decoding, on bitcoinlib's ops."""
    out = []
    try:
        for op, data, _ in spk.raw_iter():
            if op <= script.OP_PUSHDATA4:
                out.append(str(script_num(data)) if len(data) <= 4 else data.hex())
            elif script.OP_1 <= op <= script.OP_16:
                out.append(str(op - script.OP_1 + 1))
            elif op == script.OP_1NEGATE:
                out.append("-1")
            else:
                out.append(script.OPCODE_NAMES.get(op, "OP_UNKNOWN"))
    except script.CScriptInvalidError:
        out.append("[error]")
    return " ".join(out)


def known_type(spk):
    """(type, address) where bitcoinlib knows the script; else None."""
    raw = bytes(spk)
    if raw[:1] == b"\x6a" and spk.is_push_only() is not None:
        try:
            if all(op <= script.OP_16 for op, _, _ in script.CScript(raw[1:]).raw_iter()):
                return "nulldata", None
        except script.CScriptInvalidError:
            return None
    kinds = [
        (spk.is_p2sh, "scripthash"),
        (spk.is_witness_v0_keyhash, "witness_v0_keyhash"),
        (spk.is_witness_v0_scripthash, "witness_v0_scripthash"),
    ]
    for test, name in kinds:
        if test():
            return name, str(wallet.CBitcoinAddress.from_scriptPubKey(spk))
    if len(raw) == 25 and raw[:3] == b"\x76\xa9\x14" and raw[23:] == b"\x88\xac":
        return "pubkeyhash", str(wallet.P2PKHBitcoinAddress.from_scriptPubKey(spk))
    return None


def amount(satoshis):
    sign = "-" if satoshis < 0 else ""
    return Decimal(f"{sign}{abs(satoshis) // 100_000_000}.{abs(satoshis) % 100_000_000:08d}")


def difficulty(bits):
    shift = (bits >> 24) & 0xFF
    diff = 0x0000FFFF / (bits & 0x00FFFFFF)
    while shift < 29:
        diff *= 256.0
        shift += 1
    while shift > 29:
        diff /= 256.0
        shift -= 1
    return Decimal(f"{diff:.16g}")


def target(bits):
    exponent, mantissa = bits >> 24, bits & 0x007FFFFF
    value = mantissa >> (8 * (3 - exponent)) if exponent <= 3 else mantissa << (8 * (exponent - 3))
    return f"{value:064x}"


def expected_tx(tx):
    stripped = len(tx.serialize({"include_witness": False}))
    total = len(tx.serialize())
    weight = 3 * stripped + total
    vin = []
    coinbase = tx.is_coinbase()
    for i, txin in enumerate(tx.vin):
        entry = OrderedDict()
        if coinbase:
            entry["coinbase"] = bytes(txin.scriptSig).hex()
        else:
            entry["txid"] = core.b2lx(txin.prevout.hash)
            entry["vout"] = txin.prevout.n
            entry["scriptSig"] = OrderedDict([("asm", None), ("hex", bytes(txin.scriptSig).hex())])  # asm: sighash decoding, not checked
        if tx.has_witness() and tx.wit.vtxinwit[i].scriptWitness.stack:
            entry["txinwitness"] = [item.hex() for item in tx.wit.vtxinwit[i].scriptWitness.stack]
        entry["sequence"] = txin.nSequence
        vin.append(entry)
    vout = []
    for n, txout in enumerate(tx.vout):
        spk = txout.scriptPubKey
        s = OrderedDict([("asm", asm(spk)), ("desc", None), ("hex", bytes(spk).hex())])
        known = known_type(spk)
        if known and known[1]:
            s["desc"] = f"addr({known[1]})#{checksum(f'addr({known[1]})')}"
            s["address"] = known[1]
        elif known and known[0] == "nulldata":
            s["desc"] = f"raw({bytes(spk).hex()})#{checksum(f'raw({bytes(spk).hex()})')}"
        s["type"] = known[0] if known else None
        vout.append(OrderedDict([("value", amount(txout.nValue)), ("n", n), ("scriptPubKey", s)]))
    return OrderedDict([
        ("txid", core.b2lx(tx.GetTxid())), ("hash", core.b2lx(tx.GetHash())), ("version", tx.nVersion),
        ("size", total), ("vsize", (weight + 3) // 4), ("weight", weight), ("locktime", tx.nLockTime),
        ("vin", vin), ("vout", vout), ("hex", tx.serialize().hex()),
    ])


def expected_block(raw):
    block = core.CBlock.deserialize(raw)
    stripped = len(block.serialize({"include_witness": False}))
    out = OrderedDict([
        ("hash", core.b2lx(block.GetHash())), ("version", block.nVersion), ("versionHex", f"{block.nVersion & 0xffffffff:08x}"),
        ("merkleroot", core.b2lx(block.hashMerkleRoot)), ("time", block.nTime), ("nonce", block.nNonce),
        ("bits", f"{block.nBits:08x}"), ("target", target(block.nBits)), ("difficulty", difficulty(block.nBits)),
        ("nTx", len(block.vtx)),
    ])
    if block.hashPrevBlock != b"\x00" * 32:
        out["previousblockhash"] = core.b2lx(block.hashPrevBlock)
    out["strippedsize"] = stripped
    out["size"] = len(raw)
    out["weight"] = 3 * stripped + len(raw)
    out["tx"] = [expected_tx(tx) for tx in block.vtx]
    return out


def compare(expected, got, path, problems):
    """None in `expected`: the key must be there, its value is not checked."""
    if isinstance(expected, OrderedDict):
        if not isinstance(got, OrderedDict):
            problems.append(f"{path}: an object expected, got {got!r}")
            return
        exp_keys, got_keys = list(expected), list(got)
        if exp_keys != got_keys:
            problems.append(f"{path}: keys {got_keys}, Core's order is {exp_keys}")
            return
        for k in exp_keys:
            compare(expected[k], got[k], f"{path}.{k}", problems)
    elif isinstance(expected, list):
        if not isinstance(got, list) or len(got) != len(expected):
            problems.append(f"{path}: {len(expected)} items expected")
            return
        for i, (e, g) in enumerate(zip(expected, got)):
            compare(e, g, f"{path}[{i}]", problems)
    elif expected is not None and (expected != got or (isinstance(expected, Decimal) and str(expected) != str(got))):
        # (Decimals by their text too: 50.00000000 is not written 50.)
        problems.append(f"{path}: {got!r}, expected {expected!r}")


def main():
    exe, blocks = sys.argv[1], sys.argv[2:]
    problems = []
    checked = 0
    for path in blocks:
        raw = open(path, "rb").read()
        out = subprocess.run([exe, "inspect", "--json", path], capture_output=True, check=True).stdout
        got = json.loads(out, object_pairs_hook=OrderedDict, parse_float=Decimal)
        compare(expected_block(raw), got, path.rsplit("/", 1)[-1], problems)
        checked += 1
    for p in problems[:20]:
        print(p)
    print(f"{checked} blocks compared with Core's getblock 2 shape: {len(problems)} differences")
    print(f"{0 if problems else 1} passed, {1 if problems else 0} failed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
