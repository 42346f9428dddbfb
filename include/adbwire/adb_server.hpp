// A client of a running adb server's host services (the smart socket, port 5037): list and
// track devices, connect/disconnect TCP devices, forwards, waits. adbwire never starts a
// server; to run commands on a device through it, use Device::connect("server:…").
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <stop_token>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "adbwire/deadline.hpp"
#include "adbwire/protocol/smart_socket.hpp"
#include "adbwire/server_address.hpp"

namespace adbwire {

// Gets each list the server pushes; return false to stop tracking.
using DeviceTrackHandler = std::function<bool(const protocol::DeviceListUpdate&)>;

// What wait_for waits for (adb's wait-for-TRANSPORT-STATE).
enum class WaitTransport { any, usb, local };
enum class WaitState { device, recovery, rescue, sideload, bootloader, disconnect, any };

// One adb server. A value holding the address: every call opens its own connection to the
// server (as adb does), so calls may run from any number of threads at once. Every call
// has a deadline (kDefaultDeadline = now + the timeout given at construction).
//
// Errors common to every call: connection_refused (no server listens: the message says how
// to start one and names the direct alternative, -s tcp:HOST:PORT; adbwire never starts a
// server), timeout, not_found (the server host does not resolve), protocol_error (the
// peer is not an adb server), io_error. A FAIL answer maps to not_found (no such device),
// device_offline, unauthorized, invalid_argument (more than one device and no serial),
// not_supported (unknown service) or command_failed, with the server's message.
class AdbServer {
 public:
  // Fills the address's empty parts now (resolve_server_address; invalid_argument when the
  // environment is malformed). Connects to nothing yet.
  explicit AdbServer(const ServerAddress& address = {},
                     std::chrono::milliseconds timeout = std::chrono::seconds(10));
  AdbServer(const ServerAddress& address, std::chrono::milliseconds timeout,
            std::error_code& error);

  // The resolved address.
  const ServerAddress& address() const noexcept { return address_; }

  // host:version: the server's protocol version (41 for adb 1.0.41).
  int version(Deadline deadline = kDefaultDeadline) const;
  int version(Deadline deadline, std::error_code& error) const;

  // host:devices-l (long = true: product, model, transport id…) or host:devices.
  std::vector<protocol::DeviceEntry> devices(bool long_format = true,
                                             Deadline deadline = kDefaultDeadline) const;
  std::vector<protocol::DeviceEntry> devices(bool long_format, Deadline deadline,
                                             std::error_code& error) const;

  // host:track-devices-l: calls on_update with the current list at once and again on every
  // change, on the calling thread, until on_update returns false, stop is requested (from
  // any thread; then it returns without error), or the deadline passes (timeout). The
  // server going away is device_offline. Exceptions from on_update propagate.
  void track_devices(const DeviceTrackHandler& on_update, std::stop_token stop = {},
                     Deadline deadline = kNoDeadline) const;
  void track_devices(const DeviceTrackHandler& on_update, std::stop_token stop, Deadline deadline,
                     std::error_code& error) const;

  // The device's features as the server knows them (host-serial:SERIAL:features; an empty
  // serial means the only device).
  std::vector<std::string> features(std::string_view serial,
                                    Deadline deadline = kDefaultDeadline) const;
  std::vector<std::string> features(std::string_view serial, Deadline deadline,
                                    std::error_code& error) const;

  // host:connect:HOST:PORT, like `adb connect`: returns the server's sentence ("connected
  // to …" or "already connected to …"). The device may still be authorizing afterwards:
  // wait_for it. Errors also: connection_refused / command_failed with the server's reason.
  std::string connect(std::string_view host, std::uint16_t port,
                      Deadline deadline = kDefaultDeadline) const;
  std::string connect(std::string_view host, std::uint16_t port, Deadline deadline,
                      std::error_code& error) const;

  // host:disconnect:ADDRESS ("HOST:PORT"; empty disconnects every TCP device). Returns the
  // server's sentence. not_found when the server has no such device.
  std::string disconnect(std::string_view address, Deadline deadline = kDefaultDeadline) const;
  std::string disconnect(std::string_view address, Deadline deadline, std::error_code& error) const;

