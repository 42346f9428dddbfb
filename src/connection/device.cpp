#include "adbwire/device.hpp"

#include <utility>

#include "connection/connection.hpp"
#include "connection/stream_opener.hpp"

namespace adbwire {
Device::Device(std::shared_ptr<StreamOpener> opener, std::chrono::milliseconds command_timeout,
               const OutputLimits& limits) noexcept
    : opener_(std::move(opener)), command_timeout_(command_timeout), limits_(limits) {}

Device::Device(Device&&) noexcept = default;

Device& Device::operator=(Device&& other) noexcept {
  if (this != &other) {
    close();
    opener_ = std::move(other.opener_);
    command_timeout_ = other.command_timeout_;
    limits_ = other.limits_;
  }
  return *this;
}

Device::~Device() { close(); }

Deadline Device::resolve(Deadline deadline) const noexcept {
  return deadline == kDefaultDeadline ? deadline_after(command_timeout_) : deadline;
}

Stream Device::open_stream(std::string_view service, Deadline deadline, detail::Failure& failure) {
  if (!opener_) {
    failure = detail::moved_from_device();
    return Stream();
  }
  auto backend = opener_->open(service, resolve(deadline), failure);
  if (failure) return Stream();
  return Stream(std::move(backend), command_timeout_, limits_.command);
}

Stream Device::open(std::string_view service, Deadline deadline) {
  return detail::or_throw([&](detail::Failure& f) { return open_stream(service, deadline, f); });
}

Stream Device::open(std::string_view service, Deadline deadline, std::error_code& error) {
  return detail::or_code(error,
                         [&](detail::Failure& f) { return open_stream(service, deadline, f); });
}

const protocol::Banner& Device::banner() const noexcept {
  static const protocol::Banner kNone;
  return opener_ ? opener_->banner() : kNone;
}

bool Device::has_feature(std::string_view feature) const noexcept {
  return opener_ && opener_->can_use_feature(feature);
}

std::string Device::serial() const { return opener_ ? opener_->serial() : std::string(); }

ConnectionInfo Device::connection_info() const {
  return opener_ ? opener_->info() : ConnectionInfo{};
}

void Device::close() noexcept {
  if (opener_) opener_->close();
}

}  // namespace adbwire
