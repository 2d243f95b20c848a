// Undo data against Bitcoin Core's own vectors (serialize_tests'
// varints_bitpatterns, compress_tests' amounts and scripts), against a
// chain the test builds with fees it chose, and against hostile bytes.
#include <blockwire/io.hpp>
#include <blockwire/io/hex.hpp>
#include <blockwire/undo.hpp>
#include <blockwire/undo/varint.hpp>

#include <doctest/doctest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "../support/temp_dir.hpp"

using namespace blockwire;

namespace {

std::vector<std::byte> hex(std::string_view h) { return from_hex(h).value(); }

std::string varint_hex(std::uint64_t n) {
  std::vector<std::byte> out;
  VectorWriter sink(out);
  StreamWriter w{writer_ref(sink)};
  undo::encode_varint(w, n);
  (void)w.flush();
  return to_hex(out);
}

result<std::uint64_t> read_varint(std::span<const std::byte> bytes, std::uint64_t max = ~std::uint64_t{0}) {
  DecodingContext ctx(bytes);
  const std::uint64_t n = undo::decode_varint(ctx, max);
  if (auto r = wire::finish_exact(ctx, bytes.size()); !r) return r.error();
  return n;
}

constexpr std::int64_t cent = 1'000'000, coin = 100'000'000;

}  // namespace

