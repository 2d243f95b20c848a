#include "option_helpers.hpp"

#include <blockwire/net/endpoint.hpp>

#include <charconv>
#include <string>

namespace blockwire::cli {

void add_compress_option(CLI::App& app, tables::compression& compress) {
  app.add_option_function<std::string>(
         "--compress",
         [&compress](const std::string& value) {
           const auto named = tables::compression_named(value);
           if (!named) throw CLI::ValidationError("--compress", "'" + value + "' is not zstd, gzip or none");
           compress = *named;
         },
         "each table's file compressed, its name ending .zst or .gz (DuckDB reads both as they are, BigQuery gzip):\n"
         "zstd (about the size of the blocks; see docs/export.md for its speed), gzip (larger, slower), none (default)")
      ->type_name("zstd|gzip|none");
}

void add_format_option(CLI::App& app, tables::export_format& format, const std::string& help) {
  app.add_option_function<std::string>(
         "--format",
         [&format](const std::string& value) {
           const auto named = tables::export_format_named(value);
           if (!named) throw CLI::ValidationError("--format", "'" + value + "' is not ndjson or csv");
           format = *named;
         },
         help)
      ->type_name("ndjson|csv");
}

void add_network_option(CLI::App& app, network& net) {
  app.add_option_function<std::string>(
         "--network",
         [&net](const std::string& value) {
           const auto parsed = network_from_name(value);
           if (!parsed) throw CLI::ValidationError("--network", "unknown network '" + value + "'");
           net = *parsed;
         },
         "mainnet, testnet3, testnet4, signet or regtest: the records' magic and the addresses (default: what\n"
         "the first record of a blk file or directory says, else mainnet)")
      ->type_name("NAME");
}

// What every command reading a blocks directory takes: its key and network.
void add_directory_options(CLI::App& app, std::string& xor_key, network& net) {
  app.add_option("--xor-key", xor_key, "the 16-hex-digit key (default: the directory's xor.dat)")->type_name("HEX");
  add_network_option(app, net);
}

// A whole number of at least `min` that fits 64 bits, written in digits
// alone: "-5" or one past 2^64 - 1 is refused, not wrapped to "everything".
CLI::Validator whole_number(std::uint64_t min) {
  return CLI::Validator(
      [min](std::string& v) -> std::string {
        std::uint64_t n = 0;
        const auto [end, err] = std::from_chars(v.data(), v.data() + v.size(), n);
        if (v.empty() || v.front() < '0' || v.front() > '9' || err == std::errc::invalid_argument || end != v.data() + v.size()) {
          return "a whole number" + std::string(min == 0 ? " (0 or more)" : " (" + std::to_string(min) + " or more)") + ", not " + v;
        }
        if (err == std::errc::result_out_of_range) return v + " is too large (at most 18,446,744,073,709,551,615)";
        if (n < min) return "at least " + std::to_string(min) + ", not " + v;
        return {};
      },
      min == 0 ? "" : "N>=" + std::to_string(min));
}

net::Timeouts timeouts_from_option(unsigned seconds, net::Timeouts defaults) {
  if (seconds == 0) return defaults;
  // The user's time for each: a message has all of it, whatever its size.
  const std::chrono::milliseconds t = std::chrono::seconds(seconds);
  return {.connect = t, .handshake = t, .idle = t, .message = t, .envelope = t, .min_rate = 0};
}

CLI::Validator listen_address() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (net::parse_endpoint(value, 0)) return {};
        return "not ADDR:PORT: " + value +
               " (an IPv4 address, [IPv6], or nothing for every address; a port from 0, any free one, to 65535)";
      },
      "");  // (--help shows the option's type name, ADDR:PORT, already)
}

}  // namespace blockwire::cli
