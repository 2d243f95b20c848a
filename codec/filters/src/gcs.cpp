// Golomb-coded sets (BIP158). The bits are written most significant first,
// a whole 32-bit word at a time into the buffered writer, and read the same
// way from the encoded bytes, each read checked against the bits present.
#include <blockwire/codec/wire.hpp>
#include <blockwire/filters.hpp>
#include <blockwire/io/buffered_writer.hpp>
#include <blockwire/io/decoding_context.hpp>
#include <blockwire/io/siphash.hpp>
#include <blockwire/io/vector_writer.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <string>
#include <utility>

namespace blockwire::filters {

namespace {

__extension__ typedef unsigned __int128 uint128;  // GCC's and Clang's; BIP158's 64x64->128 multiply

// The high 64 bits of a * b: BIP158's map of a hash into [0, f).
std::uint64_t mul_high(std::uint64_t a, std::uint64_t b) noexcept {
  return static_cast<std::uint64_t>((static_cast<uint128>(a) * b) >> 64);
}

const char* describe(int value) noexcept {
  switch (static_cast<errc>(value)) {
    case errc::too_many_elements: return "a filter's element count that its bytes cannot hold";
    case errc::truncated_stream: return "a filter's bit stream ends inside an element";
    case errc::excess_bytes: return "bytes after a filter's last element";
  }
  return nullptr;
}

// BIP158's hash_to_range: the element's SipHash mapped into [0, f).
std::uint64_t hash_to_range(const Params& p, std::uint64_t f, std::span<const std::byte> element) noexcept {
  SipHasher h(p.k0, p.k1);
  h.update(element);
  return mul_high(h.finish(), f);
}

// Bits, most significant first, into a byte sink: whole 32-bit words as
// they fill, the last partial byte padded with zeros by finish().
template <class Sink>
class BitWriter {
 public:
  explicit BitWriter(Sink& out) noexcept : out_(out) {}
  // The low `bits` bits of `v` (bits <= 32).
  void put(std::uint64_t v, unsigned bits) {
    acc_ = (acc_ << bits) | v;
    pending_ += bits;
    if (pending_ >= 32) {
      pending_ -= 32;
      const auto word = static_cast<std::uint32_t>(acc_ >> pending_);
      const std::array<std::byte, 4> be{std::byte(word >> 24), std::byte(word >> 16), std::byte(word >> 8), std::byte(word)};
      out_.write(std::span<const std::byte, 4>(be));
    }
  }
  // Golomb-Rice: the quotient in unary (ones, then a zero), then the low
  // `p` bits.
  void golomb_rice(std::uint64_t v, unsigned p) {
    std::uint64_t q = v >> p;
    for (; q >= 32; q -= 32) put(0xffffffff, 32);
    put(((std::uint64_t{1} << q) - 1) << 1, static_cast<unsigned>(q) + 1);
    put(v & ((std::uint64_t{1} << p) - 1), p);
  }
  void finish() {
    for (; pending_ >= 8; pending_ -= 8) out_.write(std::span<const std::byte, 1>(std::array{std::byte(acc_ >> (pending_ - 8))}));
    if (pending_ != 0) out_.write(std::span<const std::byte, 1>(std::array{std::byte(acc_ << (8 - pending_))}));
    pending_ = 0;
  }

 private:
  Sink& out_;
  std::uint64_t acc_ = 0;  // the pending bits are its low `pending_` bits
  unsigned pending_ = 0;   // < 32 between puts
};

// Bits, most significant first, from bytes; a read past the end fails.
class BitReader {
 public:
  explicit BitReader(std::span<const std::byte> bytes) noexcept : bytes_(bytes) {}
  bool ok() const noexcept { return ok_; }
  std::size_t bytes_used() const noexcept { return (bit_ + 7) / 8; }

