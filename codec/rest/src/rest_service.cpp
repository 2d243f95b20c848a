#include "deployments.hpp"
#include "page_files.hpp"

#include <blockwire/codec/wire.hpp>
#include <blockwire/directory.hpp>
#include <blockwire/io/file.hpp>
#include <blockwire/io/hex.hpp>
#include <blockwire/io/vector_writer.hpp>
#include <blockwire/io/xor.hpp>
#include <blockwire/rest/rest_service.hpp>
#include <blockwire/tables/core_json.hpp>
#include <blockwire/tables/json_writer.hpp>
#include <blockwire/undo.hpp>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <mutex>
#include <shared_mutex>
#include <optional>
#include <vector>

namespace blockwire::rest {

namespace {

namespace fs = std::filesystem;

// Core's cap on headers and filter headers in one answer.
constexpr std::uint64_t max_headers = 2000;

enum class format : unsigned char { undefined, binary, hex, json };

// A path's last part and its format: "HASH.json" -> HASH, json. No known
// suffix: the part as it is (its query cut off), format undefined.
format split_format(std::string_view part, std::string& param) {
  param = std::string(part.substr(0, part.rfind('?')));
  const auto dot = param.rfind('.');
  if (dot == std::string::npos) return format::undefined;
  const std::string_view suffix = std::string_view(param).substr(dot + 1);
  const format f = suffix == "bin" ? format::binary : suffix == "hex" ? format::hex : suffix == "json" ? format::json : format::undefined;
  if (f != format::undefined) param.erase(dot);
  return f;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The first value of `name` in the target's query, %-decoded.
std::optional<std::string> query_parameter(std::string_view target, std::string_view name) {
  const auto mark = target.find('?');
  if (mark == std::string_view::npos) return std::nullopt;
  std::string_view query = target.substr(mark + 1);
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    const auto eq = pair.find('=');
    if (pair.substr(0, eq) == name) {
      const std::string_view raw = eq == std::string_view::npos ? std::string_view{} : pair.substr(eq + 1);
      std::string value;
      for (std::size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] == '%' && i + 2 < raw.size() && hex_value(raw[i + 1]) >= 0 && hex_value(raw[i + 2]) >= 0) {
          value.push_back(static_cast<char>(hex_value(raw[i + 1]) * 16 + hex_value(raw[i + 2])));
          i += 2;
        } else {
          value.push_back(raw[i]);
        }
      }
      return value;
    }
    if (amp == std::string_view::npos) break;
    query = query.substr(amp + 1);
  }
  return std::nullopt;
}

std::vector<std::string> split(const std::string& s, char by) {
  std::vector<std::string> out;
  std::size_t from = 0;
  for (;;) {
    const auto at = s.find(by, from);
    out.push_back(s.substr(from, at == std::string::npos ? std::string::npos : at - from));
    if (at == std::string::npos) return out;
    from = at + 1;
  }
}

