// The reverse rules one host connection registered (`adb reverse`): each rule's device-side
// socket is a loopback listener on a port of its own (the virtual device shares the host's
// network, so the rule's own port number could be taken); DeviceStateStore::reverse_port
// says which. A connection accepted there makes the device OPEN the rule's host-side spec
// on this connection, bridged with ForwardBridge. Rules and listeners end with the
// connection. I/O thread only.
#pragma once

#include <asio/ip/tcp.hpp>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "vdevice/service.hpp"

namespace adbwire::vdevice {

class ReverseRules {
 public:
  explicit ReverseRules(ServiceHost& host);
  ~ReverseRules();
  ReverseRules(const ReverseRules&) = delete;
  ReverseRules& operator=(const ReverseRules&) = delete;

  // Adds or replaces a rule; "" on success, else adbd's failure text.
  std::string add(const std::string& device_local, const std::string& host_remote, bool no_rebind);
  // false when no rule has that device-side spec.
  bool remove(const std::string& device_local);
  void remove_all();
  // (device_local, host_remote) pairs, in the order added.
  std::vector<std::pair<std::string, std::string>> list() const;

  // Opens `host_remote` on this connection for every socket accepted on a fresh loopback
  // port (returned; 0 when it cannot listen). Shared by rules and the test hook
  // VirtualDevice::open_to_host.
  std::shared_ptr<void> listen(const std::string& host_remote, std::uint16_t& port);

 private:
  struct Rule {
    std::string device_local;
    std::string host_remote;
    std::shared_ptr<void> listener;
  };

  ServiceHost& host_;
  std::vector<Rule> rules_;
};

}  // namespace adbwire::vdevice
