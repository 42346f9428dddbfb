// Replaying a capture: the device side of one recorded ADB connection is played back to the
// library through a Device, and every message the library sends is matched against the
// host messages of the capture. The same operation as recorded must reproduce the same
// messages; anything else fails with a diff naming the expected and the actual message.
//
// Not compared, because it legitimately differs between two runs: the host's local stream
// ids (mapped one to one), AUTH signatures and public keys (the payload; the type is
// compared), the order of CNXN banner features, data_check, the interleaving of different
// streams, and when the host acknowledges (an OKAY keeps no fixed place among its stream's
// messages, and those still due when the device closes the stream may be left out). Compared
// strictly: the handshake in order, and per stream the host's OPEN, WRTE (a shell v2
// close-stdin included) and CLSE in order, payloads byte for byte. A device message is played
// once the host messages it can answer (the handshake, and its stream's OPEN/WRTE/CLSE before
// it in the capture) have been matched; device messages keep their capture order.
// Device-initiated streams (reverse forwarding) are not replayed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>

#include "adbwire/connect_options.hpp"
#include "adbwire/device.hpp"

namespace adbwire {
namespace detail {
struct ReplayState;
struct Failure;
}  // namespace detail

struct ReplayOptions {
  // Keys (to sign the recorded AUTH token: any key will do) and timeouts; server and record
  // are not used.
  ConnectOptions connect;
  // Which connection of the capture (CaptureConnection::id); 0: the first carrying ADB messages.
  std::uint32_t connection = 0;
  // Compare the host CNXN's feature set (in any order). Off for captures made by another host
  // implementation: its feature list is its own (adb 29 lacks track_app and sendrecv_v2); what
  // the library then does is still checked message by message, and the device's CNXN decides.
  bool match_host_features = true;
};

// A Device driven by a capture. Thread safety: device() is used as any Device; mismatch(),
// host_messages_left() and finish() may be called from any thread. Movable.
class Replay {
 public:
  // Reads the capture and connects a Device to it (the recorded handshake is replayed).
  // Errors: not_found / io_error / parse_error (reading the capture), invalid_argument (no
  // ADB messages in the chosen connection), protocol_error (the library's handshake differs
  // from the recorded one: the detail holds the diff), else those of Device::connect.
  static Replay start(const std::filesystem::path& capture, const ReplayOptions& options = {});
  static Replay start(const std::filesystem::path& capture, const ReplayOptions& options,
                      std::error_code& error);

  Replay(Replay&&) noexcept;
  Replay& operator=(Replay&&) noexcept;
  ~Replay();

  // The Device to run the recorded operation on. A message that differs from the capture
  // ends the connection: the call fails with device_offline, and mismatch() says why.
  Device& device() noexcept { return device_; }

  // Empty, or "FILE: host message N (capture frame F) differs from the capture" followed by
  // an "expected:" and an "actual:" line.
  std::string mismatch() const;
  // Host messages of the capture the library has not sent (yet).
  std::size_t host_messages_left() const;

  // Closes the Device and checks the replay: throws (or sets error) protocol_error with the
  // mismatch, or with the first host message of the capture the library never sent.
  void finish();
  void finish(std::error_code& error);

  // How finish() failed, for a person; empty when it did not.
  const std::string& failure() const noexcept { return failure_; }

 private:
  Replay(std::shared_ptr<detail::ReplayState> state, Device device);
  static Replay start_into(const std::filesystem::path& capture, const ReplayOptions& options,
                           detail::Failure& failure);
  void finish_into(detail::Failure& failure);

  std::shared_ptr<detail::ReplayState> state_;
  Device device_;
  std::string failure_;
};

}  // namespace adbwire
