// A blocks directory as a whole: its chain, its undo data, its filters.
// Above blockfiles, undo and filters; what the commands and net's server
// open a directory with.
#pragma once

#include <blockwire/directory/address_index.hpp>
#include <blockwire/directory/block_store.hpp>
#include <blockwire/directory/blocks_directory.hpp>
#include <blockwire/directory/chain_filters.hpp>
#include <blockwire/directory/chain_walk.hpp>
#include <blockwire/directory/core_chainstate.hpp>
#include <blockwire/directory/core_index.hpp>
#include <blockwire/directory/error.hpp>
#include <blockwire/directory/filter_file.hpp>
#include <blockwire/directory/pack.hpp>
#include <blockwire/directory/prune.hpp>
#include <blockwire/directory/scan.hpp>
#include <blockwire/directory/script_history.hpp>
#include <blockwire/directory/tx_index.hpp>
#include <blockwire/directory/utxo_store.hpp>
