#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "adbwire/error.hpp"
#include "cli/runtime_folder.hpp"
#include "cli/session/session.hpp"
#include "cli/session/session_server.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// A connected Unix socket to the session, or -1 when nothing listens there.
int connect_socket(const fs::path& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.native().size() >= sizeof address.sun_path) {
    throw Error(errc::invalid_argument,
                "the session socket path " + path.string() + " is too long");
  }
  std::memcpy(address.sun_path, path.c_str(), path.native().size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw Error(errc::io_error, "cannot create a Unix socket");
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

void write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw Error(errc::io_error, "the session closed the connection while we were writing");
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

std::string read_line(int fd) {
  std::string line;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    line.append(buffer, static_cast<std::size_t>(n));
    if (line.find('\n') != std::string::npos) break;
  }
  if (const std::size_t end = line.find('\n'); end != std::string::npos) line.resize(end);
  return line;
}

}  // namespace

fs::path session_socket_path() {
  if (const char* explicit_path = std::getenv("ADBWIRE_SESSION");
      explicit_path != nullptr && *explicit_path != 0) {
    return explicit_path;
  }
  return private_runtime_folder() / "session.sock";
}

std::string call_session(std::string_view cmd, const nlohmann::json& args) {
  const fs::path path = session_socket_path();
  const int fd = connect_socket(path);
  if (fd < 0) {
    throw Error(errc::not_found, "no adbwire session is running (" + path.string() +
                                     "); start one with `adbwire open [TARGET]`");
  }
  nlohmann::json request = {
      {"cmd", cmd}, {"args", args}, {"dir", (fs::current_path() / ".adbwire").string()}};
  std::string line;
  try {
    write_all(fd, request.dump() + "\n");
    line = read_line(fd);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  const nlohmann::json reply = nlohmann::json::parse(line, nullptr, false);
  if (reply.is_discarded() || !reply.is_object()) {
    throw Error(errc::protocol_error,
                "the session answered something that is not JSON; run `adbwire open` again");
  }
  if (const std::string warning = reply.value("warning", std::string()); !warning.empty()) {
    std::fprintf(stderr, "adbwire: %s\n", shown(warning).c_str());
  }
  if (!reply.value("ok", false)) {
    throw Error(make_error_code(
                    static_cast<errc>(reply.value("code", static_cast<int>(errc::command_failed)))),
                reply.value("message", std::string("the session reported an error")));
  }
  return reply.value("out", std::string());
}

int run_in_session(std::string_view cmd, const nlohmann::json& args) {
  const std::string out = call_session(cmd, args);
  if (!out.empty()) {
    std::fwrite(out.data(), 1, out.size(), stdout);
    if (out.back() != '\n') std::fputc('\n', stdout);
  }
  return std::fflush(stdout) == 0 ? 0 : 1;
}

void open_session(const std::string& target, std::chrono::seconds idle, const PageOptions& options,
                  const ConnectOptions& connect) {
  const fs::path path = session_socket_path();
  if (const int fd = connect_socket(path); fd >= 0) {
    ::close(fd);
    call_session("close", nlohmann::json::object());
    for (int i = 0; i < 100 && fs::exists(path); ++i) std::this_thread::sleep_for(20ms);
  }
  int ready[2];
  if (::pipe2(ready, O_CLOEXEC) != 0)
    throw Error(errc::io_error, "cannot create a pipe for the session daemon");
  const pid_t child = ::fork();
  if (child < 0) throw Error(errc::io_error, "cannot start the session daemon (fork failed)");
  if (child == 0) {
    // The daemon: its own session, no terminal, parented by init once this child exits.
    ::close(ready[0]);
    ::setsid();
    if (::fork() != 0) ::_exit(0);
    const int null = ::open("/dev/null", O_RDWR);
    ::dup2(null, STDIN_FILENO);
    ::dup2(null, STDOUT_FILENO);
    ::dup2(null, STDERR_FILENO);
    if (null > STDERR_FILENO) ::close(null);
    ::_exit(serve_session(target, idle, options, connect, path, ready[1]));
  }
  ::close(ready[1]);
  int status = 0;
  ::waitpid(child, &status, 0);
  const std::string line = read_line(ready[0]);
  ::close(ready[0]);
  if (line == "ok") return;
  if (line.starts_with("error ")) {
    char* rest = nullptr;
    const long code = std::strtol(line.c_str() + 6, &rest, 10);
    throw Error(make_error_code(static_cast<errc>(code)),
                rest != nullptr && *rest == ' ' ? rest + 1 : "");
  }
  throw Error(errc::io_error, "the session daemon exited before it was ready");
}

}  // namespace adbwire::cli
