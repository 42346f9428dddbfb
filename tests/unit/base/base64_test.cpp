// base/base64.hpp: RFC 4648's vectors, round trips of every length and byte value, strictness
// where OpenSSL's EVP_DecodeBlock is lax (whitespace, '=' inside, padding bytes), and inputs
// the size of an MCP screenshot checked against the `base64` tool of coreutils.
#include "base/base64.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "integration/temp_dir.hpp"

namespace adbwire::detail {
namespace {

std::vector<std::uint8_t> bytes_of(std::string_view text) { return {text.begin(), text.end()}; }

TEST(Base64, Rfc4648Vectors) {
  const std::pair<std::string_view, std::string_view> vectors[] = {{"", ""},
                                                                   {"f", "Zg=="},
                                                                   {"fo", "Zm8="},
                                                                   {"foo", "Zm9v"},
                                                                   {"foob", "Zm9vYg=="},
                                                                   {"fooba", "Zm9vYmE="},
                                                                   {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : vectors) {
    EXPECT_EQ(base64_encode(bytes_of(plain)), encoded);
    const auto decoded = base64_decode(encoded);
    ASSERT_TRUE(decoded) << encoded;
    EXPECT_EQ(*decoded, bytes_of(plain)) << encoded;
  }
}

TEST(Base64, RoundTripsEveryByteValueAndLength) {
  std::vector<std::uint8_t> bytes;
  for (int i = 0; i < 300; ++i) {
    EXPECT_EQ(base64_decode(base64_encode(bytes)), bytes) << "length " << bytes.size();
    bytes.push_back(static_cast<std::uint8_t>(i * 37 + 11));
  }
}

TEST(Base64, RejectsAnythingNotStrictBase64) {
  for (std::string_view bad : {"Zg=", "Zg", "Zg==Zg==", "Zm=v", "Zh==", "Zm9=", "Z!9v", "Zm9v\n",
                               " Zm9v", "====", "A===", "Zm9v-_==", "Zm9vYmFy="}) {
    EXPECT_FALSE(base64_decode(bad)) << bad;
  }
}

TEST(Base64, EveryPaddingCaseDecodesToItsBytesAlone) {
  // EVP_DecodeBlock returns a multiple of 3 bytes, the padding decoded as zeros: those are cut.
  EXPECT_EQ(base64_decode("AA=="), (std::vector<std::uint8_t>{0}));
  EXPECT_EQ(base64_decode("AAA="), (std::vector<std::uint8_t>{0, 0}));
  EXPECT_EQ(base64_decode("AAAA"), (std::vector<std::uint8_t>{0, 0, 0}));
  EXPECT_EQ(base64_decode("/w=="), (std::vector<std::uint8_t>{0xff}));
  EXPECT_EQ(base64_decode("//8="), (std::vector<std::uint8_t>{0xff, 0xff}));
  EXPECT_EQ(base64_decode("////"), (std::vector<std::uint8_t>{0xff, 0xff, 0xff}));
}

TEST(Base64, RejectsWhatEvpDecodeBlockWouldAccept) {
  // Each of these EVP_DecodeBlock decodes to 3 or 6 bytes: it trims whitespace at both ends,
  // reads '=' anywhere as zero bits, and ignores set bits under the padding.
  for (const char* bad : {" Zm9v   ", "Zm9v\r\n\r\n", "\t\t\t\tZm9v", "Z=9v", "QU=D",
                          "Zm9vZ===", "Zm9v====", "Zh==", "QUJ="}) {
    EXPECT_FALSE(base64_decode(bad)) << bad;
  }
  // Every byte outside the alphabet, in each position of a group ('=' too: "QUJ=" leaves a bit
  // of 'J' unused but set, "QU=D" pads in the middle).
  const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (int c = 0; c < 256; ++c) {
    if (alphabet.find(static_cast<char>(c)) != std::string::npos) continue;
    for (std::size_t at = 0; at < 4; ++at) {
      std::string text = "QUJD";
      text[at] = static_cast<char>(c);
      EXPECT_FALSE(base64_decode(text)) << "byte " << c << " at " << at;
    }
  }
}

TEST(Base64, ScreenshotSizedInputMatchesCoreutils) {
  // About what an MCP screenshot is (768 KiB), with an odd length so the last group pads.
  std::vector<std::uint8_t> bytes(768 * 1024 + 2);
  for (std::size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = static_cast<std::uint8_t>((i * 2654435761u) >> 13);
  const std::string text = base64_encode(bytes);
  ASSERT_EQ(text.size(), (bytes.size() + 2) / 3 * 4);
  EXPECT_EQ(text.back(), '=');
  EXPECT_EQ(base64_decode(text), bytes);

  test::TempDir dir;
  const std::filesystem::path raw = dir.path() / "raw";
  {
    std::ofstream out(raw, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
  }
  const std::string command = "base64 -w0 '" + raw.string() + "'";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr) << "cannot run `base64` (coreutils): install coreutils";
  std::string expected;
  char buffer[65536];
  while (const std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe))
    expected.append(buffer, n);
  ASSERT_EQ(::pclose(pipe), 0) << "`base64 -w0` failed: install coreutils";
  EXPECT_EQ(text, expected);
}

}  // namespace
}  // namespace adbwire::detail
