// What a chain's getblock 3 JSON (Core's, or blocks --json --verbosity 3,
// which is checked against Core's elsewhere) says its tables must total:
// blocks, transactions, inputs (coinbases' not counted, as the tables do
// not), outputs, their value and the fees, in satoshis.
export const sats = (btc) => Math.round(btc * 1e8);

export function chainTotals(blocks) {
  const sum = (f) => blocks.reduce((s, b) => s + b.tx.reduce((t, tx) => t + f(tx), 0), 0);
  return {
    blocks: blocks.length,
    transactions: blocks.reduce((s, b) => s + b.nTx, 0),
    inputs: sum((tx) => ('coinbase' in tx.vin[0] ? 0 : tx.vin.length)),
    outputs: sum((tx) => tx.vout.length),
    output_value: sum((tx) => tx.vout.reduce((v, o) => v + sats(o.value), 0)),
    fees: sum((tx) => ('fee' in tx ? sats(tx.fee) : 0)),
  };
}
