// Starting a CLI session (session.hpp): the target an open without one uses, and the daemon,
// forked from the full program.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

#include "adbwire/adb_server.hpp"
#include "adbwire/error.hpp"
#include "adbwire/usb.hpp"
#include "cli/session/session.hpp"
#include "cli/session/session_server.hpp"
#include "cli/session/session_socket.hpp"

namespace adbwire::cli {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// The target an open without one uses: $ANDROID_SERIAL, else the only device there is.
std::string pick_target() {
  if (const char* serial = std::getenv("ANDROID_SERIAL"); serial != nullptr && *serial != 0)
    return serial;
  std::vector<std::string> choices;
  std::error_code error;
  const AdbServer server(ServerAddress{}, 3s, error);
  if (!error) {
    for (const auto& entry : server.devices(false, deadline_after(3s), error)) {
      if (entry.state_text == "device") choices.push_back(entry.serial);
    }
  }
  for (const UsbDevice& device : list_usb_devices(error)) {
    if (device.access == UsbAccess::ok) choices.push_back(device.target());
  }
  if (choices.size() == 1) return choices[0];
  if (choices.empty()) {
    throw Error(errc::not_found,
                "no device to open: none is attached over USB or listed by an adb server, and "
                "$ANDROID_SERIAL is not set; give a target (tcp:HOST:PORT, a serial, usb:SERIAL)");
  }
  std::string list;
  for (const std::string& choice : choices) list += "\n  " + choice;
  throw Error(errc::invalid_argument,
              "several devices are reachable; name one: `adbwire open TARGET` with one of:" + list);
}

}  // namespace

std::string open_session(std::string_view name, const std::string& given_target,
                         std::chrono::seconds idle, const PageOptions& options,
                         const ConnectOptions& connect) {
  const fs::path path = session_socket_path(name);
  if (const int fd = connect_socket(path); fd >= 0) {
    ::close(fd);
    std::string target = "?";
    try {
      target = ask(name, {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "adbwire/info"}})
                   .value("target", std::string("?"));
    } catch (const Error&) {
    }
    throw Error(errc::busy, session_name(name) + " is already open (" + target +
                                "); close it first (`adbwire" +
                                (name.empty() ? std::string() : " --session " + std::string(name)) +
                                " close`), or open another with --session NAME");
  }
  const std::string target = given_target.empty() ? pick_target() : given_target;
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
    ::_exit(serve_session(std::string(name), target, idle, options, connect, path, ready[1]));
  }
  ::close(ready[1]);
  int status = 0;
  ::waitpid(child, &status, 0);
  std::string line = read_all(ready[0], "the session daemon");
  ::close(ready[0]);
  if (const std::size_t end = line.find('\n'); end != std::string::npos) line.resize(end);
  if (line == "ok") return target;
  if (line.starts_with("error ")) {
    char* rest = nullptr;
    const long code = std::strtol(line.c_str() + 6, &rest, 10);
    throw Error(make_error_code(static_cast<errc>(code)),
                rest != nullptr && *rest == ' ' ? rest + 1 : "");
  }
  throw Error(errc::io_error, "the session daemon exited before it was ready");
}

}  // namespace adbwire::cli
