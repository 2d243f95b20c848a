// The shapes users want a chain in: bitcoin-etl's tables and Bitcoin Core's
// RPC JSON. Above the blocks directory; below the commands.
#pragma once

#include <blockwire/tables/core_json.hpp>
#include <blockwire/tables/etl_export.hpp>
#include <blockwire/tables/etl_rows.hpp>
#include <blockwire/tables/json_writer.hpp>
#include <blockwire/tables/text_out.hpp>
#include <blockwire/tables/utxo_table.hpp>
