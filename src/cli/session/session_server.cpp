// The session daemon: the MCP server of src/mcp, serving the verbs on a Unix socket, one client
// connection a call; files a CLI call asks for are written under its folder.
#include "cli/session/session_server.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <utility>

#include "adbwire/error.hpp"
#include "base/base64.hpp"
#include "base/private_files.hpp"
#include "base/private_socket.hpp"
#include "base/signal_cleanup.hpp"
#include "mcp/device_tools.hpp"
#include "mcp/json_rpc.hpp"
#include "mcp/server.hpp"
#include "verbs/verb.hpp"

namespace adbwire::cli {
namespace {

namespace fs = std::filesystem;
using mcp::Json;

constexpr int kRequestTimeoutMs = 10000;

// The verbs of one session. A CLI call's "_cli" asks for files: a snapshot saved as
// DIR/snapshot-N.yml (or .json) and an image as DIR/screenshot-N.png, the reply giving their
// paths (with print, the snapshot's text too). A named session writes in DIR/session-NAME, so
// sessions sharing a working folder never write each other's files.
class SessionTools final : public mcp::DeviceTools {
 public:
  SessionTools(mcp::DeviceToolsOptions options, const std::string& name)
      : DeviceTools(std::move(options)), folder_(name.empty() ? "" : "session-" + name) {}

  Json call(const std::string& name, const Json& arguments,
            const mcp::CancelToken& cancel) override {
    Json args = arguments.is_object() ? arguments : Json::object();
    Json cli = args.contains("_cli") ? args["_cli"] : Json();
    args.erase("_cli");
    Json result = DeviceTools::call(name, args, cancel);
    if (!cli.is_object() || result.value("isError", false)) return result;
    const fs::path base = cli.value("dir", std::string(".adbwire"));
    const fs::path dir = folder_.empty() ? base : base / folder_;
    const verbs::Verb* verb = verbs::find(name);
    Json content = Json::array();
    bool first_text = true;
    for (Json& block : result["content"]) {
      const std::string type = block.value("type", std::string());
      if (type == "image") {
        const std::string mime = block.value("mimeType", std::string());
        const auto bytes = detail::base64_decode(block.value("data", std::string()));
        content.push_back(
            text(save_cli_file(dir, "screenshot", mime == "image/jpeg" ? ".jpg" : ".png",
                               bytes ? std::string(bytes->begin(), bytes->end()) : "")));
      } else if (type == "text" && first_text && verb != nullptr && !verb->cli_file.empty()) {
        first_text = false;
        const std::string body = block.value("text", std::string());
        const std::string extension =
            "." + std::string(args.value("json", false) ? "json" : verb->cli_file);
        std::string out = save_cli_file(dir, std::string(name), extension, body);
        if (cli.value("print", false)) out += "\n" + body;
        content.push_back(text(std::move(out)));
      } else if (type == "text" && block.value("text", std::string()).starts_with("Screenshot ")) {
        // The image's summary: the path says it.
      } else {
        content.push_back(std::move(block));
      }
    }
    result["content"] = std::move(content);
    return result;
  }

 private:
  static Json text(std::string body) { return {{"type", "text"}, {"text", std::move(body)}}; }

  // DIR/STEM-N.EXT, private (0600, never through a link), N counted per stem in this session
  // and passing names already there: a path once printed keeps its content.
  std::string save_cli_file(const fs::path& dir, const std::string& stem,
                            const std::string& extension, std::string_view bytes) {
    constexpr int kNamesTried = 10000;
    std::string file = stem + "-" + std::to_string(++counts_[stem]) + extension;
    detail::Failure failure;
    const detail::FolderFd folder =
        detail::open_private_folder(dir, detail::FolderTrust::chosen, failure);
    for (int tried = 0; folder && tried < kNamesTried; ++tried) {
      failure = {};
      if (detail::write_private_file(folder.get(), file, bytes, failure, detail::Existing::keep))
        return (dir / file).string();
      if (failure.code != errc::busy) break;
      file = stem + "-" + std::to_string(++counts_[stem]) + extension;
    }
    failure.throw_if_failed();
    return {};
  }

