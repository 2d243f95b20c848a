#include <blockwire/directory/error.hpp>

namespace blockwire::directory {

namespace {

const char* describe(int value) noexcept {
  switch (static_cast<errc>(value)) {
    case errc::no_undo_data: return "the scripts the block's inputs spend are not in the directory (it has no rev files)";
    case errc::no_chain: return "no chain: no block whose parent is all zeros";
  }
  return nullptr;
}

// Both are the data's: what the directory holds.
condition classify(int) noexcept { return condition::bad_data; }

}  // namespace

const std::error_category& category() noexcept {
  static const enum_category instance("blockwire.directory", describe, classify);
  return instance;
}

}  // namespace blockwire::directory
