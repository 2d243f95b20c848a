// A value is an Amount: a bare integer in its place does not compile
// (BLOCKWIRE_BREAK: 1, 2), nor does arithmetic that skips the checks (3).
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

// A checked sum dropped unread is a check skipped (BLOCKWIRE_BREAK: 3;
// [[nodiscard]], an error here).
#pragma GCC diagnostic error "-Wunused-result"
bool fits(blockwire::Amount a, blockwire::Amount b) {
#if BLOCKWIRE_BREAK == 3
  checked_add(a, b);
  return true;
#else
  return checked_add(a, b).has_value();
#endif
}