// A whole number in digits alone, as Core's ToIntegral takes it.
template <class T>
std::optional<T> whole(std::string_view text) {
  T v{};
  const auto [end, err] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (err != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

// 64 hex digits, either case: a hash as Core prints it.
template <class Id = BlockHash>
std::optional<Id> parse_hash(std::string_view text) {
  if (text.size() != 64) return std::nullopt;
  auto h = Id::from_hex(text);
  if (!h) return std::nullopt;
  return h.value();
}

Response error(unsigned status, std::string message) { return {status, "text/plain", std::move(message) + "\r\n"}; }

Response no_format(std::string_view available = ".bin, .hex, .json") {
  return error(404, "output format not found (available: " + std::string(available) + ")");
}

// A count and a block hash where /rest/headers and /rest/blockfilterheaders
// take them: the path's last two parts in the old form (`old_parts` parts
// in all), else its last part and ?count= (5 by default). Core's texts
// for a bad count and a bad hash; `invalid` for a path of another shape.
struct CountedHash {
  std::uint64_t count = 0;
  BlockHash hash;
  std::optional<Response> failed;
};

CountedHash counted_hash(const std::vector<std::string>& path, std::string_view target, std::size_t old_parts, std::string_view invalid) {
  CountedHash out;
  const auto failed = [&out](std::string message) {
    out.failed = error(400, std::move(message));
    return out;
  };
  std::string raw_count, hash_text;
  if (path.size() == old_parts) {
    raw_count = path[old_parts - 2];
    hash_text = path[old_parts - 1];
  } else if (path.size() == old_parts - 1) {
    hash_text = path[old_parts - 2];
    raw_count = query_parameter(target, "count").value_or("5");
  } else {
    return failed(std::string(invalid));
  }
  const auto count = whole<std::uint64_t>(raw_count);
  if (!count || *count < 1 || *count > max_headers)
    return failed("Header count is invalid or out of acceptable range (1-2000): " + raw_count);
  const auto hash = parse_hash(hash_text);
  if (!hash) return failed("Invalid hash: " + hash_text);
  out.count = *count;
  out.hash = *hash;
  return out;
}

Response bytes_in(format f, std::span<const std::byte> bytes) {
  if (f == format::binary) return {200, "application/octet-stream", std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size())};
  return {200, "text/plain", to_hex(bytes) + "\n"};
}

using Sink = BufferedWriter<VectorWriter&, 0>;

// An answer in .bin or .hex, its fields written by `encode` with the wire
// toolkit.
template <class Encode>
Response encoded_in(format f, Encode&& encode) {
  std::vector<std::byte> bytes;
  VectorWriter grows(bytes);
  Sink out(grows);
  encode(out);
  return bytes_in(f, bytes);
}

// JSON written by `write` (Core's UniValue::write: compact), then a newline.
Response json_of(const std::function<void(tables::JsonWriter&)>& write) {
  char* buffer = nullptr;
  std::size_t size = 0;
  std::FILE* memory = ::open_memstream(&buffer, &size);
  if (memory == nullptr) return error(500, "out of memory");
  {
    tables::JsonWriter out(memory, false);
    write(out);
  }  // (the writer ends the document with its newline)
  std::fclose(memory);
  Response r{200, "application/json", std::string(buffer, size)};
  std::free(buffer);
  return r;
}

}  // namespace

// The UTXO set at the tip, opened when first asked and again when the tip
// moved.
struct Service::Coins {
  std::mutex mutex;
  std::optional<ChainstateSnapshot> set;
  std::chrono::steady_clock::time_point opened{};  // a node's chainstate lags its tip: opened again at most once a second
  // chaininfo's size_on_disk, which walks every file: kept for the chain it was counted for.
  std::mutex size_mutex;
  std::optional<std::pair<std::pair<BlockHash, std::size_t>, std::uint64_t>> size;
};

namespace {

// The answers, each under the store's shared lock.
struct Answers {
  BlockStore& store;
  const BlocksDirectory& dir;
  const BlockIndex& index;
  const Sources& sources;
  Service::Coins& coins;
  // The store's shared lock, held while the directory is read: let go
  // around the store's own filter calls, which take it themselves (a
  // shared lock taken twice by one thread is undefined).
  std::shared_lock<std::shared_mutex>& lock;

  // Headers of blocks read in turn, each checked against the hash the
  // index names, each blk file opened once.
  class HeaderReader {
   public:
    explicit HeaderReader(const Answers& a) : a_(a) {}
    struct Head {
      BlockHeader header;
      std::uint64_t tx_count = 0;
    };
    // The header (blockfiles' read_block_header, on the file kept open)
    // and, with `count`, the transaction count after it.
    std::optional<Head> read(const IndexedBlock& b, bool count = false) {
      if (b.pruned) {  // (its header from the index: Core answers a pruned block's header from its own)
        auto header = a_.index.header(b);
        if (!header) return std::nullopt;
        return Head{header.value(), a_.index.pruned_tx_count(b).value_or(0)};
      }
      if (!file_ || number_ != b.file) {
        auto opened = FileReader::open(a_.index.file_path(b.file).c_str());
        if (!opened) return std::nullopt;
        file_.emplace(std::move(opened).value());
        number_ = b.file;
      }
      auto header = read_block_header(file_->fd(), b.offset, a_.dir.key(), a_.dir.net(), b.hash);
      if (!header) return std::nullopt;
      Head head{header.value(), 0};
      if (count) {
        const std::uint64_t at = b.offset + 8 + header_size;
        std::array<std::byte, 9> bytes{};
        std::size_t have = bytes.size();
        if (!read_at(file_->fd(), bytes, at)) {  // a last record shorter than nine bytes of count
          have = 1;
          if (!read_at(file_->fd(), std::span(bytes).first(have), at)) return std::nullopt;
        }
        xor_in_place(std::span(bytes).first(have), a_.dir.key(), at);
        DecodingContext ctx(std::span<const std::byte>(bytes).first(have));
        const std::uint64_t n = wire::decode_compact_size(ctx);
        head.tx_count = ctx.ok() ? n : 0;
      }
      return head;
    }

