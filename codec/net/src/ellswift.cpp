// ElligatorSwift (BIP324, after the SwiftEC paper) and the x-only ECDH over
// it, on OpenSSL's big numbers and secp256k1 group. Every input is valid,
// so a failure of OpenSSL's is the system's (an allocation, a provider):
// the arithmetic is many calls deep, so a failed call throws `Failed`,
// which never leaves this file: each public function turns it into
// v2_crypto_failure at its door (`guarded`). Every big number is freed
// with BN_clear_free and every point with EC_POINT_clear_free, and every
// secret held in a `Secret`, so that no path, a failure's included,
// leaves one behind.
#include <blockwire/io/sha256.hpp>
#include <blockwire/net/bip324.hpp>

#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/obj_mac.h>
#include <openssl/rand.h>

#include <algorithm>
#include <memory>
#include <string_view>

namespace blockwire::net::bip324 {

Secret::Secret(Secret&& other) noexcept : bytes_(other.bytes_) { other.wipe(); }
Secret& Secret::operator=(Secret&& other) noexcept {
  if (this != &other) {
    bytes_ = other.bytes_;
    other.wipe();
  }
  return *this;
}
void Secret::wipe() noexcept { OPENSSL_cleanse(bytes_.data(), bytes_.size()); }
bool operator==(const Secret& a, const Secret& b) noexcept { return CRYPTO_memcmp(a.bytes_.data(), b.bytes_.data(), a.bytes_.size()) == 0; }

namespace {

// An OpenSSL call that failed (its name): thrown, caught by `guarded`.
struct Failed {
  const char* call;
};

void check(int ok, const char* call) {
  if (!detail::openssl_succeeded(ok == 1)) throw Failed{call};
}

// f() with a failed OpenSSL call as v2_crypto_failure.
template <class F>
auto guarded(F f) -> result<decltype(f())> {
  try {
    return f();
  } catch (const Failed& failed) {
    return detail::openssl_failure(failed.call);
  }
}

struct BnFree {
  void operator()(BIGNUM* b) const noexcept { BN_clear_free(b); }
};
struct CtxFree {
  void operator()(BN_CTX* c) const noexcept { BN_CTX_free(c); }
};
struct GroupFree {
  void operator()(EC_GROUP* g) const noexcept { EC_GROUP_free(g); }
};
struct PointFree {
  void operator()(EC_POINT* p) const noexcept { EC_POINT_clear_free(p); }
};
using Bn = std::unique_ptr<BIGNUM, BnFree>;
using Point = std::unique_ptr<EC_POINT, PointFree>;

// Each made owned first, then checked: a failure the tests inject after
// the call succeeded frees what it made all the same.
Bn new_number() {
  Bn b(BN_new());
  check(b != nullptr, "BN_new");
  return b;
}
Bn copy_of(const BIGNUM* a) {
  Bn b(BN_dup(a));
  check(b != nullptr, "BN_dup");
  return b;
}
Bn from_hex(const char* hex) {
  BIGNUM* b = nullptr;
  const int digits = BN_hex2bn(&b, hex);
  Bn owned(b);
  check(digits != 0, "BN_hex2bn");
  return owned;
}
Point new_point(const EC_GROUP* group) {
  Point p(EC_POINT_new(group));
  check(p != nullptr, "EC_POINT_new");
  return p;
}

// Arithmetic modulo secp256k1's p, each operation a new number.
class Field {
 public:
  Field() : ctx_(BN_CTX_new()) {
    check(ctx_ != nullptr, "BN_CTX_new");
    p_ = from_hex("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC2F");
    sqrt_exponent_ = copy_of(p_.get());  // (p + 1) / 4
    check(BN_add_word(sqrt_exponent_.get(), 1), "BN_add_word");
    check(BN_rshift(sqrt_exponent_.get(), sqrt_exponent_.get(), 2), "BN_rshift");
    // c = sqrt(-3), the root that is a square itself.
    c_ = from_hex("0A2D2BA93507F1DF233770C2A797962CC61F6D15DA14ECD47D8D27AE1CD5F852");
  }

