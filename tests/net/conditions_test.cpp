// Every layer's codes fall in one of the four conditions, so that a caller
// asks `code == condition::bad_data` whatever the layer; real failures
// (a file not there, bytes cut short, a peer gone) land where they should.
#include <blockwire/directory.hpp>
#include <blockwire/codec/address.hpp>
#include <blockwire/codec/check.hpp>
#include <blockwire/net.hpp>

#include <doctest/doctest.h>

#include <filesystem>

using namespace blockwire;

TEST_CASE("conditions: each layer's codes compare equal to their condition, and to no other") {
  const auto only = [](std::error_code code, condition c) {
    CAPTURE(code.message());
    for (const condition other : {condition::io, condition::bad_data, condition::usage, condition::peer}) {
      CHECK((code == other) == (other == c));
    }
  };
  only(make_error_code(io::errc::truncated), condition::bad_data);
  only(make_error_code(io::errc::no_room), condition::usage);
  only(make_error_code(io::errc::locked), condition::io);
  only(make_error_code(codec::errc::trailing_bytes), condition::bad_data);
  only(make_error_code(check::errc::bad_merkle_root), condition::bad_data);
  only(make_error_code(address::errc::bad_bech32), condition::bad_data);
  only(make_error_code(p2p::errc::bad_checksum), condition::bad_data);
  only(make_error_code(blockfiles::errc::bad_magic), condition::bad_data);
  only(make_error_code(blockfiles::errc::directory_locked), condition::io);
  only(make_error_code(blockfiles::errc::key_mismatch), condition::usage);
  only(make_error_code(undo::errc::no_record), condition::bad_data);
  only(make_error_code(directory::errc::no_undo_data), condition::bad_data);
  only(make_error_code(filters::errc::excess_bytes), condition::bad_data);
  only(make_error_code(net::errc::timed_out), condition::peer);
  only(make_error_code(net::errc::chain_changed), condition::peer);
  only(make_error_code(net::errc::duplicate_header), condition::bad_data);
  only(make_error_code(net::errc::bad_endpoint), condition::usage);
  // The system's codes, in either of the two categories that carry errno.
  only(std::error_code(EACCES, std::system_category()), condition::io);
  only(std::make_error_code(std::errc::permission_denied), condition::io);
  only(std::make_error_code(std::errc::invalid_argument), condition::usage);
}

TEST_CASE("conditions: real failures land in the right one") {
  // A directory that is not there: the system's, met reading its blk files.
  auto missing = BlocksDirectory::open("/nonexistent/blockwire/blocks");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code() == condition::io);
  CHECK(missing.error().is_io());
  CHECK(missing.error().step() == directory::open_step::blocks);
  CHECK(exit_status_of(missing.error()) == 2);
  // std::filesystem's failures come in the generic category: still the system's.
  std::error_code from_filesystem;
  std::filesystem::create_directories("/proc/self/blockwire-cannot-be-made", from_filesystem);
  REQUIRE(from_filesystem);
  CHECK(from_filesystem == condition::io);
  // A block cut short: the data's.
  const Block genesis = genesis_block(network::mainnet);
  std::vector<std::byte> bytes;
  encode_block(genesis, bytes);
  bytes.resize(bytes.size() - 1);
  auto decoded = decode_block(bytes);
  REQUIRE_FALSE(decoded);
  CHECK(decoded.error().code() == condition::bad_data);
  CHECK_FALSE(decoded.error().is_io());
  // A peer that is not listening: the system's (the connect failed).
  auto listener = net::listen_on({"127.0.0.1", 0}).value();
  const auto port = net::local_endpoint(listener.get()).value().port;
  listener = FileDescriptor();
  auto refused = net::connect_to({"127.0.0.1", port}, std::chrono::milliseconds(1000));
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code() == condition::io);
}

TEST_CASE("conditions: a step says where a failure happened, and how it reads the cause") {
  const error cut(io::errc::truncated, 96);
  CHECK_FALSE(cut.step());
  CHECK(kind_of(cut) == condition::bad_data);
  CHECK(exit_status_of(cut) == 1);
  // A directory's key whose bytes are wrong is the caller's; its rev files are what they hold.
  const error key = cut.in("DIR/xor.dat").at_step(directory::open_step::key);
  CHECK(key.step() == directory::open_step::key);
  CHECK(key.code() == io::errc::truncated);  // (the cause stays the code)
  CHECK(key.offset() == 96);
  CHECK(kind_of(key) == condition::usage);
  CHECK(exit_status_of(key) == 2);
  const error undo = cut.at_step(directory::open_step::undo);
  CHECK(kind_of(undo) == condition::bad_data);
  CHECK(exit_status_of(undo) == 1);
  // The system's stays the system's at any step.
  const error denied = error(std::error_code(EACCES, std::system_category())).at_step(directory::open_step::key);
  CHECK(kind_of(denied) == condition::io);
  // Context said around it keeps the step; a caller's step replaces it.
  CHECK(key.in("opening").step() == directory::open_step::key);
  const error outer = key.in("opening").at_step(net::fetch_step::directory);
  CHECK(outer.step() == net::fetch_step::directory);
  CHECK(exit_status_of(outer) == 2);
  CHECK(outer.message() == "opening: DIR/xor.dat: " + cut.code().message() + " at byte 96");
  // A fetch's steps: the peer's part keeps the cause's kind, the directory's is never bad data.
  const error protocol(p2p::errc::bad_checksum, 24);
  CHECK(exit_status_of(protocol.at_step(net::fetch_step::syncing)) == 1);
  CHECK(exit_status_of(protocol.at_step(net::fetch_step::writing)) == 2);
  CHECK(kind_of(error(net::errc::connection_closed).at_step(net::fetch_step::handshake)) == condition::peer);
  CHECK(std::string(directory::open_step_category().name()) == "blockwire.directory.open_step");
  CHECK(make_error_code(net::fetch_step::handshake).message() == "the handshake");
}
