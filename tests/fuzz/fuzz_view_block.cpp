// BlockView against decode_block, and BlockView::visit against BlockView::parse,
// on hostile bytes: both accept or both
// reject, with the same error at the same offset; what they accept has the
// same content and check_block says the same of both. (Seeded from the
// block corpus.)
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace blockwire;
  const auto bytes = std::as_bytes(std::span(data, size));
  for (witness mode : {witness::allow, witness::disallow}) {
    const auto decoded = decode_block(bytes, mode);
    const auto view = BlockView::parse(bytes, mode);
    if (decoded.has_value() != view.has_value()) fuzz::fail("view and decoder disagree on accepting");
    // The one-pass route: the same answer, and the same transactions handed
    // over as the view keeps.
    std::size_t visited = 0;
    bool same = true;
    const auto visit = BlockView::visit(
        bytes,
        [&](const TransactionView& tx) {
          if (view &&
              (visited >= view.value().transaction_count() || !(tx.to_transaction() == view.value().transaction(visited).to_transaction())))
            same = false;
          ++visited;
        },
        mode);
    if (visit.has_value() != view.has_value()) fuzz::fail("visit and parse disagree on accepting");
    if (!visit && !(visit.error() == view.error())) fuzz::fail("visit and parse fail differently");
    if (!same || (view && visited != view.value().transaction_count()))
      fuzz::fail("visit hands over other transactions than the view holds");
    if (!decoded) {
      if (!(decoded.error() == view.error())) fuzz::fail("view and decoder fail differently");
      continue;
    }
    if (!(view.value().to_block() == decoded.value())) fuzz::fail("view and decoder read different content");
    const auto a = check_block(decoded.value());
    const auto b = check_block(view.value());
    if (a.has_value() != b.has_value() || (!a && !(a.error() == b.error()))) fuzz::fail("check_block differs on the view");
  }
  return 0;
}
