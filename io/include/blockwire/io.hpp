// blockwire's io layer: writers, readers, buffers, sinks and sources.
// Nothing here knows about Bitcoin.
#pragma once

#include <blockwire/io/buffered_reader.hpp>
#include <blockwire/io/buffered_writer.hpp>
#include <blockwire/io/decoding_context.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/direct_file.hpp>
#include <blockwire/io/file.hpp>
#include <blockwire/io/file_descriptor.hpp>
#include <blockwire/io/hash256.hpp>
#include <blockwire/io/hex.hpp>
#include <blockwire/io/number_text.hpp>
#include <blockwire/io/reader.hpp>
#include <blockwire/io/sha256.hpp>
#include <blockwire/io/siphash.hpp>
#include <blockwire/io/socket.hpp>
#include <blockwire/io/span_reader.hpp>
#include <blockwire/io/span_writer.hpp>
#include <blockwire/io/stop_signals.hpp>
#include <blockwire/io/user_input.hpp>
#include <blockwire/io/vector_writer.hpp>
#include <blockwire/io/writer.hpp>
#include <blockwire/io/xor.hpp>
