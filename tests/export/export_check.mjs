// blockwire export, loaded into a real engine (DuckDB) and checked against
// what `blockwire blocks --json --verbosity 3` says of the same chain (that
// output is itself checked against Bitcoin Core's getblock elsewhere):
//   node export_check.mjs BLOCKWIRE MAKE_CHAIN WORK_DIR
// - every row of every NDJSON and CSV shard, field by field, against the
//   blocks' JSON; totals (blocks, transactions, inputs, outputs, output
//   value, fees) from DuckDB's SQL over the shards;
// - a join of inputs to the outputs they spend finds every input;
// - shards made by separate --from/--count runs, and a short last shard
//   later made whole, are byte for byte the shards of one run; a rerun
//   skips whole shards;
// - no rev files: the inputs' values and the fees are null, and it says so;
// - a damaged block: its shard is not made (exit 1, the block's place
//   said), every other shard is.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { chainTotals, sats } from './chain_totals.mjs';
import { DuckDBInstance } from './duckdb.mjs';

const [blockwire, makeChain, work] = process.argv.slice(2);
let failures = 0;
function check(ok, what) {
  if (!ok) {
    failures++;
    console.error(`FAIL: ${what}`);
  }
}
function equal(got, want, what) {
  const ok = JSON.stringify(got) === JSON.stringify(want);
  check(ok, `${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
  return ok;
}
function run(cmd, args, { status = 0 } = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== status) {
    throw new Error(`${cmd} ${args.join(' ')}: exit ${r.status}, want ${status}\n${r.stderr}`);
  }
  return r;
}

fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });
const chain = path.join(work, 'chain');
const HEIGHTS = 251;  // make_chain's N blocks and genesis
run(makeChain, [chain, String(HEIGHTS - 1), '--undo']);

// What the blocks say, as Core's getblock 3 shapes it.
const blocks = JSON.parse(run(blockwire, ['blocks', chain, '--json', '--verbosity', '3']).stdout);
equal(blocks.length, HEIGHTS, 'blocks --json: the chain');
const sha256hex = (hex) => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');
// bitcoin-etl's address of a script without one.
const addressOf = (spk) => spk.address ?? `nonstandard${sha256hex(spk.hex).slice(0, 40)}`;
const requiredOf = (spk) => {
  if (spk.type === 'multisig') return Number(spk.asm.split(' ')[0]);
  return ['pubkey', 'pubkeyhash', 'scripthash', 'witness_v0_keyhash', 'witness_v0_scripthash', 'witness_v1_taproot', 'witness_unknown']
             .includes(spk.type) ? 1 : null;
};

// The rows bitcoin-etl's schema gives each block and transaction, made
// here from the blocks' JSON; `undo`: the directory has rev files.
function expectedBlock(b) {
  return {
    hash: b.hash, size: b.size, stripped_size: b.strippedsize, weight: b.weight, number: b.height, version: b.version,
    merkle_root: b.merkleroot, timestamp: b.time, nonce: b.nonce.toString(16), bits: b.bits, coinbase_param: b.tx[0].vin[0].coinbase,
    transaction_count: b.nTx,
  };
}
function expectedTransaction(b, tx, index, undo) {
  const coinbase = 'coinbase' in tx.vin[0];
  const inputs = coinbase ? [] : tx.vin.map((vin, i) => ({
    index: i, spent_transaction_hash: vin.txid, spent_output_index: vin.vout, script_asm: vin.scriptSig.asm, script_hex: vin.scriptSig.hex,
    sequence: vin.sequence, required_signatures: undo ? requiredOf(vin.prevout.scriptPubKey) : null,
    type: undo ? vin.prevout.scriptPubKey.type : null, addresses: undo ? [addressOf(vin.prevout.scriptPubKey)] : null,
    value: undo ? sats(vin.prevout.value) : null,
  }));
  const outputs = tx.vout.map((o) => ({
    index: o.n, script_asm: o.scriptPubKey.asm, script_hex: o.scriptPubKey.hex, required_signatures: requiredOf(o.scriptPubKey),
    type: o.scriptPubKey.type, addresses: [addressOf(o.scriptPubKey)], value: sats(o.value),
  }));
  const outputValue = outputs.reduce((s, o) => s + o.value, 0);
  const inputValue = coinbase ? 0 : undo ? inputs.reduce((s, i) => s + i.value, 0) : null;
  return {
    hash: tx.txid, size: tx.size, virtual_size: tx.vsize, version: tx.version, lock_time: tx.locktime, block_number: b.height,
    block_hash: b.hash, block_timestamp: b.time, is_coinbase: coinbase, index, inputs, outputs, input_count: inputs.length,
    output_count: outputs.length, input_value: inputValue, output_value: outputValue,
    fee: coinbase ? 0 : undo ? sats(tx.fee) : null,
  };
}

const files = (dir) => fs.readdirSync(dir, { recursive: true }).filter((f) => fs.statSync(path.join(dir, f)).isFile()).sort();
const lines = (file) => fs.readFileSync(file, 'utf8').split('\n').filter((l) => l !== '');

// Every NDJSON row, in shard order, equals what the blocks' JSON gives.
function checkNdjsonRows(out, undo, what) {
  const rows = (table) => files(path.join(out, table)).flatMap((f) => lines(path.join(out, table, f)).map((l) => JSON.parse(l)));
  const blockRows = rows('blocks');
  const txRows = rows('transactions');
  equal(blockRows.length, blocks.length, `${what}: block rows`);
  let bad = 0;
  blocks.forEach((b, h) => { if (!equal(blockRows[h], expectedBlock(b), `${what}: the row of block ${h}`)) bad++; });
  const wantTx = blocks.flatMap((b) => b.tx.map((tx, i) => expectedTransaction(b, tx, i, undo)));
  equal(txRows.length, wantTx.length, `${what}: transaction rows`);
  wantTx.forEach((t, i) => { if (bad < 5 && !equal(txRows[i], t, `${what}: transaction row ${i}`)) bad++; });
  return { blockRows, txRows };
}

const nd = path.join(work, 'ndjson');
const csv = path.join(work, 'csv');
const exported = run(blockwire, ['export', chain, '-o', nd, '--shard-blocks', '40', '--threads', '2']);
check(/7 shards .* 7 made/.test(exported.stdout), `export's summary: ${exported.stdout}`);
run(blockwire, ['export', chain, '-o', csv, '--shard-blocks', '40', '--format', 'csv']);
const shardNames = files(path.join(nd, 'blocks'));
equal(shardNames[6], 'start_block=00000240/end_block=00000250/blocks_00000240_00000250.json', 'the last shard, short');
equal(shardNames[0], 'start_block=00000000/end_block=00000039/blocks_00000000_00000039.json', 'the first shard');
checkNdjsonRows(nd, true, 'ndjson');

// The CSV tables hold the same rows, flattened.
const header = (file) => fs.readFileSync(file, 'utf8').split('\n')[0];
const csvFirst = (table) => path.join(csv, table, files(path.join(csv, table))[0]);
equal(header(csvFirst('blocks')).split(','), Object.keys(expectedBlock(blocks[0])), 'blocks.csv header');
equal(header(csvFirst('transactions')).split(','),
      Object.keys(expectedTransaction(blocks[0], blocks[0].tx[0], 0, true)).filter((k) => k !== 'inputs' && k !== 'outputs'),
      'transactions.csv header');
const keys = ['transaction_hash', 'block_hash', 'block_number', 'block_timestamp'];
equal(header(csvFirst('inputs')).split(','),
      [...keys, 'index', 'spent_transaction_hash', 'spent_output_index', 'script_asm', 'script_hex', 'sequence', 'required_signatures', 'type',
       'addresses', 'value'], 'inputs.csv header');
equal(header(csvFirst('outputs')).split(','),
      [...keys, 'index', 'script_asm', 'script_hex', 'required_signatures', 'type', 'addresses', 'value'], 'outputs.csv header');

// DuckDB reads the shards as tables: totals against the blocks' JSON.
const db = await DuckDBInstance.create(':memory:');
const sql = await db.connect();
async function one(query) {
  const rows = (await sql.runAndReadAll(query)).getRowObjectsJson();
  return rows[0];
}
const want = chainTotals(blocks);
check(want.inputs > 50, `the chain spends (${want.inputs} inputs)`);
const json = (table) => `read_json('${nd}/${table}/*/*/*.json', format = 'newline_delimited', hive_partitioning = true)`;
const csvTable = (table) => `read_csv('${csv}/${table}/*/*/*.csv', header = true, hive_partitioning = true, allow_quoted_nulls = false)`;
const totals = async (txs, ins, outs, blocksTable) => {
  const t = await one(`SELECT count(*) AS n, sum(output_value) AS v, sum(fee) AS f, sum(input_count) AS i, sum(output_count) AS o FROM ${txs}`);
  return {
    blocks: Number((await one(`SELECT count(*) AS n FROM ${blocksTable}`)).n),
    transactions: Number(t.n),
    inputs: Number((await one(`SELECT count(*) AS n FROM ${ins}`)).n),
    outputs: Number((await one(`SELECT count(*) AS n FROM ${outs}`)).n),
    output_value: Number(t.v),
    fees: Number(t.f),
    counts: [Number(t.i), Number(t.o)],
  };
};
await sql.run(`CREATE VIEW nd_inputs AS SELECT hash AS transaction_hash, unnest(inputs, recursive := true) FROM ${json('transactions')}`);
await sql.run(`CREATE VIEW nd_outputs AS SELECT hash AS transaction_hash, unnest(outputs, recursive := true) FROM ${json('transactions')}`);
const ndTotals = await totals(json('transactions'), 'nd_inputs', 'nd_outputs', json('blocks'));
equal(ndTotals, { ...want, counts: [want.inputs, want.outputs] }, 'DuckDB over the NDJSON shards: totals');
const csvTotals = await totals(csvTable('transactions'), csvTable('inputs'), csvTable('outputs'), csvTable('blocks'));
equal(csvTotals, { ...want, counts: [want.inputs, want.outputs] }, 'DuckDB over the CSV shards: totals');
// Each row lies in its shard's range (the Hive columns).
for (const [table, column] of [['blocks', 'number'], ['transactions', 'block_number']]) {
  const stray = await one(`SELECT count(*) AS n FROM ${json(table)} WHERE ${column} NOT BETWEEN CAST(start_block AS BIGINT) AND CAST(end_block AS BIGINT)`);
  equal(Number(stray.n), 0, `NDJSON ${table} rows outside their shard's range`);
}
// Every input finds the output it spends, with the same value and address.
for (const [name, ins, outs] of [['NDJSON', 'nd_inputs', 'nd_outputs'], ['CSV', csvTable('inputs'), csvTable('outputs')]]) {
  const joined = await one(`SELECT count(*) AS n, count(*) FILTER (WHERE i.value = o.value AND i.addresses = o.addresses) AS same
                            FROM ${ins} i JOIN ${outs} o ON i.spent_transaction_hash = o.transaction_hash AND i.spent_output_index = o.index`);
  equal([Number(joined.n), Number(joined.same)], [want.inputs, want.inputs], `${name}: inputs joined to the outputs they spend`);
}
// The CSV's rows are the NDJSON's, value for value.
const diff = await one(`SELECT count(*) AS n FROM (SELECT hash, size, virtual_size, fee, input_value, output_value FROM ${json('transactions')}
                        EXCEPT SELECT hash, size, virtual_size, fee, input_value, output_value FROM ${csvTable('transactions')})`);
equal(Number(diff.n), 0, 'CSV transactions differ from NDJSON');
const outDiff = await one(`SELECT count(*) AS n FROM (SELECT transaction_hash, index, script_asm, script_hex, type, value FROM nd_outputs
                           EXCEPT SELECT transaction_hash, index, script_asm, script_hex, type, value FROM ${csvTable('outputs')})`);
equal(Number(outDiff.n), 0, 'CSV outputs differ from NDJSON');
// An empty script_sig (every segwit input's) is an empty string in both, not a null.
const inDiff = await one(`SELECT count(*) AS n FROM (SELECT transaction_hash, index, script_asm, script_hex, sequence, value FROM nd_inputs
                          EXCEPT SELECT transaction_hash, index, script_asm, script_hex, sequence, value FROM ${csvTable('inputs')})`);
equal(Number(inDiff.n), 0, 'CSV inputs differ from NDJSON');
const emptySig = await one(`SELECT count(*) FILTER (WHERE script_hex = '') AS empty, count(*) FILTER (WHERE script_hex IS NULL) AS nulls
                            FROM ${csvTable('inputs')}`);
check(Number(emptySig.empty) > 0 && Number(emptySig.nulls) === 0, `CSV: empty script_sigs are "" (${JSON.stringify(emptySig)})`);

// Shards made by separate runs are the same bytes as one run's.
const sameTree = (a, b, what) => {
  const fa = files(a), fb = files(b);
  if (!equal(fa, fb, `${what}: the files`)) return;
  const differing = fa.filter((f) => !fs.readFileSync(path.join(a, f)).equals(fs.readFileSync(path.join(b, f))));
  equal(differing, [], `${what}: files whose bytes differ`);
};
const split = path.join(work, 'split');
run(blockwire, ['export', chain, '-o', split, '--shard-blocks', '40', '--from', '120', '--count', '80', '--threads', '1']);
run(blockwire, ['export', chain, '-o', split, '--shard-blocks', '40', '--count', '120']);
const rest = run(blockwire, ['export', chain, '-o', split, '--shard-blocks', '40']);
check(/5 already whole/.test(rest.stdout), `the third run skips the five whole shards: ${rest.stdout}`);
sameTree(nd, split, 'three runs');
// A short last shard (--count ended it) is made whole by a later run, and
// the short one is gone.
const grow = path.join(work, 'grow');
run(blockwire, ['export', chain, '-o', grow, '--shard-blocks', '40', '--count', '100', '--format', 'csv']);
check(fs.existsSync(path.join(grow, 'outputs/start_block=00000080/end_block=00000099/outputs_00000080_00000099.csv')), 'the short shard');
run(blockwire, ['export', chain, '-o', grow, '--shard-blocks', '40', '--format', 'csv']);
sameTree(csv, grow, 'a short shard made whole');
// A rerun skips every whole shard and leaves its files alone.
const before = files(nd).map((f) => fs.statSync(path.join(nd, f)).mtimeMs);
const again = run(blockwire, ['export', chain, '-o', nd, '--shard-blocks', '40']);
check(/0 made .* 7 already whole/.test(again.stdout), `a rerun: ${again.stdout}`);
equal(files(nd).map((f) => fs.statSync(path.join(nd, f)).mtimeMs), before, 'a rerun: the files untouched');
// A shorter run after a longer one: its last shard lies inside a longer
// whole one and is skipped, and nothing of the longer one is removed.
const shorter = run(blockwire, ['export', chain, '-o', nd, '--shard-blocks', '40', '--count', '100']);
check(/0 made .* 3 already whole/.test(shorter.stdout), `a shorter run skips: ${shorter.stdout}`);
check(!fs.existsSync(path.join(nd, 'blocks/start_block=00000080/end_block=00000099')), 'no shorter shard made inside a longer one');
equal(files(nd).map((f) => fs.statSync(path.join(nd, f)).mtimeMs), before, 'a shorter run: the files untouched');
// --from off a shard boundary is refused: the shards would not line up.
const off = run(blockwire, ['export', chain, '-o', path.join(work, 'off'), '--shard-blocks', '40', '--from', '30'], { status: 2 });
check(/multiple of --shard-blocks/.test(off.stderr), `--from 30: ${off.stderr}`);

// No rev files: the rows are made, the values they would give are null.
const bare = path.join(work, 'bare');
fs.mkdirSync(bare);
for (const f of ['blk00000.dat', 'xor.dat']) fs.copyFileSync(path.join(chain, f), path.join(bare, f));
const bareOut = path.join(work, 'bare-out');
const noRev = run(blockwire, ['export', bare, '-o', bareOut, '--shard-blocks', '40']);
check(/no rev files/.test(noRev.stderr), `no rev files said: ${noRev.stderr}`);
checkNdjsonRows(bareOut, false, 'ndjson without rev files');

// A damaged block at height 130: its shard (120-159) is not made, every
// other shard is, and the block's place is said.
const damaged = path.join(work, 'damaged');
fs.mkdirSync(damaged);
for (const f of ['blk00000.dat', 'rev00000.dat', 'xor.dat']) fs.copyFileSync(path.join(chain, f), path.join(damaged, f));
const key = fs.readFileSync(path.join(damaged, 'xor.dat'));
const blk = fs.readFileSync(path.join(damaged, 'blk00000.dat'));
const xor = (buf) => { for (let i = 0; i < buf.length; i++) buf[i] ^= key[i % key.length]; };
xor(blk);
let offset = 0;
for (let h = 0; h < 130; h++) offset += 8 + blk.readUInt32LE(offset + 4);
const size = blk.readUInt32LE(offset + 4);
equal(Buffer.from(blk.subarray(offset + 8 + 4, offset + 8 + 36)).reverse().toString('hex'), blocks[129].hash, 'the record found is block 130');
blk[offset + 8 + size - 1] ^= 0x01;  // the last transaction's lock time: the merkle root no longer matches
xor(blk);
fs.writeFileSync(path.join(damaged, 'blk00000.dat'), blk);
const damagedOut = path.join(work, 'damaged-out');
const bad = run(blockwire, ['export', damaged, '-o', damagedOut, '--shard-blocks', '40'], { status: 1 });
check(bad.stderr.includes(`shard 00000120-00000159 not made`) && bad.stderr.includes(`blk00000.dat:${offset}: block 130`) &&
      /merkle root/.test(bad.stderr), `the damaged block said: ${bad.stderr}`);
check(!fs.existsSync(path.join(damagedOut, 'blocks/start_block=00000120')) ||
      files(path.join(damagedOut, 'blocks/start_block=00000120')).length === 0, 'the damaged shard is not there');
const made = files(damagedOut);
equal(made.filter((f) => f.includes('00000120')), [], 'no file of the damaged shard, not even a temporary one');
equal(made.filter((f) => f !== '.blockwire-export.lock').length, 12, 'the six other shards, two tables each (and the lock)');
for (const f of made) check(fs.readFileSync(path.join(damagedOut, f)).equals(fs.readFileSync(path.join(nd, f))), `${f} as a whole run makes it`);

if (failures !== 0) {
  console.error(`${failures} failures`);
  process.exit(1);
}
console.log('export: every check passed');
