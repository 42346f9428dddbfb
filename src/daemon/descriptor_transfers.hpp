// The daemon's side of kPullIntoRequest and kPushFromRequest (daemon_protocol.hpp): a file of the
// client's pull received into the descriptor the client passed, or one of its push sent from it,
// on the connection the daemon holds, so the file's bytes never cross the client's socket.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "adbwire/device.hpp"
#include "base/failure.hpp"
#include "daemon/daemon_protocol.hpp"
#include "daemon/held_device.hpp"
#include "services/sync_channel.hpp"

namespace adbwire::daemon {

// One client connection's pulls and pushes: the sync stream stays open from one file to the next.
class DescriptorTransfers {
 public:
  // device: the held device the connection switched to; client: the client's socket, watched so
  // a client that went away stops the pull.
  DescriptorTransfers(std::shared_ptr<HeldDevice> device, int client);
  ~DescriptorTransfers();
  DescriptorTransfers(const DescriptorTransfers&) = delete;
  DescriptorTransfers& operator=(const DescriptorTransfers&) = delete;

  // Receives pull.remote into file (a regular file the client opened for writing; not closed
  // here). bytes: what the file received; answer: "BYTES WIRE_BYTES". Errors: invalid_argument
  // (file is not a regular file open for writing, an unknown compression), and SyncClient::pull's
  // for one file; cancelled when the client hung up.
  bool pull(const PullInto& pull, int file, std::uint64_t& bytes, std::string& answer,
            detail::Failure& failure);

  // Sends file (a regular file the client opened for reading; not closed here) from its offset to
  // its end as push.remote. bytes: what was read from it; answer: "BYTES WIRE_BYTES". Errors:
  // invalid_argument (file is not a regular file open for reading, push.mode is not a regular
  // file's, an unknown compression), and SyncClient::push's for one file; cancelled when the
  // client hung up.
  bool push(const PushFrom& push, int file, std::uint64_t& bytes, std::string& answer,
            detail::Failure& failure);

 private:
  // The sync stream on the held connection, opened on first use.
  detail::SyncChannel& channel();
  // A progress handler that throws cancelled once the client hung up (looked at every 50 ms).
  SyncProgressHandler hang_up_check() const;

  std::shared_ptr<HeldDevice> held_;
  int client_;
  std::optional<Device> device_;
  std::unique_ptr<detail::SyncChannel> channel_;
};

}  // namespace adbwire::daemon
