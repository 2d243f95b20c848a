// A new UTXO set copied from Bitcoin Core's chainstate beside the blocks
// directory (UtxoStore::State::import_core_chainstate).
#include "leveldb_snapshot.hpp"
#include "utxo_store_state.hpp"

#include <blockwire/directory/core_chainstate.hpp>
#include <blockwire/directory/error.hpp>

#include <leveldb/db.h>
#include <leveldb/write_batch.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>

namespace blockwire {

namespace {

namespace fs = std::filesystem;
using detail::leveldb_failure;

using utxo_detail::key_of;

}  // namespace

result<void> UtxoStore::State::import_core_chainstate(const BlockIndex& chain) {
  const std::string chainstate = (fs::path(dir) / ".." / "chainstate").lexically_normal().string();
  std::error_code ec;
  if (!fs::is_directory(chainstate, ec)) return success();
  auto at = read_core_best_block(chainstate);
  if (!at || !at.value()) return success();  // not a chainstate, or one in the middle of a flush
  const auto b = chain.find(*at.value());
  if (!b || !b->linked) return success();
  leveldb::WriteBatch batch;
  std::optional<error> failure;
  std::uint64_t coins = 0;
  auto read = read_core_utxo_set(chainstate, [&](const CoreCoin& c) {
    if (failure) return;
    batch.Put(key_of(c.outpoint), leveldb::Slice(reinterpret_cast<const char*>(c.stored.data()), c.stored.size()));
    if (batch.ApproximateSize() > (std::size_t{16} << 20)) {
      if (const leveldb::Status st = db->Write(leveldb::WriteOptions(), &batch); !st.ok()) failure = leveldb_failure(st);
      batch.Clear();
    }
    if (++coins % 65536 == 0 && options.import_progress) {
      const auto top = c.outpoint.txid.bytes();
      options.import_progress({coins, static_cast<double>(std::to_integer<unsigned>(top[0])) / 256.0});
    }
  });
  if (!read) return read.error().in(chainstate);
  if (failure) return *failure;
  if (read.value().best_block != b->hash) {  // (the same snapshot's: read again, the key moved)
    return error(directory::errc::chainstate_changed).in(chainstate);
  }
  if (const leveldb::Status st = db->Write(leveldb::WriteOptions(), &batch); !st.ok()) return leveldb_failure(st);
  if (options.import_progress) options.import_progress({coins, 1.0});
  best = b->hash;
  best_height = b->height;
  opening.imported_from = chainstate;
  opening.coins_imported = coins;
  return success();
}

}  // namespace blockwire
