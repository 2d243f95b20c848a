// The REST routes but /rest/getutxos (utxos.cpp): blocks, headers, spent
// outputs, filters, chain and deployment info, transactions, the mempool.
#include "answers.hpp"
#include "deployments.hpp"

#include <blockwire/codec/wire.hpp>
#include <blockwire/directory.hpp>
#include <blockwire/io/decoding_context.hpp>
#include <blockwire/io/file.hpp>
#include <blockwire/io/hex.hpp>
#include <blockwire/io/xor.hpp>
#include <blockwire/tables/core_json.hpp>
#include <blockwire/tables/json_writer.hpp>
#include <blockwire/undo.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace blockwire::rest::detail {

std::optional<Answers::HeaderReader::Head> Answers::HeaderReader::read(const IndexedBlock& b, bool count) {
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

std::vector<IndexedBlock> Answers::chain_from(const BlockHash& hash, std::uint64_t count) const {
  std::vector<IndexedBlock> out;
  const auto first = index.find(hash);
  if (!first || !index.on_best_chain(*first)) return out;
  for (Height h = first->height; index.chain_size().contains(h) && out.size() < count; ++h) out.push_back(index.at_height(h));
  return out;
}

Response Answers::headers(const std::string& part, std::string_view target) const {
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

Response Answers::block(const std::string& part, int verbosity, std::optional<std::pair<std::uint64_t, std::uint64_t>> range) const {
  std::string hash_text;
  const format f = split_format(part, hash_text);
  const auto hash = parse_hash(hash_text);
  if (!hash) return error(400, "Invalid hash: " + hash_text);
  const auto b = index.find(*hash);
  if (!b) return error(404, hash_text + " not found");
  if (b->pruned) {
    // Core's two words for a header without its block: pruned (below
    // the prune height), or not downloaded yet.
    const bool below = index.on_best_chain(*b) && b->height < index.prune_height();
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
  if (verbosity >= 3 && b->linked && !b->is_genesis() && dir.has_undo()) {
    if (auto found = dir.undo_of(*b, view.value())) undo = std::move(found).value();
  }
  const ChainInfo chain = index.chain_info(*b);
  return json_of(
      [&](tables::JsonWriter& out) { tables::write_block_json(out, view.value(), dir.net(), &chain, verbosity, undo ? &*undo : nullptr); });
}

Response Answers::block_part(const std::string& part, std::string_view target) const {
  const auto offset = whole<std::uint64_t>(query_parameter(target, "offset").value_or(""));
  if (!offset) return error(400, "Block part offset missing or invalid");
  const auto size = whole<std::uint64_t>(query_parameter(target, "size").value_or(""));
  if (!size) return error(400, "Block part size missing or invalid");
  return block(part, 0, std::pair(*offset, *size));
}

Response Answers::spent_outputs(const std::string& part) const {
  std::string param;
  const format f = split_format(part, param);
  if (split(param, '/').size() != 1) return error(400, "Invalid URI format. Expected /rest/spenttxouts/<hash>.<ext>");
  const auto hash = parse_hash(param);
  if (!hash) return error(400, "Invalid hash: " + param);
  const auto b = index.find(*hash);
  if (!b) return error(404, param + " not found");
  BlockUndo undo;
  if (!b->is_genesis()) {
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

Response Answers::block_filter(const std::string& part) const {
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
  auto filter = store.filter_at(b->height);
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

Response Answers::filter_headers(const std::string& part, std::string_view target) const {
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
    auto header = store.filter_header_at(b.height);
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

Response Answers::block_hash_by_height(const std::string& part) const {
  std::string param;
  const format f = split_format(part, param);
  const auto number = whole<std::int32_t>(param);
  const auto height = number ? Height::checked(*number) : std::nullopt;
  if (!height) {
    std::string shown;  // as Core's SanitizeString(SAFE_CHARS_URI) leaves it
    for (const char c : param) {
      if (std::isalnum(static_cast<unsigned char>(c)) != 0 || std::string_view(" .,;-_/:?@()!*'&$=+%~").find(c) != std::string_view::npos)
        shown.push_back(c);
    }
    return error(400, "Invalid height: " + shown);
  }
  if (!index.chain_size().contains(*height)) return error(404, "Block height out of range");
  const BlockHash hash = index.at_height(*height).hash;
  if (f == format::binary) return bytes_in(f, hash.bytes());
  if (f == format::hex) return {200, "text/plain", hash.to_hex() + "\n"};
  if (f != format::json) return no_format();
  return json_of([&](tables::JsonWriter& out) {
    out.begin_object();
    out.member_string("blockhash", hash.to_hex());
    out.end_object();
  });
}

std::uint64_t Answers::size_on_disk() const {
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

Response Answers::chain_info(const std::string& part) const {
  std::string param;
  if (split_format(part, param) != format::json) return no_format("json");
  if (index.empty()) return error(503, "Service temporarily unavailable: no chain");
  const IndexedBlock tip = index.tip_block();
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
    out.member_integer("blocks", tip.height.to_wire());
    out.member_integer("headers", tip.height.to_wire());
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
    const Height prune_height = index.prune_height();
    out.member_boolean("pruned", prune_height != Height::genesis());
    if (prune_height != Height::genesis()) {
      out.member_uint("pruneheight", prune_height.to_wire());
      out.member_boolean("automatic_pruning", false);
    }
    out.key("warnings");
    out.begin_array();
    out.end_array();
    out.end_object();
  });
}

Response Answers::transaction(const std::string& part) const {
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
  const BlockHash block = place && place.value() ? place.value()->block : BlockHash::all_zeros();
  return json_of([&](tables::JsonWriter& out) { tables::write_transaction_json(out, *tx, dir.net(), true, nullptr, false, &block); });
}

Response Answers::deployment_info(const std::string& part) const {
  std::string hash_text;
  if (split_format(part, hash_text) != format::json) return no_format("json");
  if (index.empty()) return error(503, "Service temporarily unavailable: no chain");
  IndexedBlock at = index.tip_block();
  if (!hash_text.empty()) {
    const auto hash = parse_hash(hash_text);
    if (!hash) return error(400, "Invalid hash: " + hash_text);
    const auto found = index.find(*hash);
    if (!found || !found->linked) return error(400, "Block not found");
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

Response Answers::mempool(const std::string& part, std::string_view target) const {
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

}  // namespace blockwire::rest::detail
