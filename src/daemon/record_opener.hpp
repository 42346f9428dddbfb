// A StreamOpener for a device the daemon holds, knowing it by its BannerRecord: its banner, the
// features both sides use and its serial. The base of the client's opener (a Device through the
// daemon) and of the Device a session's Page gets inside the daemon.
#pragma once

#include <string>
#include <string_view>

#include "adbwire/protocol/banner.hpp"
#include "connection/stream_opener.hpp"
#include "daemon/daemon_protocol.hpp"

namespace adbwire::daemon {

class RecordOpener : public StreamOpener {
 public:
  // target: what info() names (the target the device was reached by).
  RecordOpener(std::string target, BannerRecord record)
      : target_(std::move(target)),
        record_(std::move(record)),
        banner_(protocol::parse_banner(record_.banner)) {}

  const protocol::Banner& banner() const noexcept override { return banner_; }
  bool can_use_feature(std::string_view feature) const noexcept override {
    for (const std::string& usable : record_.features) {
      if (usable == feature) return true;
    }
    return false;
  }
  std::string serial() const override { return record_.serial; }
  ConnectionInfo info() const override {
    ConnectionInfo info;
    info.target = target_;
    return info;
  }

 protected:
  const std::string target_;
  const BannerRecord record_;

 private:
  const protocol::Banner banner_;
};

}  // namespace adbwire::daemon