  std::string folder_;
  std::map<std::string, std::uint64_t> counts_;
};

void report(int ready_fd, const std::string& line) {
  const std::string data = line + "\n";
  [[maybe_unused]] const ssize_t ignored = ::write(ready_fd, data.data(), data.size());
  ::close(ready_fd);
}

void send_line(int fd, std::string_view line) {
  while (!line.empty()) {
    const ssize_t n = ::send(fd, line.data(), line.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    line.remove_prefix(static_cast<std::size_t>(n));
  }
}

// Serves one client connection: its request lines until it shuts its side.
void serve_client(int client, SessionTools& tools, const Json& info, const fs::path& socket,
                  bool& done) {
  mcp::Server server(tools, {}, [client](std::string_view line) { send_line(client, line); });
  std::string pending;
  char buffer[65536];
  for (;;) {
    pollfd p{client, POLLIN, 0};
    if (::poll(&p, 1, kRequestTimeoutMs) <= 0) break;
    const ssize_t n = ::read(client, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    pending.append(buffer, static_cast<std::size_t>(n));
    for (std::size_t end; (end = pending.find('\n')) != std::string::npos;) {
      const std::string line = pending.substr(0, end);
      pending.erase(0, end + 1);
      const Json message = Json::parse(line, nullptr, false);
      const std::string method =
          message.is_object() ? message.value("method", std::string()) : std::string();
      if (method == "adbwire/info" || method == "adbwire/close") {
        if (method == "adbwire/close") {
          done = true;
          // The socket goes before the reply: a client that then opens a new session on the
          // same path never loses its socket to this ending daemon.
          ::unlink(socket.c_str());
        }
        const Json result = method == "adbwire/info" ? info : Json{{"closed", true}};
        send_line(client, mcp::to_line(mcp::make_result(message.value("id", Json()), result)));
      } else {
        server.handle_line(line);
      }
    }
  }
  server.finish();
}

}  // namespace

int serve_session(const std::string& name, const std::string& target, std::chrono::seconds idle,
                  PageOptions options, const ConnectOptions& connect, const fs::path& socket,
                  int ready_fd) {
  mcp::DeviceToolsOptions tools_options;
  tools_options.target = target;
  tools_options.connect = connect;
  tools_options.page = std::move(options);
  // The CLI saves images as files: full size, as the device shows them.
  tools_options.verbs.max_image_bytes = 0;
  tools_options.verbs.max_image_side = 0;
  SessionTools tools(std::move(tools_options), name);
  detail::remove_on_signals();  // a recording being pulled leaves no temporary file
  try {
    tools.page("");  // connect now: open reports a target that does not answer
  } catch (const Error& e) {
    report(ready_fd, "error " + std::to_string(e.code().value()) + " " + e.detail());
    return 1;
  }
  detail::Failure failure;
  const int listener = detail::listen_private_socket(socket, 16, failure);
  if (listener < 0) {
    report(ready_fd, "error " + std::to_string(failure.code.value()) + " " + failure.detail);
    return 1;
  }
  report(ready_fd, "ok");

  const Json info = {{"name", name}, {"target", target}, {"pid", static_cast<long>(::getpid())}};
  bool done = false;
  while (!done) {
    pollfd p{listener, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::chrono::milliseconds(idle).count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) break;  // idle: nobody asked for anything for `idle`
    const int client = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    if (!detail::peer_is_this_user(client)) {  // a socket moved or opened up: not for others
      ::close(client);
      continue;
    }
    serve_client(client, tools, info, socket, done);
    ::close(client);
  }
  ::close(listener);
  if (!done) ::unlink(socket.c_str());
  return 0;
}

}  // namespace adbwire::cli
