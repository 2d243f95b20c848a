#include "leveldb_log.hpp"
#include "leveldb_snapshot.hpp"

#include <blockwire/codec/encoding.hpp>
#include <blockwire/codec/hashes.hpp>
#include <blockwire/codec/wire.hpp>
#include <blockwire/directory/core_index.hpp>
#include <blockwire/directory/error.hpp>
#include <blockwire/io/vector_writer.hpp>
#include <blockwire/undo/varint.hpp>

#include <leveldb/db.h>
#include <leveldb/iterator.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <string_view>
#include <memory>
#include <vector>

namespace blockwire {
namespace {

constexpr char block_index_key = 'b';             // DB_BLOCK_INDEX (node/blockstorage.cpp)
constexpr char file_info_key = 'f';               // DB_BLOCK_FILES (node/blockstorage.cpp)
constexpr char last_file_key = 'l';               // DB_LAST_BLOCK
constexpr char flag_key = 'F';                    // DB_FLAG
constexpr std::uint64_t client_version = 259900;  // what Core writes first, never read (CDiskBlockIndex::DUMMY_VERSION)

}  // namespace

std::optional<BlockPosition> CoreBlockEntry::block_record() const noexcept {
  if (!has_data() || data_pos < 8) return std::nullopt;
  return BlockPosition{file, data_pos - 8u};
}

std::optional<BlockPosition> CoreBlockEntry::undo_record() const noexcept {
  if (!has_undo() || undo_pos < 8) return std::nullopt;
  return BlockPosition{file, undo_pos - 8u};
}

std::vector<std::byte> encode_core_block_entry(const CoreBlockEntry& e) {
  std::vector<std::byte> out;
  VectorWriter vector(out);
  StreamWriter w{writer_ref(vector)};
  undo::encode_varint(w, client_version);
  undo::encode_varint(w, static_cast<std::uint64_t>(e.height));
  undo::encode_varint(w, e.status);
  undo::encode_varint(w, e.tx_count);
  if ((e.status & (CoreBlockEntry::have_data | CoreBlockEntry::have_undo)) != 0) undo::encode_varint(w, e.file);
  if (e.has_data()) undo::encode_varint(w, e.data_pos);
  if (e.has_undo()) undo::encode_varint(w, e.undo_pos);
  (void)w.flush();  // a vector cannot fail
  encode_header(e.header, out);
  return out;
}

std::vector<std::byte> encode_core_file_info(const CoreFileInfo& f) {
  std::vector<std::byte> out;
  VectorWriter vector(out);
  StreamWriter w{writer_ref(vector)};
  for (const std::uint64_t field : {f.blocks, f.size, f.undo_size, f.height_first, f.height_last, f.time_first, f.time_last}) {
    undo::encode_varint(w, field);
  }
  (void)w.flush();  // a vector cannot fail
  return out;
}

std::string core_block_key(const BlockHash& hash) {
  std::string key(1, block_index_key);
  key.append(reinterpret_cast<const char*>(hash.bytes().data()), hash.bytes().size());
  return key;
}

std::string core_file_key(unsigned file) {
  std::string key(1, file_info_key);
  for (int i = 0; i < 4; ++i) key.push_back(static_cast<char>(file >> (8 * i)));
  return key;
}

std::string core_last_file_key() { return std::string(1, last_file_key); }

std::string core_flag_key(std::string_view name) {
  // ('F', name): the name serialized as a string, its length a CompactSize
  std::string key(1, flag_key);
  key.push_back(static_cast<char>(name.size()));  // (every flag's name is shorter than 253)
  key.append(name);
  return key;
}

bool written_by_blockwire(const std::string& index_dir) {
  std::error_code ec;
  return std::filesystem::is_regular_file(std::filesystem::path(index_dir) / blockwire_index_mark, ec);
}

result<CoreBlockEntry> decode_core_block_entry(const BlockHash& hash, std::span<const std::byte> value) {
  DecodingContext ctx(value);
  constexpr std::uint64_t int_max = 0x7fffffff;  // VARINT_MODE(..., NONNEGATIVE_SIGNED) of an int
  CoreBlockEntry e;
  e.hash = hash;
  (void)undo::decode_varint(ctx, int_max);  // the client version, never used
  e.height = static_cast<std::int32_t>(undo::decode_varint(ctx, int_max));
  e.status = static_cast<std::uint32_t>(undo::decode_varint(ctx, 0xffffffff));
  e.tx_count = static_cast<std::uint32_t>(undo::decode_varint(ctx, 0xffffffff));
  if ((e.status & (CoreBlockEntry::have_data | CoreBlockEntry::have_undo)) != 0) {
    e.file = static_cast<unsigned>(undo::decode_varint(ctx, int_max));
  }
  if (e.has_data()) e.data_pos = static_cast<std::uint32_t>(undo::decode_varint(ctx, 0xffffffff));
  if (e.has_undo()) e.undo_pos = static_cast<std::uint32_t>(undo::decode_varint(ctx, 0xffffffff));
  decode_header(ctx, e.header);
  if (ctx.ok() && ctx.offset() != value.size()) ctx.fail(directory::errc::bad_index_entry);
  if (!ctx.ok()) return error(directory::errc::bad_index_entry, ctx.failure().has_offset() ? ctx.failure().offset() : ctx.offset());
  return e;
}

result<std::uint64_t> read_core_block_index(const std::string& index_dir, const std::function<void(const CoreBlockEntry&)>& each,
                                            const std::function<void(std::uint64_t)>& expect) {
  // The tables through LevelDB (a snapshot that does not replay the logs),
  // then the logs streamed over them: a node that flushed a long download
  // in one batch has its whole index in its log, which LevelDB would
  // replay into memory and a new table before the first key could be read.
  // Entries come oldest first (tables, then the logs as written); a block
  // seen again is the newer entry (BlockIndex::build_from keeps the last).
  auto logs = detail::live_logs(index_dir);
  if (!logs) return logs.error();
  auto snapshot = detail::LevelDbSnapshot::open(index_dir, false);
  if (!snapshot) return snapshot.error();
  const leveldb::ReadOptions options = detail::checked_reads(false);  // (one pass: no cache)
  std::unique_ptr<leveldb::Iterator> it(snapshot.value().db().NewIterator(options));
  // "f" + file number -> CBlockFileInfo, its block count first: room to
  // reserve, the newest count of each file.
  // (their sum kept as they change: a block entry asks for it, and
  // mainnet has thousands of files)
  std::map<std::string, std::uint64_t, std::less<>> file_blocks;
  std::uint64_t file_total = 0;
  const auto set_file = [&](std::string_view key, std::optional<std::uint64_t> blocks) {
    const auto it = file_blocks.find(key);
    if (it != file_blocks.end()) {
      file_total -= it->second;
      file_blocks.erase(it);
    }
    if (!blocks) return;
    file_blocks.emplace(std::string(key), *blocks);
    file_total += *blocks;
  };
  const auto file_info = [&](std::string_view key, std::span<const std::byte> value) {
    DecodingContext ctx(value);
    const std::uint64_t n = undo::decode_varint(ctx, 0xffffffff);
    if (ctx.ok()) set_file(key, n);
  };
  std::uint64_t reserved = 0;
  const auto reserve = [&] {
    if (expect && file_total > reserved) expect(reserved = file_total);
  };
  for (it->Seek(leveldb::Slice(&file_info_key, 1)); it->Valid() && it->key().size() > 0 && it->key()[0] == file_info_key; it->Next()) {
    file_info(std::string_view(it->key().data(), it->key().size()), detail::bytes_of(it->value()));
  }
  if (const leveldb::Status s = it->status(); !s.ok()) return detail::leveldb_failure(s);
  reserve();
  std::uint64_t count = 0;
  std::optional<error> failed;
  const auto entry = [&](std::span<const std::byte> key, std::span<const std::byte> value) {
    if (key.size() != 33) {
      failed = error(directory::errc::bad_index_entry).in("a block index key of " + std::to_string(key.size()) + " bytes");
      return;
    }
    const auto hash = BlockHash::from_bytes(key.subspan<1, 32>());
    auto decoded = decode_core_block_entry(hash, value);
    if (!decoded) {
      failed = decoded.error().in("the entry of block " + hash.to_hex());  // (its byte: the error's offset)
      return;
    }
    each(decoded.value());
    ++count;
  };
  for (it->Seek(leveldb::Slice(&block_index_key, 1)); it->Valid() && !failed; it->Next()) {
    const leveldb::Slice key = it->key();
    if (key.size() == 0 || key[0] != block_index_key) break;
    entry(detail::bytes_of(key), detail::bytes_of(it->value()));
  }
  if (failed) return *failed;
  if (const leveldb::Status s = it->status(); !s.ok()) return detail::leveldb_failure(s);
  it.reset();
  for (const std::string& log : logs.value()) {
    auto read = detail::read_log(log, [&](std::string_view key, std::optional<std::string_view> value) {
      if (failed || key.empty()) return;
      const auto k = std::as_bytes(std::span(key.data(), key.size()));
      if (!value) {
        if (key[0] == file_info_key) set_file(key, std::nullopt);
        if (key[0] != block_index_key || key.size() != 33) return;
        CoreBlockEntry gone;
        gone.hash = BlockHash::from_bytes(k.subspan<1, 32>());
        gone.erased = true;
        each(gone);
        return;
      }
      const auto v = std::as_bytes(std::span(value->data(), value->size()));
      if (key[0] == file_info_key) {
        file_info(key, v);
      } else if (key[0] == block_index_key) {
        reserve();  // (Core writes a flush's file records before its blocks')
        entry(k, v);
      }
    });
    if (!read) return read.error();
    if (failed) return *failed;
  }
  return count;
}

}  // namespace blockwire
