// blockwire rest: Bitcoin Core's REST interface over a blocks directory
// (rest::Service), served over HTTP (rest::HttpServer) until SIGINT or
// SIGTERM; blocks appended meanwhile are read within a second.
#include "commands.hpp"
#include "directory_options.hpp"
#include "text.hpp"

#include <blockwire/net.hpp>
#include <blockwire/rest.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

namespace blockwire::cli {

int rest_command(const RestOptions& o) {
  auto opened = open_directory("rest", o, true, true);
  if (const int* status = std::get_if<int>(&opened)) return *status;
  net::BlockStore store(std::get<BlocksDirectory>(std::move(opened)));
  if (auto filters = store.enable_filters(); !filters || !filters.value()) {
    std::fprintf(stderr, "blockwire rest: %s: no rev files: /rest/blockfilter and /rest/blockfilterheaders are not served\n",
                 o.dir.c_str());
  }
  const rest::Service service(store);
  const auto colon = o.listen.rfind(':');
  const std::string address = colon == std::string::npos ? o.listen : o.listen.substr(0, colon);
  const auto port = colon == std::string::npos ? 0 : std::strtoul(o.listen.c_str() + colon + 1, nullptr, 10);
  rest::HttpLimits limits;
  limits.threads = o.threads;
  std::string why;
  auto server = rest::HttpServer::listen(
      address.empty() ? "127.0.0.1" : address, static_cast<std::uint16_t>(port),
      [&service](std::string_view method, std::string_view target, std::string_view) {
        if (method != "GET") return rest::Response{405, "text/plain", "Method not allowed\r\n"};
        return service.get(target);
      },
      limits, &why);
  if (!server) {
    std::fprintf(stderr, "blockwire rest: %s\n", why.c_str());
    return usage_or_io;
  }
  std::printf("listening on %s\n", server.value().local_address().c_str());
  std::fflush(stdout);
  // Blocks a writer appends are picked up as serve picks them up.
  std::mutex m;
  std::condition_variable wake;
  bool done = false;
  std::thread refresher([&] {
    std::unique_lock lock(m);
    while (!wake.wait_for(lock, std::chrono::seconds(1), [&] { return done; })) (void)store.refresh();
  });
  const int signal = server.value().run();
  {
    std::lock_guard lock(m);
    done = true;
  }
  wake.notify_all();
  refresher.join();
  if (signal != 0) std::fprintf(stderr, "blockwire rest: %s: stopping\n", strsignal(signal));
  return ok;
}

}  // namespace blockwire::cli
