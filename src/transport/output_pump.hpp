// The write side of a sans-IO session over a link: what the session (or a TLS layer in front of
// it) has to send is moved into one buffer and written, one write at a time; when a write ends,
// the owner pumps again to send what queued meanwhile. One pump serves the host's connection
// runtime, the virtual device's connections and the test peers.
//
// Not thread safe: use it from the thread that runs the link's handlers, like the session.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <system_error>
#include <utility>
#include <vector>

#include "transport/transport.hpp"

namespace adbwire::transport {

// What a pump reads from: protocol::Session, or anything with the same two calls
// (pending_output() stays valid until the next non-const call; consume_output(n) marks its
// first n bytes sent).
template <class Source>
concept OutputSource = requires(Source& source, std::size_t n) {
  { source.pending_output() } -> std::convertible_to<std::span<const std::uint8_t>>;
  source.consume_output(n);
};

class OutputPump {
 public:
  // Starts a write unless one is in flight or nothing is pending: moves all that source has
  // pending into buffer() (consumed from the source) and returns true. The write is then in
  // flight until written(); meanwhile take() returns false and leaves the source alone, so the
  // source's output queues there (that is the backpressure).
  template <OutputSource Source>
  bool take(Source& source) {
    if (writing_) return false;
    const std::span<const std::uint8_t> pending = source.pending_output();
    if (pending.empty()) return false;
    buffer_.assign(pending.begin(), pending.end());
    source.consume_output(pending.size());
    writing_ = true;
    return true;
  }

  // The bytes of the write in flight. The owner writes them and keeps them as they are until
  // written(), except that it may change them before the write starts (the virtual device cuts
  // or corrupts them on purpose).
  std::vector<std::uint8_t>& buffer() noexcept { return buffer_; }

  // The write in flight finished, well or not: the next take() may start another.
  void written() noexcept { writing_ = false; }

  bool writing() const noexcept { return writing_; }

  // take() from source, then write buffer() to transport. done(error) runs on the transport's
  // executor once the write finished, after written(); on success the owner pumps again, as
  // more may have queued. Nothing happens (done does not run) when take() starts nothing. The
  // pump must outlive the write.
  template <OutputSource Source, class Done>
  void flush(Source& source, Transport& transport, Done done) {
    if (!take(source)) return;
    transport.async_write(
        buffer_, [this, done = std::move(done)](const std::error_code& error, std::size_t) mutable {
          written();
          done(error);
        });
  }

 private:
  std::vector<std::uint8_t> buffer_;
  bool writing_ = false;
};

}  // namespace adbwire::transport
