// The explorer page of blockwire rest in a real browser (Debian's chromium,
// headless, driven by Playwright): open the tip, click through to a block,
// a transaction and an output's address, page through a block's and an
// address's transactions, search by height, txid and address; every text checked is checked against the REST JSON the
// page read (itself checked against Core's answers by rest_check.py), a
// console error or a failed request fails it, and screenshots are saved
// (WORK_DIR/*.png), a narrow window's too.
//   node page_check.mjs BLOCKWIRE CORE_REGTEST_DIR WORK_DIR
import fs from 'node:fs';
import path from 'node:path';
import { startRest } from './rest_server.mjs';

let chromium;
try {
  ({ chromium } = await import('playwright-core'));
} catch (e) {
  console.error(`playwright-core is not installed beside this script (scripts/setup installs it): ${e.message}`);
  process.exit(1);
}
const browserPath = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => fs.existsSync(p));
if (!browserPath) {
  console.error("Debian's chromium is not installed (scripts/setup installs it)");
  process.exit(1);
}

const [blockwire, core, work] = process.argv.slice(2);
fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });
fs.cpSync(path.join(core, 'blocks'), path.join(work, 'blocks'), { recursive: true });
fs.cpSync(path.join(core, 'chainstate'), path.join(work, 'chainstate'), { recursive: true });

