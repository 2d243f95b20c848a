#include "progress.hpp"
#include "text.hpp"

#include <cstdio>

namespace blockwire::cli {

Progress::Progress(bool enabled, std::uint64_t total_bytes, std::string unit)
    : enabled_(enabled), total_(total_bytes), unit_(std::move(unit)), start_(clock::now()) {}

void Progress::update(std::uint64_t done, std::uint64_t count) {
  if (!enabled_) return;
  const auto now = clock::now();
  if (now - last_ < std::chrono::milliseconds(200)) return;
  last_ = now;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  const double fraction = total_ == 0 ? 1.0 : static_cast<double>(done) / static_cast<double>(total_);
  const int filled = static_cast<int>(fraction * 30);
  std::fprintf(stderr, "\r[%-30.*s] %3.0f%%  %s  %.0f MB/s ", filled, "##############################", fraction * 100,
               count_of(count, unit_).c_str(), seconds > 0 ? static_cast<double>(done) / seconds / 1e6 : 0.0);
}

void Progress::finish() {
  if (enabled_) std::fputs("\r\033[K", stderr);
}

}  // namespace blockwire::cli
