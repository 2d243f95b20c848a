// The library's export on its own: one export at a time into OUT, taken
// before anything is read; a directory with no chain judges nothing in OUT;
// a shard of Core's own directory whose blocks table ends with Core's block.
#include <blockwire/directory.hpp>
#include <blockwire/tables.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "../support/temp_dir.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

using namespace blockwire;
namespace fs = std::filesystem;

namespace {

const std::string core_dir = BLOCKWIRE_TEST_DATA "/core-regtest/blocks";

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Core's directory's first ten blocks exported into OUT, one shard.
result<tables::EtlReport> export_first_shard(const test::TempDir& out, tables::export_format format) {
  auto dir = BlocksDirectory::open(core_dir);
  REQUIRE(dir);
  auto output = tables::EtlOutput::open(out.path.string());
  REQUIRE(output);
  tables::EtlExport spec;
  spec.format = format;
  spec.end = BlockCount(10);
  spec.shard_blocks = 10;
  return tables::export_etl(dir.value(), output.value(), spec);
}

}  // namespace

TEST_CASE("tables: OUT is locked for one export at a time") {
  test::TempDir out;
  auto first = tables::EtlOutput::open(out.path.string());
  REQUIRE(first);
  auto second = tables::EtlOutput::open(out.path.string());
  REQUIRE_FALSE(second);
  CHECK(second.error().code() == io::errc::locked);
  CHECK(second.error().is_io());
}

TEST_CASE("tables: a directory with no chain removes nothing from OUT") {
  test::TempDir out, empty;
  const fs::path shard = out.path / "blocks" / "start_block=00000000" / "end_block=00000009";
  fs::create_directories(shard);
  const fs::path table = shard / "blocks_00000000_00000009.json";
  std::ofstream(table) << "{\"number\":9}\n";
  auto dir = BlocksDirectory::open(empty.path.string());
  REQUIRE(dir);  // no blk files: an empty chain, not a failure to open
  auto output = tables::EtlOutput::open(out.path.string());
  REQUIRE(output);
  auto report = tables::export_etl(dir.value(), output.value(), {});
  REQUIRE_FALSE(report);
  CHECK(report.error().code() == directory::errc::no_chain);
  CHECK(fs::exists(table));
}

TEST_CASE("tables: the first shard of Core's directory ends with the block Core's node holds at its last height") {
  test::TempDir out;
  auto report = export_first_shard(out, tables::export_format::ndjson);
  REQUIRE(report);
  CHECK(report.value().made() == 1);
  CHECK(report.value().failed() == 0);
  // Core's getblockhash 9, from the fixture's RPC answers.
  const std::string blocks =
      read_text(out.path / "blocks" / "start_block=00000000" / "end_block=00000009" / "blocks_00000000_00000009.json");
  const auto last_line = blocks.substr(blocks.rfind('\n', blocks.size() - 2) + 1);
  CHECK(last_line.find("\"number\":9") != std::string::npos);
  std::ifstream hashes(BLOCKWIRE_TEST_DATA "/core-regtest/rpc/getblockhash.json");
  const auto core = nlohmann::json::parse(hashes);
  REQUIRE(core.size() > 9);
  CHECK(last_line.find(core[9].get<std::string>()) != std::string::npos);
}

TEST_CASE("tables: export_columns names each CSV table's columns as the header line of an exported shard does, typed as its rows are") {
  test::TempDir out;
  REQUIRE(export_first_shard(out, tables::export_format::csv));
  for (const std::string_view table : tables::export_tables(tables::export_format::csv)) {
    const std::string name(table);
    const std::string text = read_text(out.path / name / "start_block=00000000" / "end_block=00000009" / (name + "_00000000_00000009.csv"));
    std::string names;
    for (const tables::ExportColumn& c : tables::export_columns(table)) names.append(names.empty() ? "" : ",").append(c.name);
    CHECK_MESSAGE(text.substr(0, text.find('\n')) == names, table);
  }
  CHECK(tables::export_columns("no such table").empty());
  // A few kinds, from bitcoin-etl's schema (docs/export.md).
  const auto kind_of = [](std::string_view table, std::string_view column) -> std::optional<std::pair<tables::column_kind, bool>> {
    for (const tables::ExportColumn& c : tables::export_columns(table))
      if (c.name == column) return std::pair(c.kind, c.nullable);
    return std::nullopt;
  };
  CHECK(kind_of("blocks", "hash") == std::pair(tables::column_kind::text, false));
  CHECK(kind_of("blocks", "number") == std::pair(tables::column_kind::integer, false));
  CHECK(kind_of("transactions", "is_coinbase") == std::pair(tables::column_kind::boolean, false));
  CHECK(kind_of("transactions", "fee") == std::pair(tables::column_kind::integer, true));
  CHECK(kind_of("inputs", "value") == std::pair(tables::column_kind::integer, true));
  CHECK(kind_of("outputs", "value") == std::pair(tables::column_kind::integer, false));
  CHECK(kind_of("outputs", "script_hex") == std::pair(tables::column_kind::text, false));
}

