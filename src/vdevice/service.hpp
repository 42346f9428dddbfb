// Device-side services: what a host's OPEN("shell:…", "exec:…", …) runs. Each service is
// one file with one factory, listed in services.cpp; adding a service is a new file plus
// one line in that table.
#pragma once

#include <asio/any_io_executor.hpp>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "adbwire/protocol/session.hpp"
#include "vdevice/device_context.hpp"

namespace adbwire::vdevice {

class ReverseRules;
class Service;

// What a service may use of the connection that owns it. Valid for the service's lifetime;
// used only on the connection's I/O thread.
class ServiceHost {
 public:
  virtual ~ServiceHost() = default;
  virtual protocol::Session& session() = 0;
  virtual DeviceContext& device() = 0;
  virtual asio::any_io_executor executor() = 0;
  // Schedules handling of the session's events and output; call after using the session
  // from a timer or posted handler (not needed inside start/on_data/resume).
  virtual void wake() = 0;
  // Drops the whole connection at once, unsent output included (test faults). The service
  // stays alive until its call returns but must not use the session again.
  virtual void disconnect() = 0;
  // The connection, weakly: for handlers that may outlive the service.
  virtual std::weak_ptr<ServiceHost> weak_host() = 0;
  // Registers the service of a stream this side opened with session().open_stream (reverse
  // forwarding): its start() runs once the host accepts; a refusal just destroys it.
  virtual void adopt(std::uint32_t stream, std::shared_ptr<Service> service) = 0;
  // This connection's reverse rules (reverse:forward:…); they end with the connection.
  virtual ReverseRules& reverse_rules() = 0;
};

// One open stream. The connection calls these on its I/O thread, never re-entrantly, and
// destroys the service once the session reports the stream closed. To end, a service calls
// session().close_stream(stream).
class Service : public std::enable_shared_from_this<Service> {
 public:
  // Streams keep at most this many bytes queued in the session (bounded memory).
  static constexpr std::size_t kMaxQueued = 256 * 1024;

  virtual ~Service() = default;
  // The OPEN was accepted; output may be written.
  virtual void start() = 0;
  // Host data arrived; the service acknowledges it (session().acknowledge) once consumed.
  virtual void on_data(std::span<const std::uint8_t> data) = 0;
  // Called after the connection handled events (e.g. the host acknowledged data): continue
  // producing output if it was waiting for room.
  virtual void resume() = 0;
};

// Makes the service for an OPEN destination, or nullptr when this factory does not serve it.
using ServiceFactory = std::shared_ptr<Service> (*)(std::string_view destination, ServiceHost& host,
                                                    std::uint32_t stream);

// The first service in the table that serves `destination` (trailing NULs already
// stripped), or nullptr: the connection then refuses the OPEN, as adbd does.
std::shared_ptr<Service> open_service(std::string_view destination, ServiceHost& host,
                                      std::uint32_t stream);

// Factories, one per service file.
std::shared_ptr<Service> make_shell_service(std::string_view destination, ServiceHost& host,
                                            std::uint32_t stream);
std::shared_ptr<Service> make_sync_service(std::string_view destination, ServiceHost& host,
                                           std::uint32_t stream);
std::shared_ptr<Service> make_device_state_service(std::string_view destination, ServiceHost& host,
                                                   std::uint32_t stream);
std::shared_ptr<Service> make_forward_service(std::string_view destination, ServiceHost& host,
                                              std::uint32_t stream);
std::shared_ptr<Service> make_reverse_service(std::string_view destination, ServiceHost& host,
                                              std::uint32_t stream);
std::shared_ptr<Service> make_jdwp_service(std::string_view destination, ServiceHost& host,
                                           std::uint32_t stream);
std::shared_ptr<Service> make_sideload_service(std::string_view destination, ServiceHost& host,
                                               std::uint32_t stream);
std::shared_ptr<Service> make_abb_exec_service(std::string_view destination, ServiceHost& host,
                                               std::uint32_t stream);

}  // namespace adbwire::vdevice
