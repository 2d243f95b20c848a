#include "peer_errors.hpp"

#include "commands.hpp"

namespace blockwire::cli {

std::string describe_peer_error(const net::Connection& peer, const error& e) {
  std::string text = "peer " + peer.peer_name() + ": " + e.code().message();
  if (e.has_offset()) {
    text += " (";
    if (!peer.last_command().empty()) text += "in its '" + peer.last_command() + "' message, ";
    text += "byte " + std::to_string(e.offset()) + " of what it sent)";
  }
  return text;
}

net::Timeouts timeouts_from_option(unsigned seconds, net::Timeouts defaults) {
  if (seconds == 0) return defaults;
  // The user's time for each: a message has all of it, whatever its size.
  const std::chrono::milliseconds t = std::chrono::seconds(seconds);
  return {.connect = t, .handshake = t, .idle = t, .message = t, .envelope = t, .min_rate = 0};
}

int exit_status_of_peer_error(const error& e) {
  const std::error_code c = e.code();
  if (c.category() == std::system_category() || c.category() == blockwire::error_category() || c.category() == blockfile_category()) {
    return usage_or_io;  // the socket's, or the directory's
  }
  if (c == net::net_errc::timed_out || c == net::net_errc::too_slow || c == net::net_errc::connection_closed ||
      c == net::net_errc::block_not_found || c == net::net_errc::unknown_host || c == net::net_errc::bad_endpoint ||
      c == net::net_errc::peer_not_reading || c == net::net_errc::ignores_getheaders || c == net::net_errc::no_answer) {
    return usage_or_io;
  }
  return bad_data;  // it broke the protocol, or sent what does not check
}

}  // namespace blockwire::cli
