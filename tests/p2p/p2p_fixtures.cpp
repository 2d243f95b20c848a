// For tests/p2p/bitcoinlib_check.py: `write DIR` writes each sample message
// as blockwire encodes it (DIR/COMMAND.bin); `read FILE` decodes a message
// and prints its fields as JSON, for python-bitcoinlib's values to compare.
#include <blockwire/io.hpp>
#include <blockwire/p2p.hpp>

#include <nlohmann/json.hpp>

#include "samples.hpp"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>

using namespace blockwire;
using namespace blockwire::p2p;

namespace {

nlohmann::json items_json(const std::vector<InvItem>& items) {
  nlohmann::json out = nlohmann::json::array();
  for (const InvItem& i : items) out.push_back({{"type", i.type}, {"hash", i.hash.to_hex()}});
  return out;
}

nlohmann::json fields(const Message& m) {
  nlohmann::json j{{"command", std::string(command(m))}};
  if (const auto* v = std::get_if<Version>(&m)) {
    j.update({{"version", v->version},
              {"services", v->services},
              {"timestamp", v->timestamp},
              {"receiver_port", v->receiver.port},
              {"nonce", v->nonce},
              {"user_agent", v->user_agent},
              {"start_height", v->start_height},
              {"relay", v->relay.value_or(false)}});
  } else if (const auto* p = std::get_if<Ping>(&m)) {
    j["nonce"] = p->nonce;
  } else if (const auto* p = std::get_if<Pong>(&m)) {
    j["nonce"] = p->nonce;
  } else if (const auto* i = std::get_if<Inv>(&m)) {
    j["items"] = items_json(i->items);
  } else if (const auto* i = std::get_if<GetData>(&m)) {
    j["items"] = items_json(i->items);
  } else if (const auto* i = std::get_if<NotFound>(&m)) {
    j["items"] = items_json(i->items);
  } else if (const auto* g = std::get_if<GetHeaders>(&m)) {
    j["locator"] = nlohmann::json::array();
    for (const auto& h : g->locator) j["locator"].push_back(h.to_hex());
    j["stop"] = g->stop.to_hex();
  } else if (const auto* g = std::get_if<GetBlocks>(&m)) {
    j["locator"] = nlohmann::json::array();
    for (const auto& h : g->locator) j["locator"].push_back(h.to_hex());
    j["stop"] = g->stop.to_hex();
  } else if (const auto* b = std::get_if<BlockMessage>(&m)) {
    j.update({{"hash", block_hash(b->block.header).to_hex()}, {"tx_count", b->block.transactions.size()}});
  } else if (const auto* t = std::get_if<TxMessage>(&m)) {
    j.update({{"txid", t->tx.txid().to_hex()}, {"wtxid", t->tx.wtxid().to_hex()}});
  } else if (const auto* r = std::get_if<Reject>(&m)) {
    j.update({{"message", r->message}, {"code", r->code}, {"reason", r->reason}, {"data", r->data ? r->data->to_hex() : ""}});
  } else if (const auto* a = std::get_if<Addr>(&m)) {
    j["addresses"] = nlohmann::json::array();
    for (const TimedAddress& t : a->addresses)
      j["addresses"].push_back(
          {{"time", t.time}, {"services", t.address.services}, {"ip", to_hex(t.address.ip)}, {"port", t.address.port}});
  } else if (const auto* c = std::get_if<CmpctBlock>(&m)) {
    j.update({{"hash", block_hash(c->header).to_hex()}, {"nonce", c->nonce}, {"short_ids", c->short_ids}});
  }
  return j;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  const std::string what = argv[1];
  if (what == "write") {
    for (const Message& m : test::p2p_samples()) {
      std::vector<std::byte> bytes;
      encode_message(m, network::mainnet, bytes);
      std::ofstream(std::string(argv[2]) + "/" + std::string(command(m)) + ".bin", std::ios::binary)
          .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    }
    return 0;
  }
  std::ifstream in(argv[2], std::ios::binary);
  const std::vector<char> raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto decoded = decode_message(std::as_bytes(std::span(raw.data(), raw.size())), network::mainnet);
  if (!decoded) {
    std::cout << nlohmann::json{{"error", decoded.error().message()}}.dump() << '\n';
    return 1;
  }
  std::cout << fields(decoded.value()).dump() << '\n';
  return 0;
}
