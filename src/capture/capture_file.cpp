#include <zstd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "adbwire/capture.hpp"
#include "adbwire/error.hpp"

namespace adbwire {
namespace {

constexpr std::size_t kReadBlock = 64 * 1024;

struct FileCloser {
  void operator()(std::FILE* file) const noexcept { std::fclose(file); }
};

struct ZstdFree {
  void operator()(ZSTD_DStream* stream) const noexcept { ZSTD_freeDStream(stream); }
};

// A zstd frame starts with 28 b5 2f fd.
bool is_zstd(std::span<const std::uint8_t> bytes) {
  return bytes.size() >= 4 && bytes[0] == 0x28 && bytes[1] == 0xb5 && bytes[2] == 0x2f &&
         bytes[3] == 0xfd;
}

}  // namespace

CaptureSummary decode_capture_file(const std::filesystem::path& path,
                                   const std::function<void(const CapturedMessage&)>& on_message,
                                   std::error_code& ec) {
  ec.clear();
  CaptureSummary summary;
  const std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  if (!file) {
    const int error = errno;
    ec = error == ENOENT ? errc::not_found : errc::io_error;
    summary.fault.detail = "cannot open capture " + path.string() + ": " + std::strerror(error);
    return summary;
  }
  CaptureDecoder decoder;
  std::vector<std::uint8_t> block(kReadBlock);
  std::vector<CapturedMessage> messages;
  const auto deliver = [&] {
    for (const auto& message : messages) on_message(message);
    messages.clear();
  };
  // A zstd-compressed capture (FILE.pcapng.zst) is decompressed as it is read.
  std::unique_ptr<ZSTD_DStream, ZstdFree> zstd;
  std::vector<std::uint8_t> plain;
  bool first = true;
  for (;;) {
    const std::size_t got = std::fread(block.data(), 1, block.size(), file.get());
    if (first && is_zstd(std::span(block.data(), got))) {
      zstd.reset(ZSTD_createDStream());
      plain.resize(ZSTD_DStreamOutSize());
    }
    first = false;
    if (got > 0 && zstd) {
      ZSTD_inBuffer in{block.data(), got, 0};
      while (in.pos < in.size && !ec) {
        ZSTD_outBuffer out{plain.data(), plain.size(), 0};
        const std::size_t status = ZSTD_decompressStream(zstd.get(), &out, &in);
        if (ZSTD_isError(status)) {
          ec = errc::parse_error;
          summary.fault.detail =
              path.string() + ": corrupt zstd data: " + ZSTD_getErrorName(status);
          summary.stats = decoder.stats();
          summary.connections = decoder.connections();
          return summary;
        }
        ec = decoder.feed(std::span(plain.data(), out.pos), messages);
        deliver();
      }
      if (ec) break;
    } else if (got > 0) {
      ec = decoder.feed(std::span(block.data(), got), messages);
      deliver();
      if (ec) break;
    }
    if (got < block.size()) {
      if (std::ferror(file.get())) {
        ec = errc::io_error;
        summary.fault.detail = "cannot read capture " + path.string() + ": " + std::strerror(errno);
        summary.stats = decoder.stats();
        summary.connections = decoder.connections();
        return summary;
      }
      break;
    }
  }
  const std::error_code end = decoder.finish(messages);
  deliver();
  if (!ec) ec = end;
  summary.stats = decoder.stats();
  summary.connections = decoder.connections();
  if (ec) {
    summary.fault = decoder.fault();
    summary.fault.detail = path.string() + ": record " +
                           std::to_string(summary.fault.record_index) + " at byte offset " +
                           std::to_string(summary.fault.byte_offset) + ": " + summary.fault.detail;
  }
  return summary;
}

CaptureSummary decode_capture_file(const std::filesystem::path& path,
                                   const std::function<void(const CapturedMessage&)>& on_message) {
  std::error_code ec;
  CaptureSummary summary = decode_capture_file(path, on_message, ec);
  throw_if_error(ec, summary.fault.detail);
  return summary;
}

}  // namespace adbwire
