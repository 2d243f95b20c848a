// Hashes against independent facts: NIST's SHA-256 vectors, the real blocks'
// hashes and roots from tests/data/README.md, and txids of Core's vectors
// recomputed from bytes cut out of the raw hex by the test itself.
#include <blockwire/codec.hpp>
#include <blockwire/io.hpp>

#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include <algorithm>
#include <random>
#include <nlohmann/json.hpp>

#include "../io/test_support.hpp"
#include "../support/test_data.hpp"
#include "../support/bytes.hpp"

#include <fstream>
#include <string>

using namespace blockwire;

namespace {

// A digest's bytes in their own order, as NIST lists them (not Bitcoin's
// reversed display order).
std::string hex(const Hash256& digest) { return to_hex(digest.bytes()); }

std::span<const std::byte> text(std::string_view s) { return std::as_bytes(std::span(s.data(), s.size())); }

struct BlockFacts {
  const std::vector<std::byte>& bytes;
  const char* hash;
  const char* merkle_root;
  const char* first_txid;
  const char* last_txid;
  const char* last_wtxid;
  const char* witness_root;  // nullptr: the block has no witness data
};

std::vector<BlockFacts> both_blocks() {
  return {
      {test::block413567(), "0000000000000000025aff8be8a55df8f89c77296db6198f272d6577325d4069",
       "64a50c649fc816baaa2effda230c39cacf1504e4e616a2863685b72aaa7dce05",
       "5b4aaef3f4e4625d70385ddf0bd2a0b7d7141e4c2fd36d2ff2cad37fff3deb0f",
       "63434bb06525615f43954598d281d03feaae70658c4187ccb3ba7fa7b093a0b8",
       "63434bb06525615f43954598d281d03feaae70658c4187ccb3ba7fa7b093a0b8", nullptr},
      {test::segwit_block(), "000000000000000000000c835b2adcaedc20fdf6ee440009c249452c726dafae",
       "407d72768cec1a244b7599af79f554055c72d6b2356c890f8c25abf797679022",
       "764b60c3d9a2c3c5bb6fe7141d9ca6e6778122df75f19366a2c5cb948d1d7d84",
       "2947daf667b1914a2f060e8cf10267ca1d056f0dab3ccb273da474f063b7f412",
       "87adb95df3cadce2bf86d4c58d68bd02412bd9e99d64ab46b9f6603debfa69ab",
       "06e4968ea40bc6ad70d8e6cd468f1ca813df58352e6901a151cc7293badacc58"},
  };
}

// Where each transaction starts in the raw block.
std::vector<std::size_t> tx_offsets(const Block& block) {
  std::vector<std::size_t> at;
  std::size_t offset = 80 + (block.transactions.size() < 0xfd ? 1 : 3);
  for (const Transaction& tx : block.transactions) {
    at.push_back(offset);
    offset += serialized_size(tx);
  }
  return at;
}

}  // namespace

