// The options several subcommands share, and their checks.
#pragma once

#include <blockwire/codec/network.hpp>
#include <blockwire/net/connection.hpp>
#include <blockwire/tables/compressed_file.hpp>
#include <blockwire/tables/etl_rows.hpp>

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace blockwire::cli {

// --network NAME, checked and turned into the enum.
void add_network_option(CLI::App& app, network& net);
// --format ndjson|csv, the tables' format.
void add_format_option(CLI::App& app, tables::export_format& format, const std::string& help);
// --compress zstd|gzip|none, for the tables' files.
void add_compress_option(CLI::App& app, tables::compression& compress);
// What every command reading a blocks directory takes: its key and network.
void add_directory_options(CLI::App& app, std::string& xor_key, network& net);
// A whole number of at least `min` that fits 64 bits, written in digits
// alone: "-5" or one past 2^64 - 1 is refused, not wrapped to "everything".
CLI::Validator whole_number(std::uint64_t min = 0);
// --listen ADDR:PORT, checked at parsing by net::parse_endpoint (the one
// parser of every address a command takes): an IPv4 address, [IPv6] or
// nothing (every address), a port from 0 (any free one) to 65535.
CLI::Validator listen_address();
// --timeout SECONDS: every timeout that long; 0 (not given): `defaults`.
net::Timeouts timeouts_from_option(unsigned seconds, net::Timeouts defaults = {});

}  // namespace blockwire::cli
