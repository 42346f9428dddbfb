// Fuzzes the ADB message reader. The first input byte picks a chunk size and whether
// checksums are verified; the rest is the byte stream. Feeding it whole and in chunks must
// give the same messages and the same verdict (the chainsaw property under arbitrary input).
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "adbwire/protocol/message.hpp"

namespace {

using adbwire::protocol::Message;
using adbwire::protocol::MessageReader;

bool same(const std::vector<Message>& a, const std::vector<Message>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].command != b[i].command || a[i].arg0 != b[i].arg0 || a[i].arg1 != b[i].arg1 ||
        a[i].payload != b[i].payload) {
      return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t chunk = 1 + data[0] % 64;
  const bool verify = (data[0] & 0x80) != 0;
  // A small limit keeps oversize-length paths reachable with small inputs.
  const std::uint32_t limit = (data[0] & 0x40) != 0 ? 4096 : adbwire::protocol::kMaxPayload;
  const std::span<const std::uint8_t> stream(data + 1, size - 1);

  MessageReader whole(limit);
  whole.set_verify_checksum(verify);
  std::vector<Message> whole_out;
  const std::error_code whole_error = whole.feed(stream, whole_out);

  MessageReader pieces(limit);
  pieces.set_verify_checksum(verify);
  std::vector<Message> pieces_out;
  std::error_code pieces_error;
  for (std::size_t at = 0; at < stream.size() && !pieces_error; at += chunk) {
    pieces_error = pieces.feed(stream.subspan(at, std::min(chunk, stream.size() - at)), pieces_out);
  }
  if (whole_error != pieces_error || !same(whole_out, pieces_out)) std::abort();
  if (!whole_error && whole.at_boundary() != pieces.at_boundary()) std::abort();
  for (const Message& m : whole_out) {
    if (m.payload.size() > limit) std::abort();
  }
  return 0;
}
