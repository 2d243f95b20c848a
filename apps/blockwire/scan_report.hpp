// What `blockwire scan` found (ScanResult), in its two report formats.
#pragma once

#include <blockwire/directory/scan.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace blockwire::cli {

void print_text_report(const ScanResult& r);
void print_json_report(const ScanResult& r);

}  // namespace blockwire::cli
