#include "core_chain.hpp"

#include <blockwire/codec/encoding.hpp>
#include <blockwire/codec/hashes.hpp>
#include <blockwire/directory/core_index.hpp>
#include <blockwire/io/file.hpp>
#include <blockwire/io/xor.hpp>

#include <algorithm>
#include <array>
#include <filesystem>
#include <map>
#include <tuple>

namespace blockwire::detail {
namespace {

namespace fs = std::filesystem;

// How many records spread over the chain are checked besides the tip's.
constexpr std::size_t sample_size = 64;

std::string short_hash(const Hash256& h) { return h.to_hex(); }

// The chainstate of the data directory that holds `blocks_dir`.
std::string chainstate_beside(const std::string& blocks_dir) {
  fs::path p = fs::path(blocks_dir).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  return (p.parent_path() / "chainstate").string();
}

// Reads the frame and header of block records, keeping each file open.
class RecordChecker {
 public:
  RecordChecker(std::string dir, const XorKey& key, network net) : dir_(std::move(dir)), key_(key), magic_(magic(net)) {}

  // Empty when the record at `at` is the block `hash`; else what is wrong.
  std::string check(const Hash256& hash, BlockPosition at) {
    const std::string name = block_file_name(at.file);
    auto fd = file(at.file);
    if (!fd) return name + ": " + fd.error().message();
    std::array<std::byte, 8 + header_size> head{};
    if (auto r = read_at(fd.value(), head, at.offset); !r) {
      return name + ":" + std::to_string(at.offset) + ": " + r.error().message() + " (the index has block " + short_hash(hash) + " there)";
    }
    xor_in_place(head, key_, at.offset);
    const auto where = name + ":" + std::to_string(at.offset) + ": ";
    if (!std::equal(magic_.begin(), magic_.end(), head.begin())) return where + "no record begins there (the index has block " + short_hash(hash) + " there)";
    const auto header = decode_header(std::span<const std::byte>(head).subspan(8));
    if (!header || block_hash(header.value()) != hash) {
      return where + "the record there is not block " + short_hash(hash) + ", as the index says";
    }
    return {};
  }

 private:
  result<int> file(unsigned number) {
    if (const auto it = open_.find(number); it != open_.end()) return it->second.fd();
    auto opened = FileReader::open((fs::path(dir_) / block_file_name(number)).c_str());
    if (!opened) return opened.error();
    return open_.emplace(number, std::move(opened).value()).first->second.fd();
  }

  std::string dir_;
  XorKey key_;
  Magic magic_;
  std::map<unsigned, FileReader> open_;
};

// Empty when the undo record at `at` checks against the block's parent
// (Core's checksum over the parent's hash and the record).
std::string check_undo(const std::string& dir, const XorKey& key, network net, BlockPosition at, const Hash256& parent, const Hash256& block) {
  const std::string name = undo_file_name(at.file);
  auto reader = UndoFileReader::open((fs::path(dir) / name).string(), key, net, at.offset);
  if (!reader) return name + ": " + reader.error().message();
  auto record = reader.value().next();
  const auto where = name + ":" + std::to_string(at.offset) + ": ";
  if (!record) return where + record.error().message();
  if (!record.value() || undo_checksum(parent, record.value()->bytes) != record.value()->checksum) {
    return where + "no undo record of block " + short_hash(block) + " there, as the index says";
  }
  return {};
}

}  // namespace

std::variant<CoreChain, std::string> read_core_chain(const std::string& blocks_dir, const XorKey& key, network net, bool undo) {
  const std::string index_dir = (fs::path(blocks_dir) / "index").string();
  std::vector<KnownBlock> known;
  std::vector<std::pair<Hash256, BlockPosition>> undo_records;
  std::string why;
  std::optional<Hash256> lying;  // an entry whose header is not its block's
  auto read = read_core_block_index(
      index_dir,
      [&](const CoreBlockEntry& e) {
        const auto at = e.block_record();
        if (!at || lying) return;  // a header alone: no block to read
        // Every header checked against its key: the chain's links, times
        // and work come from them.
        if (block_hash(e.header) != e.hash) {
          lying = e.hash;
          return;
        }
        known.push_back({e.hash, e.header, *at, e.failed()});
        if (const auto u = e.undo_record()) undo_records.emplace_back(e.hash, *u);
      },
      &why);
  if (!read) return index_dir + ": " + (why.empty() ? read.error().message() : why);
  if (lying) return index_dir + ": the header of block " + short_hash(*lying) + " is not that block's";
  if (known.empty()) return index_dir + ": no block with data in it";

  // The node's tip, when its chainstate is beside.
  std::optional<Hash256> tip;
  if (auto best = read_core_best_block(chainstate_beside(blocks_dir)); best) tip = best.value();

  // Check before trusting: the last record the index knows (where reading
  // goes on), a sample (the entries come by hash: every step-th is spread
  // over the chain at random), and the tip below.
  RecordChecker checker(blocks_dir, key, net);
  const auto last = std::max_element(known.begin(), known.end(), [](const KnownBlock& a, const KnownBlock& b) {
    return std::tie(a.at.file, a.at.offset) < std::tie(b.at.file, b.at.offset);
  });
  if (auto wrong = checker.check(last->hash, last->at); !wrong.empty()) return index_dir + ": " + wrong;
  const std::size_t step = std::max<std::size_t>(1, known.size() / sample_size);
  for (std::size_t i = 0; i < known.size(); i += step) {
    if (auto wrong = checker.check(known[i].hash, known[i].at); !wrong.empty()) return index_dir + ": " + wrong;
  }

  auto index = BlockIndex::build_from(blocks_dir, key, net, known, tip, last->at);
  if (!index) return index_dir + ": reading the blk files past what it knows: " + index.error().message();
  CoreChain chain{std::move(index).value(), std::nullopt, {}};
  if (chain.index.empty()) return index_dir + ": no chain from a block whose parent is all zeros";
  const IndexedBlock& top = chain.index.blocks()[chain.index.best_chain().back()];
  if (auto wrong = checker.check(top.hash, {top.file, top.offset}); !wrong.empty()) return index_dir + ": " + wrong;
  for (std::size_t i = known.size(); i < chain.index.blocks().size(); ++i) chain.files_read.push_back(chain.index.blocks()[i].file);
  std::sort(chain.files_read.begin(), chain.files_read.end());
  chain.files_read.erase(std::unique(chain.files_read.begin(), chain.files_read.end()), chain.files_read.end());
  if (!undo || undo_records.empty()) return chain;

  // The tip's undo record (or that of one of the highest blocks that has
  // one) must check against its parent.
  const std::size_t height = chain.index.best_chain().size();
  for (std::size_t h = height; h-- > 1 && h + 16 > height;) {
    const IndexedBlock& b = chain.index.blocks()[chain.index.best_chain()[h]];
    const auto it = std::find_if(undo_records.begin(), undo_records.end(), [&](const auto& r) { return r.first == b.hash; });
    if (it == undo_records.end()) continue;
    if (auto wrong = check_undo(blocks_dir, key, net, it->second, b.header.prev_block, b.hash); !wrong.empty()) return index_dir + ": " + wrong;
    break;
  }
  auto known_undo = UndoIndex::known(blocks_dir, key, net, undo_records);
  if (!known_undo) return index_dir + ": opening the rev files it names: " + known_undo.error().message();
  chain.undo = std::move(known_undo).value();
  return chain;
}

}  // namespace blockwire::detail