   private:
    const Answers& a_;
    std::optional<FileReader> file_;
    unsigned number_ = 0;
  };

  // The best chain from `hash` on, at most `count` blocks.
  std::vector<IndexedBlock> chain_from(const BlockHash& hash, std::uint64_t count) const {
    std::vector<IndexedBlock> out;
    const auto first = index.find(hash);
    if (!first || !index.on_best_chain(*first)) return out;
    for (std::int64_t h = first->height; h <= index.height() && out.size() < count; ++h)
      out.push_back(index.at_height(static_cast<std::size_t>(h)));
    return out;
  }

  Response headers(const std::string& part, std::string_view target) const {
    std::string param;
    const format f = split_format(part, param);
    // The old form: /rest/headers/<count>/<hash>.
    const CountedHash asked =
        counted_hash(split(param, '/'), target, 2, "Invalid URI format. Expected /rest/headers/<hash>.<ext>?count=<count>");
    if (asked.failed) return *asked.failed;
    const std::vector<IndexedBlock> blocks = chain_from(asked.hash, asked.count);
    HeaderReader reader(*this);
    if (f == format::binary || f == format::hex) {
      std::vector<std::byte> bytes;
      bytes.reserve(blocks.size() * header_size);
      for (const IndexedBlock& b : blocks) {
        const auto head = reader.read(b);
        if (!head) return error(500, "I/O error reading " + b.hash.to_hex());
        encode_header(head->header, bytes);
      }
      return bytes_in(f, bytes);
    }
    if (f != format::json) return no_format();
    std::optional<Response> failed;
    Response r = json_of([&](tables::JsonWriter& out) {
      out.begin_array();
      for (const IndexedBlock& b : blocks) {
        const auto head = reader.read(b, true);
        if (!head) {
          failed = error(500, "I/O error reading " + b.hash.to_hex());
          break;
        }
        const ChainInfo chain = index.chain_info(b);
        tables::write_block_header_json(out, head->header, &chain, head->tx_count);
      }
      out.end_array();
    });
    return failed ? *failed : r;
  }

  // /rest/block/, /rest/block/notxdetails/, /rest/blockpart/.
  Response block(const std::string& part, int verbosity, std::optional<std::pair<std::uint64_t, std::uint64_t>> range) const {
    std::string hash_text;
    const format f = split_format(part, hash_text);
    const auto hash = parse_hash(hash_text);
    if (!hash) return error(400, "Invalid hash: " + hash_text);
    const auto b = index.find(*hash);
    if (!b) return error(404, hash_text + " not found");
    if (b->pruned) {
      // Core's two words for a header without its block: pruned (below
      // the prune height), or not downloaded yet.
      const bool below = index.on_best_chain(*b) && static_cast<std::size_t>(b->height) < index.prune_height();
      return error(404, hash_text + (below ? " not available (pruned data)" : " not available (not fully downloaded)"));
    }
    auto bytes = dir.read_block(*b);
    if (!bytes) return error(500, "I/O error reading " + hash_text);
    std::span<const std::byte> shown = bytes.value();
    if (range) {
      const auto [offset, size] = *range;
      if (size == 0 || offset >= shown.size() || size > shown.size() - offset) {
        return error(400, "Bad block part offset/size " + std::to_string(offset) + "/" + std::to_string(size) + " for " + hash_text);
      }
      shown = shown.subspan(offset, size);
    }
    if (f == format::binary || f == format::hex) return bytes_in(f, shown);
    if (f != format::json) return no_format();
    if (range) return error(400, "JSON output is not supported for this request type");
    auto view = BlockView::parse(bytes.value());
    if (!view) return error(500, "I/O error reading " + hash_text);
    std::optional<BlockUndo> undo;
    if (verbosity >= 3 && b->height > 0 && dir.has_undo()) {
      if (auto found = dir.undo_of(*b, view.value())) undo = std::move(found).value();
    }
    const ChainInfo chain = index.chain_info(*b);
    return json_of([&](tables::JsonWriter& out) {
      tables::write_block_json(out, view.value(), dir.net(), &chain, verbosity, undo ? &*undo : nullptr);
    });
  }

