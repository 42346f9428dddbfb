// Where a device is: the -s argument of the CLI and the first argument of Device::connect.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>

namespace adbwire {

// A parsed connect target. Value type; thread safe for concurrent const use.
//
// Accepted forms:
//   tcp:HOST[:PORT]        adbd over TCP (PORT defaults to 5555; IPv6 as tcp:[::1]:5555)
//   HOST:PORT              the same (what `adb connect` lists as the serial)
//   usb:[SERIAL]           direct USB (first ADB interface when SERIAL is empty)
//   server:[HOST:PORT/]SERIAL  through a running adb server (default localhost:5037)
//   mdns:NAME              a phone in Wireless debugging found by mDNS (_adb-tls-connect._tcp)
//                          by its GUID or instance name, then connected over TCP with TLS
//   adb-…                  a bare name beginning "adb-" (a Wireless debugging GUID, "adb-R5CT-
//                          AbCdEf"), or adb's serial of such a phone
//                          ("NAME._adb-tls-connect._tcp"), means mdns:NAME
//   SERIAL                 any other bare serial means server:SERIAL, as `adb -s SERIAL` does
//   ""                     default_serial(), parsed by the rules above
class Target {
 public:
  enum class Kind { tcp, usb, server, mdns };

  // Errors: invalid_argument (empty with no default_serial(), a bad port, an empty host),
  // naming the accepted forms.
  static Target parse(std::string_view text);
  static Target parse(std::string_view text, std::error_code& error);

  Kind kind() const noexcept { return kind_; }
  // tcp: the device's host; server: the adb server's host, empty when the target names none
  // (ConnectOptions::server, then $ADB_SERVER_SOCKET / $ANDROID_ADB_SERVER_PORT, decide).
  const std::string& host() const noexcept { return host_; }
  // tcp: the device's port; server: the adb server's port (0 when the target names none).
  std::uint16_t port() const noexcept { return port_; }
  // usb/server: the device serial (may be empty for usb:); mdns: the name to look up.
  const std::string& serial() const noexcept { return serial_; }

  // The canonical form: "tcp:HOST:PORT", "usb:SERIAL", "server:[HOST:PORT/]SERIAL", "mdns:NAME".
  std::string to_string() const;

 private:
  Kind kind_ = Kind::tcp;
  std::string host_;
  std::uint16_t port_ = 0;
  std::string serial_;
};

// The device a call that names none uses: $ANDROID_SERIAL when set and not empty, else
// $ADB_SERIAL (the name some agent tools use), else "". Thread safe while no one sets either.
std::string default_serial();

}  // namespace adbwire
