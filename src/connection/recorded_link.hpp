// ConnectOptions::record for direct links: the transport the factory makes is wrapped by a
// recorder (transport/traffic_observer.hpp) writing the capture file. Internal.
#pragma once

#include <cstdint>
#include <string>

#include "adbwire/capture_writer.hpp"
#include "adbwire/connect_options.hpp"
#include "connection/connection.hpp"

namespace adbwire::connection {

// factory itself when options.record is empty; else a factory that connects, then creates
// the capture (failing with io_error when it cannot) and records the link's every byte.
TransportFactory recorded_link(TransportFactory factory, const ConnectOptions& options,
                               CaptureWriterOptions link);

// How a direct TCP link to host:port appears in a capture (IPv4 literals as they are).
CaptureWriterOptions tcp_capture_link(const std::string& host, std::uint16_t port);

}  // namespace adbwire::connection
