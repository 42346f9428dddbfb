// One host connection to the virtual device: a TCP socket driving a device-role protocol
// Session, with the services its streams opened. Lives on the device's I/O thread only.
#pragma once

#include <asio/ip/tcp.hpp>
#include <asio/steady_timer.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "adbwire/protocol/session.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "capture/capture_recorder.hpp"
#include "transport/output_pump.hpp"
#include "vdevice/auth_keys.hpp"
#include "vdevice/device_context.hpp"
#include "vdevice/service.hpp"
#include "vdevice/tls_link.hpp"

namespace adbwire::vdevice {

class Connection final : public ServiceHost, public std::enable_shared_from_this<Connection> {
 public:
  // keys is used only when options.auth_required; both must outlive the connection.
  // fault: how this connection misbehaves on purpose (ConnectionFault::none for a good one).
  Connection(asio::ip::tcp::socket socket, protocol::SessionOptions options, DeviceContext& device,
             const AuthorizedKeys& keys, ConnectionFaultPlan fault = {});

  // Starts reading. The connection keeps itself alive through its pending operations.
  void start();
  // Closes the socket and drops every stream; idempotent.
  void close();
  // Records the ADB bytes this connection receives and sends (VirtualDeviceOptions::record).
  // Call before start().
  void record_to(std::unique_ptr<capture::RecordedConnection> recording) {
    recording_ = std::move(recording);
  }
  // Makes this a TLS-only port (the session must have SessionOptions::tls). Call before start().
  void use_tls(std::shared_ptr<const TlsServer> server) {
    tls_ = std::make_unique<TlsLink>(std::move(server));
  }

  protocol::Session& session() override { return session_; }
  DeviceContext& device() override { return device_; }
  asio::any_io_executor executor() override { return socket_.get_executor(); }
  void wake() override;
  void disconnect() override { close(); }
  std::weak_ptr<ServiceHost> weak_host() override { return shared_from_this(); }
  void adopt(std::uint32_t stream, std::shared_ptr<Service> service) override;
  ReverseRules& reverse_rules() override;

 private:
  void read();
  void process();
  void handle(protocol::Event& event);
  void flush();
  void send_fresh_token(bool reject);
  // Accepts, refuses (a fresh token) or, for a refused offered key, waits or hangs up; after
  // VirtualDeviceOptions::auth_delay when set.
  void answer_auth(bool accepted, bool offered_key);
  void write_pending();
  // Applies the drop/stall/corrupt faults to the pump's buffer and says what follows the write.
  enum class AfterWrite { carry_on, close, stall };
  AfterWrite apply_output_fault();
  // ConnectionFault::long_banner: the CNXN at the start of bytes gets `padding` more bytes.
  static void pad_banner(std::vector<std::uint8_t>& bytes, std::uint64_t padding);

  asio::ip::tcp::socket socket_;
  std::string peer_;  // "ADDRESS:PORT", for log lines
  protocol::Session session_;
  DeviceContext& device_;
  const AuthorizedKeys& keys_;
  std::map<std::uint32_t, std::shared_ptr<Service>> services_;
  std::vector<std::uint8_t> read_buffer_;
  transport::OutputPump pump_;
  bool wake_posted_ = false;
  bool closed_ = false;
  std::shared_ptr<ReverseRules> reverse_rules_;  // made on first use
  ConnectionFaultPlan fault_;
  bool stalled_ = false;
  std::uint64_t bytes_sent_ = 0;
  std::uint32_t messages_sent_ = 0;
  std::uint64_t message_left_ = 0;  // bytes of the current outgoing message not yet walked
  asio::steady_timer slow_timer_;
  asio::steady_timer auth_timer_;
  AfterWrite after_write_ = AfterWrite::carry_on;
  std::unique_ptr<capture::RecordedConnection> recording_;  // null when not recording
  std::unique_ptr<TlsLink> tls_;                            // null unless the device requires TLS
};

}  // namespace adbwire::vdevice
