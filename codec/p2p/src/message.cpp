// The messages, one line per wire field, with the public wire toolkit; the
// payloads of blocks and transactions through the codec's entry points.
#include <blockwire/codec/wire.hpp>
#include <blockwire/io/buffered_writer.hpp>
#include <blockwire/io/decoding_context.hpp>
#include <blockwire/io/sha256.hpp>
#include <blockwire/io/span_reader.hpp>
#include <blockwire/io/vector_writer.hpp>
#include <blockwire/p2p.hpp>

#include <algorithm>
#include <cstring>

namespace blockwire::p2p {

namespace w = blockwire::wire;

namespace {

const char* describe(int value) noexcept {
  switch (static_cast<errc>(value)) {
    case errc::bad_magic: return "bad magic (another network, or not a message)";
    case errc::bad_command: return "bad command (not printable ASCII padded with NULs)";
    case errc::message_too_large: return "payload length over 4,000,000 bytes (MAX_PROTOCOL_MESSAGE_LENGTH)";
    case errc::bad_checksum: return "the payload does not match the envelope's checksum";
    case errc::too_many_items: return "more items than Bitcoin Core takes in this message";
    case errc::string_too_long: return "a string longer than Bitcoin Core takes in this message";
    case errc::address_too_long: return "an addrv2 address over 512 bytes (MAX_ADDRV2_SIZE)";
    case errc::bad_address_size: return "an addrv2 address whose size is not its network's";
    case errc::index_overflow: return "a compact-block differential index past 65,535";
    case errc::bad_compact_block: return "a cmpctblock that describes no block (no transactions, or a prefilled index out of place)";
    case errc::short_id_collision: return "a short id collision: the filled block does not match its header; fetch the whole block";
    case errc::wrong_transaction_count: return "a blocktxn with another number of transactions than were missing";
    case errc::wrong_block: return "a blocktxn for another block";
    case errc::short_payload: return "the payload ends before the fields it announces (shorter than its own counts)";
  }
  return nullptr;
}

// The command of each alternative, in Message's order.
constexpr std::string_view commands[] = {
    "version",      "verack",      "ping",     "pong",        "sendheaders", "sendcmpct",    "wtxidrelay",
    "sendaddrv2",   "feefilter",   "getaddr",  "inv",         "getdata",     "notfound",     "getheaders",
    "getblocks",    "headers",     "block",    "tx",          "reject",      "addr",         "addrv2",
    "cmpctblock",   "getblocktxn", "blocktxn", "getcfilters", "cfilter",     "getcfheaders", "cfheaders",
    "getcfcheckpt", "cfcheckpt",   ""};
static_assert(std::size(commands) == std::variant_size_v<Message>);

// BIP324's message type ids: the command of id i at index i (0: none).
constexpr std::string_view v2_commands[] = {
    "",          "addr",        "block",     "blocktxn",   "cmpctblock",  "feefilter", "filteradd",    "filterclear", "filterload",
    "getblocks", "getblocktxn", "getdata",   "getheaders", "headers",     "inv",       "mempool",      "merkleblock", "notfound",
    "ping",      "pong",        "sendcmpct", "tx",         "getcfilters", "cfilter",   "getcfheaders", "cfheaders",   "getcfcheckpt",
    "cfcheckpt", "addrv2"};

// Encoders --------------------------------------------------------------------

// Ports are big-endian on the wire, unlike everything else.
void encode_port(StreamWriter& out, std::uint16_t port) { w::encode_u16(out, w::byteswap(port)); }

void encode_address(StreamWriter& out, const NetAddress& a) {
  w::encode_u64(out, a.services);
  out.write(std::span<const std::byte, 16>(a.ip));
  encode_port(out, a.port);
}

void encode_string(StreamWriter& out, std::string_view s) { w::encode_bytes(out, std::as_bytes(std::span(s.data(), s.size()))); }

void encode_item(StreamWriter& out, const InvItem& item) {
  w::encode_u32(out, item.type);
  w::encode_hash(out, item.hash);
}

void encode_locator(StreamWriter& out, std::uint32_t version, const std::vector<BlockHash>& locator, const BlockHash& stop) {
  w::encode_u32(out, version);
  w::encode_range(out, locator, w::encode_hash);
  w::encode_hash(out, stop);
}

void encode_timed_address(StreamWriter& out, const TimedAddress& a) {
  w::encode_u32(out, a.time);
  encode_address(out, a.address);
}

void encode_address_v2(StreamWriter& out, const AddressV2& a) {
  w::encode_u32(out, a.time);
  w::encode_compact_size(out, a.services);
  w::encode_u8(out, a.network_id);
  w::encode_bytes(out, a.address);
  encode_port(out, a.port);
}

// BIP152's differential indexes: each the distance from the previous plus one.
template <class Indexes, class Write>
void encode_differential(StreamWriter& out, const Indexes& items, Write write_item) {
  w::encode_compact_size(out, items.size());
  std::uint32_t next = 0;  // the smallest index the next item may have
  for (const auto& item : items) next = write_item(item, next) + 1;
}

struct PayloadEncoder {
  StreamWriter& out;
  void operator()(const Version& v) const {
    w::encode_i32(out, v.version);
    w::encode_u64(out, v.services);
    w::encode_i64(out, v.timestamp);
    encode_address(out, v.receiver);
    encode_address(out, v.sender);
    w::encode_u64(out, v.nonce);
    encode_string(out, v.user_agent);
    w::encode_i32(out, v.start_height);
    if (v.relay) w::encode_u8(out, *v.relay ? 1 : 0);
  }
  void operator()(const Ping& p) const { w::encode_u64(out, p.nonce); }
  void operator()(const Pong& p) const { w::encode_u64(out, p.nonce); }
  void operator()(const SendCmpct& s) const {
    w::encode_u8(out, s.announce ? 1 : 0);
    w::encode_u64(out, s.version);
  }
  void operator()(const FeeFilter& f) const { w::encode_i64(out, f.fee_rate); }
  void operator()(const Inv& m) const { w::encode_range(out, m.items, encode_item); }
  void operator()(const GetData& m) const { w::encode_range(out, m.items, encode_item); }
  void operator()(const NotFound& m) const { w::encode_range(out, m.items, encode_item); }
  void operator()(const GetHeaders& m) const { encode_locator(out, m.version, m.locator, m.stop); }
  void operator()(const GetBlocks& m) const { encode_locator(out, m.version, m.locator, m.stop); }
  void operator()(const Headers& m) const {
    w::encode_compact_size(out, m.headers.size());
    for (const BlockHeader& h : m.headers) {
      encode_header(h, out);
      w::encode_compact_size(out, 0);  // the transaction count of a header
    }
  }
  void operator()(const BlockMessage& m) const { encode_block(m.block, out); }
  void operator()(const TxMessage& m) const { encode_transaction(m.tx, out); }
  void operator()(const Reject& r) const {
    encode_string(out, r.message);
    w::encode_u8(out, r.code);
    encode_string(out, r.reason);
    if (r.data) w::encode_hash(out, *r.data);
  }
  void operator()(const Addr& m) const { w::encode_range(out, m.addresses, encode_timed_address); }
  void operator()(const AddrV2& m) const { w::encode_range(out, m.addresses, encode_address_v2); }
  void operator()(const CmpctBlock& m) const {
    encode_header(m.header, out);
    w::encode_u64(out, m.nonce);
    w::encode_compact_size(out, m.short_ids.size());
    for (std::uint64_t id : m.short_ids) {
      const auto le = w::to_le(id);
      out.write(std::span<const std::byte>(le.data(), 6));  // the low 6 bytes
    }
    encode_differential(out, m.prefilled, [&](const PrefilledTransaction& p, std::uint32_t next) {
      w::encode_compact_size(out, p.index - next);
      encode_transaction(p.tx, out);
      return std::uint32_t{p.index};
    });
  }
  void operator()(const GetBlockTxn& m) const {
    w::encode_hash(out, m.block_hash);
    encode_differential(out, m.indexes, [&](std::uint16_t index, std::uint32_t next) {
      w::encode_compact_size(out, index - next);
      return std::uint32_t{index};
    });
  }
  void operator()(const BlockTxn& m) const {
    w::encode_hash(out, m.block_hash);
    w::encode_compact_size(out, m.transactions.size());
    for (const Transaction& tx : m.transactions) encode_transaction(tx, out);
  }
  void operator()(const FilterRange& m) const {  // getcfilters, getcfheaders
    w::encode_u8(out, m.filter_type);
    w::encode_u32(out, m.start_height);
    w::encode_hash(out, m.stop_hash);
  }
  void operator()(const CFilter& m) const {
    w::encode_u8(out, m.filter_type);
    w::encode_hash(out, m.block_hash);
    w::encode_bytes(out, m.filter);
  }
  void operator()(const CFHeaders& m) const {
    w::encode_u8(out, m.filter_type);
    w::encode_hash(out, m.stop_hash);
    w::encode_hash(out, m.previous_header);
    w::encode_range(out, m.filter_hashes, w::encode_hash);
  }
  void operator()(const GetCFCheckpt& m) const {
    w::encode_u8(out, m.filter_type);
    w::encode_hash(out, m.stop_hash);
  }
  void operator()(const CFCheckpt& m) const {
    w::encode_u8(out, m.filter_type);
    w::encode_hash(out, m.stop_hash);
    w::encode_range(out, m.headers, w::encode_hash);
  }
  // Messages with no payload.
  void operator()(const Verack&) const {}
  void operator()(const SendHeaders&) const {}
  void operator()(const WtxidRelay&) const {}
  void operator()(const SendAddrV2&) const {}
  void operator()(const GetAddr&) const {}
  void operator()(const Unknown&) const {}
};

// Decoders -------------------------------------------------------------------

constexpr std::uint64_t min_headers_entry = 81;  // a header and its transaction count

bool known(std::string_view command) {
  return command != "" && std::find(std::begin(commands), std::end(commands), command) != std::end(commands);
}

std::uint16_t decode_port(DecodingContext& ctx) { return w::byteswap(w::decode_u16(ctx)); }

void decode_address(DecodingContext& ctx, NetAddress& a) {
  a.services = w::decode_u64(ctx);
  ctx.read(std::span<std::byte, 16>(a.ip));
  a.port = decode_port(ctx);
}

void decode_string(DecodingContext& ctx, std::string& s, std::size_t max) {
  const std::uint64_t n = w::decode_compact_size(ctx);
  if (n > max) {
    ctx.fail(errc::string_too_long);
    return;
  }
  s.resize(static_cast<std::size_t>(n));
  ctx.read(std::as_writable_bytes(std::span(s.data(), s.size())));
}

// A counted list, refused past `max` items before anything is reserved.
template <class Item, class DecodeItem>
void decode_list(DecodingContext& ctx, std::vector<Item>& out, std::uint64_t max, std::uint64_t min_item_size,
                 const DecodeItem& decode_item) {
  w::decode_range_at_most(ctx, out, max, make_error_code(errc::too_many_items), min_item_size, decode_item);
}

void decode_item(DecodingContext& ctx, InvItem& item) {
  item.type = w::decode_u32(ctx);
  w::decode_hash(ctx, item.hash);
}

template <class M>
void decode_locator(DecodingContext& ctx, M& m) {
  m.version = w::decode_u32(ctx);
  decode_list(ctx, m.locator, max_locator, 32, w::decode_hash);
  w::decode_hash(ctx, m.stop);
}

void decode_timed_address(DecodingContext& ctx, TimedAddress& a) {
  a.time = w::decode_u32(ctx);
  decode_address(ctx, a.address);
}

// BIP155, as Core's CNetAddr reads it: a length over 512 is refused before
// the bytes are read; a known network's address must have its size.
void decode_address_v2(DecodingContext& ctx, AddressV2& a) {
  a.time = w::decode_u32(ctx);
  a.services = w::decode_compact_size(ctx);
  a.network_id = w::decode_u8(ctx);
  const std::uint64_t size = w::decode_compact_size(ctx);
  if (!ctx.ok()) return;
  if (size > max_addrv2_size) return ctx.fail(errc::address_too_long);
  const std::size_t expected = address_size(a.network_id);
  if (expected != 0 && size != expected) return ctx.fail(errc::bad_address_size);
  ctx.read_append(a.address, size);
  a.port = decode_port(ctx);
}

// BIP152's differential indexes, back to absolute ones: past 65,535 (the
// sum, or a count that must reach it) is an error, as Core's
// DifferenceFormatter says.
class DifferentialIndex {
 public:
  bool next(DecodingContext& ctx, std::uint16_t& index) {
    const std::uint64_t delta = w::decode_compact_size(ctx);
    if (!ctx.ok()) return false;
    if (delta > max_block_transactions || next_ + delta > max_block_transactions) {
      ctx.fail(errc::index_overflow);
      return false;
    }
    index = static_cast<std::uint16_t>(next_ + delta);
    next_ = index + std::uint64_t{1};
    return true;
  }

