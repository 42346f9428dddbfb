// The daemon's side of kPullIntoRequest (daemon_protocol.hpp): a file of the client's pull
// received into the descriptor the client passed, on the connection the daemon holds, so the
// file's bytes never cross the client's socket.
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

// One client connection's pulls: the sync stream stays open from one file to the next.
class PullIntoServer {
 public:
  // device: the held device the connection switched to; client: the client's socket, watched so
  // a client that went away stops the pull.
  PullIntoServer(std::shared_ptr<HeldDevice> device, int client);
  ~PullIntoServer();
  PullIntoServer(const PullIntoServer&) = delete;
  PullIntoServer& operator=(const PullIntoServer&) = delete;

  // Receives pull.remote into file (a regular file the client opened for writing; not closed
  // here). bytes: what the file received; answer: "BYTES WIRE_BYTES". Errors: invalid_argument
  // (file is not a regular file open for writing, an unknown compression), and SyncClient::pull's
  // for one file; cancelled when the client hung up.
  bool pull(const PullInto& pull, int file, std::uint64_t& bytes, std::string& answer,
            detail::Failure& failure);

 private:
  std::shared_ptr<HeldDevice> held_;
  int client_;
  std::optional<Device> device_;
  std::unique_ptr<detail::SyncChannel> channel_;
};

}  // namespace adbwire::daemon
