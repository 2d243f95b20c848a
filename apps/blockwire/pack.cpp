// blockwire pack: blocks (raw or hex files) into Core-style blk files.
#include "commands.hpp"
#include "input.hpp"

#include <blockwire/blockfiles.hpp>
#include <blockwire/codec.hpp>

#include <cstdio>
#include <filesystem>

namespace blockwire::cli {

int pack(const PackOptions& o) {
  namespace fs = std::filesystem;
  std::error_code ec;
  auto existing = fs::exists(o.output_dir, ec) ? block_files(o.output_dir) : result<std::vector<std::string>>(std::vector<std::string>{});
  if (!existing) {
    std::fprintf(stderr, "blockwire pack: %s: %s\n", o.output_dir.c_str(), existing.error().message().c_str());
    return usage_or_io;
  }
  if (!existing.value().empty() && !o.append) {
    std::fprintf(stderr, "blockwire pack: %s already has blk files; pass --append to add to them\n", o.output_dir.c_str());
    return usage_or_io;
  }

  // The key: given, or random on request, or the directory's own, or (a new
  // directory) random, as Bitcoin Core 28 and later choose.
  XorKey key{};
  if (!o.xor_key.empty()) {
    auto parsed = xor_key_from_hex(o.xor_key);
    if (!parsed) {
      std::fprintf(stderr, "blockwire pack: --xor-key takes 16 hex digits, not '%s'\n", o.xor_key.c_str());
      return usage_or_io;
    }
    key = parsed.value();
  } else if (o.random_key) {
    key = random_xor_key();
  } else if (fs::exists(fs::path(o.output_dir) / "xor.dat", ec)) {
    auto stored = read_xor_key(o.output_dir);
    if (!stored) {
      std::fprintf(stderr, "blockwire pack: %s/xor.dat: %s\n", o.output_dir.c_str(), stored.error().message().c_str());
      return usage_or_io;
    }
    key = stored.value();
  } else if (existing.value().empty()) {
    key = random_xor_key();
  }

  auto writer = BlockFileWriter::open(o.output_dir, key, o.net);
  if (!writer) {
    std::fprintf(stderr, "blockwire pack: cannot write to %s: %s%s\n", o.output_dir.c_str(), writer.error().message().c_str(),
                 writer.error().code() == errc::bad_argument ? " (its blk files use another XOR key)" : "");
    return usage_or_io;
  }
  std::uint64_t bytes = 0;
  BlockPosition last{};
  for (const std::string& input : o.inputs) {
    auto raw = read_input(input);
    if (!raw) {
      std::fprintf(stderr, "blockwire pack: cannot read %s: %s\n", input.c_str(), raw.error().message().c_str());
      return usage_or_io;
    }
    const auto block_bytes = decode_if_hex(std::move(raw).value());
    auto block = decode_block(block_bytes);
    if (!block) {
      std::fprintf(stderr, "blockwire pack: %s is not a block: %s\n", input.c_str(), block.error().message().c_str());
      return bad_data;
    }
    auto at = writer.value().append(block_bytes);
    if (!at) {
      std::fprintf(stderr, "blockwire pack: writing %s: %s (the record for %s was not completed)\n", o.output_dir.c_str(),
                   at.error().message().c_str(), input.c_str());
      return usage_or_io;
    }
    last = at.value();
    bytes += block_bytes.size();
  }
  if (auto r = writer.value().close(); !r) {
    std::fprintf(stderr, "blockwire pack: closing the last blk file: %s\n", r.error().message().c_str());
    return usage_or_io;
  }
  std::printf("packed %zu block%s (%s bytes) into %s, blk00000.dat to %s, network %s, XOR key %s\n", o.inputs.size(),
              o.inputs.size() == 1 ? "" : "s", with_commas(bytes).c_str(), o.output_dir.c_str(), block_file_name(last.file).c_str(),
              std::string(name(o.net)).c_str(), to_hex(key).c_str());
  return ok;
}

}  // namespace blockwire::cli
