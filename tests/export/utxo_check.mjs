// The UTXO set as tables, loaded into DuckDB and checked against what
// Bitcoin Core's own node said of the same chainstate (gettxoutsetinfo):
//   node utxo_check.mjs BLOCKWIRE CORE_REGTEST_DIR DOCS_EXPORT_MD WORK_DIR
// - utxos --tables, NDJSON and CSV: the count, the total, the transactions
//   and Core's bogosize from SQL over the table equal Core's answer, and
//   the two formats hold the same rows;
// - the query docs/export.md gives for the set at a height, run over
//   export's CSV tables of the same chain at its tip, gives exactly the
//   table's coins;
// - compressed (--compress zstd, gzip): the utxos table's totals again
//   equal Core's, and export's NDJSON and CSV shards read by DuckDB as they
//   are give the totals of Core's getblock 3 (transactions, inputs,
//   outputs, their value, the fees).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { chainTotals } from './chain_totals.mjs';
import { DuckDBInstance } from './duckdb.mjs';

const [blockwire, coreDir, exportDoc, work] = process.argv.slice(2);
let failures = 0;
function equal(got, want, what) {
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    failures++;
    console.error(`FAIL: ${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
  }
}
function run(args) {
  const r = spawnSync(blockwire, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`blockwire ${args.join(' ')}: exit ${r.status}\n${r.stderr}`);
  return r;
}

fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });
const node = path.join(work, 'node');  // a node's data directory: blocks/ and chainstate/ side by side
fs.cpSync(path.join(coreDir, 'blocks'), path.join(node, 'blocks'), { recursive: true });
fs.cpSync(path.join(coreDir, 'chainstate'), path.join(node, 'chainstate'), { recursive: true });
const core = JSON.parse(fs.readFileSync(path.join(coreDir, 'rpc', 'gettxoutsetinfo_hash_serialized_3.json'), 'utf8'));

const json = path.join(work, 'json'), csv = path.join(work, 'csv'), exported = path.join(work, 'export');
run(['utxos', path.join(node, 'chainstate'), '--tables', json, '--no-progress']);
run(['utxos', path.join(node, 'chainstate'), '--tables', csv, '--format', 'csv', '--no-progress']);
run(['export', path.join(node, 'blocks'), '-o', exported, '--format', 'csv', '--no-progress']);
const zstdJson = path.join(work, 'json-zst'), gzipCsv = path.join(work, 'csv-gz');
run(['utxos', path.join(node, 'chainstate'), '--tables', zstdJson, '--compress', 'zstd', '--no-progress']);
run(['utxos', path.join(node, 'chainstate'), '--tables', gzipCsv, '--format', 'csv', '--compress', 'gzip', '--no-progress']);
const exportZstd = path.join(work, 'export-zst'), exportGzip = path.join(work, 'export-gz');
run(['export', path.join(node, 'blocks'), '-o', exportZstd, '--compress', 'zstd', '--shard-blocks', '100', '--no-progress']);
run(['export', path.join(node, 'blocks'), '-o', exportGzip, '--format', 'csv', '--compress', 'gzip', '--shard-blocks', '100', '--no-progress']);

const db = await (await DuckDBInstance.create(':memory:')).connect();
async function rows(sql) {
  return (await db.runAndReadAll(sql)).getRowObjectsJson();
}
const fromJson = `read_json('${json}/utxos/*/*.json', format = 'newline_delimited', hive_partitioning = true)`;
const fromCsv = `read_csv('${csv}/utxos/*/*.csv', header = true, allow_quoted_nulls = false, hive_partitioning = true)`;

// Core's own totals.
const [totals] = await rows(`SELECT count(*) AS txouts, sum(value) AS total, count(DISTINCT transaction_hash) AS transactions,
                                    sum(50 + length(script_hex) / 2) AS bogosize, min(height) AS height FROM ${fromJson}`);
equal(Number(totals.txouts), core.txouts, 'the table\'s coins');
equal(Number(totals.total), Math.round(core.total_amount * 1e8), 'the table\'s total');
equal(Number(totals.transactions), core.transactions, 'the table\'s transactions');
equal(Number(totals.bogosize), core.bogosize, 'the table\'s bogosize');
equal(Number(totals.height), core.height, 'the height partition');
const [tip] = await rows(`SELECT count(*) AS wrong FROM ${fromJson} WHERE block_hash IS NULL OR block_timestamp IS NULL`);
equal(Number(tip.wrong), 0, 'every coin\'s block hash and time known');

// NDJSON and CSV hold the same rows.
const columns = 'transaction_hash, "index", block_number, block_hash, block_timestamp, is_coinbase, script_hex, required_signatures, type, value';
for (const [a, b] of [[fromJson, fromCsv], [fromCsv, fromJson]]) {
  const [diff] = await rows(`SELECT count(*) AS n FROM (SELECT ${columns} FROM ${a} EXCEPT SELECT ${columns} FROM ${b})`);
  equal(Number(diff.n), 0, 'rows in one format and not the other');
}

// The query of docs/export.md over export's tables, at the tip.
const doc = fs.readFileSync(exportDoc, 'utf8');
const block = doc.split('```sql').map((b) => b.split('```')[0]).find((b) => b.includes('-- utxo-set-at-height'));
if (!block) throw new Error(`${exportDoc}: no sql block marked -- utxo-set-at-height`);
const statements = block.replaceAll("'OUT/", `'${exported}/`).split(';').map((s) => s.trim()).filter((s) => s && !/^(--[^\n]*\n?)*$/.test(s));
for (const s of statements.slice(0, -1)) await db.run(s);
await db.run(`CREATE TABLE from_blocks AS ${statements.at(-1)}`);
const [count] = await rows('SELECT count(*) AS n FROM from_blocks');
equal(Number(count.n), core.txouts, 'the set from blocks alone: its coins');
for (const [a, b] of [['from_blocks', fromJson], [fromJson, 'from_blocks']]) {
  const [diff] = await rows(`SELECT count(*) AS n FROM (SELECT transaction_hash, "index", block_number, value FROM ${a}
                                                        EXCEPT SELECT transaction_hash, "index", block_number, value FROM ${b})`);
  equal(Number(diff.n), 0, 'coins in one set and not the other (blocks alone, chainstate)');
}

// Compressed: the same totals, DuckDB reading the files as they are.
const compressedUtxos = [
  ['zstd NDJSON', `read_json('${zstdJson}/utxos/*/*.json.zst', format = 'newline_delimited')`],
  ['gzip CSV', `read_csv('${gzipCsv}/utxos/*/*.csv.gz', header = true, allow_quoted_nulls = false)`],
];
for (const [name, table] of compressedUtxos) {
  const [t] = await rows(`SELECT count(*) AS txouts, sum(value) AS total, count(DISTINCT transaction_hash) AS transactions FROM ${table}`);
  equal([Number(t.txouts), Number(t.total), Number(t.transactions)], [core.txouts, Math.round(core.total_amount * 1e8), core.transactions],
        `the ${name} utxos table's coins, total and transactions`);
}
const getblock3 = JSON.parse(fs.readFileSync(path.join(coreDir, 'rpc', 'getblock3.json'), 'utf8'));
const coreTotals = chainTotals(getblock3);
const ndZstd = (table) => `read_json('${exportZstd}/${table}/*/*/*.json.zst', format = 'newline_delimited')`;
const csvGzip = (table) => `read_csv('${exportGzip}/${table}/*/*/*.csv.gz', header = true, allow_quoted_nulls = false)`;
for (const [name, table, inputs, outputs] of [
  ['zstd NDJSON', ndZstd, `(SELECT unnest(inputs) FROM ${ndZstd('transactions')})`, `(SELECT unnest(outputs) FROM ${ndZstd('transactions')})`],
  ['gzip CSV', csvGzip, csvGzip('inputs'), csvGzip('outputs')],
]) {
  const [t] = await rows(`SELECT count(*) AS n, sum(output_value) AS v, sum(fee) AS f FROM ${table('transactions')}`);
  const [b] = await rows(`SELECT count(*) AS n FROM ${table('blocks')}`);
  const [i] = await rows(`SELECT count(*) AS n FROM ${inputs}`);
  const [o] = await rows(`SELECT count(*) AS n FROM ${outputs}`);
  equal({ blocks: Number(b.n), transactions: Number(t.n), inputs: Number(i.n), outputs: Number(o.n), output_value: Number(t.v), fees: Number(t.f) },
        coreTotals, `export's ${name} shards: totals against Core's getblock 3`);
}

if (failures !== 0) {
  console.error(`${failures} checks failed`);
  process.exit(1);
}
console.log(`the utxos table and the set from blocks alone equal Core's chainstate: ${core.txouts} coins`);
