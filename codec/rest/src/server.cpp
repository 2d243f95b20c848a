#include <blockwire/directory/utxo_store.hpp>
#include <blockwire/rest/server.hpp>

#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

namespace blockwire::rest {

std::string utxo_set_beside(const std::string& blocks_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path beside = (fs::path(blocks_dir) / ".." / "chainstate").lexically_normal();
  if (fs::is_directory(beside, ec)) return beside.string();
  if (fs::is_directory(UtxoStore::path_of(blocks_dir), ec)) return UtxoStore::path_of(blocks_dir);
  return {};
}

Server::Server(BlockStore& store, Indexes indexes, std::string utxo_set, const ServerOptions& options)
    : store_(store),
      indexes_(indexes),
      service_(store, Sources{indexes.transactions, std::move(utxo_set), indexes.addresses}),
      refresh_(options.refresh),
      new_tip_(options.new_tip) {}

result<std::unique_ptr<Server>> Server::listen(BlockStore& store, Indexes indexes, std::string utxo_set, const std::string& address,
                                               std::uint16_t port, const ServerOptions& options) {
  std::unique_ptr<Server> server(new Server(store, indexes, std::move(utxo_set), options));
  // (GET and HEAD, and POST: getutxos takes its outpoints posted, as in
  // Core; the HTTP server answers other methods 405)
  const Service& service = server->service_;
  auto http = HttpServer::listen(
      address, port, [&service](std::string_view, std::string_view target, std::string_view body) { return service.get(target, body); },
      options.limits, &Service::quick);
  if (!http) return http.error();
  server->http_.emplace(std::move(http).value());
  return server;
}

bool Server::run(int stop_fd) {
  // Blocks a writer appends are picked up as serve picks them up, and the
  // indexes follow; one that failed is tried again at every tick, not only
  // at the next block.
  std::mutex m;
  std::condition_variable wake;
  bool done = false;
  std::thread refresher([&] {
    bool tx_behind = false, addresses_behind = false;
    std::unique_lock lock(m);
    while (!wake.wait_for(lock, refresh_, [&] { return done; })) {
      const auto moved = store_.refresh();
      const bool tip_moved = moved && moved.value();
      if (indexes_.transactions != nullptr && (tip_moved || tx_behind)) {
        const auto reading = store_.lock();
        tx_behind = !indexes_.transactions->update(store_.directory());
      }
      if (indexes_.addresses != nullptr && (tip_moved || addresses_behind)) {
        const auto reading = store_.lock();
        addresses_behind = !indexes_.addresses->update(store_.directory());
      }
      if (tip_moved && new_tip_) {
        std::optional<Height> tip;
        {
          const auto reading = store_.lock();
          tip = store_.directory().chain_size().last();
        }
        new_tip_(tip);
      }
    }
  });
  const bool by_fd = http_->run(stop_fd);
  {
    const std::lock_guard lock(m);
    done = true;
  }
  wake.notify_all();
  refresher.join();
  return by_fd;
}

}  // namespace blockwire::rest
