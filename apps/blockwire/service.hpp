// What a server tells systemd when it runs as a Type=notify unit
// (sd_notify: READY once it listens, STATUS with the tip, STOPPING on its
// way out), and the level prefix journald reads off a line of standard
// error. Outside systemd (no NOTIFY_SOCKET, no JOURNAL_STREAM) both are
// nothing.
#pragma once

#include <blockwire/codec/height.hpp>

#include <optional>
#include <string>

namespace blockwire::cli::service {

// READY=1 with a status line.
void ready(const std::string& status);
void status(const std::string& status);
void stopping();

// "DIR (regtest): 101 blocks, tip 100": the status line of a server.
std::string tip_status(const std::string& dir, const std::string& network, std::optional<Height> tip);

// syslog's levels, as sd-daemon.h prefixes them.
enum class level { error = 3, warning = 4, notice = 5, info = 6 };
// "<N>" when standard error is the journal's stream (systemd sets
// JOURNAL_STREAM to its device and inode), else "".
const char* prefix(level l);

}  // namespace blockwire::cli::service
