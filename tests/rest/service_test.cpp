// rest::Service as a library call, no HTTP: every request of the REST
// session recorded from Bitcoin Core's own node (-rest -txindex
// -blockfilterindex) over its directory, answered from a copy of it as
// Core answered.
#include "../support/temp_dir.hpp"

#include <blockwire/directory.hpp>
#include <blockwire/rest.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>

namespace fs = std::filesystem;
using namespace blockwire;

namespace {

const std::string core_data = BLOCKWIRE_TEST_DATA "/core-regtest";

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("rest::Service: every request of Core's recorded REST session answered as Core answered it: status, content type, body") {
  test::TempDir temp;
  fs::copy(core_data + "/blocks", temp.file("blocks"), fs::copy_options::recursive);
  fs::copy(core_data + "/chainstate", temp.file("chainstate"), fs::copy_options::recursive);
  test::CacheAt cache;
  auto dir = BlocksDirectory::open(temp.file("blocks"));
  REQUIRE(dir);
  BlockStore store(std::move(dir).value());
  REQUIRE(store.enable_filters());
  auto tx_index = TxIndex::open(store.directory());
  REQUIRE(tx_index);
  CHECK(rest::utxo_set_beside(temp.file("blocks")) == temp.file("chainstate"));
  const rest::Service service(store, rest::Sources{&tx_index.value(), rest::utxo_set_beside(temp.file("blocks"))});

  const auto manifest = nlohmann::json::parse(read_file(core_data + "/rest/manifest.json"));
  std::size_t compared = 0;
  for (const auto& entry : manifest) {
    const std::string path = entry["path"].get<std::string>();
    CAPTURE(path);
    const rest::Response got = service.get(path);
    const std::string want = read_file(core_data + "/rest/" + entry["body_file"].get<std::string>());
    CHECK(got.status == entry["status"].get<unsigned>());
    CHECK(got.content_type == entry["content_type"].get<std::string>());
    if (entry["content_type"] == "application/json" && got.status == 200) {
      // The same values with the keys in the same order; the warnings of
      // Core's own (pre-release) build are no directory's.
      auto theirs = nlohmann::ordered_json::parse(want);
      if (path == "/rest/chaininfo.json") theirs["warnings"] = nlohmann::ordered_json::array();
      CHECK(nlohmann::ordered_json::parse(got.body) == theirs);
    } else {
      CHECK(got.body == want);
    }
    ++compared;
  }
  CHECK(compared == manifest.size());
  CHECK(compared > 300);
  // A route Core has not: its 404 with libevent's content type.
  CHECK(service.get("/rest/nothing").status == 404);
}