  Response block_part(const std::string& part, std::string_view target) const {
    const auto offset = whole<std::uint64_t>(query_parameter(target, "offset").value_or(""));
    if (!offset) return error(400, "Block part offset missing or invalid");
    const auto size = whole<std::uint64_t>(query_parameter(target, "size").value_or(""));
    if (!size) return error(400, "Block part size missing or invalid");
    return block(part, 0, std::pair(*offset, *size));
  }

  Response spent_outputs(const std::string& part) const {
    std::string param;
    const format f = split_format(part, param);
    if (split(param, '/').size() != 1) return error(400, "Invalid URI format. Expected /rest/spenttxouts/<hash>.<ext>");
    const auto hash = parse_hash(param);
    if (!hash) return error(400, "Invalid hash: " + param);
    const auto b = index.find(*hash);
    if (!b) return error(404, param + " not found");
    BlockUndo undo;
    if (b->height != 0) {
      auto bytes = dir.read_block(*b);
      auto view = bytes ? BlockView::parse(bytes.value()) : result<BlockView>(bytes.error());
      auto found = view && dir.has_undo() ? dir.undo_of(*b, view.value()) : result<BlockUndo>(undo::errc::no_rev_file);
      if (!found) return error(404, param + " undo not available");
      undo = std::move(found).value();
    }
    if (f == format::binary || f == format::hex) {
      // Each transaction's spent outputs, the coinbase's (none) first.
      return encoded_in(f, [&](Sink& out) {
        wire::encode_compact_size(out, undo.transactions.size() + 1);
        wire::encode_compact_size(out, 0);
        for (const TxUndo& tx : undo.transactions) {
          wire::encode_compact_size(out, tx.coins.size());
          for (const SpentCoin& coin : tx.coins) {
            wire::encode_amount(out, coin.value);
            wire::encode_bytes(out, coin.script_pubkey);
          }
        }
      });
    }
    if (f != format::json) return no_format();
    return json_of([&](tables::JsonWriter& out) {
      out.begin_array();
      out.begin_array();
      out.end_array();
      for (const TxUndo& tx : undo.transactions) {
        out.begin_array();
        for (const SpentCoin& coin : tx.coins) {
          out.begin_object();
          out.member_raw_number("value", tables::amount_text(coin.value));
          out.key("scriptPubKey");
          tables::write_script_pubkey_json(out, coin.script_pubkey, dir.net());
          out.end_object();
        }
        out.end_array();
      }
      out.end_array();
    });
  }

  Response block_filter(const std::string& part) const {
    std::string param;
    const format f = split_format(part, param);
    const std::vector<std::string> path = split(param, '/');
    if (path.size() != 2) return error(400, "Invalid URI format. Expected /rest/blockfilter/<filtertype>/<blockhash>");
    const auto hash = parse_hash(path[1]);
    if (!hash) return error(400, "Invalid hash: " + path[1]);
    if (path[0] != "basic") return error(400, "Unknown filtertype " + path[0]);
    lock.unlock();
    const bool served = store.has_filters();
    lock.lock();
    if (!served) return error(400, "Index is not enabled for filtertype " + path[0]);
    const auto b = index.find(*hash);
    if (!b) return error(404, path[1] + " not found");
    if (!index.on_best_chain(*b)) return error(404, "Filter not found. Block was not connected to active chain.");
    lock.unlock();
    auto filter = store.filter_at(static_cast<std::size_t>(b->height));
    if (!filter) return error(404, "Filter not found. Block filters are still in the process of being indexed.");
    if (f == format::binary || f == format::hex) {
      return encoded_in(f, [&](Sink& out) {
        wire::encode_u8(out, 0);  // BIP158's basic type
        wire::encode_hash(out, b->hash);
        wire::encode_bytes(out, filter.value().encoded());
      });
    }
    if (f != format::json) return no_format();
    return json_of([&](tables::JsonWriter& out) {
      out.begin_object();
      out.member_string("filter", to_hex(filter.value().encoded()));
      out.end_object();
    });
  }

