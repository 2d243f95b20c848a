// Bitcoin Core's REST interface (its doc/REST-interface.md), answered from
// a blocks directory: the same paths, formats (.bin, .hex, .json), status
// codes and error texts as Core's node gives for the same chain, with no
// node. Read-only; the directory is shared with other threads
// (net::BlockStore) and refreshed by its owner as blocks are appended.
#pragma once

#include <blockwire/net/serve.hpp>

#include <string>
#include <string_view>

namespace blockwire::rest {

struct Response {
  unsigned status = 200;
  std::string content_type;  // Core's: application/octet-stream, text/plain, application/json
  std::string body;
};

// The content type of Core's HTTP server for a path no route serves (its
// libevent's default), with status 404 and no body.
inline constexpr std::string_view no_route_content_type = "text/html; charset=ISO-8859-1";

class Service {
 public:
  // `store` opened with its undo data (prevouts, spent outputs) and, for
  // the block filters, enable_filters() called.
  explicit Service(net::BlockStore& store) : store_(store) {}

  // The answer to GET `target`: the path and query as the request line has
  // them ("/rest/block/HASH.json", "/rest/headers/HASH.bin?count=5").
  Response get(std::string_view target) const;

 private:
  net::BlockStore& store_;
};

}  // namespace blockwire::rest
