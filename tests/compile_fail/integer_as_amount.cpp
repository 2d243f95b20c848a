// A value is an Amount: a bare integer in its place does not compile
// (BLOCKWIRE_BREAK: 1, 2), nor does arithmetic that skips the checks.
#ifndef BLOCKWIRE_BREAK
#define BLOCKWIRE_BREAK 0
#endif

#include <blockwire/codec.hpp>

void pay(blockwire::TransactionBuilder& tx, std::span<const std::byte> script) {
#if BLOCKWIRE_BREAK == 1
  tx.add_output(50'000, script);
#else
  tx.add_output(blockwire::Amount::from_sat(50'000), script);
#endif
}

std::optional<blockwire::Amount> twice(blockwire::Amount a) {
#if BLOCKWIRE_BREAK == 2
  return a + a;
#else
  return checked_add(a, a);
#endif
}
