// Output descriptors as Bitcoin Core infers them for an output script with
// no key information (the "desc" of getblock and decodescript): pk(),
// multi(), rawtr(), addr(), raw(); with the BIP380 checksum.
#pragma once

#include <blockwire/codec/network.hpp>

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace blockwire {

// "addr(bc1q...)#checksum", "pk(02...)#checksum", ...
std::string infer_descriptor(std::span<const std::byte> script, network net);

// BIP380's 8-character checksum of a descriptor (without its '#'), or an
// empty string when it holds a character outside the descriptor alphabet.
std::string descriptor_checksum(std::string_view descriptor);

}  // namespace blockwire
