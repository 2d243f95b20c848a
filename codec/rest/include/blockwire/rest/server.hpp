// blockwire's REST server whole: Core's REST answers (Service) over HTTP
// (HttpServer), the directory read again as a writer appends to it and the
// transaction index brought along, until stop() or a descriptor says so.
// What `blockwire rest` runs; a program embeds the same.
#pragma once

#include <blockwire/codec/height.hpp>
#include <blockwire/directory/address_index.hpp>
#include <blockwire/directory/block_store.hpp>
#include <blockwire/directory/tx_index.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/rest/http_server.hpp>
#include <blockwire/rest/rest_service.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace blockwire::rest {

// Where the UTXO set of a blocks directory is, for /rest/getutxos: a
// node's chainstate beside its blocks, else the one fetch keeps
// (UtxoStore::path_of); empty when there is none.
std::string utxo_set_beside(const std::string& blocks_dir);

// The indexes a server answers from and brings along as blocks come: a
// transaction index (none: every transaction "not found", as a node
// without -txindex) and an address index (none: Esplora's address routes
// answer 503).
struct Indexes {
  TxIndex* transactions = nullptr;
  AddressIndex* addresses = nullptr;
};

struct ServerOptions {
  HttpLimits limits;
  std::chrono::milliseconds refresh{1000};  // how often the directory is read again for blocks a writer appended
  // Called when the best chain's tip moved, once the indexes followed (its
  // height; none: no block), from the thread that reads the directory.
  std::function<void(std::optional<Height>)> new_tip;
};

class Server {
 public:
  // Listening on `address`:`port` (0: one the system chooses), answering
  // from `store` (opened with its undo data, filters enabled as wanted),
  // `indexes` and the UTXO set in `utxo_set` (empty: none). Errors as
  // HttpServer::listen's, the error's context saying which.
  static result<std::unique_ptr<Server>> listen(BlockStore& store, Indexes indexes, std::string utxo_set, const std::string& address,
                                                std::uint16_t port, const ServerOptions& options = {});
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  std::string local_address() const { return http_->local_address(); }
  // Serves, and reads the directory again every `refresh`, until stop()
  // or until `stop_fd` (a signalfd, an eventfd) is readable: whether the
  // descriptor stopped it. No signal is taken over (HttpServer::run).
  bool run(int stop_fd = -1);
  // From any thread.
  void stop() { http_->stop(); }

 private:
  Server(BlockStore& store, Indexes indexes, std::string utxo_set, const ServerOptions& options);

  BlockStore& store_;
  Indexes indexes_;
  Service service_;
  std::chrono::milliseconds refresh_;
  std::function<void(std::optional<Height>)> new_tip_;
  std::optional<HttpServer> http_;  // (after service_, which its handler answers through)
};

}  // namespace blockwire::rest
