#include <blockwire/directory/chain_filters.hpp>
#include <blockwire/directory/error.hpp>
#include <blockwire/filters.hpp>
#include <blockwire/undo.hpp>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace blockwire {

namespace {

struct Made {
  std::optional<filters::GcsFilter> filter;
  std::optional<error> failure;
  std::size_t bytes = 0;  // of the block, for the rate
};

Made make_one(const BlocksDirectory& dir, Height height) {
  const IndexedBlock b = dir.at_height(height);
  Made out;
  auto filter = dir.basic_filter(b, &out.bytes);
  if (filter) {
    out.filter = std::move(filter).value();
    return out;
  }
  const std::string block = "block " + to_string(height) + " (" + b.hash.to_hex() + ")";
  error cause = filter.error();
  if (cause.code() == directory::errc::no_undo_data) {
    cause = cause.in(block + " (" + undo_file_name(b.file) + " would hold them)");
  } else if (cause.code().category() == undo::category()) {
    cause = cause.in(block + ": its undo data (" + undo_file_name(b.file) + ")");
  } else {
    cause = cause.in(dir.index().file_path(b.file) + ":" + std::to_string(b.offset) + ": block " + to_string(height));
  }
  out.failure = cause.at_step(chain_filters_step::block);
  return out;
}

const char* describe_step(int value) noexcept {
  switch (static_cast<chain_filters_step>(value)) {
    case chain_filters_step::block: return "making a block's filter";
    case chain_filters_step::filter_file: return "the filter file";
  }
  return nullptr;
}

// The filter file is the directory's own, made by us: what it holds that
// cannot be read is no damage of the chain's to report as such.
condition step_kind(int value, condition cause) noexcept {
  const bool file = static_cast<chain_filters_step>(value) == chain_filters_step::filter_file;
  return file && cause == condition::bad_data ? condition::usage : cause;
}

}  // namespace

const std::error_category& chain_filters_step_category() noexcept {
  static const step_category instance("blockwire.directory.chain_filters_step", describe_step, step_kind);
  return instance;
}

ChainFiltersMade make_chain_filters(const BlocksDirectory& dir, FilterFile& file, const ChainFilters& spec) {
  ChainFiltersMade out;
  const auto failed = [&](Height height, const error& e) {
    out.end = BlockCount(height.to_wire());
    out.failure = e;
    return out;
  };
  const BlockCount tip = dir.chain_size();
  const std::uint64_t end = spec.end.empty() ? tip.value() : std::min(tip, spec.end).value();
  std::vector<Hash256> headers;  // every height's filter header so far
  for (const Height h : file.size().heights()) headers.push_back(file.header(h));
  const BlockCount held(std::min(file.size().value(), end));
  for (const Height height : held.heights(spec.from)) {
    auto filter = file.filter(height);
    if (!filter) return failed(height, filter.error().at_step(chain_filters_step::filter_file));
    if (spec.each) spec.each(height, file.block(height), filter.value(), headers[height.to_wire()]);
  }
  const unsigned threads = spec.threads != 0 ? spec.threads : std::max(1u, std::thread::hardware_concurrency());
  const std::size_t batch = 64 * std::size_t{threads};
  std::vector<Made> results(batch);
  std::uint64_t block_bytes = 0;
  for (std::uint64_t first = held.value(); first < end; first += batch) {
    if (spec.progress) spec.progress(first - held.value(), end - held.value(), block_bytes);
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(batch, end - first));
    std::atomic<std::size_t> next{0};
    const auto work = [&] {
      for (std::size_t i; (i = next.fetch_add(1)) < n;) results[i] = make_one(dir, *Height::checked(first + i));
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads && t < n; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    for (std::size_t i = 0; i < n; ++i) {
      const Height height = *Height::checked(first + i);
      Made& r = results[i];
      if (!r.filter) return failed(height, *r.failure);
      const BlockHash block = dir.at_height(height).hash;
      headers.push_back(filters::filter_header(filters::filter_hash(*r.filter), headers.empty() ? Hash256{} : headers.back()));
      if (spec.keep) {
        if (auto w = file.append(block, r.filter->encoded()); !w) return failed(height, w.error().at_step(chain_filters_step::filter_file));
      }
      if (spec.each && height >= spec.from) spec.each(height, block, r.filter->encoded(), headers.back());
      block_bytes += r.bytes;
      r.filter.reset();
    }
  }
  out.end = BlockCount(end);
  return out;
}

}  // namespace blockwire
