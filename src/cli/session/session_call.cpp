// The calling side of CLI sessions (session.hpp), in both programs: socket paths, one verb per
// connection as an MCP tools/call, listing and closing. Sockets and JSON only, so the lean front
// serves session verbs without the library (session_open.cpp, in the full program, starts one).
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "adbwire/error.hpp"
#include "base/private_socket.hpp"
#include "cli/runtime_folder.hpp"
#include "cli/session/session.hpp"
#include "cli/session/session_socket.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli {

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace std::chrono_literals;

namespace {

constexpr std::string_view kPrefix = "session-";
constexpr std::string_view kSuffix = ".sock";

void write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw Error(errc::io_error, "the session closed the connection while we were writing");
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

std::vector<SessionInfo> named_sessions();

// The longest a session may take to answer one call: longer than any verb's own deadline (wait
// and shell stop at 120 s, a dump at PageOptions::timeout), so only a stuck daemon reaches it.
constexpr std::chrono::seconds kReplyTimeout{600};

// The most a reply may hold: replies are text (a snapshot is at most its budget; images and
// page sources are saved as files and named by path).
constexpr std::size_t kMaxReply = 64 * 1024 * 1024;

// Bounds each send and receive on fd by kReplyTimeout.
void limit_waits(int fd) {
  timeval limit{};
  limit.tv_sec = static_cast<time_t>(kReplyTimeout.count());
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
}

}  // namespace

// A connected Unix socket, or -1 when nothing listens there. Another user's socket or process
// is refused before a byte is sent (detail::connect_private_socket).
int connect_socket(const fs::path& path) {
  detail::Failure failure;
  const bool named = std::getenv("ADBWIRE_SESSION") != nullptr;
  const int fd = detail::connect_private_socket(
      path, "the session socket",
      named ? "point ADBWIRE_SESSION at a socket of a session you opened, or unset it"
            : "remove it if you did not put it there, then `adbwire open` again",
      failure);
  failure.throw_if_failed();
  return fd;
}

std::string read_all(int fd, std::string_view peer) {
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      throw Error(errc::timeout, std::string(peer) + " did not answer within " +
                                     std::to_string(kReplyTimeout.count()) +
                                     " s; it may be stuck: `adbwire close`, then open it again");
    }
    if (n <= 0) break;
    if (static_cast<std::size_t>(n) > kMaxReply - text.size()) {
      throw Error(errc::limit_exceeded,
                  std::string(peer) + " answered more than " +
                      std::to_string(kMaxReply / (1024 * 1024)) +
                      " MiB; a verb's reply is text (files it saves are named by path), so "
                      "this is not a session of adbwire's: `adbwire close`, then open it again");
    }
    text.append(buffer, static_cast<std::size_t>(n));
  }
  return text;
}

std::string session_name(std::string_view name) {
  return name.empty() ? std::string("the default session") : "session '" + std::string(name) + "'";
}

// One request to session `name`: its JSON-RPC reply (the result, or a thrown error). With no
// name and no default session, the only named session answers; with several, none is guessed.
json ask(std::string_view name, const json& request, bool or_the_only_named) {
  const fs::path path = session_socket_path(name);
  const int fd = connect_socket(path);
  if (fd < 0 && name.empty() && or_the_only_named && std::getenv("ADBWIRE_SESSION") == nullptr) {
    const std::vector<SessionInfo> named = named_sessions();
    if (named.size() == 1) return ask(named.front().name, request);
    if (named.size() > 1) {
      std::string open;
      for (const SessionInfo& session : named)
        open += (open.empty() ? "" : ", ") + session.name + " (" + session.target + ")";
      throw Error(errc::invalid_argument, std::to_string(named.size()) + " sessions are open: " +
                                              open + "; name one with --session NAME");
    }
  }
  if (fd < 0) {
    throw Error(
        errc::not_found,
        "no adbwire session" + (name.empty() ? std::string() : " '" + std::string(name) + "'") +
            " is running (" + path.string() + "); start one with `adbwire open" +
            (name.empty() ? std::string() : " --session " + std::string(name)) + " [TARGET]`");
  }
  std::string reply;
  try {
    limit_waits(fd);
    write_all(fd, request.dump(-1, ' ', false, json::error_handler_t::replace) + "\n");
    ::shutdown(fd, SHUT_WR);
    reply = read_all(fd, session_name(name));
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  const json message = json::parse(reply.substr(0, reply.find('\n')), nullptr, false);
  if (message.is_discarded() || !message.is_object()) {
    throw Error(errc::protocol_error, session_name(name) +
                                          " answered something that is not JSON-RPC; run "
                                          "`adbwire open` again");
  }
  if (message.contains("error")) {
    throw Error(errc::invalid_argument, message["error"].value("message", std::string("error")));
  }
  return message.value("result", json::object());
}

fs::path session_socket_path(std::string_view name) {
  if (name.empty()) {
    if (const char* explicit_path = std::getenv("ADBWIRE_SESSION");
        explicit_path != nullptr && *explicit_path != 0) {
      return explicit_path;
    }
    return private_runtime_folder() / "session.sock";
  }
  for (const char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') {
      throw Error(
          errc::invalid_argument,
          "a session name is letters, digits, '-', '_' and '.', not '" + std::string(name) + "'");
    }
  }
  return private_runtime_folder() /
         (std::string(kPrefix) + std::string(name) + std::string(kSuffix));
}

int run_verb(std::string_view name, std::string_view verb, json arguments, bool print) {
  arguments["_cli"] = {{"dir", (fs::current_path() / ".adbwire").string()}, {"print", print}};
  const json result = ask(name, {{"jsonrpc", "2.0"},
                                 {"id", 1},
                                 {"method", "tools/call"},
                                 {"params", {{"name", verb}, {"arguments", arguments}}}});
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
  // The reply holds the device's words (an app's name, a setting, the screen's text): it reaches
  // the terminal escaped, as everything the CLI prints.
  return cli::print(text) ? 0 : 1;
}

void close_session(std::string_view name) {
  ask(name, {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "adbwire/close"}});
  const fs::path path = session_socket_path(name);
  for (int i = 0; i < 100 && fs::exists(path); ++i) std::this_thread::sleep_for(20ms);
}

namespace {

// Adds session `name` to sessions when it answers.
void probe(std::vector<SessionInfo>& sessions, const std::string& name) {
  try {
    const json info = ask(name, {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "adbwire/info"}}, false);
    sessions.push_back({name, info.value("target", std::string()), session_socket_path(name),
                        info.value("pid", 0L)});
  } catch (const Error&) {
  }
}

std::vector<SessionInfo> named_sessions() {
  std::vector<SessionInfo> sessions;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(private_runtime_folder(), error)) {
    const std::string file = entry.path().filename().string();
    if (file.starts_with(kPrefix) && file.ends_with(kSuffix))
      probe(sessions, file.substr(kPrefix.size(), file.size() - kPrefix.size() - kSuffix.size()));
  }
  return sessions;
}

}  // namespace

std::vector<SessionInfo> list_sessions() {
  std::vector<SessionInfo> sessions;
  probe(sessions, "");
  const std::vector<SessionInfo> named = named_sessions();
  sessions.insert(sessions.end(), named.begin(), named.end());
  return sessions;
}

}  // namespace adbwire::cli
