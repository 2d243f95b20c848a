"""Directory.rows (export's NDJSON rows) and Directory.table (export's CSV tables as pandas DataFrames) of Core's
regtest directory, against the rows bitcoin-etl's schema (docs/export.md) gives for Core's getblock 3 answers: hashes,
heights and times of Core's blocks, values in satoshis, each input's spent coin, fees."""

import math
import os
import shutil

import pandas
import pytest

import blockwire

from core_expect import etl_addresses, is_coinbase, required_signatures, sats

TIP = 238

# docs/export.md, "The tables": the CSV files' columns, in order.
COLUMNS = {
    'blocks': ['hash', 'size', 'stripped_size', 'weight', 'number', 'version', 'merkle_root', 'timestamp', 'nonce',
               'bits', 'coinbase_param', 'transaction_count'],
    'transactions': ['hash', 'size', 'virtual_size', 'version', 'lock_time', 'block_number', 'block_hash',
                     'block_timestamp', 'is_coinbase', 'index', 'input_count', 'output_count', 'input_value',
                     'output_value', 'fee'],
    'inputs': ['transaction_hash', 'block_hash', 'block_number', 'block_timestamp', 'index', 'spent_transaction_hash',
               'spent_output_index', 'script_asm', 'script_hex', 'sequence', 'required_signatures', 'type', 'addresses',
               'value'],
    'outputs': ['transaction_hash', 'block_hash', 'block_number', 'block_timestamp', 'index', 'script_asm',
                'script_hex', 'required_signatures', 'type', 'addresses', 'value'],
}


def expected_block_row(b):
    return {
        'hash': b['hash'],
        'size': b['size'],
        'stripped_size': b['strippedsize'],
        'weight': b['weight'],
        'number': b['height'],
        'version': b['version'],
        'merkle_root': b['merkleroot'],
        'timestamp': b['time'],
        'nonce': format(b['nonce'], 'x'),
        'bits': b['bits'],
        'coinbase_param': b['tx'][0]['vin'][0]['coinbase'],
        'transaction_count': b['nTx'],
    }


def expected_input_row(n, vin):
    prevout = vin['prevout']['scriptPubKey']
    return {
        'index': n,
        'spent_transaction_hash': vin['txid'],
        'spent_output_index': vin['vout'],
        'script_asm': vin['scriptSig']['asm'],
        'script_hex': vin['scriptSig']['hex'],
        'sequence': vin['sequence'],
        'required_signatures': required_signatures(prevout),
        'type': prevout['type'],
        'addresses': etl_addresses(prevout),
        'value': sats(vin['prevout']['value']),
    }


def expected_output_row(vout):
    spk = vout['scriptPubKey']
    return {
        'index': vout['n'],
        'script_asm': spk['asm'],
        'script_hex': spk['hex'],
        'required_signatures': required_signatures(spk),
        'type': spk['type'],
        'addresses': etl_addresses(spk),
        'value': sats(vout['value']),
    }


def expected_transaction_row(b, index, t):
    """bitcoin-etl's transaction of Core's: a coinbase's input is not listed, and its input value and fee are 0."""
    coinbase = is_coinbase(t)
    inputs = [] if coinbase else [expected_input_row(n, vin) for n, vin in enumerate(t['vin'])]
    outputs = [expected_output_row(vout) for vout in t['vout']]
    input_value = sum(i['value'] for i in inputs)
    output_value = sum(o['value'] for o in outputs)
    fee = 0 if coinbase else sats(t['fee'])
    assert coinbase or input_value - output_value == fee, f'{t["txid"]}: Core\'s fee is not its inputs less outputs'
    return {
        'hash': t['txid'],
        'size': t['size'],
        'virtual_size': t['vsize'],
        'version': t['version'],
        'lock_time': t['locktime'],
        'block_number': b['height'],
        'block_hash': b['hash'],
        'block_timestamp': b['time'],
        'is_coinbase': coinbase,
        'index': index,
        'inputs': inputs,
        'outputs': outputs,
        'input_count': len(inputs),
        'output_count': len(outputs),
        'input_value': input_value,
        'output_value': output_value,
        'fee': fee,
    }


def expected_transactions(getblock3, start=0, stop=TIP):
    return [expected_transaction_row(b, i, t) for b in getblock3[start:stop] for i, t in enumerate(b['tx'])]


def differing_keys(got, expected):
    return sorted(k for k in set(got) | set(expected) if got.get(k, '<absent>') != expected.get(k, '<absent>'))


