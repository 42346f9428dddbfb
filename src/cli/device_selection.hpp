// Which device a call means when it names none, as adb decides (adb_commandline's -s, -d, -e, -t
// and $ANDROID_SERIAL; transport.cpp's acquire_one_transport): the devices reachable are those
// the adb server lists, those this user's daemon holds and the phones on this machine's USB bus
// that neither holds (each once, by serial). Full
// program only (it lists the server and the bus).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "adbwire/protocol/smart_socket.hpp"
#include "base/failure.hpp"
#include "cli/command.hpp"

namespace adbwire::cli {

// adbwire's lists show the adb server's devices with the server's transport ids, unchanged (adb
// -t and adbwire -t mean the same device), and the devices only the daemon holds with the
// daemon's id plus this, so the two never collide (an adb server would need a million
// connections first; an id both could mean is the server's) and `-t ID` selects what `devices
// -l` printed.
constexpr std::uint64_t kDaemonTransportIds = 1000000;

// The devices this user's daemon holds (host:devices-l), when one runs (none is started) and
// --no-daemon was not given; their transport ids as adbwire's lists show them (the daemon's plus
// kDaemonTransportIds). Errors (failure, then no entries): what reaching the daemon met
// (daemon::ask_daemon), parse_error.
std::vector<protocol::DeviceEntry> daemon_devices(const GlobalOptions& globals,
                                                  detail::Failure& failure);

// The target for globals: -s as given; else, without -d, -e or -t, $ANDROID_SERIAL; else the
// one reachable device that -d (USB), -e (TCP or emulator) or -t ID (a transport id `devices -l`
// shows: the adb server's, else a daemon-only device's) allows, or with none of them the one device
// there is. Throws Error(not_found) whose first line is adb's sentence, then how to name a device,
// for none ("no devices/emulators found", "no devices found", "no emulators found", "no device with
// transport id 'ID'") and for several
// ("more than one device/emulator", "more than one device", "more than one emulator");
// Error(invalid_argument) for an ID that is not a number.
std::string select_target(const GlobalOptions& globals);

}  // namespace adbwire::cli