  Response filter_headers(const std::string& part, std::string_view target) const {
    std::string param;
    const format f = split_format(part, param);
    // The old form: <filtertype>/<count>/<blockhash>.
    const std::vector<std::string> path = split(param, '/');
    const CountedHash asked =
        counted_hash(path, target, 3, "Invalid URI format. Expected /rest/blockfilterheaders/<filtertype>/<blockhash>.<ext>?count=<count>");
    if (asked.failed) return *asked.failed;
    if (path[0] != "basic") return error(400, "Unknown filtertype " + path[0]);
    const std::vector<IndexedBlock> blocks = chain_from(asked.hash, asked.count);
    lock.unlock();
    if (!store.has_filters()) return error(400, "Index is not enabled for filtertype " + path[0]);
    std::vector<Hash256> headers;
    for (const IndexedBlock& b : blocks) {
      auto header = store.filter_header_at(static_cast<std::size_t>(b.height));
      if (!header) return error(404, "Filter not found. Block filters are still in the process of being indexed.");
      headers.push_back(header.value());
    }
    if (f == format::binary || f == format::hex) {
      std::vector<std::byte> bytes;
      for (const Hash256& h : headers) bytes.insert(bytes.end(), h.bytes().begin(), h.bytes().end());
      return bytes_in(f, bytes);
    }
    if (f != format::json) return no_format();
    return json_of([&](tables::JsonWriter& out) {
      out.begin_array();
      for (const Hash256& h : headers) out.string(h.to_hex());
      out.end_array();
    });
  }

  Response block_hash_by_height(const std::string& part) const {
    std::string param;
    const format f = split_format(part, param);
    const auto height = whole<std::int32_t>(param);
    if (!height || *height < 0) {
      std::string shown;  // as Core's SanitizeString(SAFE_CHARS_URI) leaves it
      for (const char c : param) {
        if (std::isalnum(static_cast<unsigned char>(c)) != 0 || std::string_view(" .,;-_/:?@()!*'&$=+%~").find(c) != std::string_view::npos)
          shown.push_back(c);
      }
      return error(400, "Invalid height: " + shown);
    }
    if (*height > index.height()) return error(404, "Block height out of range");
    const BlockHash hash = index.at_height(static_cast<std::size_t>(*height)).hash;
    if (f == format::binary) return bytes_in(f, hash.bytes());
    if (f == format::hex) return {200, "text/plain", hash.to_hex() + "\n"};
    if (f != format::json) return no_format();
    return json_of([&](tables::JsonWriter& out) {
      out.begin_object();
      out.member_string("blockhash", hash.to_hex());
      out.end_object();
    });
  }

  // Core's size_on_disk: the blk and rev files' records, not what a node
  // pre-allocated past them.
  std::uint64_t size_on_disk() const {
    std::uint64_t total = 0;
    std::vector<std::uint64_t> ends;
    for (std::size_t id = 0; id < index.size(); ++id) {
      const IndexedBlock b = index.block(id);
      if (b.pruned) continue;
      if (ends.size() <= b.file) ends.resize(b.file + 1, 0);
      if (b.offset + 8 <= ends[b.file]) continue;
      std::array<std::byte, 8> frame{};
      auto file = FileReader::open(index.file_path(b.file).c_str());
      if (!file || !read_at(file.value().fd(), frame, b.offset)) continue;
      xor_in_place(frame, dir.key(), b.offset);
      ends[b.file] = std::max(ends[b.file], b.offset + 8 + wire::load_le<std::uint32_t>(frame.data() + 4));
    }
    for (const std::uint64_t e : ends) total += e;
    if (auto revs = undo_files(dir.path())) {
      for (const std::string& r : revs.value()) {
        if (auto end = undo_records_end(r, dir.key(), dir.net())) total += end.value();
      }
    }
    return total;
  }

