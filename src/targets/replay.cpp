#include "adbwire/replay.hpp"

#include <algorithm>
#include <asio/io_context.hpp>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "adbwire/capture.hpp"
#include "adbwire/error.hpp"
#include "base/mutex.hpp"
#include "capture/replay_script.hpp"
#include "connection/connection.hpp"
#include "transport/replay_transport.hpp"

namespace adbwire {

namespace {

// The chosen connection's ADB messages as replay steps; failure set when there are none.
std::vector<capture_detail::ReplayStep> read_steps(const std::filesystem::path& capture,
                                                   std::uint32_t connection,
                                                   detail::Failure& failure) {
  std::vector<CapturedMessage> messages;
  std::error_code error;
  const CaptureSummary summary = decode_capture_file(
      capture, [&](const CapturedMessage& m) { messages.push_back(m); }, error);
  if (error) {
    failure.set(error, "cannot replay " + capture.string() + ": " +
                           (summary.fault.detail.empty() ? error.message() : summary.fault.detail));
    return {};
  }
  std::vector<capture_detail::ReplayStep> steps;
  for (const CapturedMessage& m : messages) {
    if (m.kind != CapturedKind::adb) continue;
    if (connection == 0) connection = m.connection;
    if (m.connection == connection) steps.push_back({m.direction, m.message, m.record});
  }
  if (steps.empty()) {
    failure.set(
        errc::invalid_argument,
        "cannot replay " + capture.string() + ": it holds no ADB messages" +
            (connection != 0 ? " on connection " + std::to_string(connection) : std::string()) +
            " (see `adbwire capture decode " + capture.string() + "`)");
  }
  return steps;
}

}  // namespace

Replay::Replay(std::shared_ptr<detail::ReplayState> state, Device device)
    : state_(std::move(state)), device_(std::move(device)) {}
Replay::Replay(Replay&&) noexcept = default;
Replay& Replay::operator=(Replay&&) noexcept = default;
Replay::~Replay() = default;

Replay Replay::start_into(const std::filesystem::path& capture, const ReplayOptions& options,
                          detail::Failure& failure) {
  auto steps = read_steps(capture, options.connection, failure);
  if (failure) return Replay(nullptr, Device(nullptr, options.connect.command_timeout));
  auto state = std::make_shared<detail::ReplayState>(capture_detail::ReplayScript(
      std::move(steps), capture.string(), options.match_host_features));
  const std::string target = "replay:" + capture.string();
  auto factory = [state, target](asio::io_context& io, Deadline,
                                 detail::Failure&) -> std::unique_ptr<transport::Transport> {
    return transport::make_replay_transport(io, state, target);
  };
  ConnectOptions connect = options.connect;
  connect.record.clear();
  auto opener = connection::Connection::establish(factory, target, "replay", connect, failure);
  Replay replay(state, Device(std::move(opener), connect.command_timeout, connect.limits));
  if (failure) {
    // A host message the capture did not expect is the reason the handshake broke off.
    detail::MutexLock lock(state->mutex);
    if (!state->script.mismatch().empty())
      failure.set(errc::protocol_error, state->script.mismatch());
    replay.failure_ = failure.detail;
  }
  return replay;
}

Replay Replay::start(const std::filesystem::path& capture, const ReplayOptions& options,
                     std::error_code& error) {
  return detail::or_code(error,
                         [&](detail::Failure& f) { return start_into(capture, options, f); });
}

Replay Replay::start(const std::filesystem::path& capture, const ReplayOptions& options) {
  return detail::or_throw([&](detail::Failure& f) { return start_into(capture, options, f); });
}

std::string Replay::mismatch() const {
  if (!state_) return {};
  detail::MutexLock lock(state_->mutex);
  return state_->script.mismatch();
}

std::size_t Replay::host_messages_left() const {
  if (!state_) return 0;
  detail::MutexLock lock(state_->mutex);
  return state_->script.host_messages_left();
}

void Replay::finish_into(detail::Failure& failure) {
  device_.close();
  if (!state_) {
    failure.set(errc::closed, "this replay was never started");
  } else {
    detail::MutexLock lock(state_->mutex);
    if (!state_->script.mismatch().empty()) {
      failure.set(errc::protocol_error, state_->script.mismatch());
    } else if (state_->script.host_messages_left() != 0) {
      failure.set(errc::protocol_error,
                  "the library stopped with " +
                      std::to_string(state_->script.host_messages_left()) +
                      " host message(s) of the capture unsent; the next one is " +
                      state_->script.next_expected());
    }
  }
  if (failure) failure_ = failure.detail;
}

void Replay::finish(std::error_code& error) {
  detail::or_code(error, [&](detail::Failure& f) { finish_into(f); });
}

void Replay::finish() {
  detail::or_throw([&](detail::Failure& f) { finish_into(f); });
}

}  // namespace adbwire
