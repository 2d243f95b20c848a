// The header index of a blocks directory, on a chain the test mines: linked
// out of order, the most-work branch as the best chain, and the chain fields
// getblock prints, worked out by hand.
#include <blockwire/blockfiles.hpp>
#include <blockwire/codec.hpp>

#include <doctest/doctest.h>

#include "../support/chain.hpp"
#include "../support/temp_dir.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>

using namespace blockwire;

TEST_CASE("BlockIndex: heights, the best chain, confirmations, median time, chain work and next blocks") {
  // G - 1 - 2 - A3
  //           \ B3 - B4   (B4: the most work; A3 is off the best chain)
  const Block g = test::mine(BlockHash::all_zeros(), 1000, 0);
  const Block b1 = test::mine(block_hash(g.header), 1600, 1);
  const Block b2 = test::mine(block_hash(b1.header), 2200, 2);
  const Block a3 = test::mine(block_hash(b2.header), 2800, 3);
  const Block b3 = test::mine(block_hash(b2.header), 2900, 30);
  const Block b4 = test::mine(block_hash(b3.header), 3500, 4);
  test::TempDir dir;
  {
    auto writer = BlockFileWriter::open(dir.path.string(), XorKey{}, network::regtest);
    REQUIRE(writer);
    for (const Block* b : {&b4, &b1, &a3, &g, &b3, &b2}) REQUIRE(writer.value().append(*b));  // not in chain order
  }
  auto index = BlockIndex::build(dir.path.string(), XorKey{}, network::regtest);
  REQUIRE(index);
  const auto& ix = index.value();
  REQUIRE(ix.size() == 6);
  REQUIRE(ix.chain_size().value() == 5);
  const Block* best[] = {&g, &b1, &b2, &b3, &b4};
  for (const Height h : ix.chain_size().heights()) CHECK(ix.at_height(h).hash == block_hash(best[h.to_wire()]->header));

  // Regtest's work per block: 2^256 / (target + 1) with target just under
  // 2^255, so 2 (Core's regtest chainwork is 2 x (height + 1)).
  struct Expected {
    const Block* block;
    std::int64_t height, confirmations;
    std::uint32_t median_time;
    unsigned chainwork;
    const Block* next;
  };
  const Expected expected[] = {
      // Core's median time: the sorted times of the block and its (up to
      // ten) ancestors, the element at index count / 2.
      {&g, 0, 5, 1000, 2, &b1},        // {1000}
      {&b1, 1, 4, 1600, 4, &b2},       // {1000, 1600}: index 1
      {&b2, 2, 3, 1600, 6, &b3},       // {1000, 1600, 2200}: index 1
      {&b3, 3, 2, 2200, 8, &b4},       // {1000, 1600, 2200, 2900}: index 2
      {&b4, 4, 1, 2200, 10, nullptr},  // {1000, 1600, 2200, 2900, 3500}: index 2
      {&a3, 3, -1, 2200, 8, nullptr},  // {1000, 1600, 2200, 2800}: index 2; off the best chain
  };
  for (const Expected& e : expected) {
    const auto b = ix.find(block_hash(e.block->header));
    REQUIRE(b);
    const ChainInfo info = ix.chain_info(*b);
    CAPTURE(e.height);
    CHECK(info.height == Height::checked(e.height));
    CHECK(info.confirmations == e.confirmations);
    char low[3];
    std::snprintf(low, sizeof low, "%02x", e.chainwork);
    CHECK(info.chainwork.to_hex() == std::string(62, '0') + low);
    CHECK(info.median_time == e.median_time);
    if (e.next != nullptr) {
      REQUIRE(info.next);
      CHECK(*info.next == block_hash(e.next->header));
    } else {
      CHECK_FALSE(info.next);
    }
  }
}

