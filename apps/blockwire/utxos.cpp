// blockwire utxos: a node's UTXO set, as gettxoutsetinfo (hash_serialized_3)
// says it, read from its chainstate (core_utxo_set_info); with --snapshot
// written as dumptxoutset writes it too (write_core_snapshot).
#include "commands.hpp"
#include "progress.hpp"
#include "text.hpp"

#include <blockwire/blockfiles/block_directory.hpp>
#include <blockwire/directory/core_chainstate.hpp>
#include <blockwire/io/number_text.hpp>
#include <blockwire/tables/core_json.hpp>
#include <blockwire/tables/json_writer.hpp>

#include <cstdio>
#include <filesystem>
#include <unistd.h>

namespace blockwire::cli {

int utxos(const UtxosOptions& o) {
  network net = o.net;
  if (o.net_from_records) {
    const std::string blocks = (std::filesystem::path(o.chainstate) / ".." / "blocks").lexically_normal().string();
    std::error_code ec;
    if (std::filesystem::is_directory(blocks, ec)) {
      if (auto format = record_format(blocks)) net = format.value().net;
    }
  }
  Progress bar(o.progress && !o.json && isatty(STDERR_FILENO) != 0, 0, "coin");
  const CoinsProgressFn progress = [&bar](const CoinsProgress& p) { bar.update_count(p.fraction, p.coins); };
  std::string why;
  auto info = o.snapshot.empty() ? core_utxo_set_info(o.chainstate, &why, progress)
                                 : write_core_snapshot(o.chainstate, o.snapshot, net, &why, progress);
  bar.finish();
  if (!info) {
    std::fprintf(stderr, "blockwire utxos: %s: %s\n", o.chainstate.c_str(), why.empty() ? info.error().message().c_str() : why.c_str());
    return exit_status_of(info.error());
  }
  const UtxoSetInfo& u = info.value();
  if (o.json) {
    tables::JsonWriter out;
    out.begin_object();
    out.member_string("bestblock", u.best_block.to_hex());
    out.member_uint("txouts", u.txouts);
    out.member_uint("bogosize", u.bogosize);
    out.member_string("hash_serialized_3", u.hash_serialized_3.to_hex());
    out.member_raw_number("total_amount", tables::amount_text(u.total_amount));
    out.member_uint("transactions", u.transactions);
    out.end_object();
    std::printf("\n");
    return ok;
  }
  std::printf("best block         %s\n", u.best_block.to_hex().c_str());
  std::printf("transactions       %s\n", with_commas(u.transactions).c_str());
  std::printf("unspent outputs    %s\n", with_commas(u.txouts).c_str());
  std::printf("bogosize           %s\n", with_commas(u.bogosize).c_str());
  std::printf("total amount       %s BTC\n", tables::amount_text(u.total_amount).c_str());
  std::printf("hash_serialized_3  %s\n", u.hash_serialized_3.to_hex().c_str());
  if (!o.snapshot.empty()) {
    std::printf("snapshot           %s (%s's, loadable by loadtxoutset on a node that has the block)\n", o.snapshot.c_str(),
                std::string(name(net)).c_str());
  }
  return ok;
}

}  // namespace blockwire::cli
