// Opening a CLI session (session.hpp): the target an open without one uses, and the daemon's
// open request. In the full program, which may look for devices on an adb server and the USB bus.
#include <unistd.h>

#include <cstdlib>

#include "adbwire/adb_server.hpp"
#include "adbwire/error.hpp"
#include "adbwire/target.hpp"
#include "adbwire/usb.hpp"
#include "cli/connect.hpp"
#include "cli/daemon_connect.hpp"
#include "cli/session/session.hpp"
#include "daemon/client.hpp"
#include "daemon/session_spec.hpp"

namespace adbwire::cli {
namespace {

using namespace std::chrono_literals;

// The target an open without one uses: $ANDROID_SERIAL, else the only device there is.
std::string pick_target() {
  if (std::string serial = default_serial(); !serial.empty()) return serial;
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
                "neither $ANDROID_SERIAL nor $ADB_SERIAL is set; give a target (tcp:HOST:PORT, a "
                "serial, usb:SERIAL)");
  }
  std::string list;
  for (const std::string& choice : choices) list += "\n  " + choice;
  throw Error(errc::invalid_argument,
              "several devices are reachable; name one: `adbwire open TARGET` with one of:" + list);
}

}  // namespace

std::string open_session(const GlobalOptions& globals, std::string_view name,
                         const std::string& given_target, std::chrono::seconds idle,
                         const PageOptions& options, const SessionMemory& memory) {
  daemon::SessionSpec spec;
  spec.name = std::string(name);
  spec.target = given_target.empty() ? pick_target() : given_target;
  spec.idle = idle;
  const ConnectOptions connect = connect_options(globals);
  spec.auth_timeout = connect.auth_timeout;
  spec.limits = connect.limits;
  spec.page = options;
  spec.memory_db = memory.db;
  spec.observe = memory.observe;
  if (!daemon::valid_session_name(spec.name)) {
    throw Error(errc::invalid_argument,
                "a session name is letters, digits, '-', '_' and '.', not '" + spec.name + "'");
  }
  const daemon::DaemonStart start = daemon_start(globals);
  detail::Failure failure;
  const int fd = daemon::reach_daemon(start.program, &start, failure);
  failure.throw_if_failed();
  // The daemon connects first: as long as a direct connect could take, a key's acceptance too.
  const Deadline deadline =
      deadline_after(30s + ConnectOptions{}.connect_timeout + spec.auth_timeout);
  daemon::FrameReader reader;
  std::string target;
  if (daemon::send_request(fd,
                           std::string(daemon::kOpenRequest) + daemon::format_session_spec(spec),
                           deadline, failure))
    daemon::read_answer(fd, reader, deadline, {}, &target, failure);
  ::close(fd);
  failure.throw_if_failed();
  return target;
}

}  // namespace adbwire::cli
