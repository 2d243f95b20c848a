// getdeploymentinfo's object for a block of a directory's chain: the soft
// forks each network has (buried at a height, or BIP9 version-bits
// deployments with their state machine, counted from the blocks' versions)
// and the script flags they give the block, as Core v30's chain parameters
// set them.
#pragma once

#include <blockwire/blockfiles/block_index.hpp>
#include <blockwire/codec/network.hpp>
#include <blockwire/tables/json_writer.hpp>

#include <cstdint>
#include <functional>
#include <optional>

namespace blockwire::rest::detail {

// A block's version, read from its header (nothing: it could not be read).
using VersionOf = std::function<std::optional<std::int32_t>(const IndexedBlock&)>;

// Writes {"hash", "height", "script_flags", "deployments"} for `block` of
// `chain` (on its best chain or not: its own ancestors count). False when
// a version could not be read.
bool write_deployment_info(tables::JsonWriter& out, const BlockIndex& chain, const IndexedBlock& block, network net,
                           const VersionOf& version_of);

}  // namespace blockwire::rest::detail
