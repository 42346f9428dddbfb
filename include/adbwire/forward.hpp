// Port forwarding both ways, as `adb forward` and `adb reverse`, over adbwire's own
// connection (no adb server): forward listens on a local TCP port and opens one device
// stream per accepted connection; reverse has the device listen and accepts the device's
// OPENs only for rules registered here.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "adbwire/deadline.hpp"
#include "adbwire/device.hpp"

namespace adbwire {

// One rule. forward: local is the host side ("tcp:8080"), remote the device service
// ("tcp:5000", "localabstract:chrome_devtools_remote", "jdwp:1234" …). reverse: local is the
// device side, remote the host side, as `adb reverse --list` prints them.
struct ForwardRule {
  std::string local;
  std::string remote;
};

// Byte counts of a Forwarder since it was made (every rule, both directions).
struct ForwardStats {
  std::uint64_t connections = 0;  // bridged connections, forward and reverse
  std::uint64_t to_device = 0;    // bytes host → device
  std::uint64_t from_device = 0;  // bytes device → host
  std::uint64_t refused = 0;      // device OPENs refused (no reverse rule names them)
};

// The rules of one device connection, and the threads that pump their connections. Each
// bridged connection pumps both ways with one 64 KiB buffer per direction: a slow reader on
// either side slows the writer on the other (ADB flow control and TCP backpressure), memory
// stays bounded. A connection ends both ways when either side ends it.
//
// Lifetime: shares the Device's connection; if the Device is closed or destroyed first, the
// bridged connections end and new ones are closed at once. The destructor removes every
// forward rule (reverse rules live on the device until the connection ends: call
// reverse_remove_all() first to end them sooner) and joins every thread.
// Thread safety: every member may be called from any thread.
class Forwarder {
 public:
  // Also starts accepting device-initiated streams for reverse rules (only those).
  explicit Forwarder(Device& device);
  ~Forwarder();
  Forwarder(const Forwarder&) = delete;
  Forwarder& operator=(const Forwarder&) = delete;

  // Listens on local ("tcp:PORT" on 127.0.0.1; "tcp:0" picks a free port) and, for each
  // accepted connection, opens `remote` on the device and pumps bytes both ways. Returns the
  // local spec with the bound port ("tcp:41234"). An existing rule for the same local spec
  // is replaced unless no_rebind. Errors: invalid_argument (local not "tcp:PORT", empty
  // remote), busy (the port is taken, or no_rebind and a rule exists), io_error.
  // A device that refuses `remote` shows as the accepted connection being closed at once.
  std::string forward(std::string_view local, std::string_view remote, bool no_rebind = false);
  std::string forward(std::string_view local, std::string_view remote, bool no_rebind,
                      std::error_code& error);
  // The forward rules, in the order made.
  std::vector<ForwardRule> list() const;
  // Stops listening on local and ends its connections. Errors: not_found.
  void remove(std::string_view local);
  void remove(std::string_view local, std::error_code& error);
  void remove_all() noexcept;

  // Asks the device to listen on device_side ("tcp:PORT", "localabstract:NAME") and to open
  // host_side ("tcp:PORT": 127.0.0.1:PORT on this host) for each connection there
  // (reverse:forward:…). Only OPENs naming a registered host_side are accepted; the rest are
  // refused. Returns the device's extra answer (the port it picked for "tcp:0"; usually "").
  // Errors: command_failed (the device said FAIL: its text word for word, e.g. "cannot
  // rebind existing socket"), invalid_argument (host_side not "tcp:PORT"), not_supported
  // (a connection through an adb server: use `adb reverse`), those of Device::open.
  std::string reverse(std::string_view device_side, std::string_view host_side,
                      bool no_rebind = false, Deadline deadline = kDefaultDeadline);
  std::string reverse(std::string_view device_side, std::string_view host_side, bool no_rebind,
                      Deadline deadline, std::error_code& error);
  // The device's reverse rules (reverse:list-forward). Errors: parse_error, as reverse().
  std::vector<ForwardRule> reverse_list(Deadline deadline = kDefaultDeadline);
  std::vector<ForwardRule> reverse_list(Deadline deadline, std::error_code& error);
  // Removes one reverse rule on the device and here. Errors: command_failed (the device has
  // no such rule: its text), as reverse().
  void reverse_remove(std::string_view device_side, Deadline deadline = kDefaultDeadline);
  void reverse_remove(std::string_view device_side, Deadline deadline, std::error_code& error);
  void reverse_remove_all(Deadline deadline = kDefaultDeadline);
  void reverse_remove_all(Deadline deadline, std::error_code& error);

  ForwardStats stats() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace adbwire