  Response chain_info(const std::string& part) const {
    std::string param;
    if (split_format(part, param) != format::json) return no_format("json");
    if (index.empty()) return error(503, "Service temporarily unavailable: no chain");
    const IndexedBlock tip = index.at_height(static_cast<std::size_t>(index.height()));
    auto header = index.header(tip);
    if (!header) return error(500, "I/O error reading " + tip.hash.to_hex());
    const ChainInfo chain = index.chain_info(tip);
    std::uint64_t disk = 0;
    {
      const std::lock_guard kept(coins.size_mutex);
      const std::pair<BlockHash, std::size_t> chain_now{tip.hash, index.size()};
      if (!coins.size || coins.size->first != chain_now) coins.size.emplace(chain_now, size_on_disk());
      disk = coins.size->second;
    }
    const network net = dir.net();
    return json_of([&](tables::JsonWriter& out) {
      out.begin_object();
      out.member_string("chain", net == network::mainnet ? "main" : net == network::testnet3 ? "test" : std::string(name(net)));
      out.member_integer("blocks", index.height());
      out.member_integer("headers", index.height());
      out.member_string("bestblockhash", tip.hash.to_hex());
      tables::write_target_members(out, header.value().bits);
      out.member_uint("time", header.value().time);
      out.member_uint("mediantime", chain.median_time);
      out.member_uint("verificationprogress", 1);
      out.member_boolean("initialblockdownload", false);
      out.member_string("chainwork", chain.chainwork.to_hex());
      out.member_uint("size_on_disk", disk);
      // A pruned node's directory: where its blocks begin. The node's
      // prune target is its setting, not the directory's: blockwire
      // prunes nothing by itself.
      const std::size_t prune_height = index.prune_height();
      out.member_boolean("pruned", prune_height != 0);
      if (prune_height != 0) {
        out.member_uint("pruneheight", prune_height);
        out.member_boolean("automatic_pruning", false);
      }
      out.key("warnings");
      out.begin_array();
      out.end_array();
      out.end_object();
    });
  }

  Response transaction(const std::string& part) const {
    std::string hash_text;
    const format f = split_format(part, hash_text);
    const auto txid = parse_hash<Txid>(hash_text);
    if (!txid) return error(400, "Invalid hash: " + hash_text);
    std::optional<std::vector<std::byte>> bytes;
    if (sources.tx_index != nullptr) {
      auto read = sources.tx_index->read(dir, *txid);
      if (!read) return error(500, "I/O error reading " + hash_text);
      bytes = std::move(read).value();
    }
    std::optional<Transaction> tx;
    if (bytes) {
      auto decoded = decode_transaction(*bytes);
      if (decoded && decoded.value().txid() == *txid) tx = std::move(decoded).value();
    }
    if (!tx) return error(404, hash_text + " not found");
    if (f == format::binary || f == format::hex) return bytes_in(f, *bytes);
    if (f != format::json) return no_format();
    const auto place = sources.tx_index->find(*txid);
    const BlockHash block = place && place.value() ? place.value()->block : BlockHash{};
    return json_of([&](tables::JsonWriter& out) { tables::write_transaction_json(out, *tx, dir.net(), true, nullptr, false, &block); });
  }

  // Core's CCoin: a zero (a version field of old), the height, the output.
  static void encode_coin(Sink& out, const SpentCoin& coin) {
    wire::encode_u32(out, 0);
    wire::encode_u32(out, coin.height);
    wire::encode_amount(out, coin.value);
    wire::encode_bytes(out, coin.script_pubkey);
  }

