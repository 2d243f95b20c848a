// The explorer: a page that reads only Bitcoin Core's REST interface and
// Esplora's address routes, as blockwire rest serves them. Views by the
// location's hash: #/ (the tip and recent blocks), #/block/HASH[/PAGE],
// #/tx/TXID, #/address/ADDRESS[/LAST_SEEN_TXID] (rest --addresses).
'use strict';

const view = document.getElementById('view');
const PAGE = 25;       // transactions a page
const RECENT = 10;     // blocks on the first view

async function rest(path) {
  return api('/rest/' + path);
}
async function esplora(path) {
  return api('/api/' + path);
}
async function api(path) {
  const response = await fetch(path);
  const text = await response.text();
  if (!response.ok) throw new Error(text.trim() || response.status + ' ' + response.statusText);
  return JSON.parse(text);
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}
const link = (href, text, cls) => el('a', cls ? { href, class: cls } : { href }, text);
const btc = (v) => (typeof v === 'number' ? v.toFixed(8) : v) + ' BTC';
const when = (t) => new Date(t * 1000).toISOString().replace('T', ' ').replace('.000Z', ' UTC');
function facts(rows) {
  const dl = el('dl', { class: 'facts' });
  for (const [k, v] of rows) dl.append(el('dt', {}, k), el('dd', {}, v));
  return dl;
}
function show(...nodes) {
  view.replaceChildren(...nodes);
  window.scrollTo(0, 0);
}
function failed(e) {
  show(el('p', { class: 'error' }, e.message));
}

async function home() {
  const chain = await rest('chaininfo.json');
  const first = Math.max(0, chain.blocks - RECENT + 1);
  const start = await rest('blockhashbyheight/' + first + '.json');
  const headers = (await rest('headers/' + start.blockhash + '.json?count=' + RECENT)).reverse();
  const table = el('table', { id: 'recent' },
    el('thead', {}, el('tr', {}, el('th', {}, 'Height'), el('th', {}, 'Hash'), el('th', { class: 'wide' }, 'Time'),
      el('th', { class: 'num' }, 'Transactions'))));
  const body = el('tbody');
  for (const h of headers) {
    body.append(el('tr', {}, el('td', {}, link('#/block/' + h.hash, h.height)), el('td', {}, link('#/block/' + h.hash, h.hash, 'hash')),
      el('td', { class: 'wide' }, when(h.time)), el('td', { class: 'num' }, h.nTx)));
  }
  table.append(body);
  show(el('h1', {}, 'Chain'),
    el('div', { class: 'card', id: 'tip' }, facts([
      ['Network', chain.chain],
      ['Height', el('span', { id: 'tip-height' }, chain.blocks)],
      ['Tip', link('#/block/' + chain.bestblockhash, chain.bestblockhash, 'hash')],
      ['Time', when(chain.time)],
      ['Difficulty', chain.difficulty],
    ])),
    el('h2', {}, 'Recent blocks'), table);
}

