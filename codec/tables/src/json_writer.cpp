#include <blockwire/tables/json_writer.hpp>

#include <rapidjson/filewritestream.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/writer.h>

#include <cstdio>
#include <cstdlib>

namespace blockwire::tables {

struct JsonWriter::State {
  State(std::FILE* out, bool indent) : stream(out, buffer, sizeof buffer), pretty(stream), compact(stream), indented(indent) {
    pretty.SetIndent(' ', 2);
  }
  char buffer[64 * 1024];
  rapidjson::FileWriteStream stream;
  rapidjson::PrettyWriter<rapidjson::FileWriteStream> pretty;
  rapidjson::Writer<rapidjson::FileWriteStream> compact;
  bool indented;
  // The same call on the writer in use.
  template <class F>
  void on(F&& f) {
    if (indented) {
      f(pretty);
    } else {
      f(compact);
    }
  }
};

JsonWriter::JsonWriter(std::FILE* out, bool pretty) : state_(std::make_unique<State>(out, pretty)) {}

JsonWriter::~JsonWriter() {
  state_->stream.Put('\n');
  state_->stream.Flush();
}

void JsonWriter::key(std::string_view k) {
  state_->on([&](auto& w) { w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size())); });
}
void JsonWriter::string(std::string_view s) {
  state_->on([&](auto& w) { w.String(s.data(), static_cast<rapidjson::SizeType>(s.size())); });
}
void JsonWriter::uint(std::uint64_t v) {
  state_->on([&](auto& w) { w.Uint64(v); });
}
void JsonWriter::integer(std::int64_t v) {
  state_->on([&](auto& w) { w.Int64(v); });
}
void JsonWriter::number(double v) {
  state_->on([&](auto& w) { w.Double(v); });
}
void JsonWriter::boolean(bool v) {
  state_->on([&](auto& w) { w.Bool(v); });
}
void JsonWriter::null() {
  state_->on([](auto& w) { w.Null(); });
}
void JsonWriter::raw_number(std::string_view text) {
  state_->on([&](auto& w) { w.RawValue(text.data(), text.size(), rapidjson::kNumberType); });
}
void JsonWriter::begin_object() {
  state_->on([](auto& w) { w.StartObject(); });
}
void JsonWriter::end_object() {
  state_->on([](auto& w) { w.EndObject(); });
}
void JsonWriter::begin_array() {
  state_->on([](auto& w) { w.StartArray(); });
}
void JsonWriter::end_array() {
  state_->on([](auto& w) { w.EndArray(); });
}

std::string json_text(const std::function<void(JsonWriter&)>& write) {
  char* buffer = nullptr;
  std::size_t size = 0;
  std::FILE* memory = ::open_memstream(&buffer, &size);
  if (memory == nullptr) return {};
  {
    JsonWriter out(memory, false);
    write(out);
  }  // (the writer ends the document with its newline)
  std::fclose(memory);
  std::string text(buffer, size);
  std::free(buffer);
  return text;
}

std::string json_value(const std::function<void(JsonWriter&)>& write) {
  std::string text = json_text(write);
  if (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

}  // namespace blockwire::tables
