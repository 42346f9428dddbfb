// Fuzzes both sides of the smart socket: the track-devices decoder fed whole versus in chunks
// must agree on every update and on the verdict; the reply reader, driven by a script of
// reads taken from the input, must never read past what it was fed; the server's request
// reader must read the same requests and the same rest whatever the cuts.
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "adbwire/protocol/smart_socket.hpp"

namespace {

using adbwire::protocol::DeviceListUpdate;
using adbwire::protocol::DeviceTrackReader;
using adbwire::protocol::SmartReplyReader;

bool same(const std::vector<DeviceListUpdate>& a, const std::vector<DeviceListUpdate>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].devices != b[i].devices || a[i].changes.size() != b[i].changes.size()) return false;
  }
  return true;
}

void check_track(std::span<const std::uint8_t> stream, std::size_t chunk) {
  DeviceTrackReader whole;
  std::vector<DeviceListUpdate> whole_out;
  const std::error_code whole_error = whole.feed(stream, whole_out);

  DeviceTrackReader pieces;
  std::vector<DeviceListUpdate> pieces_out;
  std::error_code pieces_error;
  for (std::size_t at = 0; at < stream.size() && !pieces_error; at += chunk) {
    pieces_error = pieces.feed(stream.subspan(at, std::min(chunk, stream.size() - at)), pieces_out);
  }
  if (whole_error != pieces_error || !same(whole_out, pieces_out)) std::abort();
}

// Each script byte picks the next read; the reader is fed chunk bytes whenever it asks.
void check_reader(std::span<const std::uint8_t> stream, std::size_t chunk,
                  std::span<const std::uint8_t> script) {
  SmartReplyReader reader;
  std::size_t fed = 0;
  for (const std::uint8_t step : script) {
    SmartReplyReader::Result result;
    do {
      const std::size_t before = reader.buffered();
      adbwire::protocol::SmartStatus status;
      std::string text;
      std::uint64_t id = 0;
      switch (step % 3) {
        case 0:
          result = reader.read_status(status);
          break;
        case 1:
          result = reader.read_string(text);
          break;
        default:
          result = reader.read_transport_id(id);
          break;
      }
      if (result == SmartReplyReader::Result::ready && reader.buffered() >= before) std::abort();
      if (result == SmartReplyReader::Result::need_more && reader.buffered() != before)
        std::abort();
      if (result != SmartReplyReader::Result::need_more || fed >= stream.size()) break;
      const std::size_t n = std::min(chunk, stream.size() - fed);
      reader.feed(stream.subspan(fed, n));
      fed += n;
    } while (true);
    if (result != SmartReplyReader::Result::ready) return;
  }
  if (reader.take_remaining().size() > fed) std::abort();
}

// The requests and the verdict of a request reader fed stream in pieces of chunk bytes, then
// what it left unread.
std::vector<std::string> requests_of(std::span<const std::uint8_t> stream, std::size_t chunk,
                                     adbwire::protocol::SmartRequestReader::Result& last,
                                     std::vector<std::uint8_t>& rest) {
  using Result = adbwire::protocol::SmartRequestReader::Result;
  adbwire::protocol::SmartRequestReader reader;
  std::vector<std::string> requests;
  last = Result::need_more;
  for (std::size_t at = 0; at < stream.size() && last != Result::failed; at += chunk) {
    reader.feed(stream.subspan(at, std::min(chunk, stream.size() - at)));
    std::string request;
    while ((last = reader.next(request)) == Result::ready) {
      if (request.empty()) std::abort();
      requests.push_back(request);
    }
  }
  rest.assign(reader.unread().begin(), reader.unread().end());
  return requests;
}

void check_requests(std::span<const std::uint8_t> stream, std::size_t chunk) {
  adbwire::protocol::SmartRequestReader::Result whole_last, pieces_last;
  std::vector<std::uint8_t> whole_rest, pieces_rest;
  const auto whole = requests_of(stream, stream.size() + 1, whole_last, whole_rest);
  const auto pieces = requests_of(stream, chunk, pieces_last, pieces_rest);
  if (whole != pieces || whole_last != pieces_last) std::abort();
  if (whole_last != adbwire::protocol::SmartRequestReader::Result::failed &&
      whole_rest != pieces_rest) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::size_t chunk = 1 + data[0] % 32;
  const std::size_t script_size = data[1] % 8;
  const std::span<const std::uint8_t> rest(data + 2, size - 2);
  if (rest.size() < script_size) return 0;
  const auto script = rest.first(script_size);
  const auto stream = rest.subspan(script_size);

  check_track(stream, chunk);
  check_reader(stream, chunk, script);
  check_requests(stream, chunk);

  const std::string_view text(reinterpret_cast<const char*>(stream.data()), stream.size());
  std::vector<adbwire::protocol::DeviceEntry> devices;
  std::vector<adbwire::protocol::ForwardEntry> forwards;
  std::string detail;
  adbwire::protocol::parse_device_list(text, devices, detail);
  adbwire::protocol::parse_forward_list(text, forwards, detail);
  return 0;
}
