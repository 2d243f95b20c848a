#include <blockwire/codec/transaction.hpp>

#include <algorithm>
#include <stdexcept>

namespace blockwire {

ByteRange Transaction::append(std::span<const std::byte> bytes) {
  const ByteRange range{static_cast<std::uint32_t>(payload.size()), static_cast<std::uint32_t>(bytes.size())};
  payload.insert(payload.end(), bytes.begin(), bytes.end());
  return range;
}

void Transaction::set_witness(TxIn& in, std::span<const std::span<const std::byte>> items) {
  in.witness_begin = static_cast<std::uint32_t>(witness_items.size());
  for (const auto item : items) witness_items.push_back(append(item));
  in.witness_size = static_cast<std::uint32_t>(items.size());
}

bool operator==(const Transaction& a, const Transaction& b) noexcept {
  if (a.version != b.version || a.lock_time != b.lock_time || a.inputs.size() != b.inputs.size() ||
      a.outputs.size() != b.outputs.size()) {
    return false;
  }
  const auto same_bytes = [&](ByteRange x, ByteRange y) { return std::ranges::equal(a.bytes(x), b.bytes(y)); };
  for (std::size_t i = 0; i < a.inputs.size(); ++i) {
    const TxIn& x = a.inputs[i];
    const TxIn& y = b.inputs[i];
    if (x.prevout != y.prevout || x.sequence != y.sequence || !same_bytes(x.script_sig, y.script_sig)) return false;
    const auto wx = a.witness(x);
    const auto wy = b.witness(y);
    if (!std::ranges::equal(wx, wy, same_bytes)) return false;
  }
  for (std::size_t i = 0; i < a.outputs.size(); ++i) {
    const TxOut& x = a.outputs[i];
    const TxOut& y = b.outputs[i];
    if (x.value != y.value || !same_bytes(x.script_pubkey, y.script_pubkey)) return false;
  }
  return true;
}

}  // namespace blockwire