async function block(hash, page) {
  const b = await rest('block/' + hash + '.json');
  let fees = 0;
  let known = true;
  for (const tx of b.tx.slice(1)) {
    if (typeof tx.fee === 'number') fees += tx.fee; else known = false;
  }
  const pages = Math.max(1, Math.ceil(b.tx.length / PAGE));
  page = Math.min(Math.max(0, page), pages - 1);
  const table = el('table', { id: 'txs' },
    el('thead', {}, el('tr', {}, el('th', { class: 'num' }, '#'), el('th', {}, 'Transaction'), el('th', { class: 'num wide' }, 'In'),
      el('th', { class: 'num wide' }, 'Out'), el('th', { class: 'num' }, 'Fee'))));
  const body = el('tbody');
  b.tx.slice(page * PAGE, (page + 1) * PAGE).forEach((tx, i) => {
    const fee = i + page * PAGE === 0 ? 'coinbase' : typeof tx.fee === 'number' ? btc(tx.fee) : '?';
    body.append(el('tr', {}, el('td', { class: 'num' }, i + page * PAGE), el('td', {}, link('#/tx/' + tx.txid, tx.txid, 'hash')),
      el('td', { class: 'num wide' }, tx.vin.length), el('td', { class: 'num wide' }, tx.vout.length), el('td', { class: 'num' }, fee)));
  });
  table.append(body);
  const pager = el('div', { class: 'pager' });
  const go = (p) => () => { location.hash = '#/block/' + hash + '/' + p; };
  const prev = el('button', { type: 'button', id: 'prev' }, 'Previous');
  const next = el('button', { type: 'button', id: 'next' }, 'Next');
  prev.disabled = page === 0;
  next.disabled = page >= pages - 1;
  prev.onclick = go(page - 1);
  next.onclick = go(page + 1);
  pager.append(prev, el('span', { class: 'muted' }, 'page ' + (page + 1) + ' of ' + pages), next);
  show(el('h1', {}, 'Block ', el('span', { id: 'block-height' }, b.height)),
    el('div', { class: 'card' }, facts([
      ['Hash', el('span', { class: 'hash', id: 'block-hash' }, b.hash)],
      ['Confirmations', b.confirmations],
      ['Time', when(b.time)],
      ['Previous', b.previousblockhash ? link('#/block/' + b.previousblockhash, b.previousblockhash, 'hash') : 'none'],
      ['Next', b.nextblockhash ? link('#/block/' + b.nextblockhash, b.nextblockhash, 'hash') : 'none'],
      ['Merkle root', el('span', { class: 'hash' }, b.merkleroot)],
      ['Bits / difficulty', b.bits + ' / ' + b.difficulty],
      ['Size / weight', b.size + ' bytes / ' + b.weight],
      ['Transactions', el('span', { id: 'block-ntx' }, b.nTx)],
      ['Fees', el('span', { id: 'block-fees' }, known ? btc(Number(fees.toFixed(8))) : 'unknown (no undo data)')],
    ])),
    el('h2', {}, 'Transactions'), pager, table);
}

function output(o) {
  const s = o.scriptPubKey;
  return el('li', {}, el('strong', {}, btc(o.value)), ' ', el('span', { class: 'muted' }, s.type), el('br'),
    s.address ? link('#/address/' + s.address, s.address, 'hash address') : el('code', {}, s.asm));
}

const sats = (v) => (v / 1e8).toFixed(8) + ' BTC';

// An address: its totals, unspent outputs and transactions, 25 a page
// (newest first; the next page after the last one shown).
async function address(addr, after) {
  const [info, utxos, txs] = await Promise.all([esplora('address/' + addr), esplora('address/' + addr + '/utxo'),
    esplora('address/' + addr + '/txs' + (after ? '/chain/' + after : ''))]);
  const c = info.chain_stats;
  const unspent = el('table', { id: 'utxos' },
    el('thead', {}, el('tr', {}, el('th', {}, 'Output'), el('th', { class: 'num' }, 'Block'), el('th', { class: 'num' }, 'Value'))));
  const ubody = el('tbody');
  for (const u of utxos) {
    ubody.append(el('tr', {}, el('td', {}, link('#/tx/' + u.txid, u.txid + ':' + u.vout, 'hash')),
      el('td', { class: 'num' }, link('#/block/' + u.status.block_hash, u.status.block_height)), el('td', { class: 'num' }, sats(u.value))));
  }
  unspent.append(ubody);
  const history = el('table', { id: 'history' },
    el('thead', {}, el('tr', {}, el('th', {}, 'Transaction'), el('th', { class: 'num' }, 'Block'), el('th', { class: 'num' }, 'Change'))));
  const hbody = el('tbody');
  for (const tx of txs) {
    let change = 0;
    for (const o of tx.vout) if (o.scriptpubkey_address === addr) change += o.value;
    for (const i of tx.vin) if (i.prevout && i.prevout.scriptpubkey_address === addr) change -= i.prevout.value;
    hbody.append(el('tr', {}, el('td', {}, link('#/tx/' + tx.txid, tx.txid, 'hash')),
      el('td', { class: 'num' }, link('#/block/' + tx.status.block_hash, tx.status.block_height)),
      el('td', { class: 'num' }, (change > 0 ? '+' : '') + sats(change))));
  }
  history.append(hbody);
  const pager = el('div', { class: 'pager' });
  const newest = el('button', { type: 'button', id: 'newest' }, 'Newest');
  const older = el('button', { type: 'button', id: 'older' }, 'Older');
  newest.disabled = !after;
  older.disabled = txs.length < PAGE;
  newest.onclick = () => { location.hash = '#/address/' + addr; };
  older.onclick = () => { location.hash = '#/address/' + addr + '/' + txs[txs.length - 1].txid; };
  pager.append(newest, older);
  show(el('h1', {}, 'Address'),
    el('div', { class: 'card' }, facts([
      ['Address', el('span', { class: 'hash', id: 'address' }, addr)],
      ['Balance', el('span', { id: 'balance' }, sats(c.funded_txo_sum - c.spent_txo_sum))],
      ['Received', sats(c.funded_txo_sum) + ' in ' + c.funded_txo_count + ' outputs'],
      ['Sent', sats(c.spent_txo_sum) + ' from ' + c.spent_txo_count + ' outputs'],
      ['Transactions', el('span', { id: 'address-txs' }, c.tx_count)],
    ])),
    el('h2', {}, 'Unspent outputs (' + utxos.length + ')'), unspent,
    el('h2', {}, 'Transactions'), pager, history);
}

