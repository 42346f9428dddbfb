// JSON-RPC 2.0 messages as MCP's stdio transport carries them: one JSON object per line.
// Pure functions on strings and JSON values; no I/O, no state, safe from any thread.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>

namespace adbwire::mcp {

using Json = nlohmann::json;

// The error codes JSON-RPC 2.0 reserves (section 5.1 of its specification).
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;

// One well-formed incoming message.
struct Message {
  enum class Kind { request, notification, response };
  Kind kind = Kind::request;
  Json id;             // string or integer; null for a notification
  std::string method;  // empty for a response
  Json params;         // object, array or null (absent)
};

// A method handler's way to answer with a JSON-RPC error instead of a result.
class RpcError : public std::runtime_error {
 public:
  RpcError(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  int code() const noexcept { return code_; }

 private:
  int code_;
};

// Parses one line. A malformed one yields the error reply to send instead: -32700 for text
// that is not JSON, -32600 for JSON that is not a request, notification or response (a batch
// array included: MCP 2025-06-18 removed batches). The reply carries the request's id when
// one could be read, else null.
std::variant<Message, Json> parse_message(std::string_view line);

Json make_result(const Json& id, Json result);
Json make_error(const Json& id, int code, const std::string& message);

// One line of output: compact JSON, invalid UTF-8 (device text) replaced by U+FFFD so the
// line is always valid JSON, what a terminal acts on written \uXXXX (protocol::printable_json,
// so a client that shows the line is not steered by the device), then '\n'. Every line the MCP
// server and the session daemon send is made here.
std::string to_line(const Json& message);
std::string to_line(const Json& message);

}  // namespace adbwire::mcp
