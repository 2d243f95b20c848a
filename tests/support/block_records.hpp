// Every event of a blk file, read with BlockFileReader: the records (offset
// and block bytes) and the skipped stretches. `decode_each`: a record whose
// block does not decode is rejected, and reading resynchronises.
#pragma once

#include <blockwire/blockfiles.hpp>
#include <blockwire/codec.hpp>
#include <blockwire/io.hpp>

#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace test {

struct Found {
  std::vector<std::pair<std::uint64_t, std::vector<std::byte>>> blocks;
  std::vector<blockwire::SkippedBytes> skipped;
};

inline Found read_records(const std::string& path, const blockwire::XorKey& key, bool decode_each = false) {
  auto file = blockwire::FileReader::open(path.c_str());
  REQUIRE(file);
  blockwire::BlockFileReader reader(file.value(), key);
  Found found;
  for (;;) {
    auto event = reader.next();
    REQUIRE(event);
    if (!event.value()) return found;
    if (auto* record = std::get_if<blockwire::BlockRecord>(&*event.value())) {
      if (decode_each && !blockwire::decode_block(record->bytes)) {
        reader.reject_last();
        continue;
      }
      found.blocks.emplace_back(record->offset, std::vector<std::byte>(record->bytes.begin(), record->bytes.end()));
    } else {
      found.skipped.push_back(std::get<blockwire::SkippedBytes>(*event.value()));
    }
  }
}

}  // namespace test