TEST_CASE("tables: a zstd shard whose blocks table was cut short is made again on the next run, said, to the same bytes") {
  test::TempDir out;
  auto dir = BlocksDirectory::open(core_dir);
  REQUIRE(dir);
  tables::EtlExport spec;
  spec.end = BlockCount(20);
  spec.shard_blocks = 10;
  spec.compress = tables::compression::zstd;
  std::vector<std::string> notes;
  spec.note = [&](std::string_view line) { notes.emplace_back(line); };
  const fs::path table = out.path / "blocks" / "start_block=00000010" / "end_block=00000019" / "blocks_00000010_00000019.json.zst";
  std::string whole;
  {
    auto output = tables::EtlOutput::open(out.path.string());
    REQUIRE(output);
    auto first = tables::export_etl(dir.value(), output.value(), spec);
    REQUIRE(first);
    CHECK(first.value().made() == 2);
    whole = read_text(table);
  }
  fs::resize_file(table, fs::file_size(table) - 5);
  auto output = tables::EtlOutput::open(out.path.string());
  REQUIRE(output);
  auto again = tables::export_etl(dir.value(), output.value(), spec);
  REQUIRE(again);
  CHECK(again.value().removed == 1);
  CHECK(again.value().made() == 1);
  CHECK(again.value().skipped() == 1);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("does not decompress whole") != std::string::npos);
  CHECK(read_text(table) == whole);
}

TEST_CASE("tables: an OUT of shards of another size is refused before anything is made or removed, by export and by its sweep alone") {
  test::TempDir out;
  auto dir = BlocksDirectory::open(core_dir);
  REQUIRE(dir);
  tables::EtlExport spec;
  spec.end = BlockCount(30);
  spec.shard_blocks = 10;
  {
    auto output = tables::EtlOutput::open(out.path.string());
    REQUIRE(output);
    auto first = tables::export_etl(dir.value(), output.value(), spec);
    REQUIRE(first);
    REQUIRE(first.value().made() == 3);
  }
  const auto files = [&] {
    std::vector<fs::path> found;
    for (const auto& e : fs::recursive_directory_iterator(out.path)) found.push_back(e.path());
    std::sort(found.begin(), found.end());
    return found;
  };
  const std::vector<fs::path> before = files();
  auto output = tables::EtlOutput::open(out.path.string());
  REQUIRE(output);
  // 5: 00000000-00000009 holds more blocks; 20: 00000010-00000019 starts off its multiples.
  for (const std::uint64_t size : {5, 20}) {
    CAPTURE(size);
    tables::EtlExport other = spec;
    other.shard_blocks = size;
    auto refused = tables::export_etl(dir.value(), output.value(), other);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code() == condition::usage);
    const std::string why(refused.error().context());
    CHECK(why.find("of 10 blocks") != std::string::npos);
    CHECK(why.find("not " + std::to_string(size)) != std::string::npos);
    CHECK(why.find("--shard-blocks 10") != std::string::npos);
    auto swept = tables::remove_stale_shards(dir.value(), output.value(), other);  // blockwire.distributed's route
    REQUIRE_FALSE(swept);
    CHECK(swept.error().code() == condition::usage);
    CHECK(std::string(swept.error().context()) == why);
    CHECK(files() == before);
  }
  // The same size, a shorter range: what is there is whole (no refusal).
  tables::EtlExport shorter = spec;
  shorter.end = BlockCount(15);
  auto again = tables::export_etl(dir.value(), output.value(), shorter);
  REQUIRE(again);
  CHECK(again.value().skipped() == 2);
  CHECK(files() == before);
}

TEST_CASE("tables: the report's block bytes are the made shards' alone, not a failed shard's that read its blocks") {
  test::TempDir out;
  auto dir = BlocksDirectory::open(core_dir);
  REQUIRE(dir);
  tables::EtlExport spec;
  spec.end = BlockCount(30);
  spec.shard_blocks = 10;
  spec.threads = 1;  // one shard after another: an I/O error stops the run before the third
  {
    auto output = tables::EtlOutput::open(out.path.string());
    REQUIRE(output);
    REQUIRE(tables::export_etl(dir.value(), output.value(), spec));
  }
  // Shard 10-19 is made again (a table is not a file) and fails to be
  // renamed into place after reading its blocks; 0-9 is made again whole.
  std::string table;
  for (const std::string_view t : tables::export_tables(spec.format)) {
    if (t != "blocks") table = t;
  }
  REQUIRE_FALSE(table.empty());
  const fs::path in_the_way = out.path / table / "start_block=00000010" / "end_block=00000019" / (table + "_00000010_00000019.json");
  REQUIRE(fs::remove(in_the_way));
  fs::create_directory(in_the_way);
  for (const std::string_view t : tables::export_tables(spec.format)) {
    fs::remove_all(out.path / t / "start_block=00000000");
    fs::remove_all(out.path / t / "start_block=00000020");
  }
  auto output = tables::EtlOutput::open(out.path.string());
  REQUIRE(output);
  auto report = tables::export_etl(dir.value(), output.value(), spec);
  REQUIRE(report);
  const tables::EtlReport& r = report.value();
  CHECK(r.made() == 1);
  CHECK(r.failed() == 1);
  CHECK(r.io_failed());
  REQUIRE(r.shards.size() == 3);
  CHECK(r.shards[1].block_bytes > 0);  // its blocks were read
  // Core's getblock 3 sizes of heights 0-9, the shard made.
  std::ifstream blocks(BLOCKWIRE_TEST_DATA "/core-regtest/rpc/getblock3.json");
  const auto core = nlohmann::json::parse(blocks);
  std::uint64_t made_bytes = 0, made_transactions = 0;
  for (const auto& b : core) {
    if (b["height"].get<int>() < 10 && b["confirmations"].get<int>() > 0) {
      made_bytes += b["size"].get<std::uint64_t>();
      made_transactions += b["tx"].size();
    }
  }
  CHECK(r.block_bytes() == made_bytes);
  CHECK(r.transactions() == made_transactions);
}
