// Compiled against the public headers only (the private encoder headers are
// not on this target's include path): if a public header included them, this
// file would not compile. It must also link against the library and run.
#include <blockwire/codec.hpp>

#include <cstdio>
#include <vector>

int main() {
  blockwire::Transaction tx;
  tx.inputs.emplace_back();
  tx.outputs.push_back({5000, tx.append(std::vector<std::byte>{std::byte{0x51}})});
  std::vector<std::byte> out;
  blockwire::VectorWriter sink(out);
  if (!blockwire::encode_transaction(tx, sink)) return 1;
  auto back = blockwire::decode_transaction(out);
  if (!back || !(back.value() == tx)) return 1;
  std::printf("public API round trip: %zu bytes\n", out.size());
  return out.size() == blockwire::serialized_size(tx) ? 0 : 1;
}
