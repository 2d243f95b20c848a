// A fresh directory under the system's temporary directory, removed with
// everything in it when the object goes.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

namespace test {

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string templ = (std::filesystem::temp_directory_path() / "blockwire-test-XXXXXX").string();
    REQUIRE(::mkdtemp(templ.data()) != nullptr);
    path = templ;
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path / name).string(); }
};

// The user's cache in a temporary folder while it lives ($XDG_CACHE_HOME):
// where a node's directory has its kept index.
struct CacheAt {
  TempDir dir;
  std::optional<std::string> before;
  CacheAt() {
    if (const char* was = std::getenv("XDG_CACHE_HOME")) before = was;
    ::setenv("XDG_CACHE_HOME", dir.path.c_str(), 1);
  }
  ~CacheAt() {
    if (before) {
      ::setenv("XDG_CACHE_HOME", before->c_str(), 1);
    } else {
      ::unsetenv("XDG_CACHE_HOME");
    }
  }
  CacheAt(const CacheAt&) = delete;
  CacheAt& operator=(const CacheAt&) = delete;
};

}  // namespace test