  Bn number(unsigned long v) {
    Bn b = new_number();
    check(BN_set_word(b.get(), v), "BN_set_word");
    return b;
  }
  Bn from_bytes(std::span<const std::byte, 32> bytes) {
    Bn b(BN_bin2bn(reinterpret_cast<const unsigned char*>(bytes.data()), 32, nullptr));
    check(b != nullptr, "BN_bin2bn");
    check(BN_nnmod(b.get(), b.get(), p_.get(), ctx_.get()), "BN_nnmod");
    return b;
  }
  static void to_bytes(const BIGNUM* a, std::span<std::byte, 32> out) {
    check(BN_bn2binpad(a, reinterpret_cast<unsigned char*>(out.data()), 32) == 32, "BN_bn2binpad");
  }
  static Bytes32 to_bytes(const BIGNUM* a) {
    Bytes32 out;
    to_bytes(a, out);
    return out;
  }

  Bn add(const BIGNUM* a, const BIGNUM* b) { return apply(BN_mod_add, a, b, "BN_mod_add"); }
  Bn sub(const BIGNUM* a, const BIGNUM* b) { return apply(BN_mod_sub, a, b, "BN_mod_sub"); }
  Bn mul(const BIGNUM* a, const BIGNUM* b) { return apply(BN_mod_mul, a, b, "BN_mod_mul"); }
  Bn neg(const BIGNUM* a) { return sub(number(0).get(), a); }
  // a / b; b is not zero.
  Bn div(const BIGNUM* a, const BIGNUM* b) {
    Bn inverse(BN_mod_inverse(nullptr, b, p_.get(), ctx_.get()));
    check(inverse != nullptr, "BN_mod_inverse");
    return mul(a, inverse.get());
  }
  Bn half(const BIGNUM* a) { return div(a, number(2).get()); }
  Bn cube_plus_7(const BIGNUM* a) { return add(mul(mul(a, a).get(), a).get(), number(7).get()); }

  // "The" square root, a^((p+1)/4), which is a square itself; none when
  // `a` is not a square.
  std::optional<Bn> sqrt(const BIGNUM* a) {
    Bn r = new_number();
    check(BN_mod_exp(r.get(), a, sqrt_exponent_.get(), p_.get(), ctx_.get()), "BN_mod_exp");
    if (BN_cmp(mul(r.get(), r.get()).get(), a) != 0) return std::nullopt;
    return r;
  }
  // lift_x succeeds: x^3 + 7 is a square.
  bool on_curve(const BIGNUM* x) { return sqrt(cube_plus_7(x).get()).has_value(); }

  const BIGNUM* c() const noexcept { return c_.get(); }
  BN_CTX* ctx() const noexcept { return ctx_.get(); }

 private:
  using Op = int (*)(BIGNUM*, const BIGNUM*, const BIGNUM*, const BIGNUM*, BN_CTX*);
  Bn apply(Op op, const BIGNUM* a, const BIGNUM* b, const char* call) {
    Bn r = new_number();
    check(op(r.get(), a, b, p_.get(), ctx_.get()), call);
    return r;
  }

