// Bitcoin Core's REST interface over a blocks directory, and its HTTP server.
#pragma once

#include <blockwire/rest/http_server.hpp>
#include <blockwire/rest/rest_service.hpp>
#include <blockwire/rest/server.hpp>
