// A real Esplora client against blockwire rest: the npm @mempool/mempool.js
// package (mempool.space's, at the version tests/rest/package.json pins)
// reads the tip, every block and every transaction's place, bytes and
// merkle proof and outspends, each block's first 25 transactions, and every address's totals, unspent outputs and
// transactions, of Core's regtest chain through blockwire's /api/ routes;
// each answer equals what Core's own RPC said (CORE_REGTEST_DIR/rpc).
//   node mempool_check.mjs BLOCKWIRE CORE_REGTEST_DIR WORK_DIR
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { startRest } from './rest_server.mjs';

const require = createRequire(import.meta.url);
let mempoolJS;
try {
  mempoolJS = require('@mempool/mempool.js');
} catch (e) {
  console.error(`the @mempool/mempool.js npm package is not installed beside this script (scripts/setup installs it): ${e.message}`);
  process.exit(1);
}

const [blockwire, core, work] = process.argv.slice(2);
fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });
fs.cpSync(path.join(core, 'blocks'), path.join(work, 'blocks'), { recursive: true });
const rpc = (name) => JSON.parse(fs.readFileSync(path.join(core, 'rpc', `${name}.json`), 'utf8'));

let failures = 0;
let checked = 0;
function equal(got, want, what) {
  checked++;
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    failures++;
    console.error(`FAIL: ${what}: got ${JSON.stringify(got).slice(0, 300)}, want ${JSON.stringify(want).slice(0, 300)}`);
  }
}

// A merkle branch (display-order hex, leaf to root) folded from `txid` up,
// with Node's own SHA-256: the root in display order.
function foldBranch(txid, branch, pos) {
  const sha256d = (b) => crypto.createHash('sha256').update(crypto.createHash('sha256').update(b).digest()).digest();
  const raw = (hex) => Buffer.from(hex, 'hex').reverse();
  let at = raw(txid);
  for (const sibling of branch) {
    at = pos % 2 === 0 ? sha256d(Buffer.concat([at, raw(sibling)])) : sha256d(Buffer.concat([raw(sibling), at]));
    pos = Math.floor(pos / 2);
  }
  return Buffer.from(at).reverse().toString('hex');
}

