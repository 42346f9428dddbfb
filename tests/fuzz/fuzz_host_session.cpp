// Fuzzes a host Session fed device bytes. The first input byte picks the chunk size, the
// payload limit and delayed_ack; the rest is what the "device" sends. The harness answers
// events like a runtime would (signs tokens, opens streams, writes, acknowledges, closes) so
// deep states are reachable, and checks that everything the session sends is well formed.
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "adbwire/protocol/session.hpp"

namespace {

using namespace adbwire::protocol;

// Our own output must always be a valid message stream within the negotiated limits.
void check_output(Session& session, MessageReader& reader) {
  const std::span<const std::uint8_t> out = session.pending_output();
  std::vector<Message> messages;
  if (reader.feed(out, messages)) std::abort();
  for (const Message& m : messages) {
    const bool handshake = m.command == kCommandCnxn || m.command == kCommandAuth;
    if (handshake && m.payload.size() > kMaxPayloadV1) std::abort();
    if (!handshake && m.payload.size() > session.negotiated_max_payload()) std::abort();
  }
  session.consume_output(out.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t chunk = 1 + data[0] % 48;
  SessionOptions options;
  options.role = Role::host;
  options.banner.system_type = "host";
  options.banner.features = host_features();
  options.max_payload = (data[0] & 0x40) != 0 ? 4096 : kMaxPayload;
  options.delayed_ack_window = (data[0] & 0x80) != 0 ? 8192 : 0;
  options.max_streams = 8;
  Session session(options);
  MessageReader sent(kMaxPayload);
  session.start();
  check_output(session, sent);

  const std::vector<std::uint8_t> payload(5000, 0x5a);
  const std::vector<std::uint8_t> signature(256, 0x33);
  int tokens = 0;
  const std::span<const std::uint8_t> input(data + 1, size - 1);
  for (std::size_t at = 0; at < input.size(); at += chunk) {
    const std::error_code error =
        session.receive(input.subspan(at, std::min(chunk, input.size() - at)));
    Event event;
    while (session.next_event(event)) {
      std::error_code ignored;
      switch (event.type) {
        case Event::Type::auth_token:
          if (tokens++ < 2) {
            session.send_auth_signature(signature);
          } else {
            session.send_auth_public_key("QUFBQQ== fuzz@host");
          }
          break;
        case Event::Type::online:
          for (int i = 0; i < 3; ++i) session.open_stream("shell:echo", ignored);
          break;
        case Event::Type::stream_ready:
          session.write(event.stream, payload);
          break;
        case Event::Type::stream_data:
          session.acknowledge(event.stream, event.data.size());
          if (event.data.size() % 3 == 0) session.close_stream(event.stream);
          break;
        case Event::Type::stream_writable:
          session.close_stream(event.stream);
          break;
        default:
          break;
      }
    }
    check_output(session, sent);
    if (error) {
      if (session.state() != SessionState::failed || session.error_detail().empty()) std::abort();
      if (session.receive(input.subspan(at)) != error) std::abort();
      if (!session.pending_output().empty()) std::abort();
      break;
    }
  }
  return 0;
}
