// make_chain: a regtest chain made by the library itself, for the network
// tests and the fetch benchmark. From regtest's genesis block, N blocks at
// regtest's difficulty; every third one also spends the previous block's
// coinbase with a segwit (P2WPKH-shaped) input into outputs of each common
// script type, and commits to the witness data (BIP141). --fill copies a
// real block's transactions (all but its coinbase) into every block, to
// make megabyte blocks; given twice or more, the blocks take turns. Writes the blocks directory, and with --hex each
// block's hex on a line of its own (for the Python peers); with --undo the
// rev files too, undo data made from the chain itself (blockwire::undo).
// --wide K adds to every block from height 2 a transaction that spends
// the K outputs of the one before it (the first: a coinbase) into K
// outputs: megabyte blocks whose every input spends the chain's own coins.
// --one-payer (with --fill and --undo): every stand-in coin the copied
// transactions spend has one script, so that one address has every one of
// them in its history (the busiest address of the address index's bench);
// each block's copies get txids of their own.
// --coinbase-only leaves the spends out: every block has one shape, as
// mainnet's early blocks do (the hard case for pairing undo records).
// --core-index writes what Bitcoin Core keeps beside such a directory: its
// block index (DIR/index, every block's height, status and positions) and
// a chainstate whose best block is the tip (DIR/../chainstate, its key
// alone), in Core's formats, as a node's data directory holds them.
// --core-index-log writes the same index in one batch that stays in
// LevelDB's log (a node that flushed a long download at once and stopped).
// --file-size BYTES begins a new blk file where a record would take the
// current one past BYTES (Core's -fastprune: many small files to prune).
//   make_chain DIR N [--fill BLOCK.raw]... [--hex FILE] [--plain] [--undo] [--coinbase-only] [--core-index | --core-index-log] [--wide K]
//              [--file-size BYTES] [--one-payer]
#include <blockwire/blockfiles.hpp>
#include <blockwire/codec.hpp>
#include <blockwire/directory/core_index.hpp>
#include <blockwire/io/hex.hpp>
#include <blockwire/io/sha256.hpp>
#include <blockwire/undo.hpp>
#include <blockwire/undo/varint.hpp>

#include "../support/bytes.hpp"

#include <leveldb/db.h>
#include <leveldb/write_batch.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>

using namespace blockwire;