async function transaction(txid) {
  // Its block holds it with what its inputs spent (getblock 3's prevouts).
  const found = await rest('tx/' + txid + '.json');
  const b = await rest('block/' + found.blockhash + '.json');
  const tx = b.tx.find((t) => t.txid === txid) || found;
  const inputs = el('ol', { id: 'inputs' });
  for (const i of tx.vin) {
    if (i.coinbase) {
      inputs.append(el('li', {}, 'coinbase ', el('code', {}, i.coinbase)));
      continue;
    }
    const item = i.prevout ? output(i.prevout) : el('li', {}, '?');
    item.append(el('br'), el('span', { class: 'muted' }, 'spends '), link('#/tx/' + i.txid, i.txid + ':' + i.vout, 'hash'));
    inputs.append(item);
  }
  const outputs = el('ol', { id: 'outputs', start: '0' });
  for (const o of tx.vout) outputs.append(output(o));
  show(el('h1', {}, 'Transaction'),
    el('div', { class: 'card' }, facts([
      ['Txid', el('span', { class: 'hash', id: 'tx-id' }, tx.txid)],
      ['Block', link('#/block/' + b.hash, b.height + ' (' + b.hash + ')', 'hash')],
      ['Size / vsize', tx.size + ' / ' + tx.vsize],
      ['Fee', typeof tx.fee === 'number' ? btc(tx.fee) : tx.vin[0].coinbase ? 'coinbase' : '?'],
    ])),
    el('div', { class: 'io' }, el('section', {}, el('h2', {}, 'Inputs (' + tx.vin.length + ')'), inputs),
      el('section', {}, el('h2', {}, 'Outputs (' + tx.vout.length + ')'), outputs)));
}

async function search(q) {
  q = q.trim();
  if (/^\d+$/.test(q)) {
    const h = await rest('blockhashbyheight/' + q + '.json');
    location.hash = '#/block/' + h.blockhash;
  } else if (/^[0-9a-fA-F]{64}$/.test(q)) {
    // A block of the best chain has a header there (an empty list for any other hash, never an error).
    const isBlock = (await rest('headers/' + q + '.json?count=1')).length === 1;
    location.hash = (isBlock ? '#/block/' : '#/tx/') + q.toLowerCase();
  } else if (/^[0-9a-zA-Z]{14,90}$/.test(q)) {
    await esplora('address/' + q);  // (its error, Esplora's words, when it is none of this network's)
    location.hash = '#/address/' + q;
  } else {
    throw new Error('Not a height, a block hash, a txid or an address: ' + q);
  }
}

async function route() {
  const parts = location.hash.replace(/^#\/?/, '').split('/');
  try {
    if (parts[0] === 'block' && parts[1]) return await block(parts[1], Number(parts[2] || 0));
    if (parts[0] === 'tx' && parts[1]) return await transaction(parts[1]);
    if (parts[0] === 'address' && parts[1]) return await address(parts[1], parts[2]);
    return await home();
  } catch (e) {
    failed(e);
  }
}

document.getElementById('search').addEventListener('submit', (event) => {
  event.preventDefault();
  search(document.getElementById('query').value).catch(failed);
});
window.addEventListener('hashchange', route);
route();
