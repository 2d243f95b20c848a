// Compiled against the public headers only (the private encoder headers are
// not on this target's include path): if a public header included them, this
// file would not compile. It must also link against the library and run.
#include <blockwire/codec.hpp>

#include <cstdio>
#include <vector>

namespace {

// A writer of the program's own, through writer_ref.
struct Counter {
  std::size_t bytes = 0;
  blockwire::result<void> write(std::span<const std::byte> b) {
    bytes += b.size();
    return blockwire::success();
  }
};

}  // namespace

int main() {
  blockwire::TransactionBuilder builder;
  builder.inputs.emplace_back();
  const std::byte op_true[1]{std::byte{0x51}};
  builder.add_output(blockwire::Amount::from_sat(5000), op_true);
  const blockwire::Transaction tx = builder.build();
  if (tx.input_count() != 1 || tx.output_count() != 1 || tx.output(0).value() != blockwire::Amount::from_sat(5000) ||
      tx.output(0).script_pubkey().size() != 1)
    return 1;
  std::vector<std::byte> out;
  blockwire::encode_transaction(tx, out);
  Counter counter;
  if (!blockwire::encode_transaction(tx, counter) || counter.bytes != out.size()) return 1;
  auto back = blockwire::decode_transaction(out);
  if (!back || !(back.value() == tx)) return 1;
  std::printf("public API round trip: %zu bytes, txid %s\n", out.size(), tx.txid().to_hex().c_str());
  return out.size() == blockwire::serialized_size(tx) ? 0 : 1;
}