namespace {

using test::bytes;
using test::concat;

std::vector<std::byte> repeated(std::size_t n, int value) { return std::vector<std::byte>(n, static_cast<std::byte>(value)); }

// Regtest's block subsidy: 50 BTC, halved every 150 blocks (so that a
// validating node takes the chain's coinbases).
std::int64_t subsidy(std::uint32_t height) { return height / 150 >= 64 ? 0 : std::int64_t{50'0000'0000} >> (height / 150); }

// A segwit spend of `coinbase_txid`:0 (worth `spent`) into P2WPKH, P2TR,
// P2PKH, P2SH and OP_RETURN outputs; the witness looks like a signature and
// a key (no script runs here: check_block does not verify signatures).
Transaction segwit_spend(const Txid& coinbase_txid, std::uint32_t height, std::int64_t spent) {
  TransactionBuilder tx;
  tx.version = 2;
  tx.add_input({coinbase_txid, 0}, {}, 0xfffffffd);
  const auto signature = concat({bytes({0x30, 0x44}), repeated(70, static_cast<int>(height & 0xff))});
  const auto key = concat({bytes({0x02}), repeated(32, 0x11)});
  const std::span<const std::byte> items[] = {signature, key};
  tx.set_witness(0, items);
  const std::vector<std::byte> scripts[] = {
      concat({bytes({0x00, 0x14}), repeated(20, 0x22)}),                             // P2WPKH
      concat({bytes({0x51, 0x20}), repeated(32, 0x33)}),                             // P2TR
      concat({bytes({0x76, 0xa9, 0x14}), repeated(20, 0x44), bytes({0x88, 0xac})}),  // P2PKH
      concat({bytes({0xa9, 0x14}), repeated(20, 0x55), bytes({0x87})}),              // P2SH
      bytes({0x6a, 0x04, 0x62, 0x77, 0x69, 0x72}),                                   // OP_RETURN "bwir"
  };
  for (const auto& script : scripts) tx.add_output(Amount::from_sat(std::min<std::int64_t>(9'000'000, spent / 10)), script);
  return tx.build();
}

// --wide K: a transaction of K segwit inputs (each spending one of
// `spent`, a signature and a key in its witness) and K outputs of the
// common types, worth what they spend: a block's worth of coins spent and
// made, all of them the chain's own, as a node connecting real blocks
// spends and makes them.
Transaction wide_spend(const std::vector<std::pair<OutPoint, std::int64_t>>& spent, std::size_t outputs, std::uint32_t height) {
  TransactionBuilder tx;
  tx.version = 2;
  std::int64_t total = 0;
  for (const auto& [point, value] : spent) {
    tx.add_input(point, {}, 0xfffffffd);
    total += value;
  }
  const auto key = concat({bytes({0x03}), repeated(32, static_cast<int>(height & 0xff))});
  for (std::size_t i = 0; i < spent.size(); ++i) {
    const auto signature = concat({bytes({0x30, 0x44}), repeated(69, static_cast<int>((height + i) & 0xff)), bytes({0x01})});
    const std::span<const std::byte> items[] = {signature, key};
    tx.set_witness(i, items);
  }
  for (std::size_t o = 0; o < outputs; ++o) {
    const int fill = static_cast<int>((height * 7 + o) & 0xff);
    const std::vector<std::byte> script = o % 3 == 0   ? concat({bytes({0x00, 0x14}), repeated(20, fill)})
                                          : o % 3 == 1 ? concat({bytes({0x51, 0x20}), repeated(32, fill)})
                                                       : concat({bytes({0x76, 0xa9, 0x14}), repeated(20, fill), bytes({0x88, 0xac})});
    const std::int64_t share = total / static_cast<std::int64_t>(outputs);
    tx.add_output(Amount::from_sat(o + 1 == outputs ? total - share * static_cast<std::int64_t>(outputs - 1) : share), script);
  }
  return tx.build();
}

// --one-payer: a block's copies made its own (their lock time the height,
// a parent in the block followed to its new txid), so that no txid repeats
// across blocks: an address's history pages by txid, as Esplora's does.
std::vector<Transaction> made_distinct(const std::vector<Transaction>& fill, std::uint32_t height) {
  std::map<Txid, Txid> renamed;
  std::vector<Transaction> out;
  out.reserve(fill.size());
  for (const Transaction& tx : fill) {
    TransactionBuilder copy(tx);
    copy.lock_time = height;
    for (auto& in : copy.inputs) {
      if (const auto r = renamed.find(in.prevout.txid); r != renamed.end()) in.prevout.txid = r->second;
    }
    out.push_back(copy.build());
    renamed.emplace(tx.txid(), out.back().txid());
  }
  return out;
}

Block make_block(const BlockHash& prev, std::uint32_t height, const Transaction* spend, const std::vector<Transaction>& fill) {
  Block b;
  b.header.version = 0x20000000;
  b.header.prev_block = prev;
  b.header.time = 1'700'000'000 + height * 600;
  b.header.bits = 0x207fffff;
  TransactionBuilder cb;
  // BIP34: the height first in the coinbase's script_sig.
  const auto script_sig = bytes({0x04, static_cast<int>(height & 0xff), static_cast<int>((height >> 8) & 0xff),
                                 static_cast<int>((height >> 16) & 0xff), static_cast<int>(height >> 24), 0x00});
  cb.add_input(OutPoint{}, script_sig);
  cb.add_output(Amount::from_sat(subsidy(height)), concat({bytes({0x00, 0x14}), repeated(20, 0x66)}));
  b.transactions.push_back(cb.build());
  if (spend != nullptr) b.transactions.push_back(*spend);
  b.transactions.insert(b.transactions.end(), fill.begin(), fill.end());
  bool witness = false;
  for (const Transaction& tx : b.transactions) witness = witness || tx.has_witness();
  if (witness) {  // BIP141: a 32-byte nonce in the coinbase witness, the commitment in an output
    const auto nonce = repeated(32, 0);
    const std::span<const std::byte> items[] = {nonce};
    cb.set_witness(0, items);  // (the witness root counts the coinbase as zero)
    std::vector<std::byte> preimage;
    const Hash256 root = witness_merkle_root(b);
    preimage.insert(preimage.end(), root.bytes().begin(), root.bytes().end());
    preimage.insert(preimage.end(), nonce.begin(), nonce.end());
    const Hash256 commitment = sha256d(preimage);
    auto script = bytes({0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed});
    script.insert(script.end(), commitment.bytes().begin(), commitment.bytes().end());
    cb.add_output(Amount::from_sat(0), script);
    b.transactions[0] = cb.build();
  }
  b.header.merkle_root = merkle_root(b);
  const Target target = *Target::from_bits(b.header.bits);
  while (!target.met_by(block_hash(b.header))) ++b.header.nonce;
  return b;
}

leveldb::Slice slice_of(std::span<const std::byte> bytes) { return {reinterpret_cast<const char*>(bytes.data()), bytes.size()}; }

// Core's block index and chainstate, as its node writes them (entries in
// batches, as its flushes do).
class CoreDatabases {
 public:
  // `log_only`: the index written in one batch, with a write buffer large
  // enough that it is never compacted into a table (it stays in the log).
  static std::unique_ptr<CoreDatabases> open(const std::string& blocks_dir, bool log_only) {
    auto out = std::make_unique<CoreDatabases>();
    out->log_only_ = log_only;
    leveldb::Options options;
    options.create_if_missing = true;
    options.compression = leveldb::kNoCompression;  // as Core's
    leveldb::DB* db = nullptr;
    leveldb::Options index_options = options;
    if (log_only) index_options.write_buffer_size = std::size_t{1} << 30;  // (LevelDB's largest)
    leveldb::Status s = leveldb::DB::Open(index_options, blocks_dir + "/index", &db);
    if (!s.ok()) return fail(s);
    out->index_.reset(db);
    const auto chainstate = std::filesystem::path(blocks_dir).lexically_normal().parent_path() / "chainstate";
    s = leveldb::DB::Open(options, chainstate.string(), &db);
    if (!s.ok()) return fail(s);
    out->chainstate_.reset(db);
    return out;
  }
  // Each blk file's CBlockFileInfo ("f" + file number), as Core keeps it:
  // its blocks, its bytes and its rev file's, its heights and times.
  void count(unsigned file, std::uint32_t height, std::uint32_t time, std::uint64_t end, std::uint64_t undo_end) {
    if (files_.size() <= file) files_.resize(file + 1);
    CoreFileInfo& f = files_[file];
    if (f.blocks++ == 0) {
      f.height_first = height;
      f.time_first = time;
    }
    f.height_last = std::max<std::uint64_t>(f.height_last, height);
    f.time_last = std::max<std::uint64_t>(f.time_last, time);
    f.size = end;
    f.undo_size = std::max(f.undo_size, undo_end);
  }
  bool add(const CoreBlockEntry& e) {
    batch_.Put(core_block_key(e.hash), slice_of(encode_core_block_entry(e)));
    return ++pending_ < 10'000 || log_only_ || flush();
  }
  // The last batch, and the chainstate's best block under its key.
  bool finish(const BlockHash& tip) {
    // (Core's flush writes the files' records before the blocks': so does
    // the one batch of log_only)
    leveldb::WriteBatch files;
    for (std::uint32_t file = 0; file < files_.size(); ++file) {
      files.Put(core_file_key(file), slice_of(encode_core_file_info(files_[file])));
    }
    files.Append(batch_);
    batch_ = std::move(files);
    if (!flush()) return false;
    const XorKey key = random_xor_key();
    std::string value(1, static_cast<char>(key.size()));
    value.append(reinterpret_cast<const char*>(key.data()), key.size());
    leveldb::WriteBatch b;
    b.Put(leveldb::Slice("\x0e\x00obfuscate_key", 15), value);
    std::string best(32, '\0');
    for (std::size_t i = 0; i < 32; ++i) best[i] = static_cast<char>(tip.bytes()[i] ^ key[i % key.size()]);
    b.Put("B", best);
    return check(chainstate_->Write(leveldb::WriteOptions(), &b));
  }

