#include "mcp/server.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <utility>

#include "adbwire/error.hpp"
#include "base/mutex.hpp"

namespace adbwire::mcp {

std::string negotiate_version(std::string_view requested) {
  const auto* const end = std::end(kProtocolVersions);
  return std::string(std::find(std::begin(kProtocolVersions), end, requested) != end
                         ? requested
                         : kProtocolVersions[0]);
}

Server::Server(Toolset& tools, ServerInfo info, Writer write)
    : tools_(tools), info_(std::move(info)), writer_(std::move(write)) {
  worker_ = std::thread([this] { work(); });
}

Server::~Server() {
  finish();
  if (worker_.joinable()) worker_.join();
}

void Server::finish() {
  {
    detail::MutexLock lock(mutex_);
    finishing_ = true;
  }
  wake_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void Server::handle_line(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
    line.remove_suffix(1);
  if (line.find_first_not_of(" \t") == std::string_view::npos) return;
  {
    detail::MutexLock lock(mutex_);
    if (finishing_) return;
  }
  std::variant<Message, Json> parsed = parse_message(line);
  if (Json* error = std::get_if<Json>(&parsed)) {
    write(*error);
    return;
  }
  const Message& message = std::get<Message>(parsed);
  try {
    dispatch(message);
  } catch (const RpcError& e) {
    if (message.kind == Message::Kind::request) write(make_error(message.id, e.code(), e.what()));
  } catch (const std::exception& e) {
    if (message.kind == Message::Kind::request)
      write(make_error(message.id, kInternalError, e.what()));
  }
}

void Server::dispatch(const Message& message) {
  // Replies to anything we might have asked: this server sends no requests, so none is awaited.
  if (message.kind == Message::Kind::response) return;
  if (message.kind == Message::Kind::notification) {
    if (message.method == "notifications/cancelled") cancel(message.params);
    // notifications/initialized and any other notification need no answer.
    return;
  }
  const std::string& method = message.method;
  if (method == "initialize") {
    write(make_result(message.id, initialize(message.params)));
  } else if (method == "ping") {
    write(make_result(message.id, Json::object()));
  } else if (method == "tools/list") {
    write(make_result(message.id, {{"tools", tools_.list()}}));
  } else if (method == "tools/call") {
    enqueue(message);
  } else {
    throw RpcError(kMethodNotFound, "method '" + method +
                                        "' is not supported; this server offers initialize, "
                                        "ping, tools/list and tools/call");
  }
}

Json Server::initialize(const Json& params) {
  if (!params.is_object() || !params.contains("protocolVersion") ||
      !params["protocolVersion"].is_string()) {
    throw RpcError(kInvalidParams, "initialize needs params.protocolVersion, a string such as \"" +
                                       std::string(kProtocolVersions[0]) + "\"");
  }
  Json server_info = {{"name", info_.name}, {"title", info_.title}, {"version", info_.version}};
  Json result = {
      {"protocolVersion", negotiate_version(params["protocolVersion"].get<std::string>())},
      {"capabilities", {{"tools", {{"listChanged", false}}}}},
      {"serverInfo", std::move(server_info)}};
  if (!info_.instructions.empty()) result["instructions"] = info_.instructions;
  return result;
}

void Server::enqueue(const Message& message) {
  const Json& params = message.params;
  if (!params.is_object() || !params.contains("name") || !params["name"].is_string()) {
    throw RpcError(kInvalidParams,
                   "tools/call needs params.name, the tool's name (see tools/list)");
  }
  const auto arguments = params.find("arguments");
  if (arguments != params.end() && !arguments->is_object() && !arguments->is_null()) {
    throw RpcError(kInvalidParams, "tools/call params.arguments must be an object");
  }
  Call call{message.id, params["name"].get<std::string>(),
            arguments != params.end() && arguments->is_object() ? *arguments : Json::object(),
            std::make_shared<CancelToken>()};
  {
    detail::MutexLock lock(mutex_);
    active_[message.id.dump()] = call.cancel;
    queue_.push_back(std::move(call));
  }
  wake_.notify_all();
}

void Server::cancel(const Json& params) {
  if (!params.is_object() || !params.contains("requestId")) return;
  detail::MutexLock lock(mutex_);
  // An unknown or finished id is no error: the call may have ended while the notice travelled.
  if (const auto it = active_.find(params["requestId"].dump()); it != active_.end())
    it->second->cancel();
}

void Server::work() {
  for (;;) {
    Call call;
    {
      detail::MutexLock lock(mutex_);
      wake_.wait(lock.native(),
                 [this]() ADBWIRE_REQUIRES(mutex_) { return finishing_ || !queue_.empty(); });
      if (queue_.empty()) return;
      call = std::move(queue_.front());
      queue_.pop_front();
    }
    Json reply;
    if (!call.cancel->cancelled()) {
      try {
        reply = make_result(call.id, tools_.call(call.name, call.arguments, *call.cancel));
      } catch (const RpcError& e) {
        reply = make_error(call.id, e.code(), e.what());
      } catch (const std::exception& e) {
        reply = make_error(call.id, kInternalError, std::string("the tool failed: ") + e.what());
      }
    }
    {
      detail::MutexLock lock(mutex_);
      active_.erase(call.id.dump());
    }
    // A cancelled call's reply is dropped, as the MCP cancellation rules ask.
    if (!call.cancel->cancelled()) write(reply);
  }
}

void Server::write(const Json& message) {
  const std::string line = to_line(message);
  detail::MutexLock lock(write_mutex_);
  writer_(line);
}

}  // namespace adbwire::mcp
