// The seam under Device: something that opens streams to one device by service name.
// The multiplexed session over a transport (connection.hpp) is one; an adb-server
// smart-socket backend (one socket per stream) is the other kind. Internal.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "adbwire/connection_info.hpp"
#include "adbwire/deadline.hpp"
#include "adbwire/protocol/banner.hpp"
#include "base/failure.hpp"
#include "connection/stream_backend.hpp"

namespace adbwire::detail {

// Takes device-initiated streams (reverse forwarding). Called on the connection's I/O
// thread: both members must return quickly and never block.
class IncomingStreams {
 public:
  virtual ~IncomingStreams() = default;
  // True to accept the device's OPEN of `service`; anything no reverse rule names must be
  // refused.
  virtual bool accepts(std::string_view service) = 0;
  // An accepted stream, open; the callee owns it from now on.
  virtual void adopt(std::string service, std::unique_ptr<StreamBackend> stream) = 0;
};

}  // namespace adbwire::detail

namespace adbwire {

// Thread safe: every member may be called from any thread at once.
class StreamOpener {
 public:
  virtual ~StreamOpener() = default;

  // Opens `service`; nullptr with failure set: not_supported (refused by the device),
  // timeout, device_offline, closed. deadline is resolved (never kDefaultDeadline).
  virtual std::unique_ptr<StreamBackend> open(std::string_view service, Deadline deadline,
                                              detail::Failure& failure) = 0;

  // Fixed once connected; the reference lives as long as the opener.
  virtual const protocol::Banner& banner() const noexcept = 0;
  // Both sides list the feature.
  virtual bool can_use_feature(std::string_view feature) const noexcept = 0;
  virtual std::string serial() const = 0;
  virtual ConnectionInfo info() const = 0;

  // Fails waiting and later calls with errc::closed. Idempotent.
  virtual void close() noexcept = 0;

  // False once the connection has failed or was closed, so every later open fails (the CLI
  // daemon watches this to connect again, and to let go of a device that went away). A backend
  // without a connection of its own (one adb-server socket per stream) is always true.
  virtual bool connected() const noexcept { return true; }

  // Routes device-initiated OPENs to handler (nullptr: refuse them all, the default).
  // False when this backend cannot receive them (an adb server carries reverse itself).
  virtual bool set_incoming(std::shared_ptr<detail::IncomingStreams> handler) {
    (void)handler;
    return false;
  }
};

}  // namespace adbwire

namespace adbwire::detail {

// What calls on a moved-from Device report.
inline Failure moved_from_device() {
  Failure failure;
  failure.set(errc::closed, "the Device was moved from; use the Device it was moved to");
  return failure;
}

}  // namespace adbwire::detail
