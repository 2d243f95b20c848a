// blockwire's codec: Bitcoin blocks, headers and transactions, and the
// compiled entry points that encode and decode them. The wire toolkit, for
// writing formats of your own, is <blockwire/codec/wire.hpp> (opt-in).
#pragma once

#include <blockwire/codec/block.hpp>
#include <blockwire/codec/check.hpp>
#include <blockwire/codec/decode_error.hpp>
#include <blockwire/codec/encoding.hpp>
#include <blockwire/codec/hashes.hpp>
#include <blockwire/codec/network.hpp>
#include <blockwire/codec/transaction.hpp>
#include <blockwire/codec/view.hpp>
#include <blockwire/io/hash256.hpp>
