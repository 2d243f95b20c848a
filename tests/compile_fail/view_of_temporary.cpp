// A view of a temporary's bytes does not compile (BLOCKWIRE_BREAK: 1, 2): the
// view would outlive them. Of bytes that outlive it, it does.
#ifndef BLOCKWIRE_BREAK
#define BLOCKWIRE_BREAK 0
#endif

#include <blockwire/codec.hpp>

#include <vector>

std::vector<std::byte> read_somewhere();

std::size_t outputs_of_block() {
#if BLOCKWIRE_BREAK == 1
  auto view = blockwire::BlockView::parse(read_somewhere());
#else
  const std::vector<std::byte> bytes = read_somewhere();
  auto view = blockwire::BlockView::parse(bytes);
#endif
  return view ? view.value().transaction_count() : 0;
}

std::size_t inputs_of_transaction(std::span<const std::byte> bytes) {
  std::size_t n = 0;
#if BLOCKWIRE_BREAK == 2
  for (const blockwire::InputView in : blockwire::decode_transaction(bytes).value().inputs()) n += in.script_sig().size();
#else
  const auto tx = blockwire::decode_transaction(bytes);
  for (const blockwire::InputView in : tx.value().inputs()) n += in.script_sig().size();
#endif
  return n;
}
