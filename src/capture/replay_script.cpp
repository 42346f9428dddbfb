#include "capture/replay_script.hpp"

#include <algorithm>
#include <string_view>
#include <utility>

#include "adbwire/protocol/banner.hpp"
#include "adbwire/protocol/constants.hpp"
#include "adbwire/protocol/shell_v2.hpp"
#include "capture/payload_preview.hpp"

namespace adbwire::capture_detail {
namespace {

using namespace protocol;

std::string_view text_of(const std::vector<std::uint8_t>& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// Banners are equal when they differ at most in feature order (or in features, unless compared).
bool same_banner(const std::vector<std::uint8_t>& expected, const std::vector<std::uint8_t>& actual,
                 bool compare_features) {
  Banner a = parse_banner(text_of(expected));
  Banner b = parse_banner(text_of(actual));
  std::sort(a.features.begin(), a.features.end());
  std::sort(b.features.begin(), b.features.end());
  return a.system_type == b.system_type && a.serial == b.serial && a.properties == b.properties &&
         (!compare_features || a.features == b.features);
}

// The OPEN payload of a shell v2 stream: "shell,v2[,…]:command".
bool opens_shell_v2(const std::vector<std::uint8_t>& payload) {
  const std::string_view service = text_of(payload);
  const std::string_view options = service.substr(0, service.find(':'));
  return options.starts_with("shell,") &&
         (options.find(",v2,") != std::string_view::npos || options.ends_with(",v2"));
}

// A shell v2 close-stdin packet (id 4, no data).
bool is_close_stdin_packet(const std::vector<std::uint8_t>& payload) {
  return payload.size() == kShellHeaderSize &&
         payload[0] == static_cast<std::uint8_t>(ShellPacketId::close_stdin) && payload[1] == 0 &&
         payload[2] == 0 && payload[3] == 0 && payload[4] == 0;
}

bool names_host_stream(std::uint32_t command) {
  return command == kCommandOpen || command == kCommandOkay || command == kCommandWrte ||
         command == kCommandClse;
}

}  // namespace

std::string describe_message(const protocol::Message& message) {
  std::string line(command_name(message.command));
  if (line == "????") {
    line = "0x";
    static constexpr char kHex[] = "0123456789abcdef";
    for (int shift = 28; shift >= 0; shift -= 4) line += kHex[(message.command >> shift) & 0xf];
  }
  line += " arg0=" + std::to_string(message.arg0) + " arg1=" + std::to_string(message.arg1) +
          " len=" + std::to_string(message.payload.size());
  if (!message.payload.empty()) line += " " + preview_bytes(message.payload, 64);
  return line;
}

ReplayScript::ReplayScript(std::vector<ReplayStep> steps, std::string name,
                           bool match_host_features)
    : steps_(std::move(steps)),
      name_(std::move(name)),
      match_host_features_(match_host_features),
      close_stdin_(steps_.size(), false) {
  std::set<std::uint32_t> shell_v2;  // recorded host ids whose OPEN was shell v2, so far
  for (std::size_t i = 0; i < steps_.size(); ++i) {
    const ReplayStep& step = steps_[i];
    if (step.direction != CaptureDirection::host_to_device) continue;
    const std::uint32_t command = step.message.command;
    const std::uint32_t stream = stream_of(step);
    if (command == kCommandOpen) {
      opens_.push_back(i);
      if (opens_shell_v2(step.message.payload)) {
        shell_v2.insert(stream);
      } else {
        shell_v2.erase(stream);
      }
    } else if (stream == kHandshake) {
      handshake_.push_back(i);
    } else {
      (command == kCommandOkay ? acks_ : requests_)[stream].push_back(i);
      close_stdin_[i] = command == kCommandWrte && shell_v2.contains(stream) &&
                        is_close_stdin_packet(step.message.payload);
    }
    pending_.insert(i);
  }
}

bool ReplayScript::is_close_stdin(const Message& actual) const {
  if (actual.command != kCommandWrte || !is_close_stdin_packet(actual.payload)) return false;
  const auto recorded = live_to_recorded_.find(actual.arg0);
  return recorded != live_to_recorded_.end() && shell_v2_streams_.contains(recorded->second);
}

std::uint32_t ReplayScript::stream_of(const ReplayStep& step) const {
  const Message& m = step.message;
  if (!names_host_stream(m.command)) return kHandshake;
  // The host names its own stream in arg0; the device names the host's in arg1 (its OPEN
  // names none: a device-initiated stream is ordered with the handshake).
  if (step.direction == CaptureDirection::host_to_device) return m.arg0;
  return m.command == kCommandOpen ? kHandshake : m.arg1;
}

std::uint32_t ReplayScript::to_live(std::uint32_t recorded_host_id) const {
  const auto found = recorded_to_live_.find(recorded_host_id);
  return found == recorded_to_live_.end() ? recorded_host_id : found->second;
}

bool ReplayScript::gates(const ReplayStep& host, const ReplayStep& device) const {
  const std::uint32_t host_stream = stream_of(host);
  const std::uint32_t device_stream = stream_of(device);
  if (host_stream == kHandshake || device_stream == kHandshake) return true;
  if (host_stream != device_stream) return false;
  if (host.message.command != kCommandOkay) return true;
  // A classic OKAY (no delayed_ack credit in its payload) is the credit for the next WRTE.
  return device.message.command == kCommandWrte && host.message.payload.empty();
}

void ReplayScript::release_due() {
  while (released_ < steps_.size()) {
    const ReplayStep& step = steps_[released_];
    if (step.direction == CaptureDirection::device_to_host) {
      for (auto it = pending_.begin(); it != pending_.end() && *it < released_; ++it) {
        // An optional close-stdin the live host may never send must not hold anything back.
        if (required(*it) && gates(steps_[*it], step)) return;
      }
      const std::uint32_t stream = stream_of(step);
      if (step.message.command == kCommandClse && stream != kHandshake) {
        // The device closed the stream: what the host still owes on it is optional.
        for (const auto* queues : {&requests_, &acks_}) {
          if (const auto queue = queues->find(stream); queue != queues->end()) {
            for (const std::size_t index : queue->second) pending_.erase(index);
          }
        }
      }
    }
    ++released_;
  }
}

void ReplayScript::take_device_output(std::vector<std::uint8_t>& out) {
  if (!mismatch_.empty()) return;
  release_due();
  for (; emitted_ < released_; ++emitted_) {
    const ReplayStep& step = steps_[emitted_];
    if (step.direction != CaptureDirection::device_to_host) continue;
    const Message& m = step.message;
    // The device names the host's stream in arg1 of OKAY, WRTE and CLSE (arg0 of OPEN is its own).
    const std::uint32_t arg1 =
        names_host_stream(m.command) && m.command != kCommandOpen ? to_live(m.arg1) : m.arg1;
    append_message(out, m.command, m.arg0, arg1, m.payload, true);
  }
}

std::size_t ReplayScript::expected_for(const Message& actual) {
  const std::size_t none = steps_.size();
  const auto front = [none](const std::deque<std::size_t>& queue) {
    return queue.empty() ? none : queue.front();
  };
  std::size_t candidate = none;
  std::string missing = "(nothing: the capture ends here)";
  if (actual.command == kCommandOpen) {
    candidate = front(opens_);
    missing = "(no further OPEN: the capture's host opens no more streams)";
  } else if (names_host_stream(actual.command) && actual.arg0 != 0) {
    const auto recorded = live_to_recorded_.find(actual.arg0);
    if (recorded == live_to_recorded_.end()) {
      fail("(no message: the host never opened a stream with local id " +
               std::to_string(actual.arg0) + ")",
           describe_message(actual), 0);
      return none;
    }
    auto& queues = actual.command == kCommandOkay ? acks_ : requests_;
    const auto queue = queues.find(recorded->second);
    // A close-stdin the capture's host sent here is matched; one it did not is passed over
    // (kSkip), also on a stream where the capture's host sent nothing at all (its close-stdin
    // lost the race with the device's CLSE); one the live host did not send is dropped, and
    // gates nothing any more.
    const bool live_close = is_close_stdin(actual);
    if (live_close &&
        (queue == queues.end() || queue->second.empty() || !close_stdin_[queue->second.front()])) {
      return kSkip;
    }
    if (queue != queues.end() && actual.command != kCommandOkay) {
      auto& requests = queue->second;
      while (!live_close && !requests.empty() && close_stdin_[requests.front()]) {
        pending_.erase(requests.front());
        requests.pop_front();
      }
      release_due();
    }
    if (queue != queues.end()) candidate = front(queue->second);
    missing = std::string("(no further ") +
              (actual.command == kCommandOkay ? "OKAY" : "WRTE or CLSE") +
              " from the host on this stream in the capture)";
  } else {
    candidate = pending_.empty() ? none : *pending_.begin();
  }
  // The handshake comes before everything else.
  const std::size_t handshake = front(handshake_);
  if (handshake < candidate) candidate = handshake;
  if (candidate == none) fail(missing, describe_message(actual), 0);
  return candidate;
}

bool ReplayScript::host_sent(std::span<const std::uint8_t> bytes) {
  if (!mismatch_.empty()) return false;
  std::vector<Message> messages;
  const std::error_code error = reader_.feed(bytes, messages);
  for (const Message& actual : messages) {
    ++host_sent_count_;
    const std::size_t index = expected_for(actual);
    if (index == kSkip) continue;
    if (index == steps_.size()) return false;
    const ReplayStep& step = steps_[index];
    const std::uint32_t stream = stream_of(step);
    if (!matches(step.message, actual)) {
      fail(describe_message(step.message), describe_message(actual), step.record);
      return false;
    }
    if (step.message.command == kCommandOpen) {
      opens_.pop_front();
      if (opens_shell_v2(step.message.payload)) {
        shell_v2_streams_.insert(stream);
      } else {
        shell_v2_streams_.erase(stream);
      }
    } else if (stream == kHandshake) {
      if (!handshake_.empty() && handshake_.front() == index) handshake_.pop_front();
    } else {
      auto& queue = (step.message.command == kCommandOkay ? acks_ : requests_)[stream];
      if (!queue.empty() && queue.front() == index) queue.pop_front();
    }
    pending_.erase(index);
    release_due();
  }
  if (error) {
    fail("a well-formed ADB message", "bytes that are not one (" + reader_.error_detail() + ")", 0);
    return false;
  }
  return true;
}

bool ReplayScript::matches(const Message& expected, const Message& actual) {
  if (expected.command != actual.command) return false;
  switch (expected.command) {
    case kCommandCnxn:
      return expected.arg0 == actual.arg0 && expected.arg1 == actual.arg1 &&
             same_banner(expected.payload, actual.payload, match_host_features_);
    case kCommandAuth:
      // A signature or public key depends on the host's key, not on the operation.
      if (expected.arg0 == kAuthSignature || expected.arg0 == kAuthRsaPublicKey)
        return expected.arg0 == actual.arg0;
      return expected.arg0 == actual.arg0 && expected.arg1 == actual.arg1 &&
             expected.payload == actual.payload;
    default:
      break;
  }
  if (!names_host_stream(expected.command)) {
    return expected.arg0 == actual.arg0 && expected.arg1 == actual.arg1 &&
           expected.payload == actual.payload;
  }
  if (expected.arg1 != actual.arg1 || expected.payload != actual.payload) return false;
  // arg0 is the host's own stream id (0 in a CLSE refusing an OPEN): one to one with the capture's.
  if (expected.arg0 == 0 || actual.arg0 == 0) return expected.arg0 == actual.arg0;
  if (expected.command == kCommandOpen) {
    // A new stream; a recorded or live id used again names a new one from here on.
    if (const auto old = recorded_to_live_.find(expected.arg0); old != recorded_to_live_.end()) {
      live_to_recorded_.erase(old->second);
    }
    if (const auto old = live_to_recorded_.find(actual.arg0); old != live_to_recorded_.end()) {
      recorded_to_live_.erase(old->second);
    }
    recorded_to_live_[expected.arg0] = actual.arg0;
    live_to_recorded_[actual.arg0] = expected.arg0;
    return true;
  }
  return to_live(expected.arg0) == actual.arg0;
}

void ReplayScript::fail(const std::string& expected, const std::string& actual,
                        std::uint64_t record) {
  mismatch_ = name_ + ": host message " + std::to_string(host_sent_count_) +
              (record != 0 ? " (capture frame " + std::to_string(record) + ")" : std::string()) +
              " differs from the capture\n  expected: " + expected + "\n  actual:   " + actual;
}

std::size_t ReplayScript::host_messages_left() const {
  return static_cast<std::size_t>(std::count_if(pending_.begin(), pending_.end(),
                                                [this](std::size_t i) { return required(i); }));
}

std::string ReplayScript::next_expected() const {
  const auto first =
      std::find_if(pending_.begin(), pending_.end(), [this](std::size_t i) { return required(i); });
  if (first == pending_.end()) return {};
  const ReplayStep& step = steps_[*first];
  return describe_message(step.message) + " (capture frame " + std::to_string(step.record) + ")";
}

}  // namespace adbwire::capture_detail
