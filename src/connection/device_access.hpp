// What library services beyond Device's public API need of a Device: its stream opener
// (shared, so a Forwarder keeps working calls failing cleanly after the Device is gone) and
// its default timeout. Internal.
#pragma once

#include <chrono>
#include <memory>

#include "adbwire/device.hpp"
#include "connection/stream_opener.hpp"

namespace adbwire::detail {

struct DeviceAccess {
  static std::shared_ptr<StreamOpener> opener(const Device& device) { return device.opener_; }
  static std::chrono::milliseconds command_timeout(const Device& device) {
    return device.command_timeout_;
  }
  // kDefaultDeadline -> now + command_timeout, so a multi-step call shares one deadline.
  static Deadline resolve(const Device& device, Deadline deadline) {
    return device.resolve(deadline);
  }
};

}  // namespace adbwire::detail
