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
  // A peer that broke the protocol or sent what does not check is bad
  // data; one that went away or went silent, a socket's or the directory's
  // failure, or a request that cannot be met is I/O or usage.
  return e.code() == condition::bad_data ? bad_data : usage_or_io;
}

}  // namespace blockwire::cli
