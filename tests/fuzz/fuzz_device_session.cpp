// Fuzzes a device Session fed host bytes. The first input byte picks the chunk size, the
// payload limit, delayed_ack and whether auth is required; the rest is what the "host"
// sends. The harness plays the device runtime (tokens, accept/reject, accept/refuse opens,
// echo data) and checks that everything the session sends is well formed.
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "adbwire/protocol/session.hpp"

namespace {

using namespace adbwire::protocol;

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
  const std::size_t chunk = 1 + data[0] % 32;
  SessionOptions options;
  options.role = Role::device;
  options.banner.system_type = "device";
  options.banner.properties = {{"ro.product.name", "fuzz"}};
  options.banner.features = {"shell_v2"};
  options.max_payload = (data[0] & 0x40) != 0 ? 4096 : kMaxPayload;
  options.delayed_ack_window = (data[0] & 0x80) != 0 ? 8192 : 0;
  options.auth_required = (data[0] & 0x20) != 0;
  options.max_streams = 4;
  Session session(options);
  MessageReader sent(kMaxPayload);

  const std::vector<std::uint8_t> token(kAuthTokenSize, 0x11);
  int signatures = 0;
  const std::span<const std::uint8_t> input(data + 1, size - 1);
  for (std::size_t at = 0; at < input.size(); at += chunk) {
    const std::error_code error =
        session.receive(input.subspan(at, std::min(chunk, input.size() - at)));
    Event event;
    while (session.next_event(event)) {
      switch (event.type) {
        case Event::Type::auth_token_needed:
          session.send_auth_token(token);
          break;
        case Event::Type::auth_signature:
          if (signatures++ % 2 == 0) {
            session.reject_auth(token);
          } else {
            session.accept_auth();
          }
          break;
        case Event::Type::auth_public_key:
          session.accept_auth();
          break;
        case Event::Type::open_requested:
          if (event.service.size() % 4 == 3) {
            session.refuse_open(event.stream);
          } else {
            session.accept_open(event.stream);
          }
          break;
        case Event::Type::stream_data:
          session.write(event.stream, event.data);
          session.acknowledge(event.stream, event.data.size());
          if (event.data.size() % 5 == 0) session.close_stream(event.stream);
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
