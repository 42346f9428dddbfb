#include "mcp/json_rpc.hpp"

#include <utility>

#include "adbwire/protocol/printable.hpp"

namespace adbwire::mcp {
namespace {

// JSON-RPC allows string, number or null ids; MCP narrows it to string or integer.
bool valid_id(const Json& id) { return id.is_string() || id.is_number_integer(); }

Json invalid(const Json& id, const std::string& why) {
  return make_error(valid_id(id) ? id : Json(nullptr), kInvalidRequest, why);
}

}  // namespace

std::variant<Message, Json> parse_message(std::string_view line) {
  Json value = Json::parse(line, nullptr, false);
  if (value.is_discarded()) {
    return make_error(nullptr, kParseError,
                      "the line is not valid JSON; send one JSON-RPC 2.0 object per line");
  }
  if (value.is_array()) {
    return invalid(nullptr, "batches are not supported; send one JSON-RPC 2.0 object per line");
  }
  if (!value.is_object()) return invalid(nullptr, "a JSON-RPC 2.0 message is a JSON object");
  const Json id = value.contains("id") ? value["id"] : Json(nullptr);
  const auto version = value.find("jsonrpc");
  if (version == value.end() || *version != "2.0") {
    return invalid(id, "the message lacks \"jsonrpc\": \"2.0\"");
  }
  Message message;
  const auto method = value.find("method");
  if (method == value.end()) {
    if (!value.contains("result") && !value.contains("error")) {
      return invalid(id, "the message has neither \"method\" nor \"result\"/\"error\"");
    }
    message.kind = Message::Kind::response;
    message.id = id;
    return message;
  }
  if (!method->is_string() || method->get_ref<const std::string&>().empty()) {
    return invalid(id, "\"method\" must be a non-empty string");
  }
  if (value.contains("id") && !valid_id(id)) {
    return invalid(nullptr, "\"id\" must be a string or an integer");
  }
  const auto params = value.find("params");
  if (params != value.end() && !params->is_object() && !params->is_array()) {
    return invalid(id, "\"params\" must be an object or an array");
  }
  message.kind = value.contains("id") ? Message::Kind::request : Message::Kind::notification;
  message.id = id;
  message.method = method->get<std::string>();
  if (params != value.end()) message.params = std::move(*params);
  return message;
}

Json make_result(const Json& id, Json result) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

Json make_error(const Json& id, int code, const std::string& message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

std::string to_line(const Json& message) {
  return protocol::printable_json(message.dump(-1, ' ', false, Json::error_handler_t::replace)) +
         "\n";
}

}  // namespace adbwire::mcp
