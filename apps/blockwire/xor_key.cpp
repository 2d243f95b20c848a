#include "xor_key.hpp"

#include <blockwire/blockfiles/block_directory.hpp>

#include <filesystem>

namespace blockwire::cli {

result<XorKey> resolve_xor_key(const std::string& path, const std::string& hex_option) {
  if (!hex_option.empty()) return xor_key_from_hex(hex_option);
  return xor_key_for(path);
}

result<XorKey> key_for_writing(const std::string& dir, const std::string& hex_option) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!hex_option.empty() || fs::exists(fs::path(dir) / "xor.dat", ec)) return resolve_xor_key(dir, hex_option);
  if (fs::exists(dir, ec)) {
    auto files = block_files(dir);
    if (!files) return files.error();
    if (!files.value().empty()) return XorKey{};
  }
  return random_xor_key();
}

std::string xor_key_problem(const std::string& path, const std::string& hex_option, const error& e) {
  if (!hex_option.empty()) return "--xor-key takes 16 hex digits, not '" + hex_option + "' (" + e.message() + ")";
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path dir = fs::is_directory(path, ec) ? fs::path(path) : fs::path(path).parent_path();
  return (dir / "xor.dat").string() + ": " + e.code().message();
}

}  // namespace blockwire::cli
