#include "vdevice/reverse_rules.hpp"

#include <algorithm>

#include "transport/close_on_exec.hpp"
#include "vdevice/forward_bridge.hpp"

namespace adbwire::vdevice {
namespace {

// One loopback listener; each accepted socket becomes a device-initiated stream.
class Listener final : public std::enable_shared_from_this<Listener> {
 public:
  Listener(std::weak_ptr<ServiceHost> host, asio::any_io_executor executor, std::string host_remote)
      : host_(std::move(host)), acceptor_(executor), host_remote_(std::move(host_remote)) {}

  ~Listener() {
    std::error_code ignored;
    acceptor_.close(ignored);
  }

  std::uint16_t open() {
    std::error_code error;
    const asio::ip::tcp::endpoint endpoint(asio::ip::address_v4::loopback(), 0);
    transport::open_close_on_exec(acceptor_, endpoint.protocol(), error);
    if (!error) acceptor_.bind(endpoint, error);
    if (!error) acceptor_.listen(asio::socket_base::max_listen_connections, error);
    if (error) return 0;
    accept();
    return acceptor_.local_endpoint(error).port();
  }

 private:
  void accept() {
    acceptor_.async_accept(
        [weak = weak_from_this()](std::error_code error, asio::ip::tcp::socket socket) {
          auto self = weak.lock();
          if (!self || error == asio::error::operation_aborted) return;
          if (!error) transport::set_close_on_exec(socket, error);
          if (!error) self->bridge(std::move(socket));
          self->accept();
        });
  }

  void bridge(asio::ip::tcp::socket socket) {
    auto host = host_.lock();
    if (!host) return;
    std::error_code error;
    const std::uint32_t stream = host->session().open_stream(host_remote_, error);
    if (error) return;  // the socket closes: the connecting app sees its connection end
    socket.set_option(asio::ip::tcp::no_delay(true), error);
    host->adopt(stream, std::make_shared<ForwardBridge>(*host, stream, std::move(socket), true));
    host->wake();
  }

  std::weak_ptr<ServiceHost> host_;
  asio::ip::tcp::acceptor acceptor_;
  std::string host_remote_;
};

}  // namespace

ReverseRules::ReverseRules(ServiceHost& host) : host_(host) {}

ReverseRules::~ReverseRules() { remove_all(); }

std::shared_ptr<void> ReverseRules::listen(const std::string& host_remote, std::uint16_t& port) {
  auto listener = std::make_shared<Listener>(host_.weak_host(), host_.executor(), host_remote);
  port = listener->open();
  if (port == 0) return nullptr;
  return listener;
}

std::string ReverseRules::add(const std::string& device_local, const std::string& host_remote,
                              bool no_rebind) {
  auto existing = std::find_if(rules_.begin(), rules_.end(),
                               [&](const Rule& r) { return r.device_local == device_local; });
  if (existing != rules_.end() && no_rebind) return "cannot rebind existing socket";
  std::uint16_t port = 0;
  auto listener = listen(host_remote, port);
  if (!listener) return "cannot bind listener: no free loopback port";
  if (existing != rules_.end()) {
    existing->host_remote = host_remote;
    existing->listener = std::move(listener);
  } else {
    rules_.push_back({device_local, host_remote, std::move(listener)});
  }
  host_.device().state().set_reverse_port(device_local, port);
  return {};
}

bool ReverseRules::remove(const std::string& device_local) {
  auto it = std::find_if(rules_.begin(), rules_.end(),
                         [&](const Rule& r) { return r.device_local == device_local; });
  if (it == rules_.end()) return false;
  host_.device().state().erase_reverse_port(device_local);
  rules_.erase(it);
  return true;
}

void ReverseRules::remove_all() {
  for (const Rule& rule : rules_) host_.device().state().erase_reverse_port(rule.device_local);
  rules_.clear();
}

std::vector<std::pair<std::string, std::string>> ReverseRules::list() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const Rule& rule : rules_) out.emplace_back(rule.device_local, rule.host_remote);
  return out;
}

}  // namespace adbwire::vdevice