const server = await startRest(blockwire, path.join(work, 'blocks'), ['--addresses'], { XDG_CACHE_HOME: path.join(work, 'cache') });
try {
  // (mempool.js puts no prefix before /api/ for regtest; plain HTTP.)
  const { bitcoin: { addresses, blocks, transactions } } = mempoolJS({ hostname: `127.0.0.1:${server.port}`, network: 'regtest', protocol: 'http' });
  equal(await blocks.getBlocksTipHeight(), rpc('getblockcount'), 'getBlocksTipHeight');
  equal(await blocks.getBlocksTipHash(), rpc('getbestblockhash'), 'getBlocksTipHash');
  const hashes = rpc('getblockhash');
  const raw = rpc('getblock0');
  const full = rpc('getblock3');
  // Core's answer to "what spends this output": the inputs of its chain.
  const spentBy = new Map();
  for (const block of full) {
    for (const tx of block.tx) tx.vin.forEach((vin, k) => { if (vin.txid) spentBy.set(`${vin.txid}:${vin.vout}`, `${tx.txid}:${k}:${block.height}`); });
  }
  for (let height = 0; height < hashes.length; height++) {
    const hash = hashes[height];
    const at = `block ${height}`;
    equal(await blocks.getBlockHeight({ height }), hash, `${at}: getBlockHeight`);
    equal(await blocks.getBlockHeader({ hash }), raw[height].slice(0, 160), `${at}: getBlockHeader`);
    const txids = full[height].tx.map((tx) => tx.txid);
    equal(await blocks.getBlockTxids({ hash }), txids, `${at}: getBlockTxids`);
    equal(await blocks.getBlockTxid({ hash, index: txids.length - 1 }), txids.at(-1), `${at}: getBlockTxid`);
    equal((await blocks.getBlockTxs({ hash, start_index: 0 })).map((tx) => [tx.txid, tx.fee]),
      full[height].tx.slice(0, 25).map((tx) => [tx.txid, tx.fee === undefined ? 0 : Math.round(tx.fee * 1e8)]), `${at}: getBlockTxs`);
    const status = await blocks.getBlockStatus({ hash });
    equal(status, { in_best_chain: true, height, next_best: hashes[height + 1] ?? null }, `${at}: getBlockStatus`);
    if (height === 0) continue;  // (genesis' coinbase is in no transaction index, as in Core)
    for (const [pos, tx] of full[height].tx.entries()) {
      const txid = tx.txid;
      equal(await transactions.getTxStatus({ txid }),
        { confirmed: true, block_height: height, block_hash: hash, block_time: full[height].time }, `${txid}: getTxStatus`);
      equal(await transactions.getTxHex({ txid }), tx.hex, `${txid}: getTxHex`);
      const proof = await transactions.getTxMerkleProof({ txid });
      equal([proof.block_height, proof.pos], [height, pos], `${txid}: getTxMerkleProof's place`);
      equal(foldBranch(txid, proof.merkle, pos), full[height].merkleroot, `${txid}: getTxMerkleProof folds to Core's merkle root`);
      const outspends = (await transactions.getTxOutspends({ txid })).map((o) => (o.spent ? `${o.txid}:${o.vin}:${o.status.block_height}` : null));
      equal(outspends, tx.vout.map((_, n) => spentBy.get(`${txid}:${n}`) ?? null), `${txid}: getTxOutspends`);
      const last = tx.vout.length - 1;
      equal(await transactions.getTxOutspend({ txid, vout: last }), (await transactions.getTxOutspends({ txid }))[last], `${txid}: getTxOutspend`);
    }
  }
  // Every address of the chain: its totals, unspent outputs and
  // transactions (a page, then the next ones by getAddressTxsChain), each
  // from Core's getblock 3 alone.
  const sats = (btc) => Math.round(btc * 1e8);
  const byAddress = new Map();
  for (const block of full) {
    for (const tx of block.tx) {
      const touched = new Set();
      const entry = (address) => {
        if (!byAddress.has(address)) byAddress.set(address, { txs: [], funded: new Map(), spent: new Set(), fundedSum: 0, spentSum: 0, spentCount: 0 });
        const e = byAddress.get(address);
        if (!touched.has(address)) { touched.add(address); e.txs.unshift(tx.txid); }
        return e;
      };
      for (const vin of tx.vin) {
        const address = vin.prevout?.scriptPubKey.address;
        if (!address) continue;
        const e = entry(address);
        e.spent.add(`${vin.txid}:${vin.vout}`);
        e.spentSum += sats(vin.prevout.value);
        e.spentCount++;
      }
      for (const vout of tx.vout) {
        const address = vout.scriptPubKey.address;
        if (!address) continue;
        const e = entry(address);
        e.funded.set(`${tx.txid}:${vout.n}`, { value: sats(vout.value), height: block.height });
        e.fundedSum += sats(vout.value);
      }
    }
  }
  for (const [address, want] of byAddress) {
    const got = await addresses.getAddress({ address });
    equal(got.chain_stats, {
      funded_txo_count: want.funded.size, funded_txo_sum: want.fundedSum,
      spent_txo_count: want.spentCount, spent_txo_sum: want.spentSum, tx_count: want.txs.length,
    }, `${address}: getAddress`);
    const utxos = (await addresses.getAddressTxsUtxo({ address })).map((u) => `${u.txid}:${u.vout}:${u.value}`).sort();
    const unspent = [...want.funded].filter(([o]) => !want.spent.has(o)).map(([o, f]) => `${o}:${f.value}`).sort();
    equal(utxos, unspent, `${address}: getAddressTxsUtxo`);
    let seen = (await addresses.getAddressTxs({ address })).map((tx) => tx.txid);
    equal((await addresses.getAddressTxsChain({ address })).map((tx) => tx.txid), seen, `${address}: getAddressTxsChain`);
    equal(await addresses.getAddressTxsMempool({ address }), [], `${address}: getAddressTxsMempool`);
    for (let page = seen; page.length === 25;) {
      page = (await addresses.getAddressTxs({ address, after_txid: seen.at(-1) })).map((tx) => tx.txid);
      seen = seen.concat(page);
    }
    equal(seen, want.txs, `${address}: getAddressTxs page after page (after_txid), newest first`);
  }
  // A stale block of the reorganization: known, off the best chain.
  for (const stale of rpc('stale_blocks')) {
    equal(await blocks.getBlockStatus({ hash: stale.hash }), { in_best_chain: false }, `stale ${stale.hash}: getBlockStatus`);
  }
} finally {
  server.stop();
}
if (failures !== 0) {
  console.error(`${failures} of ${checked} checks failed`);
  process.exit(1);
}
console.log(`mempool.js reads from blockwire rest what Core's RPC says of the same chain (${checked} checks)`);