  std::unique_ptr<BN_CTX, CtxFree> ctx_;
  Bn p_;
  Bn sqrt_exponent_;
  Bn c_;
};

// XSwiftEC(u, t), BIP324's definition.
Bn xswiftec(Field& f, Bn u, Bn t) {
  if (BN_is_zero(u.get())) u = f.number(1);
  if (BN_is_zero(t.get())) t = f.number(1);
  const Bn g = f.cube_plus_7(u.get());  // u^3 + 7
  if (BN_is_zero(f.add(g.get(), f.mul(t.get(), t.get()).get()).get())) t = f.add(t.get(), t.get());
  const Bn x_big = f.div(f.sub(g.get(), f.mul(t.get(), t.get()).get()).get(), f.add(t.get(), t.get()).get());  // X
  const Bn y_big = f.div(f.add(x_big.get(), t.get()).get(), f.mul(f.c(), u.get()).get());                      // Y
  Bn candidate = f.add(u.get(), f.mul(f.number(4).get(), f.mul(y_big.get(), y_big.get()).get()).get());        // u + 4Y^2
  if (f.on_curve(candidate.get())) return candidate;
  const Bn ratio = f.div(x_big.get(), y_big.get());                    // X/Y
  candidate = f.half(f.sub(f.neg(ratio.get()).get(), u.get()).get());  // (-X/Y - u)/2
  if (f.on_curve(candidate.get())) return candidate;
  return f.half(f.sub(ratio.get(), u.get()).get());  // (X/Y - u)/2: one of the three always is
}

std::optional<Bn> xswiftec_inv(Field& f, const BIGNUM* x, const BIGNUM* u, unsigned which) {
  Bn s, v;
  if ((which & 2) == 0) {
    if (f.on_curve(f.sub(f.neg(x).get(), u).get())) return std::nullopt;  // -x - u
    v = copy_of(x);
    const Bn denominator = f.add(f.add(f.mul(u, u).get(), f.mul(u, v.get()).get()).get(), f.mul(v.get(), v.get()).get());
    if (BN_is_zero(denominator.get())) return std::nullopt;  // cannot happen for x on the curve
    s = f.div(f.neg(f.cube_plus_7(u).get()).get(), denominator.get());
  } else {
    s = f.sub(x, u);
    if (BN_is_zero(s.get())) return std::nullopt;
    // -s(4(u^3 + 7) + 3u^2 s)
    const Bn inner = f.add(f.mul(f.number(4).get(), f.cube_plus_7(u).get()).get(),
                           f.mul(f.mul(f.number(3).get(), f.mul(u, u).get()).get(), s.get()).get());
    auto r = f.sqrt(f.mul(f.neg(s.get()).get(), inner.get()).get());
    if (!r) return std::nullopt;
    if ((which & 1) != 0 && BN_is_zero(r->get())) return std::nullopt;
    v = f.half(f.sub(f.div(r->get(), s.get()).get(), u).get());
  }
  auto w = f.sqrt(s.get());
  if (!w) return std::nullopt;
  const Bn one = f.number(1);
  // u(1 - c)/2 + v, or u(1 + c)/2 + v
  const bool plus_c = (which & 1) != 0;
  const Bn factor = plus_c ? f.add(one.get(), f.c()) : f.sub(one.get(), f.c());
  const Bn base = f.add(f.half(f.mul(u, factor.get()).get()).get(), v.get());
  Bn t = f.mul(w->get(), base.get());
  // Negated for cases 0 and 5 (which & 5 of 0 or 5).
  if ((which & 5) == 0 || (which & 5) == 5) t = f.neg(t.get());
  return t;
}

std::unique_ptr<EC_GROUP, GroupFree> secp256k1() {
  std::unique_ptr<EC_GROUP, GroupFree> group(EC_GROUP_new_by_curve_name(NID_secp256k1));
  check(group != nullptr, "EC_GROUP_new_by_curve_name(secp256k1)");
  return group;
}

// A point's x, into `out` (a Secret's bytes for the ECDH's).
void x_of(const EC_GROUP* group, const EC_POINT* point, BN_CTX* ctx, std::span<std::byte, 32> out) {
  Bn x = new_number();
  check(EC_POINT_get_affine_coordinates(group, point, x.get(), nullptr, ctx), "EC_POINT_get_affine_coordinates");
  Field::to_bytes(x.get(), out);
}

Bn secret_number(const Secret& secret) {
  Bn k(BN_secure_new());
  check(k != nullptr, "BN_secure_new");
  BN_set_flags(k.get(), BN_FLG_CONSTTIME);
  check(BN_bin2bn(reinterpret_cast<const unsigned char*>(secret.get().data()), 32, k.get()) != nullptr, "BN_bin2bn");
  return k;
}

}  // namespace

result<Bytes32> ellswift_decode(const EllSwiftPublicKey& encoded) {
  return guarded([&] {
    Field f;
    const std::span<const std::byte, 64> all(encoded);
    return Field::to_bytes(xswiftec(f, f.from_bytes(all.first<32>()), f.from_bytes(all.last<32>())).get());
  });
}

result<std::optional<Bytes32>> xswiftec_inv(const Bytes32& x, const Bytes32& u, unsigned which) {
  return guarded([&]() -> std::optional<Bytes32> {
    Field f;
    auto t = xswiftec_inv(f, f.from_bytes(x).get(), f.from_bytes(u).get(), which & 7);
    if (!t) return std::nullopt;
    return Field::to_bytes(t->get());
  });
}

namespace {

// An OpenSSL random draw into `out`.
void draw(int (*source)(unsigned char*, int), std::span<std::byte> out, const char* call) {
  check(source(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(out.size())), call);
}

}  // namespace

result<EllSwiftKey> EllSwiftKey::generate() {
  return guarded([] {
    const auto group = secp256k1();
    const BIGNUM* order = EC_GROUP_get0_order(group.get());
    Field f;
    Secret secret;
    Bn k;
    for (;;) {  // 0 < k < n; a 32-byte draw falls outside about once in 2^128
      draw(RAND_priv_bytes, secret.bytes(), "RAND_priv_bytes");
      k = secret_number(secret);
      if (!BN_is_zero(k.get()) && BN_cmp(k.get(), order) < 0) break;
    }
    const Point p = new_point(group.get());
    check(EC_POINT_mul(group.get(), p.get(), k.get(), nullptr, nullptr, f.ctx()), "EC_POINT_mul");
    Bytes32 x_bytes;
    x_of(group.get(), p.get(), f.ctx(), x_bytes);
    const Bn x = f.from_bytes(x_bytes);
    // XElligatorSwift: a random nonzero u and case until one gives a t.
    EllSwiftPublicKey encoding;
    for (;;) {
      std::array<std::byte, 33> u_and_case;
      draw(RAND_bytes, u_and_case, "RAND_bytes");
      const Bn u = f.from_bytes(std::span<const std::byte, 32>(u_and_case.data(), 32));
      if (BN_is_zero(u.get())) continue;
      auto t = xswiftec_inv(f, x.get(), u.get(), std::to_integer<unsigned>(u_and_case[32]) & 7);
      if (!t) continue;
      Field::to_bytes(u.get(), std::span(encoding).first<32>());
      Field::to_bytes(t->get(), std::span(encoding).last<32>());
      break;
    }
    return EllSwiftKey(secret.get(), encoding);
  });
}

EllSwiftKey::EllSwiftKey(const Bytes32& secret, const EllSwiftPublicKey& encoding) noexcept : secret_(secret), public_(encoding) {}

result<Secret> EllSwiftKey::ecdh_x(const EllSwiftPublicKey& theirs) const {
  auto their_x = ellswift_decode(theirs);
  if (!their_x) return their_x.error();
  return guarded([&] {
    const auto group = secp256k1();
    Field f;
    const Bn x = f.from_bytes(their_x.value());
    const Point q = new_point(group.get());
    // Either y: the product's x is the same for a point and its negation.
    check(EC_POINT_set_compressed_coordinates(group.get(), q.get(), x.get(), 0, f.ctx()), "EC_POINT_set_compressed_coordinates");
    const Bn k = secret_number(secret_);
    const Point r = new_point(group.get());
    check(EC_POINT_mul(group.get(), r.get(), nullptr, q.get(), k.get(), f.ctx()), "EC_POINT_mul");
    Secret shared;
    x_of(group.get(), r.get(), f.ctx(), shared.bytes());
    return shared;
  });
}

result<Secret> EllSwiftKey::shared_secret(const EllSwiftPublicKey& theirs, bool initiator) const {
  auto x = ecdh_x(theirs);
  if (!x) return x.error();
  constexpr std::string_view tag = "bip324_ellswift_xonly_ecdh";
  const Hash256 tag_hash = sha256(std::as_bytes(std::span(tag.data(), tag.size())));
  Sha256 h;
  h.update(tag_hash.bytes());
  h.update(tag_hash.bytes());
  h.update(initiator ? public_ : theirs);
  h.update(initiator ? theirs : public_);
  h.update(x.value().get());
  Hash256 digest = h.finish();  // (finish resets the hasher: SHA256_Init clears the whole state, x's bytes with it)
  Secret out;
  std::copy(digest.bytes().begin(), digest.bytes().end(), out.bytes().begin());
  OPENSSL_cleanse(digest.bytes().data(), digest.bytes().size());
  return out;
}

}  // namespace blockwire::net::bip324
