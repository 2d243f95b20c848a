// A progress bar on standard error, for long work on a terminal: the share
// done, a count, and the rate. Silent when disabled (not a terminal, JSON).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace blockwire::cli {

class Progress {
 public:
  Progress(bool enabled, std::uint64_t total_bytes, std::string unit);
  // `done` bytes of `total_bytes`, `count` of the unit so far; redraws at
  // most five times a second.
  void update(std::uint64_t done, std::uint64_t count);
  // The same bar for work measured otherwise: `fraction` done, `text` in
  // the middle, `bytes` so far for the rate.
  void update(double fraction, std::uint64_t bytes, const std::string& text);
  // Work that is not bytes: `count` of the unit so far, its rate per second.
  void update_count(double fraction, std::uint64_t count);
  // Clears the bar.
  void finish();

 private:
  using clock = std::chrono::steady_clock;
  bool due();  // enabled, and the last redraw a fifth of a second ago
  void draw(double fraction, const std::string& text, std::optional<std::uint64_t> bytes) const;
  bool enabled_;
  std::uint64_t total_;
  std::string unit_;
  clock::time_point start_;
  clock::time_point last_{};
};

}  // namespace blockwire::cli