def as_int(v):
    """A number from a DataFrame cell, whatever dtype pandas gave the column."""
    assert not (isinstance(v, float) and math.isnan(v)), 'an empty (null) field where a number is expected'
    return int(v)


def as_bool(v):
    return v.strip().lower() == 'true' if isinstance(v, str) else bool(v)


@pytest.fixture(scope='module')
def transaction_rows(directory):
    rows = directory.rows('transactions', 0, TIP)
    assert iter(rows) is rows, 'rows() gives an iterator'
    return list(rows)


def test_transaction_rows_match_core(transaction_rows, getblock3):
    expected = expected_transactions(getblock3)
    assert len(transaction_rows) == len(expected) == 379, \
        f'{len(transaction_rows)} transaction rows; Core\'s chain has {len(expected)} transactions'
    for got, want in zip(transaction_rows, expected):
        assert got == want, f'transaction row of {want["hash"]} (block {want["block_number"]}): ' \
            f'{differing_keys(got, want)} differ from Core\'s'


def test_transaction_rows_of_a_range(directory, getblock3):
    got = list(directory.rows('transactions', 100, 110))
    expected = expected_transactions(getblock3, 100, 110)
    assert [r['hash'] for r in got] == [r['hash'] for r in expected], 'rows(\'transactions\', 100, 110): the txids'
    assert {r['block_number'] for r in got} == set(range(100, 110)), 'rows of heights 100-109 only'


def test_block_rows_match_core(directory, getblock3):
    rows = list(directory.rows('blocks'))
    assert len(rows) == TIP, f'{len(rows)} block rows by default; the chain has {TIP} blocks'
    for got, b in zip(rows, getblock3):
        want = expected_block_row(b)
        assert got == want, f'block row {b["height"]}: {differing_keys(got, want)} differ from Core\'s'


@pytest.mark.parametrize('table', sorted(COLUMNS))
def test_table_columns(directory, table):
    frame = directory.table(table, 0, TIP)
    assert isinstance(frame, pandas.DataFrame), f'table(\'{table}\') is not a DataFrame'
    assert list(frame.columns) == COLUMNS[table], f'table(\'{table}\'): columns differ from docs/export.md\'s'


def test_blocks_table(directory, getblock3):
    frame = directory.table('blocks', 0, TIP)
    assert len(frame) == TIP, f'table(\'blocks\'): {len(frame)} rows for {TIP} blocks'
    for row, b in zip(frame.to_dict('records'), getblock3):
        got = (str(row['hash']), as_int(row['number']), as_int(row['timestamp']), as_int(row['transaction_count']),
               as_int(row['size']), as_int(row['stripped_size']), as_int(row['weight']), str(row['merkle_root']))
        want = (b['hash'], b['height'], b['time'], b['nTx'], b['size'], b['strippedsize'], b['weight'], b['merkleroot'])
        assert got == want, f'table(\'blocks\') row {b["height"]}: (hash, number, timestamp, transaction_count, ' \
            'size, stripped_size, weight, merkle_root)'


def test_transactions_table(directory, getblock3):
    frame = directory.table('transactions', 0, TIP)
    expected = expected_transactions(getblock3)
    assert len(frame) == len(expected), f'table(\'transactions\'): {len(frame)} rows for {len(expected)} transactions'
    numbers = ['size', 'virtual_size', 'version', 'lock_time', 'block_number', 'block_timestamp', 'index',
               'input_count', 'output_count', 'input_value', 'output_value', 'fee']
    for row, want in zip(frame.to_dict('records'), expected):
        got = {k: as_int(row[k]) for k in numbers}
        got.update(hash=str(row['hash']), block_hash=str(row['block_hash']), is_coinbase=as_bool(row['is_coinbase']))
        want = {k: want[k] for k in got}
        assert got == want, f'table(\'transactions\') row of {want["hash"]}: {differing_keys(got, want)} differ'


def check_rows_by_outpoint(frame, expected, table, count, columns):
    """`frame`'s rows, keyed by (transaction_hash, index), equal `expected` (Core's values of `columns`, in order)."""
    assert len(frame) == len(expected) == count, \
        f'table(\'{table}\'): {len(frame)} rows; Core\'s chain has {len(expected)}'
    text = {'block_hash', 'spent_transaction_hash', 'type', 'addresses'}
    got = {}
    for row in frame.to_dict('records'):
        key = (str(row['transaction_hash']), as_int(row['index']))
        assert key not in got, f'table(\'{table}\') lists {key} twice'
        got[key] = tuple(str(row[c]) if c in text else as_int(row[c]) for c in columns)
    wrong = [k for k in expected if got.get(k) != expected[k]]
    assert not wrong, f'table(\'{table}\') rows differing from Core\'s ({", ".join(columns)}): ' \
        f'{[(k, got.get(k), expected[k]) for k in wrong[:3]]}'