TEST_CASE("Work::of_bits: Core's GetBlockProof") {
  CHECK(Work::of_bits(0x207fffff)->to_hex() == std::string(63, '0') + "2");
  // Mainnet's easiest target, 0x00000000ffff0000...: 2^256 / (2^224 * 0xffff + 1) = 0x100010001.
  const Work easiest = Work::of_bits(0x1d00ffff).value();
  CHECK(easiest.to_hex() == std::string(55, '0') + "100010001");
  CHECK((easiest + easiest).to_hex() == std::string(55, '0') + "200020002");
  // Bits that are no target (Target::from_bits's refusals) have no work:
  // nothing, not a zero that a sum would take for a block.
  CHECK(!Work::of_bits(0x1d80ffff));  // negative
  CHECK(!Work::of_bits(0x1d000000));  // zero
  CHECK(!Work::of_bits(0xff00ffff));  // past 256 bits
  // Ordered as numbers, the high limbs first: 0x100010001 > 2.
  CHECK(easiest > *Work::of_bits(0x207fffff));
  // A mainnet bits of 2023 and one whose target straddles two limbs
  // (expected values: Python's integers, 2^256 // (target + 1)).
  CHECK(Work::of_bits(0x17034219)->to_hex() == "000000000000000000000000000000000000000000004e9235f043634662e0cb");
  CHECK(Work::of_bits(0x0a123456)->to_hex() == "0000000000000000000e10005d2a0269364ff84210c79790686490ef071f2398");
  CHECK(Work::of_bits(0x17034219) < Work::of_bits(0x0a123456));
}

TEST_CASE("Work: a sum past 2^256 - 1 stays there, never wraps to less work") {
  // Target 1 (bits 0x01010000): 2^256 / 2 = 2^255 hashes.
  const Work half = Work::of_bits(0x01010000).value();
  CHECK(half.to_hex() == "8" + std::string(63, '0'));
  const Work full = half + half;  // 2^256: one more than 256 bits hold
  CHECK(full.to_hex() == std::string(64, 'f'));
  CHECK(full > half);
  Work more = full;
  more += Work::of_bits(0x1d00ffff).value();
  CHECK(more == full);
  CHECK(full + Work{} == full);
}

TEST_CASE(
    "BlockIndex::refresh: blocks appended since are read, linked (a child before its parent too) and move the tip, damage is said once") {
  std::vector<Block> chain{test::mine(BlockHash::all_zeros(), 1000, 0)};
  for (std::uint32_t h = 1; h <= 6; ++h) chain.push_back(test::mine(block_hash(chain.back().header), 1000 + 600 * h, h));
  test::TempDir dir;
  const XorKey key = random_xor_key();
  auto writer = BlockFileWriter::open(dir.path.string(), key, network::regtest).value();
  for (std::size_t h = 0; h <= 2; ++h) REQUIRE(writer.append(chain[h]));
  auto index = BlockIndex::build(dir.path.string(), key, network::regtest).value();
  CHECK(index.chain_size().value() == 3);
  CHECK(index.was_being_written());  // the writer holds the lock
  CHECK(!index.refresh().value());   // nothing new

  REQUIRE(writer.append(chain[3]));
  CHECK(index.refresh().value());
  CHECK(index.chain_size().value() == 4);
  CHECK(index.tip() == block_hash(chain[3].header));

  // Block 5 before block 4: an orphan at first (a problem), linked when its parent comes.
  REQUIRE(writer.append(chain[5]));
  CHECK(!index.refresh().value());
  CHECK(index.problem_count() == 1);
  CHECK(index.problems()[0].what == IndexProblem::kind::unlinked);
  REQUIRE(writer.append(chain[4]));
  CHECK(index.refresh().value());
  CHECK(index.chain_size().value() == 6);
  CHECK(index.problem_count() == 0);

  // A record being written (cut short, the lock held) is not damage, and is read once whole.
  std::vector<std::byte> record;
  encode_block(chain[6], record);
  const std::uint64_t end = writer.position().offset;
  REQUIRE(writer.close());
  {
    // The record's first 30 bytes, as a writer mid-append leaves them (magic, length, part of the header).
    std::vector<std::byte> head{std::byte{0xfa}, std::byte{0xbf}, std::byte{0xb5}, std::byte{0xda}};
    const auto n = static_cast<std::uint32_t>(record.size());
    for (int i = 0; i < 4; ++i) head.push_back(static_cast<std::byte>(n >> (8 * i)));
    head.insert(head.end(), record.begin(), record.begin() + 22);
    xor_in_place(head, key, end);
    std::FILE* f = std::fopen(dir.file("blk00000.dat").c_str(), "ab");
    REQUIRE(f != nullptr);
    REQUIRE(std::fwrite(head.data(), 1, head.size(), f) == head.size());
    std::fclose(f);
  }
  // No writer now: the torn record is a problem, said once however often the index is refreshed.
  CHECK(!index.refresh().value());
  CHECK(!index.refresh().value());
  CHECK(index.problem_count() == 1);
  CHECK(index.problems()[0].what == IndexProblem::kind::torn_record);
  CHECK(index.problems()[0].offset == end);
  // The next writer cuts it off and appends the block whole: read again from the cut.
  auto again = BlockFileWriter::open(dir.path.string(), key, network::regtest).value();
  CHECK(again.repaired());
  REQUIRE(again.append(chain[6]));
  CHECK(index.refresh().value());
  CHECK(index.chain_size().value() == 7);
  CHECK(index.tip() == block_hash(chain[6].header));
  CHECK(index.problem_count() == 0);  // repaired: no longer a problem
}

