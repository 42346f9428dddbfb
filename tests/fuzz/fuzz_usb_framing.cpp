// Fuzzes the USB framing. The first input byte picks wMaxPacketSize; the rest is read as the
// device's bulk IN data (cut into the transfers InboundFramer asks for, as a bus would) and
// as the runtime's outgoing stream (cut into OutboundSplitter's transfers). Properties: a
// read request is never empty and always whole packets; the framer passes on no more than it
// got; the splitter's transfers are exactly the bytes it was fed, in order, until an error.
// (A header goes out as its own transfer before its payload arrives, so a stream cut
// mid-message may have been passed on whole: that is not an error.)
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "transport/usb_framing.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static constexpr std::uint16_t kPacketSizes[] = {8, 16, 64, 512, 1024};
  const std::uint16_t packet = kPacketSizes[data[0] % 5];
  const std::span<const std::uint8_t> bytes(data + 1, size - 1);

  adbwire::transport::InboundFramer framer(packet);
  std::vector<std::uint8_t> up;
  std::size_t at = 0;
  while (at < bytes.size() && !framer.failed()) {
    const std::size_t request = framer.next_read_size();
    if (request == 0 || request % packet != 0) std::abort();
    const std::size_t n = std::min(request, bytes.size() - at);
    framer.accept(bytes.subspan(at, n), up);
    at += n;
  }
  if (up.size() + framer.discarded_bytes() > at) std::abort();

  adbwire::transport::OutboundSplitter splitter;
  std::vector<std::vector<std::uint8_t>> transfers;
  splitter.feed(bytes, transfers);
  std::size_t offset = 0;
  for (const auto& transfer : transfers) {
    if (transfer.empty() || offset + transfer.size() > bytes.size() ||
        !std::equal(transfer.begin(), transfer.end(),
                    bytes.begin() + static_cast<std::ptrdiff_t>(offset))) {
      std::abort();
    }
    offset += transfer.size();
  }
  return 0;
}
