#include "cli/session/session_server.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "adbwire/error.hpp"
#include "adbwire/page.hpp"
#include "adbwire/screencap.hpp"
#include "base/private_files.hpp"

namespace adbwire::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kRequestTimeoutMs = 10000;

std::uint32_t ref_arg(const json& args) {
  const json& ref = args.at("ref");
  if (!ref.is_number_unsigned())
    throw Error(errc::invalid_argument, "a ref is a number from the snapshot, like 5");
  return ref.get<std::uint32_t>();
}

Direction direction_arg(const std::string& name) {
  if (name == "up") return Direction::up;
  if (name == "down") return Direction::down;
  if (name == "left") return Direction::left;
  if (name == "right") return Direction::right;
  throw Error(errc::invalid_argument, "direction '" + name + "': use up, down, left or right");
}

// Writes bytes to dir/name privately (base/private_files.hpp: dir 0700 when created, owned by
// this user; the file 0600, never through a link), returning the path.
std::string save(const fs::path& dir, const std::string& name, std::string_view bytes) {
  detail::Failure failure;
  const detail::FolderFd folder =
      detail::open_private_folder(dir, detail::FolderTrust::chosen, failure);
  if (folder) detail::write_private_file(folder.get(), name, bytes, failure);
  failure.throw_if_failed();
  return (dir / name).string();
}

class Server {
 public:
  explicit Server(Page page) : page_(std::move(page)) {}

  // Runs one request; sets done when the session should end.
  std::string handle(const json& request, bool& done) {
    const std::string cmd = request.value("cmd", std::string());
    const json args = request.value("args", json::object());
    const fs::path dir = request.value("dir", std::string(".adbwire"));
    if (cmd == "close") {
      done = true;
      return "session closed";
    }
    if (cmd == "snapshot") {
      page_.snapshot();
      // Refs are numbered the same whatever is printed, so the view re-renders the dump.
      ui::SnapshotOptions options;
      options.interactive_only = args.value("interactive", false);
      options.compact = args.value("compact", false);
      options.max_depth = args.value("max_depth", 0U);
      const bool json_format = args.value("json", false);
      const ui::Snapshot view = ui::parse_dump(page_.last_dump(), options);
      const std::string text = json_format ? view.to_json() + "\n" : view.to_text();
      const std::string path = save(
          dir, "snapshot-" + std::to_string(++snapshots_) + (json_format ? ".json" : ".yml"), text);
      return args.value("print", false) ? path + "\n" + text : path;
    }
    if (cmd == "screenshot") {
      ScreenshotOptions options;
      if (args.contains("jpeg")) {
        options.format = ImageFormat::jpeg;
        options.jpeg_quality = args.value("jpeg", 80);
      }
      options.max_side = args.value("max_side", 0U);
      options.encode_on_host = !args.value("device_png", false);
      if (args.contains("display")) options.display_id = args.at("display").get<std::uint64_t>();
      // Without flags the Page takes it, so a recorded trajectory shows the screenshot.
      const EncodedImage image = args.empty()
                                     ? EncodedImage{ImageFormat::png, 0, 0, page_.screenshot()}
                                     : screenshot(page_.device(), options);
      const char* extension = image.format == ImageFormat::jpeg ? ".jpg" : ".png";
      return save(dir, "screenshot-" + std::to_string(++screenshots_) + extension,
                  {reinterpret_cast<const char*>(image.bytes.data()), image.bytes.size()});
    }
    if (cmd == "tap") {
      page_.tap(ref_arg(args));
      return {};
    }
    if (cmd == "type") {
      page_.type(ref_arg(args), args.value("text", std::string()),
                 {.clear = args.value("clear", false), .submit = args.value("submit", false)});
      return {};
    }
    if (cmd == "press") {
      page_.press(args.value("key", std::string()));
      return {};
    }
    if (cmd == "scroll") {
      page_.scroll(ref_arg(args), direction_arg(args.value("direction", std::string())));
      return {};
    }
    if (cmd == "launch") {
      page_.launch(args.value("package", std::string()), args.value("activity", std::string()));
      return {};
    }
    throw Error(errc::invalid_argument, "the session does not know the request '" + cmd + "'");
  }

 private:
  Page page_;
  std::uint64_t snapshots_ = 0;
  std::uint64_t screenshots_ = 0;
};

std::string read_request(int fd) {
  std::string line;
  char buffer[4096];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, kRequestTimeoutMs) <= 0) return {};
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return line;
    line.append(buffer, static_cast<std::size_t>(n));
    if (const std::size_t end = line.find('\n'); end != std::string::npos)
      return line.substr(0, end);
  }
}

void send_reply(int fd, const json& reply) {
  std::string data = reply.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  std::string_view rest = data;
  while (!rest.empty()) {
    const ssize_t n = ::send(fd, rest.data(), rest.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
}

void report(int ready_fd, const std::string& line) {
  const std::string data = line + "\n";
  [[maybe_unused]] const ssize_t ignored = ::write(ready_fd, data.data(), data.size());
  ::close(ready_fd);
}

}  // namespace

int serve_session(const std::string& target, std::chrono::seconds idle, PageOptions options,
                  const ConnectOptions& connect, const fs::path& socket, int ready_fd) {
  std::optional<Server> server;
  std::string warning;  // said once, with the next reply
  try {
    options.on_warning = [&warning](std::string_view message) { warning = message; };
    server.emplace(Page::connect(target, options, connect));
  } catch (const Error& e) {
    report(ready_fd, "error " + std::to_string(e.code().value()) + " " + e.detail());
    return 1;
  }
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, socket.c_str(),
              std::min(socket.native().size() + 1, sizeof address.sun_path - 1));
  ::unlink(socket.c_str());
  const int listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const mode_t old_mask = ::umask(077);  // the socket is born 0600
  const bool bound =
      listener >= 0 &&
      ::bind(listener, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0 &&
      ::listen(listener, 16) == 0;
  ::umask(old_mask);
  if (!bound) {
    report(ready_fd, "error " + std::to_string(static_cast<int>(errc::io_error)) +
                         " cannot listen on " + socket.string() + ": " + std::strerror(errno));
    return 1;
  }
  ::chmod(socket.c_str(), 0600);
  report(ready_fd, "ok");

  bool done = false;
  while (!done) {
    pollfd p{listener, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::chrono::milliseconds(idle).count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) break;  // idle: nobody asked for anything for `idle`
    const int client = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    json reply;
    const json request = json::parse(read_request(client), nullptr, false);
    if (request.is_discarded() || !request.is_object()) {
      reply = {{"ok", false},
               {"code", static_cast<int>(errc::parse_error)},
               {"message", "the request is not one JSON object"}};
    } else {
      try {
        reply = {{"ok", true}, {"out", server->handle(request, done)}};
      } catch (const Error& e) {
        reply = {{"ok", false}, {"code", e.code().value()}, {"message", e.detail()}};
      } catch (const json::exception& e) {
        reply = {{"ok", false},
                 {"code", static_cast<int>(errc::invalid_argument)},
                 {"message", e.what()}};
      }
    }
    if (!warning.empty()) reply["warning"] = std::exchange(warning, {});
    // On close the socket goes before the reply: a client that then checks, or opens a new
    // session on the same path, never meets (or loses its socket to) this ending daemon.
    if (done) ::unlink(socket.c_str());
    send_reply(client, reply);
    ::close(client);
  }
  ::close(listener);
  if (!done) ::unlink(socket.c_str());
  return 0;
}

}  // namespace adbwire::cli
