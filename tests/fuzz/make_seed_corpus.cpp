// Writes the fuzzers' seed corpus from the real data in tests/data:
//   DIR/block        small blocks: each real header with the first 1, 2, 3
//                    and 10 transactions (whole 1 MB blocks would make each
//                    run a thousand times slower; the tests cover them)
//   DIR/transaction  Bitcoin Core's 212 vectors and transactions of the blocks
//   DIR/header       both headers
//   DIR/message      the P2P tests' sample messages
#include <blockwire/codec.hpp>
#include <blockwire/p2p.hpp>
#include <blockwire/undo.hpp>

#include "../p2p/samples.hpp"
#include <blockwire/io.hpp>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using namespace blockwire;
namespace fs = std::filesystem;

namespace {

std::vector<std::byte> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(chars.size());
  for (std::size_t i = 0; i < chars.size(); ++i) out[i] = static_cast<std::byte>(chars[i]);
  return out;
}

void write_file(const fs::path& path, std::span<const std::byte> bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::vector<std::byte> from_hex(const std::string& hex) {
  std::vector<std::byte> out(hex.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::byte>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fputs("usage: make_seed_corpus TEST_DATA_DIR OUT_DIR\n", stderr);
    return 2;
  }
  const fs::path data = argv[1];
  const fs::path out = argv[2];
  for (const char* kind : {"block", "transaction", "header", "message", "undo", "filter"}) fs::create_directories(out / kind);
  // P2P messages: the P2P tests' samples (the block message left out: a
  // megabyte seed slows every run).
  for (const p2p::Message& m : test::p2p_samples()) {
    if (std::holds_alternative<p2p::BlockMessage>(m)) continue;
    std::vector<std::byte> bytes;
    p2p::encode_message(m, network::mainnet, bytes);
    write_file(out / "message" / std::string(p2p::command(m)), bytes);
  }

  int count = 0;
  for (const char* name : {"block413567.raw", "block_000000000000000000000c835b2adcaedc20fdf6ee440009c249452c726dafae.raw"}) {
    const auto raw = read_file(data / name);
    auto block = decode_block(raw);
    if (!block) {
      std::fprintf(stderr, "make_seed_corpus: %s: %s\n", name, block.error().message().c_str());
      return 1;
    }
    const std::string stem = std::string(name).substr(0, 16);
    write_file(out / "header" / stem, std::span(raw).first(80));
    for (std::size_t n : {1, 2, 3, 10}) {
      Block small{block.value().header,
                  {block.value().transactions.begin(), block.value().transactions.begin() + static_cast<std::ptrdiff_t>(n)}};
      std::vector<std::byte> bytes;
      encode_block(small, bytes);
      write_file(out / "block" / (stem + "-" + std::to_string(n)), bytes);
    }
    for (std::size_t i = 0; i < 20; ++i) {
      std::vector<std::byte> bytes;
      encode_transaction(block.value().transactions[i * 97 % block.value().transactions.size()], bytes);
      write_file(out / "transaction" / (stem + "-" + std::to_string(i)), bytes);
    }
    count += 4 + 20 + 1;
    // Undo data shaped like the block's first transactions, the coins'
    // scripts and values taken from its outputs (every script kind it
    // has), plus a P2PK of an uncompressed key (the genesis block's).
    BlockUndo undo;
    const Block& b = block.value();
    const auto genesis_script = genesis_block(network::mainnet).transactions[0];
    for (std::size_t t = 1; t < 12 && t < b.transactions.size(); ++t) {
      TxUndo& tx = undo.transactions.emplace_back();
      for (std::size_t i = 0; i < b.transactions[t].input_count(); ++i) {
        const Transaction& source = b.transactions[(t * 7 + i) % b.transactions.size()];
        const OutputView o = source.output(i % source.output_count());
        const auto script = o.script_pubkey();
        tx.coins.push_back({*Height::checked(400'000 + t), i == 0 && t == 1, o.value(), {script.begin(), script.end()}});
      }
    }
    const auto key_script = genesis_script.output(0).script_pubkey();
    undo.transactions.push_back(
        {{SpentCoin{*Height::checked(0), true, Amount::from_sat(50'0000'0000), {key_script.begin(), key_script.end()}}}});
    std::vector<std::byte> undo_bytes;
    encode_block_undo(undo, undo_bytes);
    write_file(out / "undo" / stem, undo_bytes);
    ++count;
  }
  for (const char* name : {"tx_valid.json", "tx_invalid.json"}) {
    std::ifstream in(data / name);
    int i = 0;
    for (const auto& entry : nlohmann::json::parse(in)) {
      if (entry.size() < 2 || !entry[0].is_array()) continue;
      write_file(out / "transaction" / (std::string(name) + "-" + std::to_string(i++)), from_hex(entry[1].get<std::string>()));
      ++count;
    }
  }
  // BIP158 filters: Core's vectors' (fuzz_decode_filter reads them with the
  // basic filter's P and M).
  {
    std::ifstream in(data / "blockfilters.json");
    const auto rows = nlohmann::json::parse(in);
    for (std::size_t i = 1; i < rows.size(); ++i) {
      write_file(out / "filter" / ("vector-" + std::to_string(i)), from_hex(rows[i][5].get<std::string>()));
      ++count;
    }
  }
  std::printf("make_seed_corpus: %d seeds in %s\n", count, out.c_str());
  return 0;
}
