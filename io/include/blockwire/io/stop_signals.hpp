// SIGINT and SIGTERM for a server or a long job: blocked in this thread
// (and every thread started after, which inherits the mask) and delivered
// through a signalfd it waits on (net::Server::run, rest::Server::run,
// net::fetch's stop_fd ...), so that it stops by its own path. Before this
// a signal ends the process at once: for a program that has written
// nothing yet, the right end.
#pragma once

#include <blockwire/io/file_descriptor.hpp>

#include <string>

namespace blockwire {

// The descriptor (invalid, errno set, when the system refused one).
FileDescriptor block_stop_signals();
// The name of the signal the descriptor holds ("Terminated"), read from
// it; empty when none arrived (the server was stopped otherwise).
std::string stop_signal_name(const FileDescriptor& signals);

}  // namespace blockwire
