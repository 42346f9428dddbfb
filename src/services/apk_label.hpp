// An app's label read on the host from its APK: the manifest's <application android:label>
// (binary XML) resolved through resources.arsc, parsed by AOSP's own libandroidfw (Debian's
// android-libandroidfw). An APK comes from the device, so it is untrusted input: its size, the
// two entries' sizes and the label's length are bounded, nothing else of the archive is read,
// and libandroidfw's log lines (which can quote the file) never reach stderr. Internal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "base/failure.hpp"

namespace adbwire::detail {

// Bounds on what an APK may make the host hold.
inline constexpr std::size_t kMaxManifestBytes = 4 * 1024 * 1024;  // AndroidManifest.xml
inline constexpr std::size_t kMaxArscBytes = 64 * 1024 * 1024;     // resources.arsc
inline constexpr std::size_t kMaxLabelBytes = 256;                 // a label, cut past it
// Bytes of one APK read by ranges for its label: the two entries at their bounds, and 16 MiB
// for the end of central directory, the directory, the local headers and read-ahead.
inline constexpr std::uint64_t kMaxApkRangeBytes =
    kMaxManifestBytes + kMaxArscBytes + 16 * 1024 * 1024;
// The central directory an APK may announce, and so the entries (at least 46 bytes each): libzip
// allocates and fills a record per announced entry before it reads one, so a ZIP64 end record
// claiming 200 million entries would cost the host gigabytes (6 GB measured with libzip 1.7.3).
inline constexpr std::uint64_t kMaxDirectoryBytes = 16 * 1024 * 1024;
inline constexpr std::uint64_t kMaxDirectoryEntries = kMaxDirectoryBytes / 46;

// The label the manifest names, resolved through the resource table for the default
// configuration (a reference to another reference is followed as Android does); "" when the
// application has no android:label. arsc may be empty when the label is a literal string.
// Errors: parse_error (a manifest or table libandroidfw rejects, no <application>, a label that
// is neither a string nor a reference to one), not_found (a reference the table lacks).
std::string label_from_resources(std::string_view manifest, std::string_view arsc,
                                 Failure& failure);

// Reads only AndroidManifest.xml and resources.arsc of the ZIP at apk (each bounded above, its
// CRC checked by libzip) and returns label_from_resources of them. Errors: as that, and
// parse_error for a file that is not a ZIP or lacks a manifest, limit_exceeded for an entry
// past its bound or an end of central directory announcing more than kMaxDirectoryBytes or
// kMaxDirectoryEntries (checked before libzip opens the archive), io_error when apk cannot be read.
std::string apk_label(const std::filesystem::path& apk, Failure& failure);

// Fills `into` with the APK's bytes at `offset` (within the size given with it), all of them,
// or sets failure and returns false.
using ApkRangeReader =
    std::function<bool(std::uint64_t offset, std::span<std::uint8_t> into, Failure& failure)>;

// As apk_label, on an APK of `size` bytes read through `read` (a libzip source over it): libzip
// asks only for what the two entries need (the end of central directory, the directory, their
// local headers and data). A failure `read` reports is the one returned, not libzip's.
std::string apk_label(std::uint64_t size, const ApkRangeReader& read, Failure& failure);

}  // namespace adbwire::detail