def test_inputs_table(directory, getblock3):
    expected = {}
    for b in getblock3:
        for t in b['tx']:
            if is_coinbase(t):
                continue
            for n, vin in enumerate(t['vin']):
                expected[(t['txid'], n)] = (b['hash'], b['height'], b['time'], vin['txid'], vin['vout'],
                                            vin['sequence'], sats(vin['prevout']['value']),
                                            vin['prevout']['scriptPubKey']['type'],
                                            etl_addresses(vin['prevout']['scriptPubKey'])[0])
    check_rows_by_outpoint(directory.table('inputs', 0, TIP), expected, 'inputs', 302,
                           ['block_hash', 'block_number', 'block_timestamp', 'spent_transaction_hash',
                            'spent_output_index', 'sequence', 'value', 'type', 'addresses'])


def test_outputs_table(directory, getblock3):
    expected = {}
    for b in getblock3:
        for t in b['tx']:
            for vout in t['vout']:
                expected[(t['txid'], vout['n'])] = (b['hash'], b['height'], b['time'], sats(vout['value']),
                                                    vout['scriptPubKey']['type'],
                                                    etl_addresses(vout['scriptPubKey'])[0])
    check_rows_by_outpoint(directory.table('outputs', 0, TIP), expected, 'outputs', 859,
                           ['block_hash', 'block_number', 'block_timestamp', 'value', 'type', 'addresses'])


def test_outputs_table_of_a_range(directory, getblock3):
    frame = directory.table('outputs', 200, 210)
    expected = sum(len(t['vout']) for b in getblock3[200:210] for t in b['tx'])
    assert len(frame) == expected, f'table(\'outputs\', 200, 210): {len(frame)} rows for {expected} outputs'
    assert {as_int(n) for n in frame['block_number']} == set(range(200, 210)), 'outputs of heights 200-209 only'


def test_columns_typed_from_the_schema(directory):
    frames = {t: directory.table(t, 0, TIP) for t in ('blocks', 'transactions', 'inputs', 'outputs')}
    expected = {
        ('blocks', 'number'): 'int64', ('blocks', 'hash'): 'object', ('blocks', 'nonce'): 'object',
        ('transactions', 'is_coinbase'): 'bool', ('transactions', 'fee'): 'Int64', ('transactions', 'size'): 'int64',
        ('inputs', 'value'): 'Int64', ('inputs', 'sequence'): 'int64', ('inputs', 'script_hex'): 'object',
        ('outputs', 'value'): 'int64', ('outputs', 'required_signatures'): 'Int64', ('outputs', 'type'): 'object',
    }
    got = {(t, c): str(frames[t][c].dtype) for t, c in expected}
    assert got == expected
    # A script that is empty is "", not null: every segwit input's script_sig (Core's getblock says "hex": "").
    assert (frames['inputs']['script_hex'] == '').any(), 'no empty script_sig among the inputs: the check could not fail'
    assert not frames['inputs']['script_hex'].isna().any()


def test_without_rev_files_the_spent_columns_are_null(regtest_dir, tmp_path):
    # The blk files and xor.dat alone: no undo data, so what inputs spent is unknown, not zero.
    blocks = tmp_path / 'blocks'
    blocks.mkdir()
    for name in os.listdir(os.path.join(regtest_dir, 'blocks')):
        if name.startswith('blk') or name == 'xor.dat':
            shutil.copy(os.path.join(regtest_dir, 'blocks', name), blocks / name)
    d = blockwire.open_directory(str(blocks))
    assert not d.has_undo
    inputs = d.table('inputs', 0, len(d))
    assert len(inputs) == 302
    assert inputs['value'].isna().all() and inputs['type'].isna().all() and inputs['addresses'].isna().all()
    transactions = d.table('transactions', 0, len(d))
    coinbase = transactions['is_coinbase']
    assert transactions.loc[~coinbase, 'fee'].isna().all()
    assert (transactions.loc[coinbase, 'fee'] == 0).all(), 'a coinbase pays no fee, known without undo data'
    rows = [r for r in d.rows('transactions', 0, len(d)) if not r['is_coinbase']]
    assert rows and all(r['fee'] is None and r['input_value'] is None for r in rows)
