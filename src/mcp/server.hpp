// The MCP lifecycle and dispatch over JSON-RPC lines: initialize (version negotiation),
// notifications/initialized, ping, tools/list, tools/call, notifications/cancelled. Transport
// free: lines come in through handle_line() and replies leave through a Writer, so tests
// drive it on strings and `adbwire mcp` on stdio (stdio.hpp).
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "base/cancel_token.hpp"
#include "base/mutex.hpp"
#include "mcp/json_rpc.hpp"

namespace adbwire::mcp {

// Cancellation of one tools/call (notifications/cancelled).
using CancelToken = detail::CancelToken;

// The tools a server offers. Calls come one at a time from the server's worker thread.
class Toolset {
 public:
  virtual ~Toolset() = default;
  // The "tools" array of a tools/list result.
  virtual Json list() const = 0;
  // Runs one tool and returns its CallToolResult ({"content": […], "isError": …}). A tool that
  // fails returns isError true with a message an agent can act on. Throws RpcError
  // (kInvalidParams) for a tool it does not have.
  virtual Json call(const std::string& name, const Json& arguments, const CancelToken& cancel) = 0;
};

// Protocol versions this server speaks, newest first.
inline constexpr std::string_view kProtocolVersions[] = {"2025-11-25", "2025-06-18", "2025-03-26",
                                                         "2024-11-05"};

// The version an initialize answers: the client's when supported, else our newest (the
// client then decides whether it can go on).
std::string negotiate_version(std::string_view requested);

struct ServerInfo {
  std::string name = "adbwire";
  std::string title = "adbwire (Android over the ADB wire protocol)";
  std::string version;
  std::string instructions;  // what an agent should know first; sent in the initialize result
};

class Server {
 public:
  // Called with each outgoing line ('\n' included), from the reading thread or the worker,
  // never from two at once. It must not throw.
  using Writer = std::function<void(std::string_view line)>;

  // Starts the worker thread that runs tool calls, in the order they came. tools must outlive
  // the Server.
  Server(Toolset& tools, ServerInfo info, Writer write);
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;
  // finish(), then joins the worker.
  ~Server();

  // Handles one incoming line. Replies to everything but tools/call at once; a tools/call is
  // queued and answered by the worker (or never, when cancelled). Never throws on bad input:
  // every malformed request gets its JSON-RPC error reply. Call from one thread.
  void handle_line(std::string_view line);

  // The input ended: lets the queued and running calls finish (each has a deadline), then
  // returns. Later lines are ignored.
  void finish();

 private:
  struct Call {
    Json id;
    std::string name;
    Json arguments;
    std::shared_ptr<CancelToken> cancel;
  };

  void dispatch(const Message& message);
  Json initialize(const Json& params);
  void enqueue(const Message& message);
  void cancel(const Json& params);
  void work();
  void write(const Json& message);

  Toolset& tools_;
  ServerInfo info_;
  detail::Mutex write_mutex_;
  // Replies and notifications come from the reader and the worker: one line at a time.
  Writer writer_ ADBWIRE_GUARDED_BY(write_mutex_);

  detail::Mutex mutex_;
  std::condition_variable wake_;
  std::deque<Call> queue_ ADBWIRE_GUARDED_BY(mutex_);
  // The calls running or queued, by their id's JSON text.
  std::map<std::string, std::shared_ptr<CancelToken>> active_ ADBWIRE_GUARDED_BY(mutex_);
  bool finishing_ ADBWIRE_GUARDED_BY(mutex_) = false;
  std::thread worker_;
};

}  // namespace adbwire::mcp