  std::uint64_t bits(unsigned n) noexcept {  // n <= 32
    std::uint64_t v = 0;
    while (n != 0) {
      if (bit_ >= bytes_.size() * 8) return fail();
      const unsigned in_byte = 8 - static_cast<unsigned>(bit_ % 8);
      const unsigned take = n < in_byte ? n : in_byte;
      const unsigned byte = std::to_integer<unsigned>(bytes_[bit_ / 8]);
      v = (v << take) | ((byte >> (in_byte - take)) & ((1u << take) - 1));
      bit_ += take;
      n -= take;
    }
    return v;
  }
  // Ones up to the next zero: their count.
  std::uint64_t unary() noexcept {
    std::uint64_t q = 0;
    for (;;) {
      if (bit_ >= bytes_.size() * 8) return fail();
      const unsigned in_byte = 8 - static_cast<unsigned>(bit_ % 8);
      const auto byte = static_cast<std::uint8_t>(std::to_integer<unsigned>(bytes_[bit_ / 8]) << (8 - in_byte));  // the unread bits, on top
      const unsigned ones = static_cast<unsigned>(std::countl_one(byte));
      if (ones < in_byte) {
        q += ones;
        bit_ += ones + 1;
        return q;
      }
      q += in_byte;
      bit_ += in_byte;
    }
  }
  std::uint64_t golomb_rice(unsigned p) noexcept {
    const std::uint64_t q = unary();
    return (q << p) | bits(p);
  }

 private:
  std::uint64_t fail() noexcept {
    ok_ = false;
    bit_ = bytes_.size() * 8;
    return 0;
  }
  std::span<const std::byte> bytes_;
  std::size_t bit_ = 0;
  bool ok_ = true;
};

// Walks a filter's sorted values.
class Values {
 public:
  Values(std::span<const std::byte> stream, std::uint64_t n, unsigned p) noexcept : in_(stream), left_(n), p_(p) {}
  bool next(std::uint64_t& value) noexcept {
    if (left_ == 0) return false;
    --left_;
    value_ += in_.golomb_rice(p_);
    value = value_;
    return in_.ok();
  }
  const BitReader& reader() const noexcept { return in_; }

