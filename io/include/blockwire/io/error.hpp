// The one error type and result alias of blockwire.
//
// A failure is a std::error_code (blockwire's own category for the library's
// failures, std::system_category() for the OS) plus, for decoding, the byte
// offset at which it happened. Results are Boost.Outcome's std_result: the
// light header (results over std::error_code), not boost/outcome.hpp, so that
// every program including blockwire compiles fast.
#pragma once

#include <boost/outcome/std_result.hpp>

#include <cerrno>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>

namespace blockwire {
enum class condition : int;
}
// Before the enum's definition, so that error_code == condition compiles
// in this header already.
template <>
struct std::is_error_condition_enum<blockwire::condition> : std::true_type {};

namespace blockwire {

// Each layer's failures are `blockwire::<layer>::errc`, in the category
// `blockwire::<layer>::category()`: io, codec (decoding), address and
// check (the codec's scripts and block checks), p2p, net, blockfiles,
// undo, filters, directory. What kind of failure one is, whatever its layer, is its
// condition: compare the code with one (`e.code() == condition::bad_data`),
// never its category.
enum class condition : int {
  io = 1,    // the system's: a file, a socket, the disk, a lock another process holds (every errno)
  bad_data,  // the bytes are wrong: they do not decode, do not check, are not there, or a peer broke the protocol
  usage,     // the caller asked for what cannot be: an argument out of range, a call out of order, a key that is not the directory's
  peer,      // a peer did not do its part: it timed out, went away, stopped reading, or its chain moved under a request
};
const std::error_category& condition_category() noexcept;
inline std::error_condition make_error_condition(condition c) noexcept { return {static_cast<int>(c), condition_category()}; }

namespace io {

// The io layer's own failures. Values are stable: they may be stored or
// logged. Each means one thing.
enum class errc : int {
  end_of_stream = 1,  // a source ended where more bytes were needed
  no_room,            // a fixed-size sink is full
  truncated,          // input ended inside an object
  // 4 was bad_argument, retired: it meant too many things.
  not_hex = 5,       // a character that is not a hex digit (offset: where)
  odd_hex_length,    // hex of an odd number of digits
  wrong_hex_length,  // hex of another length than the value takes
  locked,            // another process (or another open of the file) holds the lock on it
  stopped,           // the caller asked the work to stop (a stop descriptor, a signal) before it was done
};

const std::error_category& category() noexcept;

inline std::error_code make_error_code(errc e) noexcept { return {static_cast<int>(e), category()}; }

}  // namespace io

// The std::error_category of an error enum, from the category's name, a
// function that describes each value (nullptr for a value it does not
// know) and one that gives each value's condition. Every layer defines its
// categories with it:
//   const std::error_category& codec::category() noexcept {
//     static const enum_category instance("blockwire.codec", describe, classify);
//     return instance;
//   }
class enum_category final : public std::error_category {
 public:
  using describe_fn = const char* (*)(int value) noexcept;
  using classify_fn = condition (*)(int value) noexcept;
  constexpr enum_category(const char* name, describe_fn describe, classify_fn classify) noexcept
      : name_(name), describe_(describe), classify_(classify) {}
  const char* name() const noexcept override { return name_; }
  std::string message(int value) const override;
  std::error_condition default_error_condition(int value) const noexcept override { return make_error_condition(classify_(value)); }

 private:
  const char* name_;
  describe_fn describe_;
  classify_fn classify_;
};

// What went wrong and, when it is known, where (a byte offset in the input)
// and what it was (the context: a path, a key, a block, said by the layer
// that knew it). A failure has one shape at every layer: result<T> with
// this; nothing is said through out-parameters.
class error {
 public:
  static constexpr std::uint64_t no_offset = ~std::uint64_t{0};

  error() noexcept = default;
  error(std::error_code code) noexcept : code_(code) {}  // NOLINT: implicit by design
  // clang-format off
  template <class E>
    requires std::is_error_code_enum_v<E>
  error(E e) noexcept : code_(make_error_code(e)) {}  // NOLINT: implicit by design
  // clang-format on
  error(std::error_code code, std::uint64_t offset) noexcept : code_(code), offset_(offset) {}
  error(const error& other) noexcept : code_(other.code_), offset_(other.offset_), detail_(other.detail_) {
    if (detail_ != nullptr) share(detail_);
  }
  error(error&& other) noexcept : code_(other.code_), offset_(other.offset_), detail_(other.detail_) { other.detail_ = nullptr; }
  error& operator=(const error& other) noexcept {
    if (other.detail_ != nullptr) share(other.detail_);
    if (detail_ != nullptr) drop(detail_);
    code_ = other.code_;
    offset_ = other.offset_;
    detail_ = other.detail_;
    return *this;
  }
  error& operator=(error&& other) noexcept {
    if (this == &other) return *this;
    if (detail_ != nullptr) drop(detail_);
    code_ = other.code_;
    offset_ = other.offset_;
    detail_ = other.detail_;
    other.detail_ = nullptr;
    return *this;
  }
  ~error() {
    if (detail_ != nullptr) drop(detail_);
  }

