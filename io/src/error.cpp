#include <blockwire/io/error.hpp>

#include <atomic>
#include <string>
#include <system_error>
#include <utility>

namespace blockwire {
namespace {

const char* describe(int value) noexcept {
  using io::errc;
  switch (static_cast<errc>(value)) {
    case io::errc::end_of_stream: return "end of stream";
    case io::errc::no_room: return "no room left in the output buffer";
    case io::errc::truncated: return "input ends inside an object (truncated)";
    case io::errc::not_hex: return "not a hex digit";
    case io::errc::odd_hex_length: return "an odd number of hex digits";
    case io::errc::wrong_hex_length: return "the wrong number of hex digits";
    case io::errc::locked: return "another process holds its lock";
    case io::errc::stopped: return "stopped when asked, before it was done";
  }
  return nullptr;
}

condition classify(int value) noexcept {
  switch (static_cast<io::errc>(value)) {
    case io::errc::no_room: return condition::usage;
    case io::errc::locked: return condition::io;
    case io::errc::stopped: return condition::usage;
    // A stream that ends early, text that is not hex. (No default: a new
    // code is a -Wswitch warning until it is classified.)
    case io::errc::end_of_stream:
    case io::errc::truncated:
    case io::errc::not_hex:
    case io::errc::odd_hex_length:
    case io::errc::wrong_hex_length: return condition::bad_data;
  }
  return condition::bad_data;  // (a value no code has)
}

// The conditions themselves; and where a code's own category does not
// give its condition (the system's codes, std::filesystem's and
// std::errc's in the generic category), which it falls in.
class condition_category_impl final : public std::error_category {
 public:
  const char* name() const noexcept override { return "blockwire.condition"; }
  std::string message(int value) const override {
    switch (static_cast<condition>(value)) {
      case condition::io: return "a system error (a file, a socket, the disk)";
      case condition::bad_data: return "bad data";
      case condition::usage: return "a request that cannot be met";
      case condition::peer: return "a peer that did not do its part";
    }
    return "unknown condition " + std::to_string(value);
  }
  bool equivalent(const std::error_code& code, int value) const noexcept override {
    const auto c = static_cast<condition>(value);
    if (code.category() == std::system_category()) return c == condition::io;
    if (code.category() == std::generic_category()) {
      // What std::errc says of an argument is the caller's; every other
      // errno is the system's.
      const bool caller = code == std::errc::invalid_argument || code == std::errc::file_too_large;
      return c == (caller ? condition::usage : condition::io);
    }
    return code.default_error_condition() == std::error_condition(value, *this);
  }
};

}  // namespace

const std::error_category& condition_category() noexcept {
  static const condition_category_impl instance;
  return instance;
}

std::string enum_category::message(int value) const {
  if (const char* text = describe_(value)) return text;
  return std::string("unknown ") + name_ + " error " + std::to_string(value);
}

const std::error_category& io::category() noexcept {
  static const enum_category instance("blockwire.io", describe, classify);
  return instance;
}

struct error::Detail {
  std::string context;
  std::error_code step;
  mutable std::atomic<unsigned> holders{1};  // errors cross threads (a worker's failure, reported by the caller)
};

void error::share(const Detail* detail) noexcept { detail->holders.fetch_add(1, std::memory_order_relaxed); }

void error::drop(const Detail* detail) noexcept {
  if (detail->holders.fetch_sub(1, std::memory_order_acq_rel) == 1) delete detail;
}

std::string_view error::context() const noexcept { return detail_ != nullptr ? std::string_view(detail_->context) : std::string_view(); }

std::string error::message() const {
  std::string text = detail_ && !detail_->context.empty() ? detail_->context + ": " : std::string();
  text += code_.message();
  if (has_offset()) text += " at byte " + std::to_string(offset_);
  return text;
}

error error::in(std::string_view what) const {
  std::string said(what);
  if (detail_ && !detail_->context.empty()) said += ": " + detail_->context;
  error e(code_, offset_);
  e.detail_ = new Detail{std::move(said), detail_ ? detail_->step : std::error_code()};
  return e;
}

std::error_code error::step() const noexcept { return detail_ ? detail_->step : std::error_code(); }

error error::at_step(std::error_code step) const {
  error e(code_, offset_);
  e.detail_ = new Detail{detail_ ? detail_->context : std::string(), step};
  return e;
}

std::string step_category::message(int value) const {
  if (const char* text = describe_(value)) return text;
  return std::string("unknown ") + name_ + " step " + std::to_string(value);
}

condition kind_of(const error& e) noexcept {
  condition cause{};
  for (const condition c : {condition::io, condition::bad_data, condition::usage, condition::peer}) {
    if (e.code() == c) cause = c;
  }
  const std::error_code step = e.step();
  const auto* steps = step ? dynamic_cast<const step_category*>(&step.category()) : nullptr;
  return steps != nullptr ? steps->kind(step.value(), cause) : cause;
}

void outcome_throw_as_system_error_with_payload(const error& e) { throw std::system_error(e.code(), e.message()); }

}  // namespace blockwire
