// JSON written as a stream (RapidJSON's PrettyWriter over a buffered FILE*,
// behind this compiled interface): no document tree, so memory does not
// grow with what is written.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace blockwire::tables {

class JsonWriter {
 public:
  // `pretty`: indented (the command's output); else compact, as Core's
  // UniValue::write (its REST answers).
  explicit JsonWriter(std::FILE* out = stdout, bool pretty = true);
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;
  // Ends the document with a newline and hands what is buffered to the file.
  ~JsonWriter();

  void key(std::string_view k);
  void string(std::string_view s);
  void uint(std::uint64_t v);
  void integer(std::int64_t v);
  void number(double v);
  void boolean(bool v);
  void null();
  // A number written exactly as given (an amount with 8 decimals).
  void raw_number(std::string_view text);
  // An object's member: its key, then its value.
  void member_string(std::string_view k, std::string_view v) {
    key(k);
    string(v);
  }
  void member_uint(std::string_view k, std::uint64_t v) {
    key(k);
    uint(v);
  }
  void member_integer(std::string_view k, std::int64_t v) {
    key(k);
    integer(v);
  }
  void member_number(std::string_view k, double v) {
    key(k);
    number(v);
  }
  void member_boolean(std::string_view k, bool v) {
    key(k);
    boolean(v);
  }
  void member_raw_number(std::string_view k, std::string_view text) {
    key(k);
    raw_number(text);
  }
  void begin_object();
  void end_object();
  void begin_array();
  void end_array();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// What `write` writes, compact, as text (ending in its newline): an
// answer to send, a value to hand another language. Empty when memory
// for it could not be had.
std::string json_text(const std::function<void(JsonWriter&)>& write);
// The same without the newline: a value to put inside other JSON (an
// element of a page, a JSON-RPC result).
std::string json_value(const std::function<void(JsonWriter&)>& write);

}  // namespace blockwire::tables