TEST_CASE("BlockIndex::refresh: records an unfinished batch left, removed and written over by the next writer, are not kept") {
  std::vector<Block> chain{test::mine(BlockHash::all_zeros(), 1000, 0)};
  for (std::uint32_t h = 1; h <= 2; ++h) chain.push_back(test::mine(block_hash(chain.back().header), 1000 + 600 * h, h));
  const Block other = test::mine(block_hash(chain[1].header), 9999, 77);  // another block 2
  test::TempDir dir;
  const XorKey key = random_xor_key();
  {
    auto w = BlockFileWriter::open(dir.path.string(), key, network::regtest).value();
    REQUIRE(w.append(chain[0]));
    REQUIRE(w.append(chain[1]));
  }
  auto index = BlockIndex::build(dir.path.string(), key, network::regtest).value();
  {
    // A batch that never commits (its writer goes away mid-run), read while the lock was held.
    auto w = BlockFileWriter::open(dir.path.string(), key, network::regtest).value();
    REQUIRE(w.begin_batch());
    REQUIRE(w.append(chain[2]));
    CHECK(index.refresh().value());
    CHECK(index.find(block_hash(chain[2].header)).has_value());
  }
  // The next writer removes the batch and writes another block in its place.
  auto next = BlockFileWriter::open(dir.path.string(), key, network::regtest).value();
  REQUIRE(next.repaired());
  CHECK(next.repaired()->what == BlockFileRepair::kind::unfinished_batch);
  REQUIRE(next.append(other));
  CHECK(index.refresh().value());
  CHECK_FALSE(index.find(block_hash(chain[2].header)));
  REQUIRE(index.find(block_hash(other.header)));
  CHECK(index.tip() == block_hash(other.header));
}

namespace {

// A tree of blocks, each on a parent chosen at random among those before it
// (so that branches grow and overtake), with bits that differ (regtest's
// limit and easier-to-state ones) so that the most work is not the longest.
struct Tree {
  std::vector<Block> blocks;
  std::vector<int> parent;  // -1: the genesis block
};

Tree random_tree(std::mt19937& rng, int n) {
  Tree t;
  t.blocks.push_back(test::mine(BlockHash::all_zeros(), 1000, 0));
  t.parent.push_back(-1);
  for (int i = 1; i < n; ++i) {
    // Mostly on the newest blocks (a chain with forks), now and then deep.
    const int p = rng() % 4 == 0 ? static_cast<int>(rng() % t.blocks.size())
                                 : static_cast<int>(t.blocks.size()) - 1 - static_cast<int>(rng() % 3 % t.blocks.size());
    Block b = test::mine(block_hash(t.blocks[static_cast<std::size_t>(p)].header), 1000 + 600 * static_cast<std::uint32_t>(i),
                         static_cast<std::uint32_t>(i));
    if (rng() % 5 == 0) {  // a block that claims more work: a lower target, mined again
      b.header.bits = 0x207ffff0 - static_cast<std::uint32_t>(rng() % 8) * 0x10;
      const Target target = *Target::from_bits(b.header.bits);
      while (!target.met_by(block_hash(b.header))) ++b.header.nonce;
    }
    t.blocks.push_back(b);
    t.parent.push_back(p);
  }
  return t;
}

// The tip as Core picks it, worked out from the tree itself: the most work,
// the first received among equals (`order`: the blocks in the order given).
std::size_t expected_tip(const Tree& t, const std::vector<std::size_t>& order, std::vector<Work>& work) {
  work.assign(t.blocks.size(), Work{});
  for (std::size_t i = 0; i < t.blocks.size(); ++i) {
    const Work own = Work::of_bits(t.blocks[i].header.bits).value();
    work[i] = t.parent[i] < 0 ? own : work[static_cast<std::size_t>(t.parent[i])] + own;
  }
  std::size_t tip = order[0];
  for (const std::size_t i : order) {
    if (work[i] > work[tip]) tip = i;
  }
  return tip;
}

}  // namespace

