#include "peer_errors.hpp"

#include "commands.hpp"

namespace blockwire::cli {

net::Timeouts timeouts_from_option(unsigned seconds, net::Timeouts defaults) {
  if (seconds == 0) return defaults;
  // The user's time for each: a message has all of it, whatever its size.
  const std::chrono::milliseconds t = std::chrono::seconds(seconds);
  return {.connect = t, .handshake = t, .idle = t, .message = t, .envelope = t, .min_rate = 0};
}

int exit_status_of_peer_error(const error& e) {
  const std::error_code c = e.code();
  // Not whether it is I/O but whose it is: the socket's and the
  // directory's failures are ours, the rest the peer's.
  if (e.is_io() || c.category() == io::category() || c.category() == blockfiles::category()) return usage_or_io;
  if (c == net::errc::timed_out || c == net::errc::too_slow || c == net::errc::connection_closed || c == net::errc::block_not_found ||
      c == net::errc::unknown_host || c == net::errc::bad_endpoint || c == net::errc::peer_not_reading ||
      c == net::errc::ignores_getheaders || c == net::errc::no_answer || c == net::errc::no_headers_past_ours ||
      c == net::errc::chain_changed) {
    return usage_or_io;
  }
  return bad_data;  // it broke the protocol, or sent what does not check
}

}  // namespace blockwire::cli
