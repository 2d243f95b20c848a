// blockwire's Electrum server whole: the protocol's answers (Service) over
// TCP, a line of JSON-RPC a request, the directory read again as a writer
// appends to it, the indexes brought along and every subscriber told of a
// new tip and of its scripthashes' new statuses. What `blockwire electrum`
// runs; a program embeds the same.
#pragma once

#include <blockwire/codec/height.hpp>
#include <blockwire/electrum/service.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/net/connection.hpp>
#include <blockwire/net/endpoint.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace blockwire::electrum {

// What one client may take of the server, as the public servers bound it.
struct Limits {
  unsigned threads = 0;                  // answering threads (0: one a core)
  std::size_t max_connections = 10'000;  // past it, a newcomer is closed at once
  std::size_t max_per_address = 64;      // connections from one IP address
  std::size_t max_line = 4 << 20;        // bytes of one request line (a batch's); longer: an error, then closed
  std::size_t max_unsent = 32 << 20;     // answers and notifications waiting for a client that does not read: past it, closed
  std::chrono::seconds idle{600};        // a connection that sends nothing this long is closed (clients ping every minute or so)
};

// TLS on a port of its own (Electrum's clients ask for "s" or "t"), as
// ElectrumX serves 50002 beside 50001.
struct Tls {
  std::string address;      // an IP address
  std::uint16_t port = 0;   // (0: one the system chooses)
  std::string certificate;  // PEM: the server's certificate (chain)
  std::string key;          // PEM: its private key
};

// The node whose directory is served, over P2P: its mempool followed (the
// transactions it announces), and broadcasts handed to it.
struct NodePeerOptions {
  net::Endpoint peer;
  net::transport preferred = net::transport::v2;  // v1 when the node speaks only that, as fetch does
  std::chrono::seconds broadcast_timeout{30};     // for the node to announce a transaction broadcast
  std::chrono::seconds retry{5};                  // between attempts to reach the node
  std::function<void(const std::string&)> log;    // a line an event (connected, lost); from the peer's thread
};

struct ServerOptions {
  ServiceOptions service;
  std::optional<Tls> tls;
  std::optional<NodePeerOptions> node;  // none: confirmed transactions only, and no broadcast
  Limits limits;
  std::chrono::milliseconds refresh{1000};  // how often the directory is read again for appended blocks
  // Called when the best chain's tip moved, once the indexes followed and
  // subscribers were told (its height; none: no block), from the thread
  // that reads the directory.
  std::function<void(std::optional<Height>)> new_tip;
};

class Server {
 public:
  // Listening on `address`:`port` (0: one the system chooses), answering
  // from `store` (opened with its undo data) and the indexes, which run()
  // brings to each new tip. Errors: an address that is not an IP address,
  // a certificate or key that does not load (std::errc::invalid_argument),
  // the socket's, the context saying which.
  static result<std::unique_ptr<Server>> listen(BlockStore& store, TxIndex* transactions, AddressIndex& addresses,
                                                const std::string& address, std::uint16_t port, const ServerOptions& options = {});
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;
  ~Server();

  std::string local_address() const;
  std::string tls_address() const;  // (empty without TLS)
  // Serves until stop() or until `stop_fd` (a signalfd, an eventfd) is
  // readable: whether the descriptor stopped it.
  bool run(int stop_fd = -1);
  void stop();
  std::size_t connections() const noexcept;

  struct State;

 private:
  explicit Server(std::unique_ptr<State> state) noexcept;
  std::unique_ptr<State> state_;
};

}  // namespace blockwire::electrum
