"""What the tests expect, worked out without blockwire: amounts in satoshis from Core's JSON, Core's JSON compared the
way Core writes it (key order, Decimals by their text), the script templates whose addresses python-bitcoinlib knows,
and bitcoin-etl's name for a script without an address."""

import decimal
import hashlib

from bitcoin.core import b2lx
from bitcoin.core.serialize import Hash, VarIntSerializer

COIN = 100_000_000


def sats(btc):
    """Satoshis of one of Core's amounts (a Decimal of BTC); exact, or an AssertionError."""
    value = btc * COIN
    assert value == value.to_integral_value(), f'{btc} BTC is not a whole number of satoshis'
    return int(value)


def display_hash(data):
    """Bitcoin's display form of data's SHA256d (python-bitcoinlib's Hash): the digest's bytes reversed, as hex."""
    return b2lx(Hash(data))


def json_differences(got, expected, path='$', limit=20):
    """Where `got` differs from Core's `expected` (objects from json.loads(parse_float=Decimal)): keys and their order,
    list lengths, types, and Decimals by their text too, since Core writes 50.00000000 and not 50."""
    problems = []

    def walk(g, e, p):
        if len(problems) >= limit:
            return
        if isinstance(e, dict):
            if not isinstance(g, dict):
                problems.append(f'{p}: an object expected, got {g!r:.200}')
            elif list(g) != list(e):
                problems.append(f'{p}: keys {list(g)}, Core has {list(e)}')
            else:
                for k in e:
                    walk(g[k], e[k], f'{p}.{k}')
        elif isinstance(e, list):
            if not isinstance(g, list) or len(g) != len(e):
                problems.append(f'{p}: a list of {len(e)} expected, got {g!r:.200}')
            else:
                for i, (gi, ei) in enumerate(zip(g, e)):
                    walk(gi, ei, f'{p}[{i}]')
        elif type(g) is not type(e) or g != e or (isinstance(e, decimal.Decimal) and str(g) != str(e)):
            problems.append(f'{p}: {g!r:.200}, Core has {e!r:.200}')

    walk(got, expected, path)
    return problems


def assert_core_json(got, expected, what):
    problems = json_differences(got, expected)
    assert not problems, f'{what} differs from Core\'s answer:\n  ' + '\n  '.join(problems)


def without(obj, *keys):
    return {k: v for k, v in obj.items() if k not in keys}


def decoderawtransaction(tx):
    """Core's decoderawtransaction object of a transaction object from getblock 2 or 3: the same TxToUniv without the
    undo data (each input's "prevout", the "fee") and without "hex" (include_hex is false there)."""
    out = without(tx, 'hex', 'fee')
    out['vin'] = [without(i, 'prevout') for i in tx['vin']]
    return out


def getblock2(block):
    """Core's getblock 2 of a block from getblock 3: the inputs' "prevout" objects are what 3 adds."""
    out = dict(block)
    out['tx'] = [dict(t, vin=[without(i, 'prevout') for i in t['vin']]) for t in block['tx']]
    return out


def getblock1(block):
    """Core's getblock 1 of a block from getblock 3: "tx" the txids."""
    return dict(block, tx=[t['txid'] for t in block['tx']])


def address_template(script):
    """The kind of a script that is exactly one of the four templates python-bitcoinlib's CBitcoinAddress encodes as
    Core does (Core's type name), or None. Looser forms bitcoinlib also accepts (non-minimal pushes, a bare key turned
    into P2PKH) are not Core's, so they are left out."""
    s = bytes(script)
    if len(s) == 25 and s[:3] == b'\x76\xa9\x14' and s[23:] == b'\x88\xac':
        return 'pubkeyhash'
    if len(s) == 23 and s[:2] == b'\xa9\x14' and s[22:] == b'\x87':
        return 'scripthash'
    if len(s) == 22 and s[:2] == b'\x00\x14':
        return 'witness_v0_keyhash'
    if len(s) == 34 and s[:2] == b'\x00\x20':
        return 'witness_v0_scripthash'
    return None


def nonstandard_address(script_hex):
    """bitcoin-etl's name for a script without an address (script_hex_to_non_standard_address)."""
    return 'nonstandard' + hashlib.sha256(bytes.fromhex(script_hex)).hexdigest()[:40]


def etl_addresses(script_pubkey):
    """bitcoin-etl's addresses of one of Core's scriptPubKey objects: its address, else the nonstandard name."""
    return [script_pubkey['address'] if 'address' in script_pubkey else nonstandard_address(script_pubkey['hex'])]


def required_signatures(script_pubkey):
    """What Core's reqSigs was (ExtractDestinations before Core 22): m of a bare multisig (the asm's first number), 1
    for every script with a destination (P2PK included), nothing for OP_RETURN and nonstandard scripts."""
    kind = script_pubkey['type']
    if kind == 'multisig':
        return int(script_pubkey['asm'].split()[0])
    if 'address' in script_pubkey or kind == 'pubkey':
        return 1
    return None


def is_coinbase(tx):
    return 'coinbase' in tx['vin'][0]


def compact_size(n):
    """Bitcoin's CompactSize, as python-bitcoinlib writes it."""
    return VarIntSerializer.serialize(n)


def block_bytes(block):
    """The serialized block of a getblock 3 object: the header from its fields, then the transactions' hex."""
    header = (block['version'].to_bytes(4, 'little', signed=True)
              + bytes.fromhex(block.get('previousblockhash', '00' * 32))[::-1]
              + bytes.fromhex(block['merkleroot'])[::-1]
              + block['time'].to_bytes(4, 'little')
              + int(block['bits'], 16).to_bytes(4, 'little')
              + block['nonce'].to_bytes(4, 'little'))
    assert display_hash(header) == block['hash'], f'the header built from Core\'s fields of {block["hash"]} is wrong'
    return header + compact_size(len(block['tx'])) + b''.join(bytes.fromhex(t['hex']) for t in block['tx'])
