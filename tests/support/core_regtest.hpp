// The directory Bitcoin Core's node wrote (tests/data/core-regtest: its
// README says what is where), and the answers its RPC gave over it.
#pragma once

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

namespace test {

inline const std::string core_data = BLOCKWIRE_TEST_DATA "/core-regtest";

// rpc/NAME.json, as Core answered it.
inline nlohmann::json rpc(const std::string& name) {
  std::ifstream in(core_data + "/rpc/" + name + ".json");
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

}  // namespace test
