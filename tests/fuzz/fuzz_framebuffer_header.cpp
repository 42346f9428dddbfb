// Fuzzes the framebuffer: header parser: a refusal always carries a reason, and any accepted
// header describes a pixel block that matches its size and re-encodes to the exact bytes it
// was read from (every header the parser accepts is canonical).
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>

#include "adbwire/protocol/framebuffer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace adbwire::protocol;
  const std::span<const std::uint8_t> bytes(data, size);
  FramebufferHeader header;
  std::size_t used = 0;
  std::string reason;
  const FramebufferParse verdict = parse_framebuffer_header(bytes, header, used, reason);
  if (verdict == FramebufferParse::invalid && reason.empty()) std::abort();
  if (verdict != FramebufferParse::ok) return 0;
  if (used != framebuffer_header_size(header.version) || used > size) std::abort();
  if (std::uint64_t{header.width} * header.height * (header.bpp / 8) != header.size) std::abort();
  const auto encoded = encode_framebuffer_header(header);
  if (encoded.size() != used) std::abort();
  for (std::size_t i = 0; i < used; ++i) {
    if (encoded[i] != data[i]) std::abort();
  }
  return 0;
}