TEST_CASE("BlockIndex on random trees written in random order: built at once, or block by block, as Core would pick the chain") {
  std::mt19937 rng(20261202);
  for (int round = 0; round < 6; ++round) {
    CAPTURE(round);
    const Tree t = random_tree(rng, 150);
    std::vector<std::size_t> order(t.blocks.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    if (round % 2 == 1) std::shuffle(order.begin() + 1, order.end(), rng);  // children before parents too
    test::TempDir dir;
    {
      auto writer = BlockFileWriter::open(dir.path.string(), XorKey{}, network::regtest);
      REQUIRE(writer);
      for (const std::size_t i : order) REQUIRE(writer.value().append(t.blocks[i]));
      REQUIRE(writer.value().append(t.blocks[order[5]]));  // a duplicate: the first stays
    }
    // Among equals the first received wins, and a parent comes before its
    // child: the order of linking, not of the file, for the block by block index.
    std::vector<Work> work;
    auto built = BlockIndex::build(dir.path.string(), XorKey{}, network::regtest);
    REQUIRE(built);
    const BlockIndex& index = built.value();
    CHECK(index.size() == t.blocks.size());
    CHECK(index.problem_count() == 0);
    const std::size_t tip = expected_tip(t, order, work);
    CHECK(index.tip() == block_hash(t.blocks[tip].header));
    // Every block: its height, its place on or off the best chain, its chain work.
    std::vector<int> height(t.blocks.size());
    for (std::size_t i = 0; i < t.blocks.size(); ++i) height[i] = t.parent[i] < 0 ? 0 : height[static_cast<std::size_t>(t.parent[i])] + 1;
    std::vector<bool> on_best(t.blocks.size(), false);
    for (int at = static_cast<int>(tip); at >= 0; at = t.parent[static_cast<std::size_t>(at)]) on_best[static_cast<std::size_t>(at)] = true;
    for (std::size_t i = 0; i < t.blocks.size(); ++i) {
      const auto b = index.find(block_hash(t.blocks[i].header));
      REQUIRE(b);
      CHECK(b->linked);
      CHECK(b->height.to_wire() == static_cast<std::uint32_t>(height[i]));
      CHECK(index.on_best_chain(*b) == on_best[i]);
      CHECK(index.chain_info(*b).chainwork == work[i]);
      const auto p = index.parent(*b);
      CHECK(p.has_value() == (t.parent[i] >= 0));
      if (p) CHECK(p->hash == block_hash(t.blocks[static_cast<std::size_t>(t.parent[i])].header));
    }
    // Block by block, parents first, as a sync adds them: the same chain.
    BlockIndex grown(dir.path.string(), network::regtest);
    std::vector<std::size_t> by_arrival(order);
    std::stable_sort(by_arrival.begin(), by_arrival.end(), [&](std::size_t a, std::size_t b) { return height[a] < height[b]; });
    for (const std::size_t i : by_arrival) grown.add(t.blocks[i].header, block_hash(t.blocks[i].header), {0, 0});
    CHECK(grown.tip() == block_hash(t.blocks[expected_tip(t, by_arrival, work)].header));
    std::map<BlockHash, std::size_t> which;
    for (std::size_t i = 0; i < t.blocks.size(); ++i) which[block_hash(t.blocks[i].header)] = i;
    for (const Height h : grown.chain_size().heights()) {
      const IndexedBlock b = grown.at_height(h);
      CHECK(b.height == h);
      CHECK(grown.chain_info(b).chainwork == work[which.at(b.hash)]);
    }
  }
}
