// The virtual device's Wireless debugging pairing service, as adbd's (daemon/adb_wifi.cpp with
// pairing_connection/pairing_server.cpp): a TCP port speaking TLS 1.3, then adb's pairing
// exchange in the server role (SPAKE2 bob) with one code; a host that pairs gets its public key
// appended to the device's keys file, so the TLS connect port then takes it. Each connection
// runs on a thread of its own with a deadline; a failed one is logged to stderr in one line.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "adbwire/testing/vdevice.hpp"
#include "base/failure.hpp"
#include "base/mutex.hpp"

namespace adbwire::vdevice {

class PairingService {
 public:
  struct Options {
    std::string address;  // an address literal to listen on
    std::uint16_t port = 0;
    std::string code;
    std::string guid;
    std::filesystem::path keys_file;
    PairingFault fault = PairingFault::none;
  };

  // Listens and starts accepting. nullptr with failure set: busy (port taken), io_error.
  static std::unique_ptr<PairingService> start(Options options, detail::Failure& failure);

  // Closes the listener, ends every connection and joins their threads.
  ~PairingService();
  PairingService(const PairingService&) = delete;
  PairingService& operator=(const PairingService&) = delete;

  std::uint16_t port() const noexcept { return port_; }
  // Hosts paired so far. Thread safe.
  std::uint64_t paired() const noexcept { return paired_.load(); }
  // A new code (the phone's dialog opened again); connections already running keep theirs.
  void set_code(std::string code);

 private:
  explicit PairingService(Options options) : options_(std::move(options)) {}
  void accept_loop();
  void serve(int fd, std::string peer);
  void misbehave(int fd, std::string peer);
  std::string code() const;

  Options options_;
  int listener_ = -1;
  int wake_[2] = {-1, -1};  // written by the destructor to end accept_loop's poll
  std::uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<std::uint64_t> paired_{0};
  mutable detail::Mutex mutex_;
  std::set<int> open_ ADBWIRE_GUARDED_BY(mutex_);  // connection sockets, shut down at stop
  std::vector<std::thread> workers_ ADBWIRE_GUARDED_BY(mutex_);
  std::string code_ ADBWIRE_GUARDED_BY(mutex_);
  std::thread acceptor_;
};

}  // namespace adbwire::vdevice
