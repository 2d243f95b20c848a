#include "progress.hpp"
#include "text.hpp"

#include <cstdio>

namespace blockwire::cli {

Progress::Progress(bool enabled, std::uint64_t total_bytes, std::string unit)
    : enabled_(enabled), total_(total_bytes), unit_(std::move(unit)), start_(clock::now()) {}

bool Progress::due() {
  if (!enabled_) return false;
  const auto now = clock::now();
  if (now - last_ < std::chrono::milliseconds(200)) return false;
  last_ = now;
  return true;
}

void Progress::draw(double fraction, const std::string& text, std::optional<std::uint64_t> bytes) const {
  const double seconds = std::chrono::duration<double>(last_ - start_).count();
  std::fprintf(stderr, "\r[%-30.*s] %s", static_cast<int>(fraction * 30), "##############################", text.c_str());
  if (bytes) std::fprintf(stderr, "  %.0f MB/s", seconds > 0 ? static_cast<double>(*bytes) / seconds / 1e6 : 0.0);
  // (once a second's work says how fast it goes)
  if (seconds >= 1 && fraction > 0 && fraction < 1) std::fprintf(stderr, "  about %.0f s left", seconds * (1 - fraction) / fraction);
  std::fputc(' ', stderr);
}

void Progress::update_count(double fraction, std::uint64_t count) {
  if (!due()) return;
  const double seconds = std::chrono::duration<double>(last_ - start_).count();
  std::string text = with_commas(count) + " " + unit_ + "s";
  if (seconds > 0) text += "  " + with_commas(static_cast<std::uint64_t>(static_cast<double>(count) / seconds)) + " " + unit_ + "s/s";
  draw(fraction, text, std::nullopt);
}

void Progress::update(std::uint64_t done, std::uint64_t count) {
  if (!due()) return;
  const double fraction = total_ == 0 ? 1.0 : static_cast<double>(done) / static_cast<double>(total_);
  char percent[16];
  std::snprintf(percent, sizeof percent, "%3.0f%%", fraction * 100);
  std::string text = percent;
  text += "  ";
  text += count_of(count, unit_);
  draw(fraction, text, done);
}

void Progress::update(double fraction, std::uint64_t bytes, const std::string& text) {
  if (due()) draw(fraction, text, bytes);
}

void Progress::finish() {
  if (enabled_) std::fputs("\r\033[K", stderr);
}

}  // namespace blockwire::cli