  Response utxos(const std::string& part, std::string_view body) const {
    std::string param;
    const format f = split_format(part, param);
    std::vector<std::string> parts;
    if (param.size() > 1) parts = split(param.substr(1), '/');
    if (body.empty() && parts.empty()) return error(400, "Error: empty request");
    bool check_mempool = false;
    std::vector<OutPoint> points;
    if (!parts.empty()) {
      check_mempool = parts[0] == "checkmempool";
      for (std::size_t i = check_mempool ? 1 : 0; i < parts.size(); ++i) {
        const std::vector<std::string> txid_n = split(parts[i], '-');
        if (txid_n.size() != 2) return error(400, "Parse error");
        const auto txid = parse_hash<Txid>(txid_n[0]);
        const auto n = whole<std::uint32_t>(txid_n[1]);
        if (!txid || !n) return error(400, "Parse error");
        points.push_back({*txid, *n});
      }
      if (points.empty()) return error(400, "Error: empty request");
    }
    const bool from_uri = !points.empty();
    if (f == format::binary || f == format::hex) {
      std::vector<std::byte> posted;
      if (f == format::hex) {
        auto decoded = from_hex(body);  // (Core's ParseHex stops at what is not hex)
        if (decoded) posted = std::move(decoded).value();
      } else {
        posted.assign(reinterpret_cast<const std::byte*>(body.data()), reinterpret_cast<const std::byte*>(body.data() + body.size()));
      }
      if (!posted.empty()) {
        if (from_uri) return error(400, "Combination of URI scheme inputs and raw post data is not allowed");
        // A bool, then a vector of outpoints.
        DecodingContext ctx(posted);
        check_mempool = wire::decode_u8(ctx) != 0;
        const std::uint64_t n = wire::decode_compact_size(ctx);
        for (std::uint64_t i = 0; i < n && ctx.ok() && points.size() <= 15; ++i) {
          OutPoint p;
          wire::decode_hash(ctx, p.txid);
          p.index = wire::decode_u32(ctx);
          points.push_back(p);
        }
        if (!ctx.ok()) return error(400, "Parse error");
        if (n > 15) return error(400, "Error: max outpoints exceeded (max: 15, tried: " + std::to_string(n) + ")");
      }
    } else if (f == format::json) {
      if (!from_uri) return error(400, "Error: empty request");
    } else {
      return no_format();
    }
    (void)check_mempool;  // the mempool is empty: nothing in it spends, nothing in it is a coin
    if (points.size() > 15) return error(400, "Error: max outpoints exceeded (max: 15, tried: " + std::to_string(points.size()) + ")");
    if (sources.utxo_set.empty() || index.empty()) return error(503, "Service temporarily unavailable: no UTXO set beside the directory");
    const IndexedBlock tip = index.at_height(static_cast<std::size_t>(index.height()));
    std::vector<std::optional<SpentCoin>> found;
    {
      const std::lock_guard lock(coins.mutex);
      const auto now = std::chrono::steady_clock::now();
      if ((!coins.set || coins.set->best_block() != tip.hash) && now - coins.opened >= std::chrono::seconds(1)) {
        coins.opened = now;
        coins.set.reset();
        std::string why;
        auto opened = ChainstateSnapshot::open(sources.utxo_set, &why);
        if (!opened) return error(503, "Service temporarily unavailable: " + sources.utxo_set + ": " + why);
        coins.set.emplace(std::move(opened).value());
      }
      if (!coins.set || coins.set->best_block() != tip.hash) {
        return error(503, "Service temporarily unavailable: the UTXO set in " + sources.utxo_set + " is not at the tip");
      }
      for (const OutPoint& p : points) {
        auto coin = coins.set->find(p);
        if (!coin) return error(500, "I/O error reading the UTXO set");
        found.push_back(std::move(coin).value());
      }
    }
    std::string bitmap_text;
    std::vector<std::byte> bitmap((found.size() + 7) / 8);
    for (std::size_t i = 0; i < found.size(); ++i) {
      bitmap_text.push_back(found[i] ? '1' : '0');
      if (found[i]) bitmap[i / 8] |= static_cast<std::byte>(1u << (i % 8));
    }
    std::size_t hits = 0;
    for (const auto& c : found) hits += c ? 1 : 0;
    if (f == format::binary || f == format::hex) {
      return encoded_in(f, [&](Sink& out) {
        wire::encode_u32(out, static_cast<std::uint32_t>(tip.height));
        wire::encode_hash(out, tip.hash);
        wire::encode_bytes(out, bitmap);
        wire::encode_compact_size(out, hits);
        for (const auto& c : found) {
          if (c) encode_coin(out, *c);
        }
      });
    }
    return json_of([&](tables::JsonWriter& out) {
      out.begin_object();
      out.member_integer("chainHeight", tip.height);
      out.member_string("chaintipHash", tip.hash.to_hex());
      out.member_string("bitmap", bitmap_text);
      out.key("utxos");
      out.begin_array();
      for (const auto& c : found) {
        if (!c) continue;
        out.begin_object();
        out.member_uint("height", c->height);
        out.member_raw_number("value", tables::amount_text(c->value));
        out.key("scriptPubKey");
        tables::write_script_pubkey_json(out, c->script_pubkey, dir.net());
        out.end_object();
      }
      out.end_array();
      out.end_object();
    });
  }

  Response deployment_info(const std::string& part) const {
    std::string hash_text;
    if (split_format(part, hash_text) != format::json) return no_format("json");
    if (index.empty()) return error(503, "Service temporarily unavailable: no chain");
    IndexedBlock at = index.at_height(static_cast<std::size_t>(index.height()));
    if (!hash_text.empty()) {
      const auto hash = parse_hash(hash_text);
      if (!hash) return error(400, "Invalid hash: " + hash_text);
      const auto found = index.find(*hash);
      if (!found || found->height < 0) return error(400, "Block not found");
      at = *found;
    }
    HeaderReader reader(*this);
    const detail::VersionOf version_of = [&reader](const IndexedBlock& b) -> std::optional<std::int32_t> {
      const auto head = reader.read(b);
      if (!head) return std::nullopt;
      return head->header.version;
    };
    bool whole = true;
    Response r = json_of([&](tables::JsonWriter& out) { whole = detail::write_deployment_info(out, index, at, dir.net(), version_of); });
    return whole ? r : error(500, "I/O error reading the blocks' versions");
  }

