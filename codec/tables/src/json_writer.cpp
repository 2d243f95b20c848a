#include <blockwire/tables/json_writer.hpp>

#include <rapidjson/filewritestream.h>
#include <rapidjson/prettywriter.h>

namespace blockwire::tables {

struct JsonWriter::State {
  explicit State(std::FILE* out) : stream(out, buffer, sizeof buffer), writer(stream) { writer.SetIndent(' ', 2); }
  char buffer[64 * 1024];
  rapidjson::FileWriteStream stream;
  rapidjson::PrettyWriter<rapidjson::FileWriteStream> writer;
};

JsonWriter::JsonWriter(std::FILE* out) : state_(std::make_unique<State>(out)) {}

JsonWriter::~JsonWriter() {
  state_->stream.Put('\n');
  state_->stream.Flush();
}

void JsonWriter::key(std::string_view k) { state_->writer.Key(k.data(), static_cast<rapidjson::SizeType>(k.size())); }
void JsonWriter::string(std::string_view s) { state_->writer.String(s.data(), static_cast<rapidjson::SizeType>(s.size())); }
void JsonWriter::uint(std::uint64_t v) { state_->writer.Uint64(v); }
void JsonWriter::integer(std::int64_t v) { state_->writer.Int64(v); }
void JsonWriter::number(double v) { state_->writer.Double(v); }
void JsonWriter::boolean(bool v) { state_->writer.Bool(v); }
void JsonWriter::raw_number(std::string_view text) { state_->writer.RawValue(text.data(), text.size(), rapidjson::kNumberType); }
void JsonWriter::begin_object() { state_->writer.StartObject(); }
void JsonWriter::end_object() { state_->writer.EndObject(); }
void JsonWriter::begin_array() { state_->writer.StartArray(); }
void JsonWriter::end_array() { state_->writer.EndArray(); }

}  // namespace blockwire::tables