 private:
  std::uint64_t next_ = 0;  // the smallest index the next one may have
};

// The count of a list of indexes: more than 65,536 must overflow.
std::uint64_t decode_index_count(DecodingContext& ctx) {
  const std::uint64_t n = w::decode_compact_size(ctx);
  if (ctx.ok() && n > max_block_transactions + 1) ctx.fail(errc::index_overflow);
  return ctx.ok() ? n : 0;
}

void decode_cmpctblock(DecodingContext& ctx, CmpctBlock& m) {
  decode_header(ctx, m.header);
  m.nonce = w::decode_u64(ctx);
  const std::uint64_t ids = w::decode_compact_size(ctx);
  if (ctx.ok() && ids > max_block_transactions) return ctx.fail(errc::too_many_items);
  m.short_ids.reserve(w::reserve_for(ctx, ids, sizeof(std::uint64_t)));
  for (std::uint64_t i = 0; i < ids && ctx.ok(); ++i) {
    std::array<std::byte, 8> le{};
    ctx.read(std::span<std::byte>(le.data(), 6));
    m.short_ids.push_back(w::from_le<std::uint64_t>(le));
  }
  const std::uint64_t n = decode_index_count(ctx);
  // Core: the block's transaction count (short ids and prefilled) must fit
  // 16 bits.
  if (ctx.ok() && ids + n > max_block_transactions) return ctx.fail(errc::too_many_items);
  m.prefilled.reserve(w::reserve_for(ctx, n, sizeof(PrefilledTransaction)));
  DifferentialIndex index;
  TransactionScratch scratch;  // reused: one allocation a transaction
  for (std::uint64_t i = 0; i < n && ctx.ok(); ++i) {
    PrefilledTransaction& p = m.prefilled.emplace_back();
    if (index.next(ctx, p.index)) decode_transaction(ctx, p.tx, scratch);
  }
}

void decode_getblocktxn(DecodingContext& ctx, GetBlockTxn& m) {
  w::decode_hash(ctx, m.block_hash);
  const std::uint64_t n = decode_index_count(ctx);
  m.indexes.reserve(w::reserve_for(ctx, n, sizeof(std::uint16_t)));
  DifferentialIndex index;
  for (std::uint64_t i = 0; i < n && ctx.ok(); ++i) {
    if (std::uint16_t at = 0; index.next(ctx, at)) m.indexes.push_back(at);
  }
}

void decode_blocktxn(DecodingContext& ctx, BlockTxn& m) {
  w::decode_hash(ctx, m.block_hash);
  TransactionScratch scratch;  // reused: one allocation a transaction
  decode_list(ctx, m.transactions, max_block_transactions, 10,
              [&](DecodingContext& c, Transaction& tx) { decode_transaction(c, tx, scratch); });
}

void decode_addr(DecodingContext& ctx, Addr& m) { decode_list(ctx, m.addresses, max_addresses, 30, decode_timed_address); }

void decode_addrv2(DecodingContext& ctx, AddrV2& m) { decode_list(ctx, m.addresses, max_addresses, 9, decode_address_v2); }

// A message decoded by its fields' decoder.
template <class M, class DecodeFields>
M decoded(DecodingContext& ctx, DecodeFields decode_fields) {
  M m;
  decode_fields(ctx, m);
  return m;
}

// The payload of `command`, exactly (version excepted: Core reads its later
// fields only when bytes remain, and ignores what follows them).
result<Message> decode_payload(std::string_view command, std::span<const std::byte> payload) {
  DecodingContext ctx(payload);
  const auto finish = [&](Message m) -> result<Message> {
    if (auto r = w::finish_exact(ctx, payload.size()); !r) return r.error();
    return m;
  };
  const auto left = [&] { return ctx.offset() < payload.size(); };
  if (command == "version") {
    Version v;
    v.version = w::decode_i32(ctx);
    v.services = w::decode_u64(ctx);
    v.timestamp = w::decode_i64(ctx);
    decode_address(ctx, v.receiver);
    if (ctx.ok() && left()) {
      decode_address(ctx, v.sender);
      v.nonce = w::decode_u64(ctx);
    }
    if (ctx.ok() && left()) decode_string(ctx, v.user_agent, max_user_agent);
    if (ctx.ok() && left()) v.start_height = w::decode_i32(ctx);
    if (ctx.ok() && left()) v.relay = w::decode_u8(ctx) != 0;
    if (!ctx.ok()) return ctx.failure();
    return Message(std::move(v));
  }
  if (command == "verack") return finish(Verack{});
  if (command == "sendheaders") return finish(SendHeaders{});
  if (command == "wtxidrelay") return finish(WtxidRelay{});
  if (command == "sendaddrv2") return finish(SendAddrV2{});
  if (command == "getaddr") return finish(GetAddr{});
  if (command == "ping") return finish(Ping{w::decode_u64(ctx)});
  if (command == "pong") return finish(Pong{w::decode_u64(ctx)});
  if (command == "feefilter") return finish(FeeFilter{w::decode_i64(ctx)});
  if (command == "sendcmpct") {
    SendCmpct s;
    s.announce = w::decode_u8(ctx) != 0;
    s.version = w::decode_u64(ctx);
    return finish(s);
  }
  if (command == "inv" || command == "getdata" || command == "notfound") {
    std::vector<InvItem> items;
    decode_list(ctx, items, max_inventory, 36, decode_item);
    if (command == "inv") return finish(Inv{std::move(items)});
    if (command == "getdata") return finish(GetData{std::move(items)});
    return finish(NotFound{std::move(items)});
  }
  if (command == "getheaders") return finish(decoded<GetHeaders>(ctx, decode_locator<GetHeaders>));
  if (command == "getblocks") return finish(decoded<GetBlocks>(ctx, decode_locator<GetBlocks>));
  if (command == "headers") {
    Headers m;
    decode_list(ctx, m.headers, max_headers, min_headers_entry, [](DecodingContext& c, BlockHeader& h) {
      decode_header(c, h);
      (void)w::decode_compact_size(c);  // the transaction count: read and ignored, as Core does
    });
    return finish(std::move(m));
  }
  if (command == "block") {
    auto block = decode_block(payload);
    if (!block) return block.error();
    return Message(BlockMessage{std::move(block).value()});
  }
  if (command == "tx") {
    auto tx = decode_transaction(payload);
    if (!tx) return tx.error();
    return Message(TxMessage{std::move(tx).value()});
  }
  if (command == "reject") {
    Reject r;
    decode_string(ctx, r.message, 12);
    r.code = w::decode_u8(ctx);
    decode_string(ctx, r.reason, max_reject_reason);
    if (ctx.ok() && payload.size() - ctx.offset() == 32) w::decode_hash(ctx, r.data.emplace());
    return finish(std::move(r));
  }
  if (command == "addr") return finish(decoded<Addr>(ctx, decode_addr));
  if (command == "addrv2") return finish(decoded<AddrV2>(ctx, decode_addrv2));
  if (command == "cmpctblock") return finish(decoded<CmpctBlock>(ctx, decode_cmpctblock));
  if (command == "getblocktxn") return finish(decoded<GetBlockTxn>(ctx, decode_getblocktxn));
  if (command == "blocktxn") return finish(decoded<BlockTxn>(ctx, decode_blocktxn));
  if (command == "getcfilters" || command == "getcfheaders") {
    FilterRange range;
    range.filter_type = w::decode_u8(ctx);
    range.start_height = w::decode_u32(ctx);
    w::decode_hash(ctx, range.stop_hash);
    if (command == "getcfilters") return finish(GetCFilters{range});
    return finish(GetCFHeaders{range});
  }
  if (command == "cfilter") {
    CFilter m;
    m.filter_type = w::decode_u8(ctx);
    w::decode_hash(ctx, m.block_hash);
    w::decode_bytes(ctx, m.filter);
    return finish(std::move(m));
  }
  if (command == "cfheaders") {
    CFHeaders m;
    m.filter_type = w::decode_u8(ctx);
    w::decode_hash(ctx, m.stop_hash);
    w::decode_hash(ctx, m.previous_header);
    decode_list(ctx, m.filter_hashes, max_getcfheaders, 32, w::decode_hash);
    return finish(std::move(m));
  }
  if (command == "getcfcheckpt") {
    GetCFCheckpt m;
    m.filter_type = w::decode_u8(ctx);
    w::decode_hash(ctx, m.stop_hash);
    return finish(m);
  }
  if (command == "cfcheckpt") {
    CFCheckpt m;
    m.filter_type = w::decode_u8(ctx);
    w::decode_hash(ctx, m.stop_hash);
    decode_list(ctx, m.headers, max_message_size / 32, 32, w::decode_hash);  // bounded by the message's size
    return finish(std::move(m));
  }
  return Message(Unknown{std::string(command), static_cast<std::uint32_t>(payload.size())});
}

// A command: printable ASCII, then NULs to the twelfth byte.
std::optional<std::string> read_command(std::span<const std::byte, 12> raw) {
  std::string command;
  bool ended = false;
  for (std::byte b : raw) {
    const auto c = std::to_integer<unsigned char>(b);
    if (ended) {
      if (c != 0) return std::nullopt;
    } else if (c == 0) {
      ended = true;
    } else if (c < 0x20 || c > 0x7e) {
      return std::nullopt;
    } else {
      command += static_cast<char>(c);
    }
  }
  return command;
}

// A payload's failure as the message's, `before` being what precedes the
// payload (v1's envelope, v2's type). The whole payload arrived: running
// out inside it is the message's fault (short_payload), not the end of the
// stream.
error payload_failure(const error& e, std::size_t payload_size, std::uint64_t before) {
  const std::error_code c = e.code();
  if (c == blockwire::io::errc::end_of_stream || c == blockwire::io::errc::truncated) {
    return error(errc::short_payload, before + (e.has_offset() ? e.offset() : payload_size));
  }
  return error(c, before + (e.has_offset() ? e.offset() : 0));
}

}  // namespace

std::size_t address_size(std::uint8_t id) noexcept {
  switch (id) {
    case net_id::ipv4: return 4;
    case net_id::ipv6: return 16;
    case net_id::torv2: return 10;
    case net_id::torv3: return 32;
    case net_id::i2p: return 32;
    case net_id::cjdns: return 16;
  }
  return 0;
}

namespace {
// Every failure here is the data's.
condition classify(int) noexcept { return condition::bad_data; }
}  // namespace

const std::error_category& category() noexcept {
  static const enum_category instance("blockwire.p2p", describe, classify);
  return instance;
}

std::string_view command(const Message& message) noexcept {
  if (const auto* u = std::get_if<Unknown>(&message)) return u->command;
  return commands[message.index()];
}

result<void> encode_message(const Message& message, network net, writer_ref out, std::vector<std::byte>& scratch) {
  scratch.clear();
  {
    VectorWriter sink(scratch);
    StreamWriter payload{writer_ref(sink)};
    std::visit(PayloadEncoder{payload}, message);
    (void)payload.flush();  // a vector cannot fail
  }
  return encode_message(command(message), scratch, net, out);
}

result<void> encode_message(std::string_view name, std::span<const std::byte> payload, network net, writer_ref out) {
  const Hash256 check = sha256d(payload);
  std::array<std::byte, envelope_size> header{};
  const Magic m = magic(net);
  std::copy(m.begin(), m.end(), header.begin());
  std::memcpy(header.data() + 4, name.data(), std::min<std::size_t>(name.size(), 12));
  const auto length = w::to_le(static_cast<std::uint32_t>(payload.size()));
  std::copy(length.begin(), length.end(), header.begin() + 16);
  std::copy(check.bytes().begin(), check.bytes().begin() + 4, header.begin() + 20);
  if (auto r = out.write(header); !r) return r;
  return out.write(payload);
}

void encode_message(const Message& message, network net, std::vector<std::byte>& out) {
  std::vector<std::byte> scratch;
  VectorWriter sink(out);
  (void)encode_message(message, net, writer_ref(sink), scratch);  // a vector cannot fail
}

result<Message> decode_message(StreamReader& in, network net, std::string* command_out) {
  std::array<std::byte, envelope_size> header;
  std::vector<std::byte> payload;
  {
    DecodingContext ctx(in);
    ctx.read(std::span<std::byte, envelope_size>(header));
    if (!ctx.ok()) return ctx.failure();
    const Magic m = magic(net);
    if (!std::equal(m.begin(), m.end(), header.begin())) return error(errc::bad_magic, 0);
    const auto name = read_command(std::span<const std::byte, 12>(header.data() + 4, 12));
    if (!name) return error(errc::bad_command, 4);
    if (command_out != nullptr) *command_out = *name;
    std::array<std::byte, 4> length_bytes;
    std::copy(header.begin() + 16, header.begin() + 20, length_bytes.begin());
    const auto length = w::from_le<std::uint32_t>(length_bytes);
    if (length > max_message_size) return error(errc::message_too_large, 16);
    Hash256 check;
    if (known(*name)) {
      ctx.read_append(payload, length);  // in bounded chunks: memory follows the bytes that arrive
      if (!ctx.ok()) return ctx.failure();
      check = sha256d(payload);
    } else {
      // Not kept: hashed as it passes, for the checksum.
      Sha256 sha;
      std::array<std::byte, 4096> chunk;
      for (std::uint32_t left = length; left != 0 && ctx.ok();) {
        const std::size_t n = std::min<std::size_t>(left, chunk.size());
        ctx.read(std::span<std::byte>(chunk.data(), n));
        sha.update(std::span<const std::byte>(chunk.data(), n));
        left -= static_cast<std::uint32_t>(n);
      }
      if (!ctx.ok()) return ctx.failure();
      check = sha256d_of(sha);
    }
    if (!std::equal(check.bytes().begin(), check.bytes().begin() + 4, header.begin() + 20)) return error(errc::bad_checksum, 20);
    auto message = decode_payload(*name, payload);
    if (!message) return payload_failure(message.error(), payload.size(), envelope_size);
    if (auto* unknown = std::get_if<Unknown>(&message.value())) unknown->size = length;
    return message;
  }
}

std::uint8_t v2_message_id(std::string_view command) noexcept {
  for (std::size_t id = 1; id < std::size(v2_commands); ++id) {
    if (v2_commands[id] == command) return static_cast<std::uint8_t>(id);
  }
  return 0;
}

void encode_v2_contents(std::string_view name, std::span<const std::byte> payload, std::vector<std::byte>& out) {
  if (const std::uint8_t id = v2_message_id(name); id != 0) {
    out.push_back(std::byte{id});
  } else {
    out.push_back(std::byte{0});
    const std::size_t at = out.size();
    out.resize(at + 12);  // the command, NUL-padded
    std::memcpy(out.data() + at, name.data(), std::min<std::size_t>(name.size(), 12));
  }
  out.insert(out.end(), payload.begin(), payload.end());
}

void encode_v2_contents(const Message& message, std::vector<std::byte>& out) {
  encode_v2_contents(command(message), {}, out);
  VectorWriter sink(out);  // the payload straight after the type
  StreamWriter payload{writer_ref(sink)};
  std::visit(PayloadEncoder{payload}, message);
  (void)payload.flush();  // a vector cannot fail
}

result<Message> decode_v2_contents(std::span<const std::byte> contents, std::string* command_out) {
  if (contents.empty()) return error(errc::short_payload, 0);
  std::string name;
  std::size_t type_size = 1;
  if (const auto id = std::to_integer<std::uint8_t>(contents[0]); id != 0) {
    name = id < std::size(v2_commands) ? std::string(v2_commands[id]) : "id " + std::to_string(id);
  } else {
    type_size = 13;
    if (contents.size() < type_size) return error(errc::short_payload, contents.size());
    auto read = read_command(std::span<const std::byte, 12>(contents.data() + 1, 12));
    if (!read) return error(errc::bad_command, 1);
    name = std::move(*read);
  }
  if (command_out != nullptr) *command_out = name;
  const auto payload = contents.subspan(type_size);
  if (payload.size() > max_message_size) return error(errc::message_too_large, type_size);
  auto message = decode_payload(name, payload);  // (an unknown name: an Unknown)
  if (!message) return payload_failure(message.error(), payload.size(), type_size);
  return message;
}

result<Message> decode_message(std::span<const std::byte> bytes, network net, std::string* command_out) {
  SpanReader source(bytes);
  StreamReader in{reader_ref(source)};
  auto message = decode_message(in, net, command_out);
  if (!message) return message;
  if (!in.buffered().empty() || !source.remaining().empty())
    return error(codec::errc::trailing_bytes, bytes.size() - in.buffered().size() - source.remaining().size());
  return message;
}

}  // namespace blockwire::p2p
