// A blocks directory written by the library: the regtest genesis block and
// `n` coinbase-only blocks after it (test::mine), appended to at will.
#pragma once

#include "chain.hpp"
#include "temp_dir.hpp"

#include <blockwire/blockfiles.hpp>
#include <blockwire/codec.hpp>

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

namespace test {

struct Written {
  TempDir temp;
  std::string dir = temp.file("blocks");
  blockwire::XorKey key = blockwire::random_xor_key();
  std::vector<blockwire::Block> chain{blockwire::genesis_block(blockwire::network::regtest)};
  explicit Written(std::uint32_t n) {
    std::filesystem::create_directories(dir);
    append(n);
  }
  void append(std::uint32_t n) {
    auto writer = blockwire::BlockFileWriter::open(dir, key, blockwire::network::regtest);
    REQUIRE(writer);
    if (chain.size() == 1) REQUIRE(writer.value().append(chain[0]));
    for (std::uint32_t i = 0; i < n; ++i) {
      const auto h = static_cast<std::uint32_t>(chain.size());
      chain.push_back(mine(blockwire::block_hash(chain.back().header), 1'700'000'000 + 600 * h, h));
      REQUIRE(writer.value().append(chain.back()));
    }
    REQUIRE(writer.value().close());
  }
  std::string kept(const std::string& name) const { return (std::filesystem::path(dir) / "blockwire-index" / name).string(); }
};

}  // namespace test
