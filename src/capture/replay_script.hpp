// The sans-IO core of replay: the ADB messages of one recorded connection, the device's
// played back and the host's matched against what a live host sends. Internal.
//
// What legitimately differs between two runs of the same operation is not compared: the
// host's local stream ids (mapped one to one onto the capture's, and device messages that
// name them are rewritten), AUTH signatures and public keys (another key signs another
// token), CNXN banner feature order, data_check (the capture does not keep it), and timing
// that depends on the host rather than on the operation:
// - host messages on different streams may interleave in any order;
// - a host OKAY only acknowledges: its place among the stream's other host messages is free;
// - a shell v2 close-stdin goes out whenever the host's stdin ends (adb sends it when its own
//   stdin reaches EOF, racing the command's exit; adbwire at once when there is no input), so
//   it is optional: matched when the capture's host sent one at that point, else passed over
//   (also where the capture's host sent none, its close-stdin having lost the race with the
//   device's CLSE: adbd ignores a WRTE for a stream it no longer has);
// - host messages on a stream the device has closed may be left out (adbd ignores them; AOSP's
//   host still acknowledges the last data and answers CLSE with CLSE, adbwire does not).
// What is compared strictly: the handshake in capture order, and on each stream the host's
// OPEN, WRTE and CLSE in capture order with their payloads.
//
// A device message is played once every host message before it in the capture that it can
// depend on has been matched: the handshake, the host's OPEN, WRTE and CLSE on the same
// stream, and for a device WRTE also the stream's classic OKAYs (flow control without
// delayed_ack: the device may not send before its previous WRTE is acknowledged). Device
// messages keep their capture order among themselves.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "adbwire/capture.hpp"
#include "adbwire/protocol/message.hpp"

namespace adbwire::capture_detail {

// One ADB message of a capture, in capture order.
struct ReplayStep {
  CaptureDirection direction = CaptureDirection::host_to_device;
  protocol::Message message;
  std::uint64_t record = 0;  // capture frame (Wireshark's number), for messages to a person
};

// "OPEN arg0=1 arg1=0 len=21 \"shell,v2,raw:echo hi\\0\"": one line per message.
std::string describe_message(const protocol::Message& message);

// Not thread safe.
class ReplayScript {
 public:
  // match_host_features: compare the features of the host's CNXN banner (as a set).
  ReplayScript(std::vector<ReplayStep> steps, std::string name, bool match_host_features = true);

  // Appends the device messages that are due as wire bytes, with host stream ids mapped to
  // the live host's.
  void take_device_output(std::vector<std::uint8_t>& out);

  // Bytes the live host wrote, split or merged anywhere. Returns false at the first message
  // that differs from the capture (or cannot be read); mismatch() then says how, and every
  // later call returns false.
  bool host_sent(std::span<const std::uint8_t> bytes);

  // Empty, or: "<name>: host message N (capture frame F) differs from the capture\n
  //   expected: …\n  actual:   …".
  const std::string& mismatch() const noexcept { return mismatch_; }
  // Host messages of the capture the live host has not sent yet and must still send (the
  // acknowledgements that may be left out are not counted).
  std::size_t host_messages_left() const;
  // The first of them, described; empty when none is left.
  std::string next_expected() const;

 private:
  // The recorded host stream a message belongs to; kHandshake for CNXN, AUTH and the rest.
  static constexpr std::uint32_t kHandshake = 0;
  // expected_for(): the message is accepted without matching a step (an optional close-stdin).
  static constexpr std::size_t kSkip = static_cast<std::size_t>(-1);
  std::uint32_t stream_of(const ReplayStep& step) const;
  // The pending host step the actual message must match; steps_.size() with mismatch_ set
  // when there is none.
  std::size_t expected_for(const protocol::Message& actual);
  bool gates(const ReplayStep& host, const ReplayStep& device) const;
  bool is_close_stdin(const protocol::Message& actual) const;
  // Counts against host_messages_left() (a close-stdin never does).
  bool required(std::size_t host_index) const { return !close_stdin_[host_index]; }
  void release_due();
  bool matches(const protocol::Message& expected, const protocol::Message& actual);
  std::uint32_t to_live(std::uint32_t recorded_host_id) const;
  void fail(const std::string& expected, const std::string& actual, std::uint64_t record);

  std::vector<ReplayStep> steps_;
  std::string name_;
  bool match_host_features_;
  // Host steps not matched yet, by what they are matched against (indices into steps_, in
  // capture order): the handshake, OPENs, and per recorded stream its WRTE/CLSE and its OKAYs.
  std::deque<std::size_t> handshake_;
  std::deque<std::size_t> opens_;
  std::unordered_map<std::uint32_t, std::deque<std::size_t>> requests_;
  std::unordered_map<std::uint32_t, std::deque<std::size_t>> acks_;
  // Unmatched host steps the live host must still send (those on a stream the device has
  // closed are optional and dropped from here).
  std::set<std::size_t> pending_;
  std::vector<bool> close_stdin_;             // per step: a host shell v2 close-stdin
  std::set<std::uint32_t> shell_v2_streams_;  // recorded host ids of live shell v2 streams
  std::size_t released_ = 0;                  // every device step before this index is released
  std::size_t emitted_ = 0;  // device steps before this index were given to the host
  std::size_t host_sent_count_ = 0;
  protocol::MessageReader reader_;
  std::unordered_map<std::uint32_t, std::uint32_t> recorded_to_live_;
  std::unordered_map<std::uint32_t, std::uint32_t> live_to_recorded_;
  std::string mismatch_;
};

}  // namespace adbwire::capture_detail
