// make_chainstate: a chainstate of N coins in Bitcoin Core's format, for
// bench/utxo_read: LevelDB with Core's options (no compression, 32 MiB
// table files), an obfuscation key, "C" + txid + VARINT(output index) ->
// the obfuscated Coin (the library's encode_chainstate_coin), "B" -> a
// best block. The coins are drawn (a fixed seed: the same set each time)
// in mainnet's proportions as of 2025: by script type (P2PKH, P2WPKH, P2TR,
// P2SH, P2WSH, P2PK with a compressed key, bare multisig, other), one to
// a few outputs a transaction, values from dust to thousands of BTC,
// heights over 925,000 blocks.
//   make_chainstate DIR N
#include <blockwire/io/hash256.hpp>
#include <blockwire/io/vector_writer.hpp>
#include <blockwire/undo/block_undo.hpp>
#include <blockwire/undo/varint.hpp>

#include <leveldb/db.h>
#include <leveldb/write_batch.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace blockwire;

namespace {

std::vector<std::byte> script_of(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> byte(0, 255);
  const auto random_bytes = [&](std::vector<std::byte>& s, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) s.push_back(static_cast<std::byte>(byte(rng)));
  };
  const auto b = [](std::initializer_list<int> v) {
    std::vector<std::byte> s;
    for (int x : v) s.push_back(static_cast<std::byte>(x));
    return s;
  };
  // Shares in thousandths.
  const int pick = std::uniform_int_distribution<int>(0, 999)(rng);
  std::vector<std::byte> s;
  if (pick < 300) {  // P2PKH
    s = b({0x76, 0xa9, 0x14});
    random_bytes(s, 20);
    s.push_back(std::byte{0x88});
    s.push_back(std::byte{0xac});
  } else if (pick < 600) {  // P2WPKH
    s = b({0x00, 0x14});
    random_bytes(s, 20);
  } else if (pick < 820) {  // P2TR
    s = b({0x51, 0x20});
    random_bytes(s, 32);
  } else if (pick < 920) {  // P2SH
    s = b({0xa9, 0x14});
    random_bytes(s, 20);
    s.push_back(std::byte{0x87});
  } else if (pick < 960) {  // P2WSH
    s = b({0x00, 0x20});
    random_bytes(s, 32);
  } else if (pick < 965) {  // P2PK, compressed key (no curve check needed)
    s = b({0x21, 0x02});
    random_bytes(s, 32);
    s.push_back(std::byte{0xac});
  } else if (pick < 985) {  // bare 1-of-2 multisig (the stamps kind)
    s = b({0x51, 0x21, 0x02});
    random_bytes(s, 32);
    s.push_back(std::byte{0x21});
    s.push_back(std::byte{0x03});
    random_bytes(s, 32);
    s.push_back(std::byte{0x52});
    s.push_back(std::byte{0xae});
  } else {  // other: a short script of its own
    random_bytes(s, static_cast<std::size_t>(std::uniform_int_distribution<int>(1, 60)(rng)));
    s[0] = std::byte{0x01};  // never OP_RETURN
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: make_chainstate DIR N\n");
    return 2;
  }
  const std::string dir = argv[1];
  const std::uint64_t n = std::strtoull(argv[2], nullptr, 10);
  leveldb::Options options;
  options.create_if_missing = true;
  options.error_if_exists = true;
  options.compression = leveldb::kNoCompression;  // as Core's dbwrapper
  options.max_file_size = 32 << 20;               // Core's DBWRAPPER_MAX_FILE_SIZE
  options.write_buffer_size = 64 << 20;
  leveldb::DB* raw = nullptr;
  if (const auto s = leveldb::DB::Open(options, dir, &raw); !s.ok()) {
    std::fprintf(stderr, "make_chainstate: %s\n", s.ToString().c_str());
    return 2;
  }
  const std::unique_ptr<leveldb::DB> db(raw);
  std::mt19937_64 rng(36);
  std::array<std::byte, 8> key{};
  for (auto& k : key) k = static_cast<std::byte>(rng());
  std::string key_value(1, '\x08');
  key_value.append(reinterpret_cast<const char*>(key.data()), key.size());
  const auto obfuscated = [&](std::span<const std::byte> bytes) {
    std::string out(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<char>(out[i] ^ static_cast<char>(key[i % key.size()]));
    return out;
  };
  leveldb::WriteBatch batch;
  batch.Put(leveldb::Slice("\x0e\x00obfuscate_key", 15), key_value);
  std::array<std::byte, 32> best{};
  for (auto& b : best) b = static_cast<std::byte>(rng());
  batch.Put("B", obfuscated(best));

  std::uniform_int_distribution<std::uint32_t> height(0, 925'000);
  std::uniform_real_distribution<double> log_value(std::log(546.0), std::log(5e11));
  std::vector<std::byte> value, key_bytes;
  std::uint64_t written = 0;
  while (written < n) {
    std::array<std::byte, 32> txid{};
    for (std::size_t i = 0; i < 32; i += 8) {
      const std::uint64_t r = rng();
      for (std::size_t j = 0; j < 8; ++j) txid[i + j] = static_cast<std::byte>(r >> (8 * j));
    }
    // One output left unspent of most transactions; of some, a few.
    const int pick = std::uniform_int_distribution<int>(0, 99)(rng);
    const std::uint32_t outputs = pick < 60 ? 1 : pick < 85 ? 2 : pick < 95 ? 3 : 8;
    const std::uint32_t h = height(rng);
    const bool coinbase = std::uniform_int_distribution<int>(0, 199)(rng) == 0;
    for (std::uint32_t o = 0; o < outputs && written < n; ++o, ++written) {
      SpentCoin coin{*Height::checked(h), coinbase, Amount::from_sat(static_cast<std::int64_t>(std::exp(log_value(rng)))), script_of(rng)};
      value.clear();
      encode_chainstate_coin(coin, value);
      key_bytes.assign(1, std::byte{'C'});
      key_bytes.insert(key_bytes.end(), txid.begin(), txid.end());
      VectorWriter grows(key_bytes);
      BufferedWriter<VectorWriter&, 0> sink(grows);
      undo::encode_varint(sink, o);
      batch.Put(leveldb::Slice(reinterpret_cast<const char*>(key_bytes.data()), key_bytes.size()), obfuscated(value));
      if (batch.ApproximateSize() > (16 << 20)) {
        if (const auto s = db->Write(leveldb::WriteOptions(), &batch); !s.ok()) {
          std::fprintf(stderr, "make_chainstate: %s\n", s.ToString().c_str());
          return 2;
        }
        batch.Clear();
      }
    }
  }
  if (const auto s = db->Write(leveldb::WriteOptions(), &batch); !s.ok()) {
    std::fprintf(stderr, "make_chainstate: %s\n", s.ToString().c_str());
    return 2;
  }
  db->CompactRange(nullptr, nullptr);  // as a node's long-lived chainstate is: tables, levels
  std::printf("%llu coins\n", static_cast<unsigned long long>(written));
  return 0;
}
