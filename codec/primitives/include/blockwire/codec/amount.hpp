// Amount: a number of satoshis, the type of every value and fee.
//
// The wire holds any 64-bit signed number as an output's value, and a
// decoder must read what is there; whether a value is money is a check
// (Core's MoneyRange: 0 to 21 million BTC). Sums are checked as Core
// checks them (CheckTransaction, Consensus::CheckTxInputs): each term and
// each partial sum in range, so that no sum of hostile values overflows.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>

namespace blockwire {

class Amount {
 public:
  static constexpr std::int64_t coin = 100'000'000;             // satoshis in a bitcoin
  static constexpr std::int64_t max_money = 21'000'000 * coin;  // Core's MAX_MONEY

  constexpr Amount() noexcept = default;  // zero
  static constexpr Amount from_sat(std::int64_t satoshis) noexcept { return Amount(satoshis); }
  constexpr std::int64_t to_sat() const noexcept { return satoshis_; }

  // Core's MoneyRange: 0 to max_money, both included.
  constexpr bool in_money_range() const noexcept { return satoshis_ >= 0 && satoshis_ <= max_money; }

  // a + b, or nothing when a, b or the sum is out of the money range.
  [[nodiscard]] friend constexpr std::optional<Amount> checked_add(Amount a, Amount b) noexcept {
    if (!a.in_money_range() || !b.in_money_range()) return std::nullopt;
    const Amount sum(a.satoshis_ + b.satoshis_);  // (both at most 2.1e15: no overflow)
    if (!sum.in_money_range()) return std::nullopt;
    return sum;
  }
  // a - b (a fee: what the inputs bring less what the outputs take), or
  // nothing when a or b is out of the money range or b is more than a.
  [[nodiscard]] friend constexpr std::optional<Amount> checked_sub(Amount a, Amount b) noexcept {
    if (!a.in_money_range() || !b.in_money_range() || b.satoshis_ > a.satoshis_) return std::nullopt;
    return Amount(a.satoshis_ - b.satoshis_);
  }

  friend constexpr bool operator==(Amount, Amount) noexcept = default;
  friend constexpr auto operator<=>(Amount, Amount) noexcept = default;

 private:
  constexpr explicit Amount(std::int64_t satoshis) noexcept : satoshis_(satoshis) {}
  std::int64_t satoshis_ = 0;
};

}  // namespace blockwire
