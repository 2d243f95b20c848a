// JSON written as a stream to standard output (RapidJSON's PrettyWriter
// over a FileWriteStream): no document tree, so memory does not grow with
// what is printed.
#pragma once

#include <rapidjson/filewritestream.h>
#include <rapidjson/prettywriter.h>

#include <cstdint>
#include <cstdio>
#include <string_view>

namespace blockwire::cli {

class JsonOutput {
 public:
  JsonOutput() : stream_(stdout, buffer_, sizeof buffer_), writer_(stream_) { writer_.SetIndent(' ', 2); }
  JsonOutput(const JsonOutput&) = delete;
  JsonOutput& operator=(const JsonOutput&) = delete;
  // Ends the document with a newline and hands what is buffered to stdout.
  ~JsonOutput() {
    stream_.Put('\n');
    stream_.Flush();
  }

  void key(std::string_view k) { writer_.Key(k.data(), static_cast<rapidjson::SizeType>(k.size())); }
  void string(std::string_view s) { writer_.String(s.data(), static_cast<rapidjson::SizeType>(s.size())); }
  void uint(std::uint64_t v) { writer_.Uint64(v); }
  void integer(std::int64_t v) { writer_.Int64(v); }
  void number(double v) { writer_.Double(v); }
  void boolean(bool v) { writer_.Bool(v); }
  // A number written exactly as given (an amount with 8 decimals).
  void raw_number(std::string_view text) { writer_.RawValue(text.data(), text.size(), rapidjson::kNumberType); }
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
  void begin_object() { writer_.StartObject(); }
  void end_object() { writer_.EndObject(); }
  void begin_array() { writer_.StartArray(); }
  void end_array() { writer_.EndArray(); }

 private:
  char buffer_[64 * 1024];
  rapidjson::FileWriteStream stream_;
  rapidjson::PrettyWriter<rapidjson::FileWriteStream> writer_;
};

}  // namespace blockwire::cli
