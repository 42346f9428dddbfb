// The sync v2 codecs (services/sync_compression.hpp): round trips at DATA chunk boundaries,
// the DATA chunking itself, streams checked independently by the reference command-line
// tools (zstd, lz4, brotli: Debian packages of the same names, installed by scripts/setup),
// and truncated or corrupt input giving an error naming the algorithm, never a crash or hang.
#include "compression/sync_compression.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "adbwire/protocol/sync.hpp"
#include "integration/temp_dir.hpp"

namespace adbwire::detail {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<std::uint8_t>;
using protocol::kSyncDataMax;

constexpr SyncCodec kCodecs[] = {SyncCodec::brotli, SyncCodec::lz4, SyncCodec::zstd};
constexpr std::size_t kSizes[] = {
    0, 1, kSyncDataMax - 1, kSyncDataMax, kSyncDataMax + 1, 3 * 1024 * 1024};

Bytes random_bytes(std::size_t size, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  Bytes bytes(size);
  for (auto& b : bytes) b = static_cast<std::uint8_t>(random());
  return bytes;
}

// Text-like: log lines with a few varying numbers, compresses several times over.
Bytes text_bytes(std::size_t size, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::string text;
  while (text.size() < size) {
    text += "I/ActivityManager( " + std::to_string(random() % 4000) + "): Start proc " +
            std::to_string(random() % 100000) + ":com.example.app/u0a" +
            std::to_string(random() % 300) + " for activity {com.example.app/.MainActivity}\n";
  }
  text.resize(size);
  return Bytes(text.begin(), text.end());
}

// Compresses input fed in pieces of `piece` bytes; returns the DATA chunks the sink got.
std::vector<Bytes> compress_chunks(SyncCodec codec, const Bytes& input, std::size_t piece) {
  auto encoder = SyncCompressor::make(codec);
  std::vector<Bytes> chunks;
  const SyncSink sink = [&](std::span<const std::uint8_t> chunk) {
    chunks.emplace_back(chunk.begin(), chunk.end());
    return true;
  };
  for (std::size_t at = 0; at < input.size(); at += piece) {
    const std::size_t n = std::min(piece, input.size() - at);
    EXPECT_TRUE(encoder->write({input.data() + at, n}, sink)) << encoder->error();
  }
  EXPECT_TRUE(encoder->finish(sink)) << encoder->error();
  return chunks;
}

Bytes join(const std::vector<Bytes>& chunks) {
  Bytes all;
  for (const Bytes& c : chunks) all.insert(all.end(), c.begin(), c.end());
  return all;
}

struct Decoded {
  Bytes output;
  bool ok = false;
  std::string error;
};

// Decompresses stream fed in pieces of `piece` bytes, then finish().
Decoded decompress(SyncCodec codec, const Bytes& stream, std::size_t piece) {
  auto decoder = SyncDecompressor::make(codec);
  Decoded d;
  const SyncSink sink = [&](std::span<const std::uint8_t> out) {
    EXPECT_LE(out.size(), SyncDecompressor::kOutputSize);
    d.output.insert(d.output.end(), out.begin(), out.end());
    return true;
  };
  d.ok = true;
  for (std::size_t at = 0; at < stream.size() && d.ok; at += piece) {
    d.ok = decoder->write({stream.data() + at, std::min(piece, stream.size() - at)}, sink);
  }
  if (d.ok) d.ok = decoder->finish();
  d.error = decoder->error();
  return d;
}

std::string name(SyncCodec codec) { return std::string(sync_codec_name(codec)); }

TEST(SyncCompression, NamesFlagsAndFeaturesAreAosps) {
  EXPECT_EQ(sync_codec_flag(SyncCodec::brotli), 1u);
  EXPECT_EQ(sync_codec_flag(SyncCodec::lz4), 2u);
  EXPECT_EQ(sync_codec_flag(SyncCodec::zstd), 4u);
  EXPECT_EQ(sync_codec_feature(SyncCodec::lz4), "sendrecv_v2_lz4");
  bool error = false;
  EXPECT_EQ(sync_codec_from_flags(4, error), SyncCodec::zstd);
  EXPECT_FALSE(error);
  EXPECT_EQ(sync_codec_from_flags(0x80000001u, error), SyncCodec::brotli);  // dry run ignored
  EXPECT_EQ(sync_codec_from_flags(0, error), std::nullopt);
  EXPECT_FALSE(error);
  sync_codec_from_flags(3, error);
  EXPECT_TRUE(error);
  sync_codec_from_flags(8, error);
  EXPECT_TRUE(error);
}

// Every size around one DATA chunk, random and compressible, fed whole and in odd pieces;
// the stream comes out in full DATA chunks (only the last may be shorter, none empty).
TEST(SyncCompression, EachCodecRoundTripsAtChunkBoundaries) {
  for (SyncCodec codec : kCodecs) {
    for (std::size_t size : kSizes) {
      for (int kind = 0; kind < 2; ++kind) {
        SCOPED_TRACE(name(codec) + " size " + std::to_string(size) + (kind ? " text" : " random"));
        const Bytes input = kind ? text_bytes(size, size) : random_bytes(size, size);
        for (std::size_t piece : {std::size_t{7777}, std::size_t{1} << 20}) {
          if (piece == 7777 && size > 200000) continue;  // slow in small pieces; covered below
          const std::vector<Bytes> chunks =
              compress_chunks(codec, input, std::max<std::size_t>(piece, 1));
          ASSERT_FALSE(chunks.empty());
          for (std::size_t i = 0; i < chunks.size(); ++i) {
            EXPECT_FALSE(chunks[i].empty());
            if (i + 1 < chunks.size()) {
              EXPECT_EQ(chunks[i].size(), kSyncDataMax);
            }
            EXPECT_LE(chunks[i].size(), kSyncDataMax);
          }
          const Bytes stream = join(chunks);
          for (std::size_t cut : {std::size_t{1} << 30, kSyncDataMax, std::size_t{4093}}) {
            const Decoded d = decompress(codec, stream, cut);
            ASSERT_TRUE(d.ok) << d.error;
            ASSERT_TRUE(d.output == input);
          }
        }
      }
    }
  }
}

TEST(SyncCompression, CompressibleDataShrinks) {
  const Bytes input = text_bytes(3 * 1024 * 1024, 1);
  for (SyncCodec codec : kCodecs) {
    const std::size_t compressed = join(compress_chunks(codec, input, 256 * 1024)).size();
    EXPECT_LT(compressed, input.size() / 3) << name(codec);
  }
}

// A decompression bomb stays bounded: output comes in kOutputSize pieces (checked by the sink).
TEST(SyncCompression, HighlyCompressibleDataDecodesInBoundedPieces) {
  const Bytes zeros(64 * 1024 * 1024, 0);
  for (SyncCodec codec : kCodecs) {
    const Bytes stream = join(compress_chunks(codec, zeros, 4 * 1024 * 1024));
    EXPECT_LT(stream.size(), 1024u * 1024u) << name(codec);
    auto decoder = SyncDecompressor::make(codec);
    std::size_t total = 0;
    bool zero = true;
    const SyncSink sink = [&](std::span<const std::uint8_t> out) {
      EXPECT_LE(out.size(), SyncDecompressor::kOutputSize);
      total += out.size();
      for (auto b : out) zero = zero && b == 0;
      return true;
    };
    ASSERT_TRUE(decoder->write(stream, sink)) << decoder->error();
    ASSERT_TRUE(decoder->finish()) << decoder->error();
    EXPECT_EQ(total, zeros.size());
    EXPECT_TRUE(zero);
  }
}

TEST(SyncCompression, ASinkSayingStopStopsWithoutAnError) {
  const Bytes input = random_bytes(1024 * 1024, 5);
  for (SyncCodec codec : kCodecs) {
    auto encoder = SyncCompressor::make(codec);
    int calls = 0;
    EXPECT_FALSE(encoder->write(input, [&](std::span<const std::uint8_t>) { return ++calls < 2; }));
    EXPECT_EQ(calls, 2);
    EXPECT_EQ(encoder->error(), "");
  }
}

// ---- truncated and corrupt input

TEST(SyncCompression, TruncatedStreamIsAnErrorNamingTheAlgorithm) {
  const Bytes input = text_bytes(300000, 3);
  for (SyncCodec codec : kCodecs) {
    const Bytes stream = join(compress_chunks(codec, input, input.size()));
    for (std::size_t keep :
         {std::size_t{0}, std::size_t{1}, stream.size() / 2, stream.size() - 1}) {
      SCOPED_TRACE(name(codec) + " keeping " + std::to_string(keep));
      const Decoded d = decompress(
          codec, Bytes(stream.begin(), stream.begin() + static_cast<std::ptrdiff_t>(keep)), 1000);
      EXPECT_FALSE(d.ok);
      EXPECT_TRUE(d.error.starts_with(name(codec) + ": ")) << d.error;
    }
  }
}

TEST(SyncCompression, GarbageAndTrailingBytesAreErrors) {
  const Bytes input = text_bytes(200000, 4);
  for (SyncCodec codec : kCodecs) {
    SCOPED_TRACE(name(codec));
    // What the virtual device's corrupt_compressed_sync fault sends.
    const Decoded garbage = decompress(codec, Bytes(200000, 0xA5), kSyncDataMax);
    EXPECT_FALSE(garbage.ok);
    EXPECT_TRUE(garbage.error.starts_with(name(codec) + ": ")) << garbage.error;

    Bytes stream = join(compress_chunks(codec, input, input.size()));
    Bytes trailing = stream;
    trailing.push_back(0);
    const Decoded t = decompress(codec, trailing, kSyncDataMax);
    EXPECT_FALSE(t.ok);
    EXPECT_NE(t.error.find("after the end"), std::string::npos) << t.error;

    Bytes bad_header = stream;
    bad_header[0] ^= 0xFF;
    bad_header[1] ^= 0xFF;
    EXPECT_FALSE(decompress(codec, bad_header, kSyncDataMax).ok);

    // Every single flipped byte in the middle: an error or wrong bytes, never a crash or hang.
    std::mt19937 random(9);
    for (int i = 0; i < 200; ++i) {
      Bytes flipped = stream;
      flipped[random() % flipped.size()] ^= static_cast<std::uint8_t>(1 + random() % 255);
      const Decoded d = decompress(codec, flipped, 4096);
      if (d.ok) {
        EXPECT_LE(d.output.size(), 64u * 1024 * 1024);
      }
    }
  }
}

// A pre-1.0 zstd frame (magic 0xFD2FB527), which libzstd's legacy support decoded whole but
// refused when cut after three bytes (found by fuzz_sync_decompress): adbd never sends one, so
// it is refused wherever the stream is cut, as is a stream cut inside the magic number.
TEST(SyncCompression, ALegacyZstdFrameIsRefusedWhereverItIsCut) {
  const Bytes legacy{0x27, 0xb5, 0x2f, 0xfd, 0x00, 0x00, 0xe5, 0x00, 0x79};
  for (std::size_t piece = 1; piece <= legacy.size(); ++piece) {
    const Decoded d = decompress(SyncCodec::zstd, legacy, piece);
    EXPECT_FALSE(d.ok) << piece;
    EXPECT_EQ(d.error, "zstd: the stream does not start with a zstd frame") << piece;
  }
  const Bytes stream = join(compress_chunks(SyncCodec::zstd, text_bytes(5000, 7), 5000));
  for (std::size_t piece : {std::size_t{1}, std::size_t{3}, std::size_t{5}}) {
    const Decoded d = decompress(SyncCodec::zstd, stream, piece);
    EXPECT_TRUE(d.ok) << piece << ": " << d.error;
    EXPECT_EQ(d.output, text_bytes(5000, 7)) << piece;
  }
  const Decoded cut = decompress(SyncCodec::zstd, Bytes(stream.begin(), stream.begin() + 2), 1);
  EXPECT_FALSE(cut.ok);
  EXPECT_NE(cut.error.find("truncated"), std::string::npos) << cut.error;
}

// ---- independent checks with the reference command-line tools

std::string tool(SyncCodec codec) { return name(codec); }

// Fails (never skips) when the tool is missing.
bool require_tool(SyncCodec codec) {
  const std::string command = "command -v " + tool(codec) + " > /dev/null 2>&1";
  if (std::system(command.c_str()) == 0) return true;
  ADD_FAILURE() << "the reference tool `" << tool(codec)
                << "` is missing: install the Debian package `" << tool(codec)
                << "` (scripts/setup installs zstd, lz4 and brotli)";
  return false;
}

void write_bytes(const fs::path& path, const Bytes& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
}

Bytes read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Text then random then text: both kinds of blocks in one stream.
Bytes mixed_bytes() {
  Bytes all = text_bytes(1024 * 1024 + 17, 7);
  const Bytes noise = random_bytes(1024 * 1024, 8);
  all.insert(all.end(), noise.begin(), noise.end());
  const Bytes tail = text_bytes(1024 * 1024 - 5, 9);
  all.insert(all.end(), tail.begin(), tail.end());
  return all;
}

TEST(SyncCompressionReferenceTools, TheToolsDecompressOurStreams) {
  test::TempDir dir;
  const Bytes input = mixed_bytes();
  for (SyncCodec codec : kCodecs) {
    SCOPED_TRACE(name(codec));
    if (!require_tool(codec)) continue;
    const fs::path compressed = dir.path() / ("ours." + name(codec));
    const fs::path output = dir.path() / ("ours." + name(codec) + ".out");
    write_bytes(compressed, join(compress_chunks(codec, input, 100000)));
    const std::string command =
        tool(codec) + " -d -c '" + compressed.string() + "' > '" + output.string() + "'";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    EXPECT_TRUE(read_bytes(output) == input) << command << " gave other bytes";
  }
}

TEST(SyncCompressionReferenceTools, WeDecompressTheToolsStreams) {
  test::TempDir dir;
  const Bytes input = mixed_bytes();
  const fs::path plain = dir.path() / "plain";
  write_bytes(plain, input);
  for (SyncCodec codec : kCodecs) {
    SCOPED_TRACE(name(codec));
    if (!require_tool(codec)) continue;
    const fs::path compressed = dir.path() / ("theirs." + name(codec));
    // brotli's default quality (11) takes seconds for 3 MiB; 6 still uses a wide window.
    const std::string level = codec == SyncCodec::brotli ? " -q 6" : "";
    const std::string command =
        tool(codec) + level + " -c '" + plain.string() + "' > '" + compressed.string() + "'";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    const Decoded d = decompress(codec, read_bytes(compressed), kSyncDataMax);
    ASSERT_TRUE(d.ok) << d.error;
    EXPECT_TRUE(d.output == input);
  }
}

// A bomb made by a real encoder: 64 MiB of zeros at brotli's highest quality is 54 bytes, over a
// million bytes out per byte in. The decoder stops once its output passes kMaxExpansion bytes per
// input byte, having made a few MB, where before it made all 64 MiB (and a 4 GiB one, 4 GiB).
TEST(SyncCompressionReferenceTools, ABombIsRefusedPastTheExpansionBound) {
  if (!require_tool(SyncCodec::brotli)) return;
  test::TempDir dir;
  const fs::path bomb = dir.path() / "bomb.br";
  const std::string command =
      "head -c 67108864 /dev/zero | brotli -q 11 -w 24 -c > '" + bomb.string() + "'";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  const Bytes stream = read_bytes(bomb);
  ASSERT_LT(stream.size(), 1024u);
  for (const std::size_t piece : {std::size_t{1}, stream.size()}) {
    const Decoded d = decompress(SyncCodec::brotli, stream, piece);
    EXPECT_FALSE(d.ok);
    EXPECT_NE(d.error.find("a decompression bomb"), std::string::npos) << d.error;
    EXPECT_LE(d.output.size(),
              stream.size() * SyncDecompressor::kMaxExpansion + SyncDecompressor::kOutputSize);
  }
}

}  // namespace
}  // namespace adbwire::detail
