// The directory Bitcoin Core's node wrote (tests/data/core-regtest: its
// README says what is where), and the answers its RPC gave over it.
#pragma once

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "temp_dir.hpp"

#include <blockwire/directory/blocks_directory.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace test {

inline const std::string core_data = BLOCKWIRE_TEST_DATA "/core-regtest";

// rpc/NAME.json, as Core answered it.
inline nlohmann::json rpc(const std::string& name) {
  std::ifstream in(core_data + "/rpc/" + name + ".json");
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

// Core's directory as it was before its reorganization, in `blocks` (a
// folder made here): its blk file cut right after the stale branch's last
// block (Core wrote the heavier branch after it), the rest appended by
// append_rest() as Core appended it; Core's index left out, so that the
// blk files say which branch is best.
struct StaleBranchCopy {
  std::string blocks;
  blockwire::BlockHash last_stale = blockwire::BlockHash::all_zeros();  // the stale branch's tip (height 236)
  std::string whole;                                                    // Core's blk file
  std::size_t cut = 0;                                                  // where the copy's ends until append_rest()

  explicit StaleBranchCopy(std::string folder) : blocks(std::move(folder)) {
    namespace fs = std::filesystem;
    fs::create_directories(blocks);
    const std::string blk = blocks + "/blk00000.dat";
    fs::copy(core_data + "/blocks/xor.dat", blocks + "/xor.dat");
    fs::copy(core_data + "/blocks/rev00000.dat", blocks + "/rev00000.dat");
    {
      std::ifstream in(core_data + "/blocks/blk00000.dat", std::ios::binary);
      whole.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    last_stale = blockwire::BlockHash::from_hex(rpc("stale_blocks")[0]["hash"].get<std::string>()).value();
    std::ofstream(blk, std::ios::binary) << whole;
    {
      CacheAt look;  // (the whole file's kept index elsewhere, gone after)
      auto full = blockwire::BlocksDirectory::open(blocks);
      REQUIRE(full);
      const auto b = full.value().index().find(last_stale);
      REQUIRE(b);
      cut = b->offset + 8 + full.value().read_block(*b).value().size();
    }
    std::ofstream(blk, std::ios::binary | std::ios::trunc) << whole.substr(0, cut);
  }

  void append_rest() const { std::ofstream(blocks + "/blk00000.dat", std::ios::binary | std::ios::app) << whole.substr(cut); }
};

}  // namespace test
