// The recording hook of the transport layer: a TrafficObserver sees every byte a Transport
// moves, and observe() puts one beneath the connection runtime whatever the link (TCP, USB,
// or a TLS layer added below the observer: the observer then sees the plaintext ADB messages).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>

#include "adbwire/capture.hpp"
#include "adbwire/capture_writer.hpp"
#include "base/failure.hpp"
#include "transport/transport.hpp"

namespace adbwire::transport {

// Called on the transport's io_context thread, in the order the bytes moved.
class TrafficObserver {
 public:
  virtual ~TrafficObserver() = default;
  virtual void on_bytes(CaptureDirection direction, std::span<const std::uint8_t> bytes) = 0;
};

// Wraps inner so observer sees each write when it is issued (before the peer can answer it,
// which keeps a recording's order causal) and each read when it completes. `sending` is the
// direction of writes (host_to_device on the host, device_to_host on a device).
std::unique_ptr<Transport> observe(std::unique_ptr<Transport> inner,
                                   std::shared_ptr<TrafficObserver> observer,
                                   CaptureDirection sending = CaptureDirection::host_to_device);

// An observer that records into a new pcapng at path (see capture_writer.hpp). Returns
// nullptr with failure io_error (naming the file) when the file cannot be created.
std::shared_ptr<TrafficObserver> record_to_file(const std::filesystem::path& path,
                                                const CaptureWriterOptions& options,
                                                detail::Failure& failure);

}  // namespace adbwire::transport