 private:
  static std::unique_ptr<CoreDatabases> fail(const leveldb::Status& s) {
    std::fprintf(stderr, "make_chain: %s\n", s.ToString().c_str());
    return nullptr;
  }
  static bool check(const leveldb::Status& s) { return s.ok() || fail(s) != nullptr; }
  bool flush() {
    pending_ = 0;
    const bool ok = check(index_->Write(leveldb::WriteOptions(), &batch_));
    batch_.Clear();
    return ok;
  }
  std::unique_ptr<leveldb::DB> index_;
  std::unique_ptr<leveldb::DB> chainstate_;
  leveldb::WriteBatch batch_;
  std::size_t pending_ = 0;
  bool log_only_ = false;
  std::vector<CoreFileInfo> files_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(
        stderr,
        "usage: make_chain DIR N [--fill BLOCK.raw]... [--hex FILE] [--plain] [--undo] [--coinbase-only] [--core-index | --core-index-log] "
        "[--wide K] [--file-size BYTES] [--one-payer]\n");
    return 2;
  }
  const std::string dir = argv[1];
  const unsigned count = static_cast<unsigned>(std::stoul(argv[2]));
  std::vector<std::vector<Transaction>> fills;
  std::ofstream hex_out;
  XorKey key = random_xor_key();
  bool with_undo = false;
  bool coinbase_only = false;
  bool one_payer = false;
  bool core_index = false;
  bool core_log_only = false;
  std::size_t wide = 0;
  std::uint64_t file_size = max_blockfile_size;
  for (int i = 3; i < argc; ++i) {
    if (std::strcmp(argv[i], "--fill") == 0 && i + 1 < argc) {
      std::ifstream in(argv[++i], std::ios::binary);
      const std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      auto block = decode_block(std::as_bytes(std::span(raw)));
      if (!block) {
        std::fprintf(stderr, "make_chain: %s: %s\n", argv[i], block.error().message().c_str());
        return 2;
      }
      fills.emplace_back(block.value().transactions.begin() + 1, block.value().transactions.end());
    } else if (std::strcmp(argv[i], "--hex") == 0 && i + 1 < argc) {
      hex_out.open(argv[++i]);
    } else if (std::strcmp(argv[i], "--undo") == 0) {
      with_undo = true;
    } else if (std::strcmp(argv[i], "--one-payer") == 0) {
      one_payer = true;
    } else if (std::strcmp(argv[i], "--coinbase-only") == 0) {
      coinbase_only = true;
    } else if (std::strcmp(argv[i], "--core-index") == 0) {
      core_index = true;
    } else if (std::strcmp(argv[i], "--core-index-log") == 0) {
      core_index = true;
      core_log_only = true;
    } else if (std::strcmp(argv[i], "--wide") == 0 && i + 1 < argc) {
      wide = static_cast<std::size_t>(std::stoul(argv[++i]));
    } else if (std::strcmp(argv[i], "--file-size") == 0 && i + 1 < argc) {
      file_size = std::stoull(argv[++i]);
    } else if (std::strcmp(argv[i], "--plain") == 0) {
      key = XorKey{};
    } else {
      std::fprintf(stderr, "make_chain: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  auto writer = BlockFileWriter::open(dir, key, network::regtest, file_size);
  if (!writer) {
    std::fprintf(stderr, "make_chain: %s: %s\n", dir.c_str(), writer.error().message().c_str());
    return 2;
  }
  Block block = genesis_block(network::regtest);
  std::vector<std::byte> bytes;
  CoinSet coins;
  UndoFileWriter undo_writer(dir, key, network::regtest);
  std::uint64_t undo_end = 0;                                   // of the last undo record written
  std::vector<std::pair<OutPoint, std::int64_t>> wide_outputs;  // what the next wide transaction spends
  std::unique_ptr<CoreDatabases> core;
  if (core_index && !(core = CoreDatabases::open(dir, core_log_only))) return 2;
  for (unsigned height = 0;; ++height) {
    auto at = writer.value().append(block);
    std::uint32_t undo_pos = 0;  // past its record's frame, as Core's index keeps it
    if (!at) {
      std::fprintf(stderr, "make_chain: %s\n", at.error().message().c_str());
      return 2;
    }
    if (with_undo) {
      // The copied transactions spend coins of the real chain: each one
      // not made in this block is given a stand-in (a P2WPKH script from
      // its outpoint, 1 BTC), so that the rev files have a script for
      // every input, as a real chain's do.
      if (!fills.empty()) {
        std::set<Txid> made;
        for (const Transaction& tx : block.transactions) made.insert(tx.txid());
        for (const Transaction& tx : block.transactions) {
          if (tx.is_coinbase()) continue;
          for (const InputView in : tx.inputs()) {
            if (made.count(in.prevout().txid) != 0 || coins.contains(in.prevout())) continue;
            std::vector<std::byte> script{std::byte{0x00}, std::byte{0x14}};
            if (one_payer) {
              script.insert(script.end(), 20, std::byte{0x77});
            } else {
              script.insert(script.end(), in.prevout().txid.bytes().begin(), in.prevout().txid.bytes().begin() + 20);
            }
            coins.add(in.prevout(), SpentCoin{*Height::checked(1), false, Amount::from_sat(1'0000'0000), std::move(script)});
          }
        }
      }
      auto undo = coins.apply(block, *Height::checked(height));
      if (!undo) {
        std::fprintf(stderr, "make_chain: undo data of block %u: %s\n", height, undo.error().message().c_str());
        return 2;
      }
      // Core writes none for the genesis block.
      if (height != 0) {
        auto undo_at = undo_writer.append(undo.value(), block.header.prev_block, at.value().file);
        if (!undo_at) {
          std::fprintf(stderr, "make_chain: %s\n", undo_at.error().message().c_str());
          return 2;
        }
        undo_pos = static_cast<std::uint32_t>(undo_at.value().offset + 8);
        undo_end = undo_at.value().offset + 8 + serialized_size(undo.value()) + 32;
      }
    }
    if (core) {
      CoreBlockEntry e;
      e.hash = block_hash(block.header);
      e.header = block.header;
      e.height = static_cast<std::int32_t>(height);
      e.status = CoreBlockEntry::valid_scripts | CoreBlockEntry::have_data | (undo_pos != 0 ? CoreBlockEntry::have_undo : 0);
      e.tx_count = static_cast<std::uint32_t>(block.transactions.size());
      e.file = at.value().file;
      e.data_pos = static_cast<std::uint32_t>(at.value().offset + 8);
      e.undo_pos = undo_pos;
      core->count(e.file, height, block.header.time, writer.value().position().offset, undo_end);
      if (!core->add(e)) return 2;
    }
    if (hex_out.is_open()) {
      bytes.clear();
      encode_block(block, bytes);
      hex_out << to_hex(bytes) << '\n';
    }
    if (height == count) break;
    const Txid coinbase_txid = block.transactions[0].txid();
    const bool spends = !coinbase_only && height + 1 >= 2 && (height + 1) % 3 == 0;
    const Transaction spend = spends ? segwit_spend(coinbase_txid, height + 1, subsidy(height)) : Transaction{};
    static const std::vector<Transaction> none;
    std::vector<Transaction> wide_fill;
    if (wide != 0 && height + 1 >= 2) {
      // The last wide transaction's outputs, or to begin the coinbase of
      // the block before.
      if (wide_outputs.empty()) wide_outputs.push_back({OutPoint{coinbase_txid, 0}, subsidy(height)});
      wide_fill.push_back(wide_spend(wide_outputs, wide, height + 1));
      const Txid id = wide_fill.back().txid();
      wide_outputs.clear();
      for (std::uint32_t o = 0; o < wide_fill.back().output_count(); ++o)
        wide_outputs.push_back({OutPoint{id, o}, wide_fill.back().output(o).value().to_sat()});
    }
    const auto& fill = wide != 0 ? wide_fill : fills.empty() ? none : fills[height % fills.size()];
    block = make_block(block_hash(block.header), height + 1, spends ? &spend : nullptr, one_payer ? made_distinct(fill, height + 1) : fill);
  }
  if (core && !core->finish(block_hash(block.header))) return 2;
  if (auto r = undo_writer.close(); !r) {
    std::fprintf(stderr, "make_chain: %s\n", r.error().message().c_str());
    return 2;
  }
  if (auto r = writer.value().close(); !r) {
    std::fprintf(stderr, "make_chain: %s\n", r.error().message().c_str());
    return 2;
  }
  return 0;
}
