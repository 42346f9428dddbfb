// Fuzzes the sync v2 decompressors (services/sync_compression.hpp) with what a device could
// send: byte 0 picks the codec (brotli, lz4, zstd), byte 1 where to cut, the rest is the
// compressed stream. Fed whole and cut in two, the output and the verdict must agree, and
// output comes in pieces of at most kOutputSize bytes.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "compression/sync_compression.hpp"

namespace {

using adbwire::detail::SyncCodec;
using adbwire::detail::SyncDecompressor;

// Output past this stops the decoder (its sink says stop): a tiny input can expand to
// gigabytes, and decoding that on every input would leave the fuzzer no time for others.
constexpr std::size_t kCap = 1u << 20;

struct Result {
  bool ok = false;
  bool capped = false;  // stopped at kCap
  std::vector<std::uint8_t> output;
};

Result decode(SyncCodec codec, std::span<const std::uint8_t> stream, std::size_t cut) {
  auto decoder = SyncDecompressor::make(codec);
  Result r;
  const auto sink = [&](std::span<const std::uint8_t> out) {
    if (out.size() > SyncDecompressor::kOutputSize) std::abort();
    r.output.insert(r.output.end(), out.begin(), out.end());
    if (r.output.size() < kCap) return true;
    r.capped = true;
    return false;
  };
  r.ok = decoder->write(stream.first(cut), sink) && decoder->write(stream.subspan(cut), sink) &&
         decoder->finish();
  // A failure always says why, unless the sink asked to stop.
  if (!r.ok && !r.capped && decoder->error().empty()) std::abort();
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const SyncCodec codec = static_cast<SyncCodec>(data[0] % 3);
  const std::span<const std::uint8_t> stream(data + 2, size - 2);
  const std::size_t cut = stream.empty() ? 0 : data[1] % (stream.size() + 1);
  const Result whole = decode(codec, stream, stream.size());
  const Result split = decode(codec, stream, cut);
  if (whole.capped || split.capped) {
    // Both must have produced the same bytes as far as both got.
    const std::size_t n = std::min(whole.output.size(), split.output.size());
    const auto end = whole.output.begin() + static_cast<std::ptrdiff_t>(n);
    if (!std::equal(whole.output.begin(), end, split.output.begin())) std::abort();
    return 0;
  }
  if (whole.ok != split.ok) std::abort();
  if (whole.ok && whole.output != split.output) std::abort();
  return 0;
}
