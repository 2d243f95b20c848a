// What fetch tells a person: the notes beside its outcome, the lines that
// say a failure and what the directory holds after it, and the summary of
// a fetch that ended well; one wording for every front end.
#include <blockwire/io/number_text.hpp>
#include <blockwire/net/fetch.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace blockwire::net {

std::optional<std::string> v1_fallback_note(const FetchReport& report, const std::string& peer) {
  switch (report.fallback) {
    case v1_fallback::none: return std::nullopt;
    case v1_fallback::spoke_first: return peer + " sent its v1 version before our v2 (BIP324) key: v1 on that connection";
    case v1_fallback::answered_v1:
      return peer + " answered our v2 (BIP324) key with a v1 version: connected again with v1 (--v1 skips the attempt)";
    case v1_fallback::hung_up: return peer + " hung up at our v2 (BIP324) key: connected again with v1 (--v1 skips the attempt)";
  }
  return std::nullopt;
}

std::optional<std::string> closed_handshake_note(const FetchReport& report) {
  // Closed before it sent a byte: a node that refuses us (its slots full,
  // our address banned), or, once it had our version, one that drops a
  // version in another network's envelope without a word.
  const std::optional<error>& f = report.failure;
  if (!f || f->step() != fetch_step::handshake || f->code() != errc::connection_closed || report.peer_bytes_received != 0) {
    return std::nullopt;
  }
  const std::string net(name(report.net));
  if (report.peer_bytes_sent == 0) {
    return report.peer_name +
           " closed the connection as it accepted it, before a byte either way: it refuses us (every slot taken, or our address "
           "banned); try again later, or another node";
  }
  if (report.fallback == v1_fallback::hung_up) {
    return report.peer_name + " closed both connections before sending a byte (at our v2 key, then at our v1 version): it refuses us " +
           "(every slot taken, or our address banned), or it is not a " + net + " node (--network)";
  }
  return report.peer_name + " closed the connection at our version without a word: it is not a " + net +
         " node (--network), or it refuses us (every slot taken, or our address banned)";
}

std::vector<std::string> outcome_notes(const FetchReport& report, const std::string& dir, const std::string& peer) {
  std::vector<std::string> lines;
  if (report.index_not_kept) lines.push_back("the index of " + dir + " could not be kept: " + report.index_not_kept->message());
  if (auto note = v1_fallback_note(report, peer)) lines.push_back(std::move(*note));
  return lines;
}

std::vector<std::string> failure_lines(const FetchReport& report, const std::string& dir, std::string_view signal) {
  std::vector<std::string> lines;
  if (!report.failure) return lines;
  const error& f = *report.failure;
  const std::string said = f.message();
  const std::string height = std::to_string(signed_height(report.height));
  // (a step of another layer's, which fetch never leaves, is said as it is: the default)
  const auto at = f.step().category() == fetch_step_category() ? static_cast<fetch_step>(f.step().value()) : fetch_step{};
  switch (at) {
    case fetch_step::connecting: lines.push_back("cannot connect to " + said); break;
    case fetch_step::handshake:
      lines.push_back("handshake: " + said);
      if (auto note = closed_handshake_note(report)) lines.push_back(std::move(*note));
      break;
    case fetch_step::following:
      lines.push_back(said);
      lines.push_back("the block was taken out again; " + dir + " holds the blocks before it");
      break;
    case fetch_step::writing: lines.push_back(said + "; " + dir + " holds whole, checked blocks up to height " + height); break;
    case fetch_step::stopped:
      lines.push_back((signal.empty() ? std::string("asked") : std::string(signal)) + ": stopped (interrupted) at height " + height +
                      (report.version ? " of the peer's " + std::to_string(report.version->start_height) : std::string()) + "; " + dir +
                      " holds whole, checked blocks up to there; run fetch again to go on");
      break;
    case fetch_step::syncing:
      lines.push_back(said);
      lines.push_back(dir + " holds whole, checked blocks up to height " + height +
                      (f.code() == errc::pruned_peer ? "" : "; run fetch again to go on"));
      break;
    default: lines.push_back(said);
  }
  if (report.utxo_set_not_written) lines.push_back(report.utxo_set_not_written->message());
  return lines;
}

std::vector<std::string> summary_lines(const FetchReport& report, const std::string& dir, std::uint64_t max_blocks) {
  const SyncProgress& p = report.sync;
  const std::int32_t announced = report.version ? report.version->start_height : 0;
  std::vector<std::string> lines;
  lines.push_back("peer:    " + report.peer_name + " (" + (report.version ? report.version->user_agent : std::string()) + ", height " +
                  std::to_string(announced) + ")");
  lines.push_back(report.transport_used == transport::v2 ? "transport: v2, encrypted (BIP324), session " + report.session_id
                                                         : std::string("transport: v1, plaintext") +
                                                               (report.fallback != v1_fallback::none ? " (the peer speaks v1 only)" : ""));
  const double mb_per_s = report.seconds > 0 ? static_cast<double>(p.bytes) / report.seconds / 1e6 : 0.0;
  char rate[64];
  std::snprintf(rate, sizeof rate, " bytes in %.1f s (%.0f MB/s)", report.seconds, mb_per_s);
  lines.push_back("fetched: " + count_of(p.blocks, "block") + ", " + with_commas(p.bytes) + rate);
  lines.push_back(dir + ": height " + (report.height ? with_commas(report.height->to_wire()) : std::string("-1")) + ", tip " +
                  report.tip.to_hex());
  if (p.stopped == SyncProgress::stop::tip_reached) {
    lines.push_back("stopped: the peer's tip reached (it has nothing we lack; it announced height " + std::to_string(announced) + ")");
  } else {
    lines.push_back("stopped: --max-blocks " + std::to_string(max_blocks) + " fetched (the peer announced height " +
                    std::to_string(announced) + "); run fetch again to go on");
  }
  return lines;
}

}  // namespace blockwire::net
