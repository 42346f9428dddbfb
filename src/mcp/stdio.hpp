// MCP's stdio transport: newline-delimited JSON-RPC on standard input and output.
#pragma once

#include "mcp/server.hpp"

namespace adbwire::mcp {

// Serves tools on stdin/stdout until stdin ends (the client closed it), then lets running
// calls finish and returns 0. stdout carries protocol lines only; anything else a caller
// wants to say goes to stderr. A write to a closed stdout is ignored (SIGPIPE must be
// ignored by the caller). Blocks the calling thread.
int serve_stdio(Toolset& tools, ServerInfo info);

}  // namespace adbwire::mcp