TEST_CASE("undo: VARINT as Core's serialize_tests (varints_bitpatterns), both ways, overflow is an error") {
  const std::pair<std::uint64_t, const char*> cases[] = {
      {0, "00"},
      {0x7f, "7f"},
      {0x80, "8000"},
      {0x1234, "a334"},
      {0xffff, "82fe7f"},
      {0x123456, "c7e756"},
      {0x80123456u, "86ffc7e756"},
      {0xffffffffu, "8efefefe7f"},
      {0x7fffffffffffffffull, "fefefefefefefefe7f"},
      {0xffffffffffffffffull, "80fefefefefefefefe7f"},
  };
  for (const auto& [n, h] : cases) {
    CAPTURE(h);
    CHECK(varint_hex(n) == h);
    CHECK(read_varint(hex(h)).value() == n);
  }
  // Core's varints test: every value of a range, and steps to 10^11.
  for (std::uint64_t i = 0; i < 100'000; ++i) REQUIRE(read_varint(hex(varint_hex(i))).value() == i);
  for (std::uint64_t i = 0; i < 100'000'000'000ull; i += 999'999'937) REQUIRE(read_varint(hex(varint_hex(i))).value() == i);
  // Past 64 bits: one more group after the largest value.
  auto past = read_varint(hex("80fefefefefefefeff00"));
  CHECK(past.error().code() == undo::errc::varint_overflow);
  CHECK(past.error().offset() == 10);  // where decoding stopped: just past the byte that overflows
  CHECK(read_varint(hex("81fefefefefefefefe7f")).error().code() == undo::errc::varint_overflow);
  // A 32-bit field (a height code, a script size) takes 0xffffffff, not 0x100000000.
  CHECK(read_varint(hex("8efefefe7f"), 0xffffffff).value() == 0xffffffff);
  CHECK(read_varint(hex(varint_hex(0x100000000ull)), 0xffffffff).error().code() == undo::errc::varint_overflow);
  CHECK(read_varint(hex("80")).error().code() == io::errc::truncated);
}

TEST_CASE("undo: CompressAmount as Core's compress_tests: the pairs, and every amount of its ranges round-trips") {
  const std::pair<std::uint64_t, std::uint64_t> pairs[] = {{0, 0x0},    {1, 0x1},          {cent, 0x7},
                                                           {coin, 0x9}, {50 * coin, 0x32}, {21'000'000 * coin, 0x1406f40}};
  for (const auto& [amount, compressed] : pairs) {
    CHECK(compress_amount(amount) == compressed);
    CHECK(decompress_amount(compressed) == amount);
  }
  for (std::uint64_t i = 1; i <= 100'000; ++i) REQUIRE(decompress_amount(compress_amount(i)) == i);
  for (std::uint64_t i = 1; i <= 10'000; ++i) REQUIRE(decompress_amount(compress_amount(i * cent)) == i * cent);
  for (std::uint64_t i = 1; i <= 10'000; ++i) REQUIRE(decompress_amount(compress_amount(i * coin)) == i * coin);
  for (std::uint64_t i = 1; i <= 420'000; ++i) REQUIRE(decompress_amount(compress_amount(i * 50 * coin)) == i * 50 * coin);
  for (std::uint64_t i = 0; i < 100'000; ++i) REQUIRE(compress_amount(decompress_amount(i)) == i);
}

namespace {

// The genesis block's key: uncompressed, on the curve, y odd (last byte 0x5f).
constexpr std::string_view satoshi_key =
    "04678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5f";

std::vector<std::byte> p2pk(std::string_view key_hex) {
  const auto key = hex(key_hex);
  std::vector<std::byte> s(key.size() + 2);
  s.front() = static_cast<std::byte>(key.size());
  std::copy(key.begin(), key.end(), s.begin() + 1);
  s.back() = std::byte{0xac};  // OP_CHECKSIG
  return s;
}

std::vector<std::byte> compressed(std::span<const std::byte> script) {
  std::vector<std::byte> out;
  compress_script(script, out);
  return out;
}

// The script back from its compressed form, through a coin's decoder.
std::vector<std::byte> restored(std::span<const std::byte> script) {
  BlockUndo undo;
  undo.transactions.push_back(
      {{SpentCoin{*Height::checked(7), false, Amount::from_sat(1234), std::vector<std::byte>(script.begin(), script.end())}}});
  std::vector<std::byte> bytes;
  encode_block_undo(undo, bytes);
  auto back = decode_block_undo(bytes);
  REQUIRE(back);
  return back.value().transactions[0].coins[0].script_pubkey;
}

}  // namespace

TEST_CASE("undo: script compression as Core's compress_tests: P2PKH, P2SH, P2PK compressed and uncompressed, the rest") {
  const auto p2pkh = hex("76a914" + std::string(40, '1') + "88ac");
  auto c = compressed(p2pkh);
  CHECK(c.size() == 21);
  CHECK(c[0] == std::byte{0x00});
  CHECK(std::equal(c.begin() + 1, c.end(), p2pkh.begin() + 3));
  CHECK(restored(p2pkh) == p2pkh);

  const auto p2sh = hex("a914" + std::string(40, '2') + "87");
  c = compressed(p2sh);
  CHECK(c.size() == 21);
  CHECK(c[0] == std::byte{0x01});
  CHECK(restored(p2sh) == p2sh);

  for (const char* prefix : {"02", "03"}) {
    const auto script = p2pk(std::string(prefix) + "678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb6");
    c = compressed(script);
    CHECK(c.size() == 33);
    CHECK(c[0] == hex(prefix)[0]);
    CHECK(restored(script) == script);
  }

  // Uncompressed: 0x04 | the parity of y, then x; only the curve (libsecp256k1) gives y back.
  const auto uncompressed = p2pk(satoshi_key);
  c = compressed(uncompressed);
  CHECK(c.size() == 33);
  CHECK(c[0] == std::byte{0x05});
  CHECK(std::equal(c.begin() + 1, c.end(), uncompressed.begin() + 2));
  CHECK(restored(uncompressed) == uncompressed);

  // Not on the curve: no short form (Core's compress_p2pk_scripts_not_on_curve): VARINT(67 + 6), the bytes.
  const auto off_curve = p2pk("04" + std::string(128, '0'));
  c = compressed(off_curve);
  CHECK(c.size() == 1 + 67);
  CHECK(c[0] == std::byte{73});
  CHECK(restored(off_curve) == off_curve);

  // Everything else (P2WPKH here): VARINT(size + 6), the bytes.
  const auto p2wpkh = hex("0014" + std::string(40, '3'));
  c = compressed(p2wpkh);
  CHECK(c.size() == 1 + 22);
  CHECK(c[0] == std::byte{28});
  CHECK(restored(p2wpkh) == p2wpkh);
  CHECK(restored({}).empty());
}

TEST_CASE("undo: hostile undo data: an x off the curve, an oversized script read as OP_RETURN, every prefix truncated at its offset") {
  // A type-5 script whose x is 0: no point of secp256k1 has it (7 is not a square modulo p).
  const std::vector<std::byte> bytes =
      hex("01"
          "01"
          "0e00"
          "09"
          "05" +
          std::string(64, '0'));
  auto bad = decode_block_undo(bytes);
  REQUIRE(!bad);
  CHECK(bad.error().code() == undo::errc::invalid_compressed_key);
  CHECK(bad.error().offset() == 38);  // after the 32 bytes of x
  // A script of 10,001 bytes: skipped, a lone OP_RETURN in its place (as Core).
  std::vector<std::byte> big =
      hex("01"
          "01"
          "0e00"
          "09");
  {
    VectorWriter sink(big);
    StreamWriter w{writer_ref(sink)};
    undo::encode_varint(w, 10'001 + 6);
    (void)w.flush();
  }
  big.resize(big.size() + 10'001, std::byte{0x51});
  auto read = decode_block_undo(big);
  REQUIRE(read);
  CHECK(read.value().transactions[0].coins[0].script_pubkey == std::vector<std::byte>{std::byte{0x6a}});
  // A size past the bytes present: truncated, nothing allocated for the claim.
  auto claim =
      decode_block_undo(hex("01"
                            "01"
                            "0e00"
                            "09"
                            "8efefefe7f"));
  CHECK(claim.error().code() == io::errc::truncated);

  // Every proper prefix of a real record fails where it ends.
  BlockUndo undo;
  undo.transactions.push_back({{SpentCoin{*Height::checked(0), true, Amount::from_sat(50 * coin), p2pk(satoshi_key)},
                                SpentCoin{*Height::checked(170), false, Amount::from_sat(10 * coin), hex("0014" + std::string(40, '3'))}}});
  undo.transactions.push_back({{SpentCoin{*Height::checked(100'000), false, Amount::from_sat(1), hex("6a0401020304")}}});
  std::vector<std::byte> whole;
  encode_block_undo(undo, whole);
  REQUIRE(decode_block_undo(whole).value() == undo);
  for (std::size_t n = 0; n < whole.size(); ++n) {
    CAPTURE(n);
    auto r = decode_block_undo(std::span<const std::byte>(whole).first(n));
    REQUIRE(!r);
    CHECK(r.error().code() == io::errc::truncated);
    CHECK(r.error().offset() == n);
  }
  whole.push_back(std::byte{0});
  CHECK(decode_block_undo(whole).error().code() == codec::errc::trailing_bytes);
}

namespace {

Transaction spend(std::initializer_list<OutPoint> from, std::initializer_list<std::pair<std::int64_t, std::vector<std::byte>>> to,
                  bool witness = false) {
  TransactionBuilder tx;
  for (const OutPoint& p : from) {
    TransactionBuilder::Input& in = tx.add_input(p);
    if (witness) in.witness = {std::vector<std::byte>(71, std::byte{0x30}), std::vector<std::byte>(33, std::byte{0x02})};
  }
  for (const auto& [value, script] : to) tx.add_output(Amount::from_sat(value), script);
  return tx.build();
}

// A block of a coinbase paying 50 BTC to `payee`, then `txs`.
Block block_of(const BlockHash& prev, std::uint32_t height, const std::vector<std::byte>& payee, std::vector<Transaction> txs = {}) {
  Block b;
  b.header.prev_block = prev;
  b.header.time = 1'700'000'000 + height;
  b.header.bits = 0x207fffff;
  TransactionBuilder cb;
  const std::byte script_sig[]{std::byte{0x03}, std::byte(height), std::byte(height >> 8), std::byte(height >> 16)};
  cb.add_input(OutPoint{}, script_sig);
  cb.add_output(Amount::from_sat(50 * coin), payee);
  b.transactions.push_back(cb.build());
  for (Transaction& tx : txs) b.transactions.push_back(std::move(tx));
  b.header.merkle_root = merkle_root(b);
  while (!proof_of_work_ok(block_hash(b.header), b.header.bits, network::regtest)) ++b.header.nonce;  // a directory's index checks it
  return b;
}

}  // namespace

TEST_CASE("undo: a chain the test builds (every script type, a same-block spend, witness): undo data and fees, through rev files") {
  const auto p2pkh = hex("76a914" + std::string(40, '1') + "88ac");
  const auto p2sh = hex("a914" + std::string(40, '2') + "87");
  const auto p2pk_compressed = p2pk("02678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb6");
  const auto p2pk_uncompressed = p2pk(satoshi_key);
  const auto p2wpkh = hex("0014" + std::string(40, '3'));
  const auto p2tr = hex("5120" + std::string(64, '4'));

  const Block genesis = genesis_block(network::regtest);
  const Block b1 = block_of(block_hash(genesis.header), 1, p2pkh);
  const Transaction a = spend(
      {{b1.transactions[0].txid(), 0}},
      {{10 * coin, p2sh}, {10 * coin, p2pk_compressed}, {10 * coin, p2pk_uncompressed}, {10 * coin, p2wpkh}, {10 * coin - 10'000, p2tr}});
  const Transaction b = spend({{a.txid(), 0}}, {{10 * coin - 1'000'000, p2pkh}});  // spends `a` in the same block
  const Block b2 = block_of(block_hash(b1.header), 2, p2sh, {a, b});
  const Transaction c = spend({{a.txid(), 1}, {a.txid(), 2}, {a.txid(), 3}, {a.txid(), 4}}, {{40 * coin - 10'000 - 990'000, p2wpkh}}, true);
  const Transaction d = spend({{b2.transactions[0].txid(), 0}}, {{49 * coin, p2tr}});
  const Block b3 = block_of(block_hash(b2.header), 3, p2wpkh, {c, d});

  CoinSet coins;
  REQUIRE(coins.apply(genesis, *Height::checked(0)));
  REQUIRE(coins.apply(b1, *Height::checked(1)).value().transactions.empty());
  const BlockUndo u2 = coins.apply(b2, *Height::checked(2)).value();
  const BlockUndo u3 = coins.apply(b3, *Height::checked(3)).value();
  // The fees the test chose, not computed by the code under test.
  CHECK(fees(u2, b2) == std::vector<std::optional<Amount>>{Amount::from_sat(10'000), Amount::from_sat(1'000'000)});
  CHECK(fees(u3, b3) == std::vector<std::optional<Amount>>{Amount::from_sat(990'000), Amount::from_sat(1 * coin)});
  CHECK(check_shape(u3, b3));
  CHECK(check_shape(u2, b3).error().code() == undo::errc::wrong_shape);
  // What the coins were: d spends block 2's coinbase; c the outputs of a, each with its script.
  CHECK(u3.transactions[1].coins[0] == SpentCoin{*Height::checked(2), true, Amount::from_sat(50 * coin), p2sh});
  CHECK(u3.transactions[0].coins[1] == SpentCoin{*Height::checked(2), false, Amount::from_sat(10 * coin), p2pk_uncompressed});
  CHECK(u2.transactions[1].coins[0] == SpentCoin{*Height::checked(2), false, Amount::from_sat(10 * coin), p2sh});
  // Spending twice: missing_coin, and the set is as it was.
  const std::size_t before = coins.size();
  CHECK(coins.apply(b3, *Height::checked(4)).error().code() == undo::errc::missing_coin);
  CHECK(coins.size() == before);

  // Encoded and read back.
  for (const BlockUndo* u : {&u2, &u3}) {
    std::vector<std::byte> bytes;
    encode_block_undo(*u, bytes);
    CHECK(bytes.size() == serialized_size(*u));
    CHECK(decode_block_undo(bytes).value() == *u);
  }

  // Through rev00000.dat with a key, as Core writes it, beside the blocks in
  // blk00000.dat; paired back by checksum along the chain, the shape checked.
  test::TempDir dir;
  const XorKey key = random_xor_key();
  {
    auto blocks = BlockFileWriter::open(dir.path.string(), key, network::regtest).value();
    for (const Block* block : {&genesis, &b1, &b2, &b3}) REQUIRE(blocks.append(*block));
    REQUIRE(blocks.close());
  }
  UndoFileWriter writer(dir.path.string(), key, network::regtest);
  const auto at2 = writer.append(u2, b2.header.prev_block, 0).value();
  const auto at3 = writer.append(u3, b3.header.prev_block, 0).value();
  CHECK(at2 == BlockPosition{0, 0});
  std::vector<std::byte> u2_bytes;
  encode_block_undo(u2, u2_bytes);
  CHECK(at3.offset == 8 + u2_bytes.size() + 32);
  // The raw file: magic, length, data, SHA256d(parent || data), all XORed by offset.
  std::ifstream in(dir.file("rev00000.dat"), std::ios::binary);
  const std::string file_bytes((std::istreambuf_iterator<char>(in)), {});
  std::vector<std::byte> raw(file_bytes.size());
  std::memcpy(raw.data(), file_bytes.data(), raw.size());
  xor_in_place(raw, key, 0);
  const Magic m = magic(network::regtest);
  CHECK(std::equal(m.begin(), m.end(), raw.begin()));
  CHECK(std::equal(u2_bytes.begin(), u2_bytes.end(), raw.begin() + 8));
  std::vector<std::byte> preimage(b2.header.prev_block.bytes().begin(), b2.header.prev_block.bytes().end());
  preimage.insert(preimage.end(), u2_bytes.begin(), u2_bytes.end());
  const Hash256 expected = sha256d(preimage);
  CHECK(std::equal(expected.bytes().begin(), expected.bytes().end(), raw.begin() + 8 + static_cast<std::ptrdiff_t>(u2_bytes.size())));

  // Core's padding: raw zeros after the records end the file quietly.
  std::filesystem::resize_file(dir.file("rev00000.dat"), raw.size() + (1 << 20));
  REQUIRE(writer.close());
  const BlockIndex blocks = BlockIndex::build(dir.path.string(), key, network::regtest).value();
  REQUIRE(blocks.chain_size().value() == 4);
  auto index = UndoIndex::build(dir.path.string(), key, blocks, network::regtest);
  REQUIRE(index);
  CHECK(index.value().size() == 2);
  CHECK(index.value().unpaired() == 0);
  CHECK(index.value().has_file(0));
  CHECK(!index.value().has_file(1));
  CHECK(index.value().find(block_hash(b3.header), undo_shape(b3)).value() == std::optional<BlockUndo>(u3));
  CHECK(index.value().find(block_hash(b2.header), undo_shape(b2)).value() == std::optional<BlockUndo>(u2));
  CHECK(!index.value().find(block_hash(b1.header), undo_shape(b1)).value());  // no record written for it
  CHECK(index.value().find(block_hash(b3.header), undo_shape(b2)).error().code() == undo::errc::wrong_shape);

  // A key whose bytes are the magic's first byte: every record begins with
  // a zero on disk, and is still a record, not padding.
  test::TempDir magic_dir;
  XorKey magic_key;
  magic_key.fill(magic(network::regtest)[0]);
  {
    auto blocks_writer = BlockFileWriter::open(magic_dir.path.string(), magic_key, network::regtest).value();
    for (const Block* block : {&genesis, &b1, &b2, &b3}) REQUIRE(blocks_writer.append(*block));
    REQUIRE(blocks_writer.close());
    UndoFileWriter w(magic_dir.path.string(), magic_key, network::regtest);
    REQUIRE(w.append(u2, b2.header.prev_block, 0));
    REQUIRE(w.append(u3, b3.header.prev_block, 0));
    REQUIRE(w.close());
  }
  const BlockIndex magic_blocks = BlockIndex::build(magic_dir.path.string(), magic_key, network::regtest).value();
  auto both = UndoIndex::build(magic_dir.path.string(), magic_key, magic_blocks, network::regtest);
  REQUIRE(both);
  CHECK(both.value().size() == 2);
  CHECK(both.value().find(block_hash(b3.header), undo_shape(b3)).value() == std::optional<BlockUndo>(u3));

  // Damage: garbage where the next record would be is bad_magic at its offset.
  std::filesystem::resize_file(dir.file("rev00000.dat"), raw.size());
  {
    // Not padding: its first byte is zero neither on disk nor once
    // un-XORed (the random key's byte there may be a 'g').
    const bool key_is_g = key[raw.size() % 8] == std::byte{'g'};
    std::ofstream garbage(dir.file("rev00000.dat"), std::ios::binary | std::ios::app);
    garbage << (key_is_g ? "Garbage!" : "garbage!");
  }
  auto reader = UndoFileReader::open(dir.file("rev00000.dat"), key, network::regtest).value();
  CHECK(reader.next().value());
  CHECK(reader.next().value());
  const auto damaged = reader.next();
  CHECK(damaged.error().code() == undo::errc::bad_magic);
  CHECK(damaged.error().offset() == raw.size());
}

TEST_CASE(
    "undo: UndoPairer pairs records along the chain, in any block order, past a stale record and a damaged one, its search is bounded") {
  // 3,000 blocks of one shape (coinbase only: the same, empty undo data),
  // each block's hash made up; the blk file holds them shuffled.
  constexpr std::size_t n = 3000;
  std::vector<BlockHash> hashes;  // [0]: the parent of the first, in another file
  for (std::size_t i = 0; i <= n; ++i) {
    Hash256 made_up;
    for (std::size_t b = 0; b < 8; ++b) made_up.bytes()[b] = static_cast<std::byte>((i * 2654435761u + 17) >> (8 * (b % 4)));
    made_up.bytes()[31] = static_cast<std::byte>(i & 0xff);
    made_up.bytes()[30] = static_cast<std::byte>(i >> 8);
    hashes.push_back(BlockHash::from_raw_hash(made_up));
  }
  const BlockUndo empty{};
  std::vector<std::byte> bytes;
  encode_block_undo(empty, bytes);
  const std::uint64_t shape = undo_shape(empty);
  std::vector<UndoPairer::Candidate> blocks;
  for (std::size_t i = 1; i <= n; ++i) blocks.push_back({hashes[i], hashes[i - 1], shape});
  // A stale sibling of block 1,500: the same parent, another hash.
  Hash256 other = hashes[1500].to_raw_hash();
  other.bytes()[0] ^= std::byte{0xff};
  const BlockHash stale = BlockHash::from_raw_hash(other);
  blocks.push_back({stale, hashes[1499], shape});
  std::vector<std::size_t> order(blocks.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = (i * 7919) % order.size();  // a permutation (7919 is prime)
  std::vector<UndoPairer::Candidate> shuffled;
  for (std::size_t i : order) shuffled.push_back(blocks[i]);

  UndoPairer pairer(shuffled);
  std::size_t paired = 0;
  for (std::size_t height = 1; height <= n; ++height) {
    // Core connected the stale block, then the best chain's block 1,500 after a reorg; and block 2,000's record is damaged.
    if (height == 1500) {
      const auto sibling = pairer.pair(bytes, undo_checksum(hashes[1499], bytes), shape);
      REQUIRE(sibling);
      CHECK(shuffled[*sibling].parent == hashes[1499]);  // one of the two children: their undo data is the same
    }
    Hash256 checksum = undo_checksum(hashes[height - 1], bytes);
    if (height == 2000) checksum.bytes()[5] ^= std::byte{1};
    const auto got = pairer.pair(bytes, checksum, shape);
    if (height == 2000) {
      CHECK(!got);
      continue;
    }
    REQUIRE(got);
    // The block with this parent (at 1,500: either child of 1,499).
    CHECK(shuffled[*got].parent == hashes[height - 1]);
    ++paired;
  }
  CHECK(paired == n - 1);
  CHECK(!pairer.budget_spent());

  // Records that pair with nothing: the search stops when its budget (a few checks a block) is spent.
  UndoPairer lost(shuffled);
  std::size_t tried = 0;
  while (!lost.budget_spent() && tried < 100) {
    CHECK(!lost.pair(bytes, Hash256{}, shape));
    ++tried;
  }
  CHECK(lost.budget_spent());
  CHECK(tried <= 5);  // 4 checks a block and 64 more: five searches of 3,001 candidates at most
}
