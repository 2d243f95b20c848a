// Bitcoin's P2P messages: the 24-byte envelope (magic, command, length,
// checksum) and the messages a block-fetching node needs, encoded and
// decoded with the limits Bitcoin Core applies. A library beside block
// files, on the public codec API and the wire toolkit.
#pragma once

#include <blockwire/codec.hpp>
#include <blockwire/io/buffered_reader.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/writer.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <variant>
#include <vector>

namespace blockwire::p2p {

// Bitcoin Core's limits.
inline constexpr std::uint32_t max_message_size = 4'000'000;  // MAX_PROTOCOL_MESSAGE_LENGTH
inline constexpr std::size_t envelope_size = 24;
inline constexpr std::size_t max_user_agent = 256;             // MAX_SUBVERSION_LENGTH
inline constexpr std::size_t max_inventory = 50'000;           // MAX_INV_SZ
inline constexpr std::size_t max_locator = 101;                // MAX_LOCATOR_SZ
inline constexpr std::size_t max_headers = 2'000;              // MAX_HEADERS_RESULTS
inline constexpr std::size_t max_reject_reason = 111;          // MAX_REJECT_MESSAGE_LENGTH
inline constexpr std::size_t max_addresses = 1'000;            // MAX_ADDR_TO_SEND
inline constexpr std::size_t max_addrv2_size = 512;            // MAX_ADDRV2_SIZE
inline constexpr std::size_t max_block_transactions = 0xffff;  // compact-block indexes are 16 bits
// BIP157, as Core serves it.
inline constexpr std::uint32_t max_getcfilters = 1'000;        // MAX_GETCFILTERS_SIZE: blocks a getcfilters asks for
inline constexpr std::uint32_t max_getcfheaders = 2'000;       // MAX_GETCFHEADERS_SIZE: headers a getcfheaders asks for
inline constexpr std::uint32_t cfcheckpt_interval = 1'000;     // CFCHECKPT_INTERVAL: a checkpoint every this many blocks
inline constexpr std::uint8_t basic_filter_type = 0;           // BlockFilterType::BASIC
inline constexpr std::uint64_t node_compact_filters = 1 << 6;  // NODE_COMPACT_FILTERS, a services bit
inline constexpr std::int32_t protocol_version = 70016;

enum class errc : int {
  bad_magic = 1,       // the envelope's magic is not the network's
  bad_command,         // a command with a character that is not printable ASCII, or something after its first NUL
  message_too_large,   // a payload length over max_message_size
  bad_checksum,        // the payload does not hash to the envelope's checksum
  too_many_items,      // more inventory, locator hashes or headers than Core takes
  string_too_long,     // a user agent or a reject string over its limit
  address_too_long,    // an addrv2 address over max_addrv2_size bytes
  bad_address_size,    // an addrv2 address of a known network with another size than the network's
  index_overflow,      // a compact-block differential index past 65,535
  bad_compact_block,   // a cmpctblock that describes no block: no transactions, or a prefilled index out of order or past the end
  short_id_collision,  // two transactions behind one short id, or a filled block that does not hash to its header: fetch the whole block
  wrong_transaction_count,  // a blocktxn with more or fewer transactions than were missing
  wrong_block,              // a blocktxn for another block than the one being filled
  short_payload,            // a whole message whose payload ends before the fields it announces do
};

const std::error_category& category() noexcept;

inline std::error_code make_error_code(errc e) noexcept { return {static_cast<int>(e), category()}; }

// An address as the version message carries it: services, IPv6 (IPv4
// mapped), port (big-endian on the wire).
struct NetAddress {
  std::uint64_t services = 0;
  std::array<std::byte, 16> ip{};
  std::uint16_t port = 0;
  friend bool operator==(const NetAddress&, const NetAddress&) = default;
};

struct Version {
  std::int32_t version = protocol_version;
  std::uint64_t services = 0;
  std::int64_t timestamp = 0;
  NetAddress receiver;
  NetAddress sender;
  std::uint64_t nonce = 0;
  std::string user_agent;
  std::int32_t start_height = 0;
  std::optional<bool> relay;  // absent in old peers' messages, as Core reads it
  friend bool operator==(const Version&, const Version&) = default;
};

struct Verack {
  friend bool operator==(const Verack&, const Verack&) = default;
};
struct GetAddr {
  friend bool operator==(const GetAddr&, const GetAddr&) = default;
};
struct SendHeaders {
  friend bool operator==(const SendHeaders&, const SendHeaders&) = default;
};
struct WtxidRelay {
  friend bool operator==(const WtxidRelay&, const WtxidRelay&) = default;
};
struct SendAddrV2 {
  friend bool operator==(const SendAddrV2&, const SendAddrV2&) = default;
};
struct Ping {
  std::uint64_t nonce = 0;
  friend bool operator==(const Ping&, const Ping&) = default;
};
struct Pong {
  std::uint64_t nonce = 0;
  friend bool operator==(const Pong&, const Pong&) = default;
};
struct SendCmpct {
  bool announce = false;
  std::uint64_t version = 2;
  friend bool operator==(const SendCmpct&, const SendCmpct&) = default;
};
struct FeeFilter {
  std::int64_t fee_rate = 0;  // satoshis per 1,000 virtual bytes
  friend bool operator==(const FeeFilter&, const FeeFilter&) = default;
};

// An address as addr carries it: the time it was last seen, then the
// version message's form.
struct TimedAddress {
  std::uint32_t time = 0;
  NetAddress address;
  friend bool operator==(const TimedAddress&, const TimedAddress&) = default;
};
struct Addr {
  std::vector<TimedAddress> addresses;
  friend bool operator==(const Addr&, const Addr&) = default;
};

// BIP155's network ids. An address of another id is kept as its bytes
// (Core reads and ignores it); one of a known id must have its size.
namespace net_id {
inline constexpr std::uint8_t ipv4 = 1;   // 4 bytes
inline constexpr std::uint8_t ipv6 = 2;   // 16
inline constexpr std::uint8_t torv2 = 3;  // 10 (no longer relayed)
inline constexpr std::uint8_t torv3 = 4;  // 32
inline constexpr std::uint8_t i2p = 5;    // 32
inline constexpr std::uint8_t cjdns = 6;  // 16
}  // namespace net_id

// The size an address of network `id` (a net_id) must have, or 0 for an
// unknown id.
std::size_t address_size(std::uint8_t id) noexcept;

struct AddressV2 {
  std::uint32_t time = 0;
  std::uint64_t services = 0;              // a compact size on the wire
  std::uint8_t network_id = net_id::ipv4;  // BIP155
  std::vector<std::byte> address;
  std::uint16_t port = 0;
  friend bool operator==(const AddressV2&, const AddressV2&) = default;
};
struct AddrV2 {
  std::vector<AddressV2> addresses;
  friend bool operator==(const AddrV2&, const AddrV2&) = default;
};

// Inventory types; a witness request ORs in witness_flag.
namespace inv {
inline constexpr std::uint32_t tx = 1;
inline constexpr std::uint32_t block = 2;
inline constexpr std::uint32_t filtered_block = 3;
inline constexpr std::uint32_t cmpct_block = 4;
inline constexpr std::uint32_t wtx = 5;
inline constexpr std::uint32_t witness_flag = 1u << 30;
}  // namespace inv

struct InvItem {
  std::uint32_t type = inv::block;
  Hash256 hash;
  friend bool operator==(const InvItem&, const InvItem&) = default;
};
struct Inv {
  std::vector<InvItem> items;
  friend bool operator==(const Inv&, const Inv&) = default;
};
struct GetData {
  std::vector<InvItem> items;
  friend bool operator==(const GetData&, const GetData&) = default;
};
struct NotFound {
  std::vector<InvItem> items;
  friend bool operator==(const NotFound&, const NotFound&) = default;
};
struct GetHeaders {
  std::uint32_t version = protocol_version;
  std::vector<BlockHash> locator;
  BlockHash stop = BlockHash::all_zeros();
  friend bool operator==(const GetHeaders&, const GetHeaders&) = default;
};
struct GetBlocks {
  std::uint32_t version = protocol_version;
  std::vector<BlockHash> locator;
  BlockHash stop = BlockHash::all_zeros();
  friend bool operator==(const GetBlocks&, const GetBlocks&) = default;
};
struct Headers {
  std::vector<BlockHeader> headers;  // each followed by a transaction count of 0 on the wire
  friend bool operator==(const Headers&, const Headers&) = default;
};
struct BlockMessage {
  Block block;
  friend bool operator==(const BlockMessage&, const BlockMessage&) = default;
};
struct TxMessage {
  Transaction tx;
  friend bool operator==(const TxMessage&, const TxMessage&) = default;
};
// BIP152 compact blocks. Indexes here are absolute (the position in the
// block); on the wire they are differential, each the distance from the
// previous one plus one.
// (prefilled: ascending, as getblocktxn's indexes)
struct PrefilledTransaction {
  std::uint16_t index = 0;
  Transaction tx;
  friend bool operator==(const PrefilledTransaction&, const PrefilledTransaction&) = default;
};
struct CmpctBlock {
  BlockHeader header;
  std::uint64_t nonce = 0;
  std::vector<std::uint64_t> short_ids;  // 6 bytes each on the wire
  std::vector<PrefilledTransaction> prefilled;
  friend bool operator==(const CmpctBlock&, const CmpctBlock&) = default;
};
struct GetBlockTxn {
  BlockHash block_hash = BlockHash::all_zeros();
  std::vector<std::uint16_t> indexes;  // ascending
  friend bool operator==(const GetBlockTxn&, const GetBlockTxn&) = default;
};
struct BlockTxn {
  BlockHash block_hash = BlockHash::all_zeros();
  std::vector<Transaction> transactions;
  friend bool operator==(const BlockTxn&, const BlockTxn&) = default;
};

// BIP157: a light client's requests for compact block filters (BIP158) and
// a full node's answers. The ranges are by height, from start_height to the
// block stop_hash names.
// getcfilters and getcfheaders ask the same way: a type and a range.
struct FilterRange {
  std::uint8_t filter_type = basic_filter_type;
  std::uint32_t start_height = 0;
  BlockHash stop_hash = BlockHash::all_zeros();
  friend bool operator==(const FilterRange&, const FilterRange&) = default;
};
struct GetCFilters : FilterRange {
  friend bool operator==(const GetCFilters&, const GetCFilters&) = default;
};
struct CFilter {
  std::uint8_t filter_type = basic_filter_type;
  BlockHash block_hash = BlockHash::all_zeros();
  std::vector<std::byte> filter;  // the encoded filter: N, then the bit stream
  friend bool operator==(const CFilter&, const CFilter&) = default;
};
struct GetCFHeaders : FilterRange {
  friend bool operator==(const GetCFHeaders&, const GetCFHeaders&) = default;
};
struct CFHeaders {
  std::uint8_t filter_type = basic_filter_type;
  BlockHash stop_hash = BlockHash::all_zeros();
  Hash256 previous_header;             // the filter header before start_height's
  std::vector<Hash256> filter_hashes;  // at most max_getcfheaders
  friend bool operator==(const CFHeaders&, const CFHeaders&) = default;
};
struct GetCFCheckpt {
  std::uint8_t filter_type = basic_filter_type;
  BlockHash stop_hash = BlockHash::all_zeros();
  friend bool operator==(const GetCFCheckpt&, const GetCFCheckpt&) = default;
};
struct CFCheckpt {
  std::uint8_t filter_type = basic_filter_type;
  BlockHash stop_hash = BlockHash::all_zeros();
  std::vector<Hash256> headers;  // the filter headers at heights 1000, 2000, ... up to stop_hash's
  friend bool operator==(const CFCheckpt&, const CFCheckpt&) = default;
};

// BIP61, removed from Core in 0.20 but still sent by old peers.
struct Reject {
  std::string message;  // the rejected message's command
  std::uint8_t code = 0;
  std::string reason;
  std::optional<Hash256> data;  // the rejected block's or transaction's hash
  friend bool operator==(const Reject&, const Reject&) = default;
};
// A command this library does not know: its payload was read (and its
// checksum checked), not kept.
struct Unknown {
  std::string command;
  std::uint32_t size = 0;
  friend bool operator==(const Unknown&, const Unknown&) = default;
};

using Message = std::variant<Version, Verack, Ping, Pong, SendHeaders, SendCmpct, WtxidRelay, SendAddrV2, FeeFilter, GetAddr, Inv, GetData,
                             NotFound, GetHeaders, GetBlocks, Headers, BlockMessage, TxMessage, Reject, Addr, AddrV2, CmpctBlock,
                             GetBlockTxn, BlockTxn, GetCFilters, CFilter, GetCFHeaders, CFHeaders, GetCFCheckpt, CFCheckpt, Unknown>;

// "version", "verack", ... (an Unknown's own command).
std::string_view command(const Message& message) noexcept;

// The whole message, envelope and payload. The payload is encoded once
// into `scratch` (kept by the caller, reused: no new allocation for a
// block-sized payload), hashed once for the checksum, then written.
result<void> encode_message(const Message& message, network net, writer_ref out, std::vector<std::byte>& scratch);
void encode_message(const Message& message, network net, std::vector<std::byte>& out);
// A message whose payload is already encoded (a block read from a blk file,
// sent as it is): the envelope for `command` and `payload`, then the payload.
result<void> encode_message(std::string_view command, std::span<const std::byte> payload, network net, writer_ref out);

// One message from a stream: the envelope is checked (magic, command,
// length before anything is allocated, checksum), then the payload is
// decoded by its command and must be consumed exactly. Errors carry the
// byte offset within the message; `command_out`, when given, receives the
// command (also on failure, once the envelope was read).
result<Message> decode_message(StreamReader& in, network net, std::string* command_out = nullptr);
// Exactly one message in `bytes`.
result<Message> decode_message(std::span<const std::byte> bytes, network net, std::string* command_out = nullptr);

// BIP324's v2 messages. A packet's contents are the message's type, then
// its payload: the type is one byte, an id of BIP324's table, or a zero
// followed by the 12-byte command as v1 carries it.
inline constexpr std::size_t max_v2_contents = 1 + 12 + max_message_size;

// BIP324's one-byte id of `command`, or 0 when it has none.
std::uint8_t v2_message_id(std::string_view command) noexcept;

// Appends the contents (type, then payload) to `out`, which may already
// hold what goes before them (a packet's length and header).
void encode_v2_contents(const Message& message, std::vector<std::byte>& out);
void encode_v2_contents(std::string_view command, std::span<const std::byte> payload, std::vector<std::byte>& out);

// The message a packet's contents hold, decoded as decode_message decodes
// a payload; errors carry the byte within the contents. An id outside the
// table is an Unknown named "id N" (Core ignores those too); a payload over
// max_message_size is message_too_large.
result<Message> decode_v2_contents(std::span<const std::byte> contents, std::string* command_out = nullptr);

}  // namespace blockwire::p2p

template <>
struct std::is_error_code_enum<blockwire::p2p::errc> : std::true_type {};
