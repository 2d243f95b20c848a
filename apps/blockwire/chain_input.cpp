#include "chain_input.hpp"

#include "commands.hpp"
#include "damage_report.hpp"
#include "text.hpp"
#include "xor_key.hpp"

#include <algorithm>
#include <cstdio>

namespace blockwire::cli {

std::uint64_t OpenChain::end(const ChainOptions& o) const noexcept {
  const std::uint64_t tip = chain().size();
  return o.count == 0 ? tip : std::min<std::uint64_t>(tip, o.from + o.count);
}

std::variant<OpenChain, int> open_chain(const char* command, const ChainOptions& o, bool with_undo) {
  auto key = resolve_xor_key(o.dir, o.xor_key);
  if (!key) {
    std::fprintf(stderr, "blockwire %s: %s\n", command, xor_key_problem(o.dir, o.xor_key, key.error()).c_str());
    return usage_or_io;
  }
  const network net = o.net_from_records ? network_of(o.dir, key.value()).value_or(o.net) : o.net;
  auto index = BlockIndex::build(o.dir, key.value(), net);
  if (!index) {
    std::fprintf(stderr, "blockwire %s: %s: %s\n", command, o.dir.c_str(), index.error().message().c_str());
    return usage_or_io;
  }
  OpenChain open{key.value(), net, std::move(index).value(), false, std::nullopt};
  open.damaged = report_index_problems(command, o.dir, open.index);
  if (with_undo) {
    if (auto revs = undo_files(o.dir); revs && !revs.value().empty()) {
      auto built = UndoIndex::build(o.dir, open.key, open.index, net);
      if (!built) {
        std::fprintf(stderr, "blockwire %s: %s: reading rev files: %s\n", command, o.dir.c_str(), built.error().message().c_str());
        return built.error().is_io() ? usage_or_io : bad_data;
      }
      open.undo = std::move(built).value();
    }
  }
  const auto chain = open.chain();
  if (chain.empty()) {
    std::fprintf(stderr, "blockwire %s: %s: no chain (no block whose parent is all zeros among %s)\n", command, o.dir.c_str(),
                 count_of(open.index.blocks().size(), "block").c_str());
    return bad_data;
  }
  if (o.from >= chain.size()) {
    std::fprintf(stderr, "blockwire %s: --from %llu: the best chain ends at height %zu\n", command, static_cast<unsigned long long>(o.from),
                 chain.size() - 1);
    return usage_or_io;
  }
  return open;
}

}  // namespace blockwire::cli
