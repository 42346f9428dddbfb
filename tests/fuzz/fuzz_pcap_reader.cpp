// Fuzzes the capture reader: pcap/pcapng records, link layers, TCP reassembly, ADB framing,
// adb server lines and payload previews. Fed in two parts to also cover split input.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "adbwire/capture.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> input(data, size);
  const std::size_t split = size == 0 ? 0 : data[0] % (size + 1);
  adbwire::CaptureDecoder decoder;
  std::vector<adbwire::CapturedMessage> messages;
  if (!decoder.feed(input.first(split), messages)) decoder.feed(input.subspan(split), messages);
  decoder.finish(messages);
  return 0;
}