TEST_CASE("SHA-256 matches NIST's short and long message vectors") {
  CHECK(hex(sha256(text(""))) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(hex(sha256(text("abc"))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(hex(sha256(text("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"))) ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(hex(sha256(
            text("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"))) ==
        "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  // One million 'a', written through the Writer interface in pieces.
  const std::string a(1'000'000, 'a');
  Sha256 sha;
  BufferedWriter<Sha256&, 1000> w(sha);
  test::write_in_pieces(w, text(a), 1);
  REQUIRE(w.flush());
  CHECK(hex(sha.finish()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // finish() resets: the next message starts afresh.
  CHECK(sha.write(text("abc")));
  CHECK(hex(sha.finish()) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_CASE("sha256d64 runs the paths BLOCKWIRE_NO_SHA_NI and BLOCKWIRE_NO_AVX512 leave it") {
  const std::string runs = sha256d64_implementation();
  if (std::getenv("BLOCKWIRE_NO_SHA_NI") != nullptr) CHECK(runs.find("sha-ni") == std::string::npos);
  if (std::getenv("BLOCKWIRE_NO_AVX512") != nullptr) CHECK(runs.find("avx512") == std::string::npos);
  if (std::getenv("BLOCKWIRE_NO_SHA_NI") != nullptr && std::getenv("BLOCKWIRE_NO_AVX512") != nullptr) CHECK(runs == "openssl");
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  // The compiler's own CPU detection (it checks the OS's register support
  // too) agrees with ours: a CPU that has them gets the fast paths.
  const bool sha_ni = std::getenv("BLOCKWIRE_NO_SHA_NI") == nullptr && __builtin_cpu_supports("sha") && __builtin_cpu_supports("sse4.1");
  const bool avx512 =
      std::getenv("BLOCKWIRE_NO_AVX512") == nullptr && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  // With both, the faster on this CPU is taken (timed once): either.
  if (avx512 && !sha_ni) CHECK(runs.find("avx512-16way") != std::string::npos);
  if (sha_ni) CHECK(runs.find("sha-ni-4way") != std::string::npos);
  if (!avx512) CHECK(runs.find("avx512") == std::string::npos);
#endif
}

TEST_CASE("sha256d64 equals SHA256d of each 64-byte block, for 0 to 50 blocks (past three sixteens, odd counts too), in place too") {
  MESSAGE("sha256d64 runs ", std::string(sha256d64_implementation()));
  for (std::size_t n = 0; n <= 50; ++n) {
    const auto data = test::random_bytes(64 * n, 3 + static_cast<int>(n));
    std::vector<std::byte> out(32 * n);
    sha256d64(out, data);
    for (std::size_t i = 0; i < n; ++i) {
      const Hash256 expected = sha256d(std::span(data).subspan(64 * i, 64));  // OpenSSL's general path
      CHECK_MESSAGE(std::equal(expected.bytes().begin(), expected.bytes().end(), out.begin() + static_cast<std::ptrdiff_t>(32 * i)), n,
                    " blocks, block ", i);
    }
  }
  for (const std::size_t n : {9, 16, 37}) {  // in place: each block read before its hash is written
    const auto data = test::random_bytes(64 * n, 2);
    std::vector<std::byte> out(32 * n);
    sha256d64(out, data);
    for (std::size_t i = 0; i < n; ++i) {
      const Hash256 expected = sha256d(std::span(data).subspan(64 * i, 64));
      CHECK(std::equal(expected.bytes().begin(), expected.bytes().end(), out.begin() + static_cast<std::ptrdiff_t>(32 * i)));
    }
    auto in_place = data;
    sha256d64(std::span(in_place).first(32 * n), in_place);
    CHECK(std::equal(out.begin(), out.end(), in_place.begin()));
  }
}

TEST_CASE(
    "sha256d_each equals OpenSSL's SHA256d of each message: every length to 300 around the padding edges, split in three runs anywhere") {
  // Lengths 0..300 cross every padding case (the 0x80 and the length in the
  // last block, the length alone in a block of its own, an exact multiple
  // of 64); the runs are cut at random places, empty ones included; message
  // counts that are not multiples of the lanes (four, sixteen) leave lanes
  // idle at the end, and five or more keep sixteen lanes going.
  std::mt19937_64 rng(11);
  const auto all = test::random_bytes(301 * 3, 17);
  std::vector<SplitMessage> messages;
  std::vector<Hash256> expected;
  for (std::size_t n = 0; n <= 300; ++n) {
    const auto whole = std::span(all).subspan(rng() % (all.size() - n), n);
    std::size_t a = n == 0 ? 0 : rng() % (n + 1), b = n == 0 ? 0 : rng() % (n + 1);
    if (a > b) std::swap(a, b);
    messages.push_back({{whole.first(a), whole.subspan(a, b - a), whole.subspan(b)}});
    expected.push_back(sha256d(whole));  // OpenSSL, one contiguous message
  }
  for (std::size_t count :
       {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{5}, std::size_t{16}, std::size_t{17}, messages.size()}) {
    std::vector<Hash256> out(count);
    sha256d_each(std::span(messages).first(count), out);
    for (std::size_t i = 0; i < count; ++i) CHECK_MESSAGE(out[i] == expected[i], count, " messages, message ", i);
  }
  // A long message beside short ones: lanes finish and refill at different
  // times.
  const auto big = test::random_bytes(100'000, 23);
  std::vector<SplitMessage> mixed{{{std::span(big)}}};
  std::vector<Hash256> mixed_expected{sha256d(big)};
  for (std::size_t i = 0; i < 40; ++i) {
    mixed.push_back(messages[7 * i]);
    mixed_expected.push_back(expected[7 * i]);
  }
  std::vector<Hash256> out(mixed.size());
  sha256d_each(mixed, out);
  CHECK(out == mixed_expected);
  // More messages than the lanes schedule together (8,192 at a time):
  // batch after batch, each message's hash in its place.
  std::vector<SplitMessage> many;
  std::vector<Hash256> many_expected;
  for (std::size_t i = 0; i < 2 * 8192 + 5; ++i) {
    const std::size_t k = (i * 37) % messages.size();
    many.push_back(messages[k]);
    many_expected.push_back(expected[k]);
  }
  std::vector<Hash256> many_out(many.size());
  sha256d_each(many, many_out);
  CHECK(many_out == many_expected);
  // Parts that are default-constructed spans (null, empty), and fewer
  // messages than lanes.
  std::vector<SplitMessage> sparse{SplitMessage{},
                                   {{std::span<const std::byte>{}, std::span(big).first(70), std::span<const std::byte>{}}}};
  std::vector<Hash256> sparse_out(sparse.size());
  sha256d_each(sparse, sparse_out);
  CHECK(sparse_out[0] == sha256d({}));
  CHECK(sparse_out[1] == sha256d(std::span(big).first(70)));
  // NIST's "abc": SHA-256 ba7816bf..., so SHA256d is the SHA-256 of that digest.
  const auto abc = test::bytes({'a', 'b', 'c'});
  std::vector<SplitMessage> one{{{std::span(abc).first(1), std::span(abc).subspan(1)}}};
  Hash256 got;
  sha256d_each(one, std::span(&got, 1));
  const auto abc_digest = blockwire::from_hex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad").value();
  CHECK(got == sha256(abc_digest));
}

TEST_CASE("both real blocks: block hash, merkle roots, first and last txid and wtxid, check_block") {
  for (const BlockFacts& f : both_blocks()) {
    CAPTURE(f.hash);
    std::vector<TxIds> ids;
    auto decoded = decode_block(f.bytes, ids);
    REQUIRE(decoded);
    const Block& block = decoded.value();
    CHECK(block_hash(block.header).to_hex() == f.hash);
    bool mutated = true;
    CHECK(merkle_root(block, &mutated).to_hex() == f.merkle_root);
    CHECK_FALSE(mutated);
    CHECK(block.transactions.front().txid().to_hex() == f.first_txid);
    CHECK(block.transactions.back().txid().to_hex() == f.last_txid);
    CHECK(block.transactions.back().wtxid().to_hex() == f.last_wtxid);
    if (f.witness_root != nullptr) CHECK(witness_merkle_root(block).to_hex() == f.witness_root);
    // The ids hashed from the decoded bytes equal the ones re-encoded.
    REQUIRE(ids.size() == block.transactions.size());
    for (std::size_t i = 0; i < ids.size(); ++i) {
      CHECK(ids[i].txid == block.transactions[i].txid());
      CHECK(ids[i].wtxid == block.transactions[i].wtxid());
    }
    const auto checked = check_block(block);
    CHECK_MESSAGE(checked, (checked ? "" : checked.error().message()));
    CHECK(check_block(block, ids));
    // A view's ids, hashed side by side from any starting transaction.
    const BlockView view = BlockView::parse(f.bytes).value();
    CHECK(check_block(view));
    std::vector<TxIds> from_view(ids.size());
    tx_ids(view, 0, from_view);
    CHECK(from_view == ids);
    std::vector<TxIds> tail(ids.size() - 7);
    tx_ids(view, 7, tail);
    CHECK(std::equal(tail.begin(), tail.end(), ids.begin() + 7));
    CHECK(from_view.back().wtxid.to_hex() == f.last_wtxid);
    // The txids alone, the same way.
    std::vector<Txid> txids_alone(ids.size() - 3, Txid::all_zeros());
    txids(view, 3, txids_alone);
    for (std::size_t i = 0; i < txids_alone.size(); ++i) CHECK(txids_alone[i] == ids[i + 3].txid);
    CHECK(txids_alone.back().to_hex() == f.last_txid);
    // Decoded transactions' ids, encoded a chunk at a time and hashed side by side.
    std::vector<TxIds> encoded_ids(block.transactions.size());
    tx_ids(block.transactions, encoded_ids);
    CHECK(encoded_ids == ids);
  }
}

namespace {

// `tx` with one more output whose script makes it exactly `target` bytes
// (with witness data, if it has any).
void grow_to(Transaction& tx, std::size_t target) {
  TransactionBuilder grown(tx);
  grown.outputs.emplace_back().value = Amount::from_sat(1);
  const std::size_t without = serialized_size(grown.build());  // the new output's script empty: a 1-byte length
  REQUIRE(target >= without + 255);                            // a script of 253 bytes or more takes a 3-byte length
  grown.outputs.back().script_pubkey.assign(target - without - 2, std::byte{0x51});
  tx = grown.build();
  REQUIRE(serialized_size(tx) == target);
}

void check_ids_of(const std::vector<Transaction>& txs) {
  std::vector<TxIds> got(txs.size());
  tx_ids(txs, got);
  for (std::size_t i = 0; i < txs.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i].txid == txs[i].txid());  // encoded into SHA-256 one at a time
    CHECK(got[i].wtxid == txs[i].wtxid());
  }
}

}  // namespace

TEST_CASE("tx_ids of many transactions: sizes either side of 64 KiB, with and without witness data, among small ones") {
  const Block block = decode_block(test::segwit_block()).value();
  std::vector<Transaction> txs(block.transactions.begin(), block.transactions.begin() + 300);
  std::size_t with_witness = 0, without = 0;
  for (std::size_t i = 1; i < txs.size(); ++i) (txs[i].has_witness() ? with_witness : without) = i;
  REQUIRE(with_witness != 0);
  REQUIRE(without != 0);
  // The buffered path up to 64 KiB, the streamed one past it, each with a
  // witness transaction and one without.
  const Transaction witness_tx = txs[with_witness], plain_tx = txs[without];
  grow_to(txs[with_witness], 64 * 1024);
  grow_to(txs[without], 64 * 1024 + 1);
  grow_to(txs[3] = witness_tx, 64 * 1024 + 1);
  grow_to(txs[4] = plain_tx, 64 * 1024);
  check_ids_of(txs);
  // Nothing but large ones; none at all.
  check_ids_of({txs[with_witness], txs[without], txs[3]});
  check_ids_of({});
}

TEST_CASE("txids of a view past a chunk of 4,096: both real blocks' transactions three times over, in one block (three chunks)") {
  Block block;
  for (int round = 0; round < 3; ++round) {
    for (const BlockFacts& f : both_blocks()) {
      const Block b = decode_block(f.bytes).value();
      block.transactions.insert(block.transactions.end(), b.transactions.begin(), b.transactions.end());
    }
  }
  REQUIRE(block.transactions.size() > 2 * 4096);
  std::vector<std::byte> bytes;
  encode_block(block, bytes);
  const BlockView view = BlockView::parse(bytes).value();
  std::vector<Txid> got(view.transaction_count() - 5, Txid::all_zeros());
  txids(view, 5, got);
  for (std::size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i] == block.transactions[i + 5].txid());
  }
}

TEST_CASE("flipping one byte in any transaction fails the merkle check") {
  for (const BlockFacts& f : both_blocks()) {
    const Block original = decode_block(f.bytes).value();
    const auto offsets = tx_offsets(original);
    for (std::size_t i = 0; i < offsets.size(); i += 97) {
      CAPTURE(i);
      auto bytes = f.bytes;
      const std::size_t lock_time = offsets[i] + serialized_size(original.transactions[i]) - 4;
      bytes[lock_time] ^= std::byte{0x01};
      auto block = decode_block(bytes);
      REQUIRE(block);
      auto r = check_block(block.value());
      REQUIRE_FALSE(r);
      CHECK(r.error().code() == check::errc::bad_merkle_root);
    }
  }
}

TEST_CASE("the segwit block with one witness byte changed fails the witness commitment") {
  Block block = decode_block(test::segwit_block()).value();
  Transaction& tx = block.transactions.at(7);
  REQUIRE(tx.has_witness());
  TransactionBuilder edited(tx);  // a Transaction is immutable: edit a copy of its fields
  REQUIRE_FALSE(edited.inputs[0].witness.empty());
  std::vector<std::byte>& item = edited.inputs[0].witness.back();  // (the first may be an empty dummy)
  REQUIRE_FALSE(item.empty());
  item[0] ^= std::byte{0x01};
  tx = edited.build();
  REQUIRE(tx.has_witness());
  auto r = check_block(block);
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == check::errc::bad_witness_commitment);
}

TEST_CASE("a block with its last transaction duplicated keeps its root and is reported mutated") {
  Block block = decode_block(test::block413567()).value();
  REQUIRE(block.transactions.size() % 2 == 1);
  block.transactions.push_back(block.transactions.back());
  bool mutated = false;
  CHECK(merkle_root(block, &mutated) == block.header.merkle_root);  // the same root: CVE-2012-2459
  CHECK(mutated);
  auto r = check_block(block);
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == check::errc::mutated_merkle_root);
}

TEST_CASE("check_block names the failed check: proof of work, bits, coinbase") {
  const Block original = decode_block(test::block413567()).value();
  {
    Block b = original;
    b.header.nonce ^= 1;  // the hash changes; it is above the target with overwhelming odds
    CHECK(check_block(b).error().code() == check::errc::bad_proof_of_work);
  }
  {
    Block b = original;
    b.header.bits = 0x04923456;  // the sign bit: a negative target
    CHECK(check_block(b).error().code() == check::errc::bad_bits);
    b.header.bits = 0xff123456;  // overflows 256 bits
    CHECK(check_block(b).error().code() == check::errc::bad_bits);
  }
  {
    Block b = original;
    std::swap(b.transactions[0], b.transactions[1]);
    CHECK(check_block(b).error().code() == check::errc::first_not_coinbase);
    std::swap(b.transactions[0], b.transactions[1]);
    b.transactions.push_back(b.transactions[0]);
    CHECK(check_block(b).error().code() == check::errc::extra_coinbase);
  }
  {
    Block b = original;
    b.transactions.clear();
    CHECK(check_block(b).error().code() == check::errc::no_transactions);
  }
}

TEST_CASE("Core's vectors: txid is SHA256d of the witness-stripped bytes, wtxid of the raw bytes") {
  std::ifstream in(std::string(BLOCKWIRE_TEST_DATA) + "/tx_valid.json");
  REQUIRE(in);
  std::size_t checked = 0;
  std::size_t segwit = 0;
  for (const auto& entry : nlohmann::json::parse(in)) {
    if (entry.size() < 2 || !entry[0].is_array()) continue;
    const auto raw = test::from_hex(entry[1].get<std::string>());
    auto tx = decode_transaction(raw);
    REQUIRE(tx);
    // Cut the stripped form out of the raw bytes, independently of the
    // codec: with marker 0 and a nonzero flag, drop those two bytes and
    // the witness section that stands between the outputs and the lock time.
    std::vector<std::byte> stripped = raw;
    if (raw.size() > 6 && raw[4] == std::byte{0} && raw[5] != std::byte{0}) {
      std::size_t pos = 6;
      const auto read_size = [&] {
        const unsigned first = std::to_integer<unsigned>(raw[pos++]);
        if (first < 0xfd) return static_cast<std::size_t>(first);
        const std::size_t width = first == 0xfd ? 2 : first == 0xfe ? 4 : 8;
        std::size_t n = 0;
        for (std::size_t i = 0; i < width; ++i) n |= std::to_integer<std::size_t>(raw[pos++]) << (8 * i);
        return n;
      };
      const std::size_t inputs = read_size();
      for (std::size_t i = 0; i < inputs; ++i) {
        pos += 36;
        pos += read_size();
        pos += 4;
      }
      const std::size_t outputs = read_size();
      for (std::size_t i = 0; i < outputs; ++i) {
        pos += 8;
        pos += read_size();
      }
      stripped.assign(raw.begin(), raw.begin() + 4);
      stripped.insert(stripped.end(), raw.begin() + 6, raw.begin() + static_cast<std::ptrdiff_t>(pos));
      stripped.insert(stripped.end(), raw.end() - 4, raw.end());
      ++segwit;
    }
    CHECK(tx.value().txid().to_raw_hash() == sha256d(stripped));
    CHECK(tx.value().wtxid().to_raw_hash() == sha256d(raw));
    ++checked;
  }
  CHECK(checked == 119);
  CHECK(segwit > 0);
}

TEST_CASE("ids while decoding: a transaction with marker and flag 0 hashes its whole bytes") {
  // version 1, marker 0, flag 0 (no inputs, no outputs), lock time 0: its
  // stripped form (version, 0 inputs, 0 outputs, lock time) is these bytes.
  const auto empty_tx = test::bytes({1, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  const Block original = decode_block(test::block413567()).value();
  Block block{original.header, {original.transactions[0], decode_transaction(empty_tx).value()}};
  std::vector<std::byte> bytes;
  encode_block(block, bytes);
  std::vector<TxIds> ids;
  REQUIRE(decode_block(bytes, ids));
  REQUIRE(ids.size() == 2);
  CHECK(ids[1].txid.to_raw_hash() == sha256d(empty_tx));
  CHECK(ids[1].txid == block.transactions[1].txid());
  CHECK(ids[1].wtxid.to_raw_hash() == ids[1].txid.to_raw_hash());
  CHECK(ids[0].txid == block.transactions[0].txid());
}
