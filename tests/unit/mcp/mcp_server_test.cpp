// The MCP server core on strings (no stdio, no device): JSON-RPC errors, the lifecycle,
// version negotiation, tools/call on the worker in order, and cancellation.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <string>
#include <vector>

#include "adbwire/deadline.hpp"
#include "base/mutex.hpp"
#include "mcp/json_rpc.hpp"
#include "mcp/server.hpp"

namespace adbwire::mcp {
namespace {

using namespace std::chrono_literals;

// Tools for the tests: "echo" answers its arguments; "wait" sleeps on the cancel token.
class TestTools : public Toolset {
 public:
  Json list() const override { return Json::array({{{"name", "echo"}}, {{"name", "wait"}}}); }
  Json call(const std::string& name, const Json& arguments, const CancelToken& cancel) override {
    if (name == "echo")
      return {{"content", Json::array({{{"type", "text"}, {"text", arguments.dump()}}})}};
    if (name == "wait") {
      {
        detail::MutexLock lock(mutex);
        waiting = true;
      }
      changed.notify_all();
      cancel.sleep(30s);
      return {{"content", Json::array()}};
    }
    throw RpcError(kInvalidParams, "unknown tool '" + name + "'");
  }
  void wait_until_waiting() {
    detail::MutexLock lock(mutex);
    ASSERT_TRUE(detail::wait_until(changed, lock, deadline_after(20s),
                                   [this]() ADBWIRE_REQUIRES(mutex) { return waiting; }));
  }

  detail::Mutex mutex;
  std::condition_variable changed;
  bool waiting ADBWIRE_GUARDED_BY(mutex) = false;
};

// The lines a Server writes, parsed.
class Output {
 public:
  Server::Writer writer() {
    return [this](std::string_view line) {
      EXPECT_TRUE(line.ends_with('\n'));
      detail::MutexLock lock(mutex_);
      replies_.push_back(Json::parse(line));
      changed_.notify_all();
    };
  }
  // The reply with this id, waiting up to 20 s for it.
  Json reply(const Json& id) {
    detail::MutexLock lock(mutex_);
    Json found;
    detail::wait_until(changed_, lock, deadline_after(20s), [&]() ADBWIRE_REQUIRES(mutex_) {
      for (const Json& r : replies_) {
        if (r.contains("id") && r["id"] == id) {
          found = r;
          return true;
        }
      }
      return false;
    });
    return found;
  }
  std::vector<Json> all() {
    detail::MutexLock lock(mutex_);
    return replies_;
  }

 private:
  detail::Mutex mutex_;
  std::condition_variable changed_;
  std::vector<Json> replies_ ADBWIRE_GUARDED_BY(mutex_);
};

class McpServer : public ::testing::Test {
 protected:
  McpServer()
      : server_(tools_, ServerInfo{.version = "9.9", .instructions = "read first"},
                output_.writer()) {}

  void send(const Json& message) { server_.handle_line(message.dump()); }
  Json request(int id, const std::string& method, Json params = nullptr) {
    Json message = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
    if (!params.is_null()) message["params"] = std::move(params);
    send(message);
    return output_.reply(id);
  }