const server = await startRest(blockwire, path.join(work, 'blocks'), ['--addresses'], { XDG_CACHE_HOME: path.join(work, 'cache') });
let browser;
const problems = [];
function check(ok, what) {
  if (!ok) problems.push(what);
}
try {
  const base = `http://127.0.0.1:${server.port}`;
  const json = async (p) => (await fetch(base + '/rest/' + p)).json();

  browser = await chromium.launch({ executablePath: browserPath, headless: true, args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));

  // The tip and the recent blocks.
  const chain = await json('chaininfo.json');
  await page.goto(base + '/');
  await page.waitForSelector('#recent tbody tr');
  check((await page.textContent('#tip-height')) === String(chain.blocks), 'the tip height shown is chaininfo\'s');
  check((await page.textContent('#tip')).includes(chain.bestblockhash), 'the tip hash shown is chaininfo\'s');
  const rows = await page.$$eval('#recent tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  check(rows.length === 10 && rows[0][0] === String(chain.blocks) && rows[0][1] === chain.bestblockhash, 'the recent blocks, the tip first');
  await page.screenshot({ path: path.join(work, 'tip.png'), fullPage: true });

  // A block with many transactions: its header, its fees, its pages.
  const heights = await Promise.all([...Array(20).keys()].map((i) => json(`blockhashbyheight/${110 + i}.json`)));
  const blocks = await Promise.all(heights.map((h) => json(`block/${h.blockhash}.json`)));
  const busy = blocks.reduce((a, b) => (b.nTx > a.nTx ? b : a));
  await page.goto(base + '/#/block/' + busy.hash);
  await page.waitForSelector('#block-hash');
  check((await page.textContent('#block-hash')) === busy.hash, 'the block page shows its hash');
  check((await page.textContent('#block-height')) === String(busy.height), 'the block page shows its height');
  check((await page.textContent('#block-ntx')) === String(busy.nTx), 'the block page shows its transaction count');
  const fees = busy.tx.slice(1).reduce((s, t) => s + Math.round(t.fee * 1e8), 0) / 1e8;
  check((await page.textContent('#block-fees')) === fees.toFixed(8) + ' BTC', `the block's fees: ${fees.toFixed(8)}`);
  const listed = await page.$$eval('#txs tbody tr td:nth-child(2)', (tds) => tds.map((td) => td.textContent));
  check(JSON.stringify(listed) === JSON.stringify(busy.tx.slice(0, 25).map((t) => t.txid)), 'the first page of transactions, in order');
  await page.screenshot({ path: path.join(work, 'block.png'), fullPage: true });
  if (busy.nTx > 25) {
    await page.click('#next');
    await page.waitForFunction((first) => document.querySelector('#txs tbody tr td:nth-child(2)')?.textContent === first, busy.tx[25].txid);
  }

  // A transaction: click the block's second, and check its outputs and inputs.
  await page.goto(base + '/#/block/' + busy.hash);
  await page.waitForSelector('#txs tbody tr:nth-child(2) a');
  const tx = busy.tx[1];
  await page.click('#txs tbody tr:nth-child(2) a');
  await page.waitForSelector('#tx-id');
  check((await page.textContent('#tx-id')) === tx.txid, 'the transaction page shows the txid clicked');
  const outputs = await page.$$eval('#outputs li', (lis) => lis.map((li) => li.textContent));
  check(outputs.length === tx.vout.length, 'every output listed');
  tx.vout.forEach((o, i) => {
    check(outputs[i].includes(o.value.toFixed(8) + ' BTC') && outputs[i].includes(o.scriptPubKey.address ?? o.scriptPubKey.asm),
      `output ${i}: its value and address`);
  });
  const inputs = await page.$$eval('#inputs li', (lis) => lis.map((li) => li.textContent));
  tx.vin.forEach((i, n) => check(inputs[n].includes(i.prevout.value.toFixed(8) + ' BTC') && inputs[n].includes(i.txid + ':' + i.vout),
    `input ${n}: the coin it spends, from undo data`));
  await page.screenshot({ path: path.join(work, 'transaction.png'), fullPage: true });

  // An output's address, clicked: its totals, unspent outputs and pages of
  // transactions as Esplora's routes say (checked against Core's getblock
  // 3 by service_test.cpp and mempool_check.mjs). The busiest address of
  // the block's outputs and the 20 blocks' coinbases, so that there are pages.
  const api = async (p) => (await fetch(base + '/api/' + p)).json();
  let addr;
  let info = { chain_stats: { tx_count: -1 } };
  for (const t of [...busy.tx, ...blocks.map((b) => b.tx[0])]) {
    for (const o of t.vout) {
      if (!o.scriptPubKey.address) continue;
      const i = await api('address/' + o.scriptPubKey.address);
      if (i.chain_stats.tx_count > info.chain_stats.tx_count) [addr, info] = [o.scriptPubKey.address, i];
    }
  }
  const holder = [...busy.tx, ...blocks.map((b) => b.tx[0])].find((t) => t.vout.some((o) => o.scriptPubKey.address === addr));
  await page.goto(base + '/#/tx/' + holder.txid);
  await page.waitForSelector('#tx-id');
  await page.click(`#outputs a[href="#/address/${addr}"]`);
  await page.waitForSelector('#address');
  check((await page.textContent('#address')) === addr, 'the address page shows the address clicked');
  const c = info.chain_stats;
  check((await page.textContent('#balance')) === ((c.funded_txo_sum - c.spent_txo_sum) / 1e8).toFixed(8) + ' BTC', 'its balance');
  check((await page.textContent('#address-txs')) === String(c.tx_count), 'its transaction count');
  const utxos = await api(`address/${addr}/utxo`);
  check((await page.$$('#utxos tbody tr')).length === utxos.length, 'every unspent output listed');
  const firstPage = (await api(`address/${addr}/txs`)).map((t) => t.txid);
  const shown = async () => page.$$eval('#history tbody tr td:first-child', (tds) => tds.map((td) => td.textContent));
  check(JSON.stringify(await shown()) === JSON.stringify(firstPage), 'the first page of its transactions, newest first');
  await page.screenshot({ path: path.join(work, 'address.png'), fullPage: true });
  check(c.tx_count > 25, `an address with more than a page of transactions (${c.tx_count})`);
  if (c.tx_count > 25) {
    const second = (await api(`address/${addr}/txs/chain/${firstPage.at(-1)}`)).map((t) => t.txid);
    await page.click('#older');
    await page.waitForFunction((first) => document.querySelector('#history tbody tr td')?.textContent === first, second[0]);
    check(JSON.stringify(await shown()) === JSON.stringify(second), 'the next page, after the last one shown');
  }

  // Search by height, then by txid, then by address.
  await page.fill('#query', '111');
  await page.press('#query', 'Enter');
  const h111 = (await json('blockhashbyheight/111.json')).blockhash;
  await page.waitForFunction((h) => document.querySelector('#block-hash')?.textContent === h, h111);
  await page.fill('#query', tx.txid);
  await page.click('#search button');
  await page.waitForFunction((t) => document.querySelector('#tx-id')?.textContent === t, tx.txid);
  await page.fill('#query', addr);
  await page.press('#query', 'Enter');
  await page.waitForFunction((a) => document.querySelector('#address')?.textContent === a, addr);

  // A narrow window: nothing wider than it.
  await page.setViewportSize({ width: 380, height: 800 });
  await page.goto(base + '/#/block/' + busy.hash);
  await page.waitForSelector('#block-hash');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  check(overflow <= 0, `a 380-pixel window scrolls sideways by ${overflow} pixels`);
  await page.screenshot({ path: path.join(work, 'narrow.png'), fullPage: true });
} finally {
  if (browser) await browser.close();
  server.stop();
}
for (const p of problems) console.error('FAIL:', p);
if (problems.length) process.exit(1);
console.log(`the explorer page shows what the REST interface says; screenshots in ${work}`);
