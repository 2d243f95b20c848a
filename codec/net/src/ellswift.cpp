// ElligatorSwift (BIP324, after the SwiftEC paper) and the x-only ECDH over
// it, on OpenSSL's big numbers and secp256k1 group. A failure of OpenSSL's
// here is an allocation's (every input is valid): std::bad_alloc, as any
// other allocation of the library's.
#include <blockwire/io/sha256.hpp>
#include <blockwire/net/bip324.hpp>

#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/obj_mac.h>
#include <openssl/rand.h>

#include <algorithm>
#include <memory>
#include <new>
#include <string_view>

namespace blockwire::net::bip324 {
namespace {

template <class T>
T* check(T* p) {
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void check(int ok) {
  if (ok != 1) throw std::bad_alloc();
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

Bn from_hex(const char* hex) {
  BIGNUM* b = nullptr;
  if (BN_hex2bn(&b, hex) == 0) throw std::bad_alloc();
  return Bn(b);
}

// Arithmetic modulo secp256k1's p, each operation a new number.
class Field {
 public:
  Field() : ctx_(check(BN_CTX_new())), p_(from_hex("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC2F")) {
    sqrt_exponent_.reset(check(BN_dup(p_.get())));  // (p + 1) / 4
    check(BN_add_word(sqrt_exponent_.get(), 1));
    check(BN_rshift(sqrt_exponent_.get(), sqrt_exponent_.get(), 2));
    // c = sqrt(-3), the root that is a square itself.
    c_ = from_hex("0A2D2BA93507F1DF233770C2A797962CC61F6D15DA14ECD47D8D27AE1CD5F852");
  }

  Bn number(unsigned long v) {
    Bn b(check(BN_new()));
    check(BN_set_word(b.get(), v));
    return b;
  }
  Bn from_bytes(std::span<const std::byte, 32> bytes) {
    Bn b(check(BN_bin2bn(reinterpret_cast<const unsigned char*>(bytes.data()), 32, nullptr)));
    check(BN_nnmod(b.get(), b.get(), p_.get(), ctx_.get()));
    return b;
  }
  static Bytes32 to_bytes(const BIGNUM* a) {
    Bytes32 out;
    if (BN_bn2binpad(a, reinterpret_cast<unsigned char*>(out.data()), 32) != 32) throw std::bad_alloc();
    return out;
  }

  Bn add(const BIGNUM* a, const BIGNUM* b) { return apply(BN_mod_add, a, b); }
  Bn sub(const BIGNUM* a, const BIGNUM* b) { return apply(BN_mod_sub, a, b); }
  Bn mul(const BIGNUM* a, const BIGNUM* b) { return apply(BN_mod_mul, a, b); }
  Bn neg(const BIGNUM* a) { return sub(number(0).get(), a); }
  // a / b; b is not zero.
  Bn div(const BIGNUM* a, const BIGNUM* b) {
    Bn inverse(check(BN_mod_inverse(nullptr, b, p_.get(), ctx_.get())));
    return mul(a, inverse.get());
  }
  Bn half(const BIGNUM* a) { return div(a, number(2).get()); }
  Bn cube_plus_7(const BIGNUM* a) { return add(mul(mul(a, a).get(), a).get(), number(7).get()); }

  // "The" square root, a^((p+1)/4), which is a square itself; none when
  // `a` is not a square.
  std::optional<Bn> sqrt(const BIGNUM* a) {
    Bn r(check(BN_new()));
    check(BN_mod_exp(r.get(), a, sqrt_exponent_.get(), p_.get(), ctx_.get()));
    if (BN_cmp(mul(r.get(), r.get()).get(), a) != 0) return std::nullopt;
    return r;
  }
  // lift_x succeeds: x^3 + 7 is a square.
  bool on_curve(const BIGNUM* x) { return sqrt(cube_plus_7(x).get()).has_value(); }

  const BIGNUM* c() const noexcept { return c_.get(); }
  BN_CTX* ctx() const noexcept { return ctx_.get(); }

 private:
  using Op = int (*)(BIGNUM*, const BIGNUM*, const BIGNUM*, const BIGNUM*, BN_CTX*);
  Bn apply(Op op, const BIGNUM* a, const BIGNUM* b) {
    Bn r(check(BN_new()));
    check(op(r.get(), a, b, p_.get(), ctx_.get()));
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
    v.reset(check(BN_dup(x)));
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
  return std::unique_ptr<EC_GROUP, GroupFree>(check(EC_GROUP_new_by_curve_name(NID_secp256k1)));
}

Bytes32 x_of(const EC_GROUP* group, const EC_POINT* point, BN_CTX* ctx) {
  Bn x(check(BN_new()));
  check(EC_POINT_get_affine_coordinates(group, point, x.get(), nullptr, ctx));
  return Field::to_bytes(x.get());
}

Bn secret_number(const Bytes32& secret) {
  Bn k(check(BN_secure_new()));
  BN_set_flags(k.get(), BN_FLG_CONSTTIME);
  check(BN_bin2bn(reinterpret_cast<const unsigned char*>(secret.data()), 32, k.get()) != nullptr ? 1 : 0);
  return k;
}

}  // namespace

Bytes32 ellswift_decode(const EllSwiftPublicKey& encoded) {
  Field f;
  const std::span<const std::byte, 64> all(encoded);
  return Field::to_bytes(xswiftec(f, f.from_bytes(all.first<32>()), f.from_bytes(all.last<32>())).get());
}

std::optional<Bytes32> xswiftec_inv(const Bytes32& x, const Bytes32& u, unsigned which) {
  Field f;
  auto t = xswiftec_inv(f, f.from_bytes(x).get(), f.from_bytes(u).get(), which & 7);
  if (!t) return std::nullopt;
  return Field::to_bytes(t->get());
}

result<EllSwiftKey> EllSwiftKey::generate() {
  const auto group = secp256k1();
  const BIGNUM* order = EC_GROUP_get0_order(group.get());
  Field f;
  Bytes32 secret;
  Bn k;
  for (;;) {  // 0 < k < n; a 32-byte draw falls outside about once in 2^128
    if (RAND_priv_bytes(reinterpret_cast<unsigned char*>(secret.data()), 32) != 1) {
      OPENSSL_cleanse(secret.data(), secret.size());
      return std::make_error_code(std::errc::resource_unavailable_try_again);
    }
    k = secret_number(secret);
    if (!BN_is_zero(k.get()) && BN_cmp(k.get(), order) < 0) break;
  }
  const Point p(check(EC_POINT_new(group.get())));
  check(EC_POINT_mul(group.get(), p.get(), k.get(), nullptr, nullptr, f.ctx()));
  const Bn x = f.from_bytes(x_of(group.get(), p.get(), f.ctx()));
  // XElligatorSwift: a random nonzero u and case until one gives a t.
  EllSwiftPublicKey encoding;
  for (;;) {
    std::array<std::byte, 33> draw;
    if (RAND_bytes(reinterpret_cast<unsigned char*>(draw.data()), 33) != 1) {
      OPENSSL_cleanse(secret.data(), secret.size());
      return std::make_error_code(std::errc::resource_unavailable_try_again);
    }
    const Bn u = f.from_bytes(std::span<const std::byte, 32>(draw.data(), 32));
    if (BN_is_zero(u.get())) continue;
    auto t = xswiftec_inv(f, x.get(), u.get(), std::to_integer<unsigned>(draw[32]) & 7);
    if (!t) continue;
    const Bytes32 u_bytes = Field::to_bytes(u.get()), t_bytes = Field::to_bytes(t->get());
    std::copy(u_bytes.begin(), u_bytes.end(), encoding.begin());
    std::copy(t_bytes.begin(), t_bytes.end(), encoding.begin() + 32);
    break;
  }
  EllSwiftKey key(secret, encoding);
  OPENSSL_cleanse(secret.data(), secret.size());
  return key;
}

EllSwiftKey::EllSwiftKey(const Bytes32& secret, const EllSwiftPublicKey& encoding) noexcept : secret_(secret), public_(encoding) {}
EllSwiftKey::EllSwiftKey(EllSwiftKey&& other) noexcept : secret_(other.secret_), public_(other.public_) {
  OPENSSL_cleanse(other.secret_.data(), other.secret_.size());
}
EllSwiftKey& EllSwiftKey::operator=(EllSwiftKey&& other) noexcept {
  if (this != &other) {
    secret_ = other.secret_;
    public_ = other.public_;
    OPENSSL_cleanse(other.secret_.data(), other.secret_.size());
  }
  return *this;
}
EllSwiftKey::~EllSwiftKey() { wipe(); }
void EllSwiftKey::wipe() noexcept { OPENSSL_cleanse(secret_.data(), secret_.size()); }

Bytes32 EllSwiftKey::ecdh_x(const EllSwiftPublicKey& theirs) const {
  const auto group = secp256k1();
  Field f;
  const Bn x = f.from_bytes(ellswift_decode(theirs));
  const Point q(check(EC_POINT_new(group.get())));
  // Either y: the product's x is the same for a point and its negation.
  check(EC_POINT_set_compressed_coordinates(group.get(), q.get(), x.get(), 0, f.ctx()));
  const Bn k = secret_number(secret_);
  const Point r(check(EC_POINT_new(group.get())));
  check(EC_POINT_mul(group.get(), r.get(), nullptr, q.get(), k.get(), f.ctx()));
  return x_of(group.get(), r.get(), f.ctx());
}

Bytes32 EllSwiftKey::shared_secret(const EllSwiftPublicKey& theirs, bool initiator) const {
  Bytes32 x = ecdh_x(theirs);
  constexpr std::string_view tag = "bip324_ellswift_xonly_ecdh";
  const Hash256 tag_hash = sha256(std::as_bytes(std::span(tag.data(), tag.size())));
  Sha256 h;
  h.update(tag_hash.bytes());
  h.update(tag_hash.bytes());
  h.update(initiator ? public_ : theirs);
  h.update(initiator ? theirs : public_);
  h.update(x);
  OPENSSL_cleanse(x.data(), x.size());
  Hash256 secret = h.finish();  // (finish resets the hasher's state)
  Bytes32 out;
  std::copy(secret.bytes().begin(), secret.bytes().end(), out.begin());
  OPENSSL_cleanse(secret.bytes().data(), secret.bytes().size());
  return out;
}

}  // namespace blockwire::net::bip324