  const std::error_code& code() const noexcept { return code_; }
  bool has_offset() const noexcept { return offset_ != no_offset; }
  std::uint64_t offset() const noexcept { return offset_; }

  // What failed, as the layers said it, outermost first ("" when none
  // did: the codec's errors carry an offset instead, and stay as cheap to
  // return as a code).
  std::string_view context() const noexcept;
  // This error with `what` said before the context it had: "what: inner".
  // (Shared, not copied, as the error travels up.)
  error in(std::string_view what) const;

  // Which step of a longer piece of work failed, where the call has steps
  // a caller tells apart (a fetch's handshake or its sync, a directory's
  // key, blk or rev files): a layer's step enum, compared as
  // `e.step() == net::fetch_step::handshake`; an empty code when none was
  // said. The step is not the failure: code() stays the cause's.
  std::error_code step() const noexcept;
  // This error with its step said, replacing a step an inner call said (a
  // caller's steps are the ones its own callers know). A call that passes
  // an inner error on unchanged passes its step on too (a refresh that
  // opens the directory again fails at open_step's).
  error at_step(std::error_code step) const;
  // clang-format off
  template <class E>
    requires std::is_error_code_enum_v<E>
  error at_step(E step) const { return at_step(std::error_code(make_error_code(step))); }
  // clang-format on

  // Readable by a person: "input ends inside an object at byte 1234",
  // after the context when there is one: "chainstate/000012.ldb: ...".
  std::string message() const;

  // True when this holds a failure.
  explicit operator bool() const noexcept { return static_cast<bool>(code_); }

  // Whether the failure is the system's (a file, a socket, the disk)
  // rather than something wrong with the bytes: code() == condition::io.
  bool is_io() const noexcept { return code_ == condition::io; }

  // The same failure at the same byte (the context, which only says it,
  // aside).
  friend bool operator==(const error& a, const error& b) noexcept { return a.code_ == b.code_ && a.offset_ == b.offset_; }

 private:
  // What only some errors carry (the context, the step), shared as the
  // error travels up, so that an error stays as small as a code, an offset
  // and a pointer. Counted in error.cpp: this header, in every translation
  // unit of a program that uses the library, needs neither <memory> nor
  // <atomic> (20,000 lines a TU), and an error without it copies as a code.
  struct Detail;
  static void share(const Detail* detail) noexcept;
  static void drop(const Detail* detail) noexcept;
  std::error_code code_{};
  std::uint64_t offset_ = no_offset;
  const Detail* detail_ = nullptr;
};

// The category of a layer's step enum, from its name, a function that
// names each value (nullptr for a value it does not know) and one that
// says what kind of failure a cause of a condition is at that step (a key
// whose bytes are bad is the caller's, not bad data; most steps keep the
// cause's condition).
class step_category final : public std::error_category {
 public:
  using describe_fn = const char* (*)(int value) noexcept;
  using kind_fn = condition (*)(int value, condition cause) noexcept;
  constexpr step_category(const char* name, describe_fn describe, kind_fn kind) noexcept : name_(name), describe_(describe), kind_(kind) {}
  const char* name() const noexcept override { return name_; }
  std::string message(int value) const override;
  condition kind(int value, condition cause) const noexcept { return kind_(value, cause); }

 private:
  const char* name_;
  describe_fn describe_;
  kind_fn kind_;
};

// What kind of failure `e` is for whoever reports it (an exit status, an
// exception's class): its code's condition (condition{} for a code of
// none), as its step (if any) reads it.
condition kind_of(const error& e) noexcept;

// The exit status of a command that failed with `e`, for every front end
// alike (the blockwire command, python3 -m blockwire.distributed): 1 when
// the data was bad (the bytes, a peer that broke the protocol), 2 for the
// rest (the system's, a request that cannot be met, a peer that timed out
// or went away).
inline int exit_status_of(const error& e) noexcept { return kind_of(e) == condition::bad_data ? 1 : 2; }

// Lets Boost.Outcome treat `error` like an error code (value() on a failed
// result throws std::system_error instead of refusing to compile).
inline std::error_code make_error_code(const error& e) noexcept { return e.code(); }
// What value() on a failed result throws: std::system_error with the code
// and the message (offset included). Found by Boost.Outcome through ADL.
[[noreturn]] void outcome_throw_as_system_error_with_payload(const error& e);

// What the last failed system call said (errno, in the system category).
inline std::error_code last_system_error() noexcept { return {errno, std::system_category()}; }

template <class T>
using result = BOOST_OUTCOME_V2_NAMESPACE::std_result<T, error>;

using BOOST_OUTCOME_V2_NAMESPACE::success;

}  // namespace blockwire

template <>
struct std::is_error_code_enum<blockwire::io::errc> : std::true_type {};