  // host:mdns:check: the server's own words on its mDNS discovery ("mdns daemon version [adb
  // discovery 0.0.0]", or "ERROR: mdns discovery disabled"). not_supported from adb servers
  // before 30, which have no mDNS.
  std::string mdns_check(Deadline deadline = kDefaultDeadline) const;
  std::string mdns_check(Deadline deadline, std::error_code& error) const;

  // host:mdns:services: the services the server's discovery has seen (adb mdns services).
  // not_supported as mdns_check; protocol_error for a list that does not parse.
  std::vector<protocol::MdnsServiceEntry> mdns_services(Deadline deadline = kDefaultDeadline) const;
  std::vector<protocol::MdnsServiceEntry> mdns_services(Deadline deadline,
                                                        std::error_code& error) const;

  // host:kill: the server exits (kill-server). Whoever started it must reap it.
  void kill(Deadline deadline = kDefaultDeadline) const;
  void kill(Deadline deadline, std::error_code& error) const;

  // host-serial:SERIAL:forward[:norebind]:LOCAL;REMOTE. Returns the port the server bound
  // when LOCAL is tcp:0, else 0. command_failed with the reason (e.g. address in use, or
  // no_rebind and LOCAL already forwarded).
  std::uint16_t forward(std::string_view serial, std::string_view local, std::string_view remote,
                        bool no_rebind = false, Deadline deadline = kDefaultDeadline) const;
  std::uint16_t forward(std::string_view serial, std::string_view local, std::string_view remote,
                        bool no_rebind, Deadline deadline, std::error_code& error) const;
  // killforward:LOCAL for one forward; killforward-all when local is empty.
  void kill_forward(std::string_view serial, std::string_view local,
                    Deadline deadline = kDefaultDeadline) const;
  void kill_forward(std::string_view serial, std::string_view local, Deadline deadline,
                    std::error_code& error) const;
  // host:list-forward: every forward of every device.
  std::vector<protocol::ForwardEntry> list_forward(Deadline deadline = kDefaultDeadline) const;
  std::vector<protocol::ForwardEntry> list_forward(Deadline deadline, std::error_code& error) const;

  // reverse:forward[:norebind]:REMOTE;LOCAL on the device (REMOTE listens on the device,
  // LOCAL is reached from this host). Returns the device port bound for tcp:0, else 0.
  // not_supported when the device has no reverse service.
  std::uint16_t reverse(std::string_view serial, std::string_view remote, std::string_view local,
                        bool no_rebind = false, Deadline deadline = kDefaultDeadline) const;
  std::uint16_t reverse(std::string_view serial, std::string_view remote, std::string_view local,
                        bool no_rebind, Deadline deadline, std::error_code& error) const;
  // reverse:killforward:REMOTE, or reverse:killforward-all when remote is empty.
  void kill_reverse(std::string_view serial, std::string_view remote,
                    Deadline deadline = kDefaultDeadline) const;
  void kill_reverse(std::string_view serial, std::string_view remote, Deadline deadline,
                    std::error_code& error) const;
  // reverse:list-forward.
  std::vector<protocol::ForwardEntry> list_reverse(std::string_view serial,
                                                   Deadline deadline = kDefaultDeadline) const;
  std::vector<protocol::ForwardEntry> list_reverse(std::string_view serial, Deadline deadline,
                                                   std::error_code& error) const;

  // Waits until the device (serial; empty: any one device) reaches state over transport:
  // host[-serial:S]:wait-for-TRANSPORT-STATE. timeout when the deadline passes first.
  void wait_for(std::string_view serial, WaitState state,
                WaitTransport transport = WaitTransport::any,
                Deadline deadline = kDefaultDeadline) const;
  void wait_for(std::string_view serial, WaitState state, WaitTransport transport,
                Deadline deadline, std::error_code& error) const;

 private:
  Deadline resolve(Deadline deadline) const noexcept;

  ServerAddress address_;
  std::chrono::milliseconds timeout_;
};

}  // namespace adbwire