  TestTools tools_;
  Output output_;
  Server server_;
};

TEST_F(McpServer, InitializeAnswersASupportedVersionAndTheNewestOtherwise) {
  const Json known = request(1, "initialize",
                             {{"protocolVersion", "2025-06-18"}, {"capabilities", Json::object()}});
  EXPECT_EQ(known["result"]["protocolVersion"], "2025-06-18");
  EXPECT_TRUE(known["result"]["capabilities"].contains("tools"));
  EXPECT_EQ(known["result"]["serverInfo"]["name"], "adbwire");
  EXPECT_EQ(known["result"]["serverInfo"]["version"], "9.9");
  EXPECT_EQ(known["result"]["instructions"], "read first");
  const Json future = request(2, "initialize", {{"protocolVersion", "2099-01-01"}});
  EXPECT_EQ(future["result"]["protocolVersion"], std::string(kProtocolVersions[0]));
  const Json missing = request(3, "initialize", Json::object());
  EXPECT_EQ(missing["error"]["code"], kInvalidParams);
}

TEST_F(McpServer, MalformedLinesGetTheirErrorAndTheServerGoesOn) {
  server_.handle_line("{not json");
  server_.handle_line(R"({"jsonrpc":"2.0","id":5})");
  server_.handle_line(R"([{"jsonrpc":"2.0","id":6,"method":"ping"}])");
  EXPECT_EQ(request(7, "no/such/method")["error"]["code"], kMethodNotFound);
  EXPECT_EQ(request(8, "tools/call", Json::object())["error"]["code"], kInvalidParams);
  EXPECT_EQ(request(9, "tools/call", {{"name", "echo"}, {"arguments", 3}})["error"]["code"],
            kInvalidParams);
  EXPECT_EQ(request(10, "ping")["result"], Json::object());
  const std::vector<Json> replies = output_.all();
  ASSERT_GE(replies.size(), 3u);
  EXPECT_EQ(replies[0]["error"]["code"], kParseError);
  EXPECT_TRUE(replies[0]["id"].is_null());
  EXPECT_EQ(replies[1]["error"]["code"], kInvalidRequest);
  EXPECT_EQ(replies[1]["id"], 5);
  EXPECT_EQ(replies[2]["error"]["code"], kInvalidRequest);  // batches were removed from MCP
}

TEST_F(McpServer, NotificationsGetNoReply) {
  send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
  send({{"jsonrpc", "2.0"}, {"method", "notifications/whatever"}});
  EXPECT_EQ(request(1, "ping")["result"], Json::object());
  EXPECT_EQ(output_.all().size(), 1u);
}

TEST_F(McpServer, ToolCallsRunInOrderWithTheirIds) {
  send({{"jsonrpc", "2.0"},
        {"id", "a"},
        {"method", "tools/call"},
        {"params", {{"name", "echo"}, {"arguments", {{"n", 1}}}}}});
  send({{"jsonrpc", "2.0"},
        {"id", "b"},
        {"method", "tools/call"},
        {"params", {{"name", "echo"}, {"arguments", {{"n", 2}}}}}});
  EXPECT_EQ(output_.reply("b")["result"]["content"][0]["text"], R"({"n":2})");
  const std::vector<Json> replies = output_.all();
  ASSERT_EQ(replies.size(), 2u);
  EXPECT_EQ(replies[0]["id"], "a");
  EXPECT_EQ(replies[0]["result"]["content"][0]["text"], R"({"n":1})");
  EXPECT_EQ(request(3, "tools/list")["result"]["tools"].size(), 2u);
}

TEST_F(McpServer, CancelledCallEndsEarlyAndIsNotAnswered) {
  send({{"jsonrpc", "2.0"}, {"id", 41}, {"method", "tools/call"}, {"params", {{"name", "wait"}}}});
  tools_.wait_until_waiting();
  const auto start = std::chrono::steady_clock::now();
  send({{"jsonrpc", "2.0"},
        {"method", "notifications/cancelled"},
        {"params", {{"requestId", 41}, {"reason", "user"}}}});
  // The worker is free again: the next call is answered, long before the 30 s sleep would end.
  send({{"jsonrpc", "2.0"}, {"id", 42}, {"method", "tools/call"}, {"params", {{"name", "echo"}}}});
  EXPECT_FALSE(output_.reply(42).is_null());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 20s);
  for (const Json& reply : output_.all()) EXPECT_NE(reply["id"], 41) << reply.dump();
}

TEST_F(McpServer, FinishLetsQueuedCallsEndThenIgnoresInput) {
  send({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"}, {"params", {{"name", "echo"}}}});
  server_.finish();
  EXPECT_EQ(output_.all().size(), 1u);
  server_.handle_line(R"({"jsonrpc":"2.0","id":2,"method":"ping"})");
  EXPECT_EQ(output_.all().size(), 1u);
}

TEST(McpJsonRpc, OutputLinesAreValidJsonEvenWithInvalidUtf8) {
  const std::string line = to_line(make_result(1, {{"text", std::string("ok \xff\xfe end")}}));
  ASSERT_TRUE(line.ends_with('\n'));
  const Json parsed = Json::parse(line);
  EXPECT_EQ(parsed["result"]["text"], "ok \xEF\xBF\xBD\xEF\xBF\xBD end");
}

TEST(McpJsonRpc, NegotiateVersion) {
  for (const std::string_view version : kProtocolVersions)
    EXPECT_EQ(negotiate_version(version), version);
  EXPECT_EQ(negotiate_version("1999-01-01"), kProtocolVersions[0]);
}

}  // namespace
}  // namespace adbwire::mcp
