// blockwire's codec: Bitcoin blocks, headers and transactions, and the
// compiled entry points that encode and decode them. Opt-in, so that a
// program that does not use them does not compile them: the wire toolkit
// (<blockwire/codec/wire.hpp>) and scripts, addresses and descriptors
// (script.hpp, address.hpp, descriptor.hpp).
#pragma once

#include <blockwire/codec/block.hpp>
#include <blockwire/codec/check.hpp>
#include <blockwire/codec/work.hpp>
#include <blockwire/codec/decode_error.hpp>
#include <blockwire/codec/encoding.hpp>
#include <blockwire/codec/hashes.hpp>
#include <blockwire/codec/network.hpp>
#include <blockwire/codec/transaction.hpp>
#include <blockwire/codec/view.hpp>
#include <blockwire/io/hash256.hpp>