  Response mempool(const std::string& part, std::string_view target) const {
    std::string param;
    const format f = split_format(part, param);
    if (param != "contents" && param != "info") return error(400, "Invalid URI format. Expected /rest/mempool/<info|contents>.json");
    if (f != format::json) return no_format("json");
    // A node's with no peers, as Core's defaults set it: empty.
    if (param == "info") {
      return {200, "application/json",
              "{\"loaded\":true,\"size\":0,\"bytes\":0,\"usage\":0,\"total_fee\":0.00000000,\"maxmempool\":300000000,"
              "\"mempoolminfee\":0.00000100,\"minrelaytxfee\":0.00000100,\"incrementalrelayfee\":0.00000100,\"unbroadcastcount\":0,"
              "\"fullrbf\":true,\"permitbaremultisig\":true,\"maxdatacarriersize\":100000,\"limitclustercount\":64,"
              "\"limitclustersize\":101000}\n"};
    }
    const std::string verbose = query_parameter(target, "verbose").value_or("true");
    if (verbose != "true" && verbose != "false") return error(400, "The \"verbose\" query parameter must be either \"true\" or \"false\".");
    const std::string sequence = query_parameter(target, "mempool_sequence").value_or("false");
    if (sequence != "true" && sequence != "false") {
      return error(400, "The \"mempool_sequence\" query parameter must be either \"true\" or \"false\".");
    }
    if (verbose == "true" && sequence == "true") {
      return error(400, "Verbose results cannot contain mempool sequence values. (hint: set \"verbose=false\")");
    }
    if (verbose == "true") return {200, "application/json", "{}\n"};
    if (sequence == "true") return {200, "application/json", "{\"txids\":[],\"mempool_sequence\":1}\n"};
    return {200, "application/json", "[]\n"};
  }
};

}  // namespace

Service::Service(BlockStore& store, Sources sources) : store_(store), sources_(std::move(sources)), coins_(std::make_unique<Coins>()) {}
Service::~Service() = default;

Response Service::get(std::string_view target, std::string_view body) const {
  auto lock = store_.lock();
  const Answers route{store_, store_.directory(), store_.index(), sources_, *coins_, lock};
  const std::string_view path = target.substr(0, target.find('?'));
  // Core's routes, matched by prefix in its order; the rest of the target
  // (its query too) is the route's.
  const auto after = [&](std::string_view prefix) -> std::optional<std::string> {
    if (!path.starts_with(prefix)) return std::nullopt;
    return std::string(target.substr(prefix.size()));
  };
  if (auto part = after("/rest/tx/")) return route.transaction(*part);
  if (auto part = after("/rest/block/notxdetails/")) return route.block(*part, 1, std::nullopt);
  if (auto part = after("/rest/block/")) return route.block(*part, 3, std::nullopt);
  if (auto part = after("/rest/blockpart/")) return route.block_part(*part, target);
  if (auto part = after("/rest/blockfilter/")) return route.block_filter(*part);
  if (auto part = after("/rest/blockfilterheaders/")) return route.filter_headers(*part, target);
  if (auto part = after("/rest/chaininfo")) return route.chain_info(*part);
  if (auto part = after("/rest/mempool/")) return route.mempool(*part, target);
  if (auto part = after("/rest/headers/")) return route.headers(*part, target);
  if (auto part = after("/rest/getutxos")) return route.utxos(*part, body);
  if (auto part = after("/rest/deploymentinfo/")) return route.deployment_info(*part);
  if (auto part = after("/rest/deploymentinfo")) return route.deployment_info(*part);
  if (auto part = after("/rest/blockhashbyheight/")) return route.block_hash_by_height(*part);
  if (auto part = after("/rest/spenttxouts/")) return route.spent_outputs(*part);
  // The explorer page, outside /rest/.
  for (std::size_t i = 0; i < detail::page_file_count; ++i) {
    const detail::PageFile& f = detail::page_files[i];
    if (path == f.path || (f.path == "/" && path == "/index.html")) return {200, std::string(f.content_type), std::string(f.content)};
  }
  return {404, std::string(no_route_content_type), {}};
}

}  // namespace blockwire::rest
