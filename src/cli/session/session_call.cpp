// The calling side of CLI sessions (session.hpp), in both programs: the daemon's requests for
// them over its socket, as adbwire's frames (src/daemon/daemon_protocol.hpp). Sockets and JSON
// only, so the lean front serves session verbs without the library (session_open.cpp, in the full
// program, opens one).
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>

#include "adbwire/error.hpp"
#include "cli/daemon_connect.hpp"
#include "cli/session/session.hpp"
#include "cli/terminal_text.hpp"
#include "daemon/client.hpp"
#include "daemon/daemon_protocol.hpp"

namespace adbwire::cli {

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace std::chrono_literals;

namespace {

// The longest a session may take to answer one call: longer than any verb's own deadline (wait
// and shell stop at 120 s, a dump at PageOptions::timeout), so only a stuck daemon reaches it.
constexpr auto kReplyTimeout = 600s;
constexpr auto kAnswerWait = 30s;
// The most a reply may hold: replies are text (a snapshot is at most its budget; images and
// page sources are saved as files and named by path).
constexpr std::size_t kMaxReply = 64 * 1024 * 1024;

void check_name(std::string_view name) {
  if (!daemon::valid_session_name(name)) {
    throw Error(
        errc::invalid_argument,
        "a session name is letters, digits, '-', '_' and '.', not '" + std::string(name) + "'");
  }
}

std::string no_session(std::string_view name) {
  return "no adbwire session" + (name.empty() ? std::string() : " '" + std::string(name) + "'") +
         " is running; start one with `adbwire open" +
         (name.empty() ? std::string() : " --session " + std::string(name)) + " [TARGET]`";
}

// A connection to the running daemon; throws not_found (with no_session's advice) when none runs.
int running_daemon(const GlobalOptions& globals, std::string_view name) {
  detail::Failure failure;
  const int fd = daemon::reach_daemon(globals.full_program, nullptr, failure);
  failure.throw_if_failed();
  if (fd < 0) throw Error(errc::not_found, no_session(name));
  return fd;
}

// Sends request on fd and reads its framed answer (the reply's text when data is given).
void ask(int fd, std::string_view request, std::string* data) {
  detail::Failure failure;
  daemon::FrameReader reader;
  const Deadline deadline = deadline_after(kAnswerWait);
  if (daemon::send_request(fd, request, deadline, failure))
    daemon::read_answer(fd, reader, deadline, {}, data, failure);
  ::close(fd);
  failure.throw_if_failed();
}

// One tools/call in session `name`: its JSON-RPC result (an error reply is thrown as Error).
json call_tool(const GlobalOptions& globals, std::string_view name, const json& request) {
  const int fd = running_daemon(globals, name);
  std::vector<std::uint8_t> out;
  protocol::append_smart_request(out, std::string(daemon::kSessionRequest) + std::string(name));
  const std::string line = request.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  out.insert(out.end(), line.begin(), line.end());
  detail::Failure failure;
  daemon::FrameReader reader;
  const Deadline deadline = deadline_after(kReplyTimeout);
  std::string reply;
  // The request and its one line go at once; shutting our side tells the session the call is
  // all there is.
  if (daemon::send_all(fd, out, deadline, failure) && ::shutdown(fd, SHUT_WR) == 0 &&
      daemon::read_answer(fd, reader, deadline, {}, nullptr, failure)) {
    reply.append(reader.unread());
    std::array<std::uint8_t, 65536> buffer;
    long n = 0;
    while ((n = daemon::receive_some(fd, buffer, deadline, failure)) > 0) {
      if (static_cast<std::size_t>(n) > kMaxReply - reply.size()) {
        failure.set(errc::limit_exceeded,
                    "the session answered more than " + std::to_string(kMaxReply / (1024 * 1024)) +
                        " MiB; a verb's reply is text (files it saves are named by path), so "
                        "this is not adbwire's session: `adbwire close`, then open it again");
        break;
      }
      reply.append(reinterpret_cast<const char*>(buffer.data()), static_cast<std::size_t>(n));
    }
  }
  ::close(fd);
  if (failure.code == errc::timeout) {
    failure.detail = "the session did not answer within " +
                     std::to_string(std::chrono::seconds(kReplyTimeout).count()) +
                     " s; it may be stuck: `adbwire close`, then open it again";
  }
  failure.throw_if_failed();
  const json message = json::parse(reply.substr(0, reply.find('\n')), nullptr, false);
  if (message.is_discarded() || !message.is_object()) {
    throw Error(errc::protocol_error,
                "the session answered something that is not JSON-RPC; run `adbwire open` again");
  }
  if (message.contains("error")) {
    throw Error(errc::invalid_argument, message["error"].value("message", std::string("error")));
  }
  return message.value("result", json::object());
}

}  // namespace

fs::path session_socket_path(const GlobalOptions& globals) {
  detail::Failure failure;
  const daemon::DaemonPaths paths =
      daemon::daemon_paths(daemon::daemon_identity(globals.full_program), failure);
  failure.throw_if_failed();
  return paths.socket;
}

namespace {

// What a verb's reply says, printed: its text (the device's words escaped, as everything the CLI
// prints) or its error on stderr. Returns the exit code.
int print_reply(const json& result, std::string* text_out) {
  const bool is_error = result.value("isError", false);
  std::string text;
  for (const json& block : result.value("content", json::array())) {
    if (block.value("type", std::string()) != "text") continue;
    const std::string body = block.value("text", std::string());
    // What the session says once (a reconnect, a fallback) goes to stderr, as warnings do.
    if (body.starts_with("Note: ")) {
      print_error("adbwire: " + body.substr(6));
      continue;
    }
    text += body;
    if (!text.ends_with('\n')) text += '\n';
  }
  if (is_error) {
    const int code = result.value("_meta", json::object()).value("adbwire/errc", 0);
    const std::string meaning =
        code > 0 ? ": " + make_error_code(static_cast<errc>(code)).message() : std::string();
    while (text.ends_with('\n')) text.pop_back();
    print_error("adbwire: error: " + text + meaning);
    return 1;
  }
  if (text_out != nullptr) {
    *text_out = std::move(text);
    return 0;
  }
  return cli::print(text) ? 0 : 1;
}

// `logs --follow`: polls the session's followed log with the cursor each reply ends with and
// prints the lines as they come, until the stream fails or the user interrupts.
int follow_logs(const GlobalOptions& globals, json arguments) {
  constexpr std::string_view kCursor = "cursor: ";
  for (;;) {
    const json result = call_tool(globals, globals.session,
                                  {{"jsonrpc", "2.0"},
                                   {"id", 1},
                                   {"method", "tools/call"},
                                   {"params", {{"name", "logs"}, {"arguments", arguments}}}});
    std::string text;
    if (const int code = print_reply(result, &text); code != 0) return code;
    while (text.ends_with('\n')) text.pop_back();
    const std::size_t last = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
    if (text.compare(last, kCursor.size(), kCursor) != 0) {
      print_error("adbwire: error: the session's followed log did not end with a cursor");
      return 1;
    }
    arguments["cursor"] = std::stoull(text.substr(last + kCursor.size()));
    if (last > 0 && !cli::print(text.substr(0, last))) return 1;
  }
}

}  // namespace

int run_verb(const GlobalOptions& globals, std::string_view verb, json arguments, bool print) {
  check_name(globals.session);
  arguments["_cli"] = {{"dir", (fs::current_path() / ".adbwire").string()}, {"print", print}};
  if (verb == "logs" && arguments.value("follow", false)) return follow_logs(globals, arguments);
  const json result = call_tool(globals, globals.session,
                                {{"jsonrpc", "2.0"},
                                 {"id", 1},
                                 {"method", "tools/call"},
                                 {"params", {{"name", verb}, {"arguments", arguments}}}});
  return print_reply(result, nullptr);
}

void close_session(const GlobalOptions& globals, std::string_view name) {
  check_name(name);
  ask(running_daemon(globals, name), std::string(daemon::kCloseRequest) + std::string(name),
      nullptr);
}

std::vector<SessionInfo> list_sessions(const GlobalOptions& globals) {
  detail::Failure failure;
  const int fd = daemon::reach_daemon(globals.full_program, nullptr, failure);
  failure.throw_if_failed();
  if (fd < 0) return {};
  std::string text;
  ask(fd, daemon::kSessionsRequest, &text);
  const fs::path socket = session_socket_path(globals);
  std::vector<SessionInfo> sessions;
  const json list = json::parse(text, nullptr, false);
  for (const json& entry : list.is_array() ? list : json::array()) {
    if (!entry.is_object()) continue;
    sessions.push_back({entry.value("name", std::string()), entry.value("target", std::string()),
                        socket, entry.value("pid", 0L)});
  }
  return sessions;
}

}  // namespace adbwire::cli
