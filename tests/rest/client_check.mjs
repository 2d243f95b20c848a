// A real client of Core's REST interface against blockwire rest: the npm
// bitcoin-core package's REST methods (the version tests/rest/package.json
// pins), each result equal to what the same client makes of Bitcoin Core's
// own recorded answer for the same request (CORE_REGTEST_DIR/rest).
//   node client_check.mjs BLOCKWIRE CORE_REGTEST_DIR WORK_DIR
// blockwire rest is started here and stopped by its PID whatever happens.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { startRest } from './rest_server.mjs';

const require = createRequire(import.meta.url);
let Client, JSONBigInt;
try {
  Client = require('bitcoin-core');
  JSONBigInt = require('json-bigint');
} catch (e) {
  console.error(`the bitcoin-core npm package is not installed beside this script (scripts/setup installs it): ${e.message}`);
  process.exit(1);
}
const { parse } = JSONBigInt({ storeAsString: true, strict: true });  // as the client parses

const [blockwire, core, work] = process.argv.slice(2);
fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });
fs.cpSync(path.join(core, 'blocks'), path.join(work, 'blocks'), { recursive: true });
fs.cpSync(path.join(core, 'chainstate'), path.join(work, 'chainstate'), { recursive: true });
const manifest = JSON.parse(fs.readFileSync(path.join(core, 'rest', 'manifest.json'), 'utf8'));
const recorded = (p) => {
  const entry = manifest.find((e) => e.path === p);
  if (!entry) throw new Error(`no recorded answer for ${p}`);
  return fs.readFileSync(path.join(core, 'rest', entry.body_file));
};

let failures = 0;
function equal(got, want, what) {
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    failures++;
    console.error(`FAIL: ${what}: got ${JSON.stringify(got).slice(0, 300)}, want ${JSON.stringify(want).slice(0, 300)}`);
  }
}
const server = await startRest(blockwire, path.join(work, 'blocks'), ['--txindex'], { XDG_CACHE_HOME: path.join(work, 'cache') });
try {
  const client = new Client({ host: `http://127.0.0.1:${server.port}` });

  const h111 = '1848b62097176481157cb2010a8a2cb80c96c95493d5c17753be4c3406c5dc00';
  const genesis = '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206';
  const txid = 'b0d29fe9aa251e591ef75726c6789c19e2b198c0641e2d971cb9994cbe73757b';
  const outpoint = '7f980f7e145ab9e2ef371ef598d5edba4c5465ac62167945bffb4fcbc2da7d7d';

  const chain = await client.getBlockchainInformation();
  const coreChain = parse(recorded('/rest/chaininfo.json').toString());
  coreChain.warnings = [];  // Core's build's own (a pre-release's)
  equal(chain, coreChain, 'getBlockchainInformation');
  equal(await client.getBlockByHash(h111), parse(recorded(`/rest/block/${h111}.json`).toString()), 'getBlockByHash');
  equal(await client.getBlockByHash(h111, { summary: true }), parse(recorded(`/rest/block/notxdetails/${h111}.json`).toString()),
    'getBlockByHash summary');
  const bin = await client.getBlockByHash(h111, { extension: 'bin' });
  equal(Buffer.compare(Buffer.from(bin), recorded(`/rest/block/${h111}.bin`)), 0, 'getBlockByHash .bin');
  equal(await client.getBlockHeadersByHash(genesis, 5), parse(recorded(`/rest/headers/5/${genesis}.json`).toString()),
    'getBlockHeadersByHash');
  equal(await client.getTransactionByHash(txid), parse(recorded(`/rest/tx/${txid}.json`).toString()), 'getTransactionByHash');
  equal(await client.getUnspentTransactionOutputs({ id: outpoint, index: 0 }),
    parse(recorded(`/rest/getutxos/checkmempool/${outpoint}-0.json`).toString()), 'getUnspentTransactionOutputs');
  equal(await client.getMemoryPoolContent(), parse(recorded('/rest/mempool/contents.json').toString()), 'getMemoryPoolContent');
  equal(await client.getMemoryPoolInformation(), parse(recorded('/rest/mempool/info.json').toString()), 'getMemoryPoolInformation');
} finally {
  server.stop();
}
if (failures !== 0) {
  console.error(`${failures} checks failed`);
  process.exit(1);
}
console.log('the bitcoin-core client reads from blockwire rest what it reads from Core');
