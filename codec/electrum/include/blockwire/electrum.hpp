// The Electrum protocol over a blocks directory and its address index, and its TCP server.
#pragma once

#include <blockwire/electrum/server.hpp>
#include <blockwire/electrum/service.hpp>