 private:
  BitReader in_;
  std::uint64_t left_;
  unsigned p_;
  std::uint64_t value_ = 0;
};

// 64-bit keys, ascending: a least-significant-digit radix sort, a byte a
// pass, the eight histograms counted in one pass first. Uniform hashes are
// its best case: for a filter's 65,536 elements it takes a quarter of
// std::sort's time. Small sets go to std::sort.
void sort_keys(std::vector<std::uint64_t>& keys) {
  if (keys.size() < 1024) {
    std::sort(keys.begin(), keys.end());
    return;
  }
  std::array<std::array<std::size_t, 256>, 8> counts{};
  for (const std::uint64_t k : keys) {
    for (unsigned d = 0; d < 8; ++d) ++counts[d][(k >> (8 * d)) & 0xff];
  }
  std::vector<std::uint64_t> other(keys.size());
  for (unsigned d = 0; d < 8; ++d) {
    auto& c = counts[d];
    if (c[(keys[0] >> (8 * d)) & 0xff] == keys.size()) continue;  // one digit for all: nothing moves
    std::size_t at = 0;
    for (std::size_t& n : c) n = std::exchange(at, at + n);
    for (const std::uint64_t k : keys) other[c[(k >> (8 * d)) & 0xff]++] = k;
    keys.swap(other);
  }
}

// Where the bit stream begins: after the CompactSize N.
std::span<const std::byte> stream_of(std::span<const std::byte> encoded) {
  const auto first = std::to_integer<unsigned>(encoded[0]);
  const std::size_t width = first < 0xfd ? 1 : first == 0xfd ? 3 : first == 0xfe ? 5 : 9;
  return encoded.subspan(width);
}

}  // namespace

namespace {
// Every failure here is the data's.
condition classify(int) noexcept { return condition::bad_data; }
}  // namespace

const std::error_category& category() noexcept {
  static const enum_category instance("blockwire.filters", describe, classify);
  return instance;
}

Params basic_params(const BlockHash& block_hash) noexcept {
  const auto b = block_hash.bytes();
  return {load_le<std::uint64_t>(b.data()), load_le<std::uint64_t>(b.data() + 8), 19, 784931};
}

GcsFilter::GcsFilter(const Params& params) : params_(params), encoded_{std::byte{0}} {}

GcsFilter GcsFilter::build(const Params& params, std::span<const std::span<const std::byte>> elements) {
  // Each element's 64-bit SipHash, sorted: the map into [0, N * M) keeps
  // the order, so these are the values' order too. Equal hashes are a
  // duplicate element (dropped: a set) or, rarely (a miner can make one),
  // two elements that collide (both kept, as Core keeps them).
  std::vector<std::uint64_t> hashes(elements.size());
  for (std::size_t i = 0; i < elements.size(); ++i) {
    SipHasher h(params.k0, params.k1);
    h.update(elements[i]);
    hashes[i] = h.finish();
  }
  std::vector<std::uint64_t> sorted = hashes;
  sort_keys(sorted);
  std::vector<std::uint64_t> repeated;  // hashes that occur more than once
  for (std::size_t i = 1; i < sorted.size(); ++i) {
    if (sorted[i] == sorted[i - 1] && (repeated.empty() || repeated.back() != sorted[i])) repeated.push_back(sorted[i]);
  }
  if (!repeated.empty()) {
    // For each repeated hash, its distinct elements: that many copies stay.
    std::vector<std::vector<std::span<const std::byte>>> distinct(repeated.size());
    for (std::size_t i = 0; i < elements.size(); ++i) {
      const auto at = std::lower_bound(repeated.begin(), repeated.end(), hashes[i]);
      if (at == repeated.end() || *at != hashes[i]) continue;
      auto& seen = distinct[static_cast<std::size_t>(at - repeated.begin())];
      const auto same = [&](std::span<const std::byte> e) { return std::ranges::equal(e, elements[i]); };
      if (std::find_if(seen.begin(), seen.end(), same) == seen.end()) seen.push_back(elements[i]);
    }
    std::vector<std::uint64_t> kept;
    kept.reserve(sorted.size());
    for (std::size_t i = 0; i < sorted.size();) {
      std::size_t j = i + 1;
      while (j < sorted.size() && sorted[j] == sorted[i]) ++j;
      std::size_t copies = j - i;
      if (copies > 1)
        copies =
            distinct[static_cast<std::size_t>(std::lower_bound(repeated.begin(), repeated.end(), sorted[i]) - repeated.begin())].size();
      kept.insert(kept.end(), copies, sorted[i]);
      i = j;
    }
    sorted = std::move(kept);
  }

  GcsFilter filter(params);
  filter.n_ = sorted.size();
  filter.encoded_.clear();
  // About P + 2 bits an element (the quotient averages under one).
  filter.encoded_.reserve(9 + sorted.size() * (params.p + 2) / 8 + 8);
  VectorWriter sink(filter.encoded_);
  BufferedWriter<VectorWriter&> out(sink);
  wire::encode_compact_size(out, filter.n_);
  BitWriter<BufferedWriter<VectorWriter&>> bits(out);
  const std::uint64_t f = filter.n_ * std::uint64_t{params.m};
  std::uint64_t last = 0;
  for (const std::uint64_t h : sorted) {
    const std::uint64_t value = mul_high(h, f);
    bits.golomb_rice(value - last, params.p);
    last = value;
  }
  bits.finish();
  (void)out.flush();  // a vector sink cannot fail
  return filter;
}

result<GcsFilter> GcsFilter::decode(const Params& params, std::span<const std::byte> encoded) {
  DecodingContext ctx(encoded);
  const std::uint64_t n = wire::decode_compact_size(ctx);
  if (!ctx.ok()) return ctx.failure();
  const std::size_t header = static_cast<std::size_t>(ctx.offset());
  // Every element takes at least P + 1 bits: a count the bytes cannot hold
  // fails before anything is decoded.
  const std::uint64_t bits_present = (encoded.size() - header) * std::uint64_t{8};
  if (n >= (std::uint64_t{1} << 32) || n * (std::uint64_t{params.p} + 1) > bits_present) return error(errc::too_many_elements, 0);
  Values values(encoded.subspan(header), n, params.p);
  std::uint64_t v = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    if (!values.next(v)) return error(errc::truncated_stream, encoded.size());
  }
  if (header + values.reader().bytes_used() != encoded.size()) return error(errc::excess_bytes, header + values.reader().bytes_used());
  GcsFilter filter(params);
  filter.n_ = n;
  filter.encoded_.assign(encoded.begin(), encoded.end());
  return filter;
}

bool GcsFilter::match(std::span<const std::byte> element) const {
  const std::span<const std::byte> one[1]{element};
  return match_any(one);
}

bool GcsFilter::match_any(std::span<const std::span<const std::byte>> elements) const {
  if (n_ == 0 || elements.empty()) return false;
  const std::uint64_t f = n_ * std::uint64_t{params_.m};
  std::vector<std::uint64_t> queries(elements.size());
  for (std::size_t i = 0; i < elements.size(); ++i) queries[i] = hash_to_range(params_, f, elements[i]);
  std::sort(queries.begin(), queries.end());
  Values values(stream_of(encoded_), n_, params_.p);
  std::uint64_t v = 0;
  if (!values.next(v)) return false;
  for (const std::uint64_t q : queries) {
    while (v < q) {
      if (!values.next(v)) return false;
    }
    if (v == q) return true;
  }
  return false;
}

}  // namespace blockwire::filters
