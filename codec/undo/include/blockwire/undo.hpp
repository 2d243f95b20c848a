// Undo data: Bitcoin Core's rev*.dat files and the CBlockUndo records in
// them. A library on the public API of io, codec and block files.
#pragma once

#include <blockwire/undo/block_undo.hpp>
#include <blockwire/undo/error.hpp>
#include <blockwire/undo/rev_files.hpp>
