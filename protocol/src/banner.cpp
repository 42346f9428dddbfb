#include "adbwire/protocol/banner.hpp"

#include <algorithm>

namespace adbwire::protocol {
namespace {

// Calls item(piece) for every non-empty piece of text between separators.
template <typename F>
void for_each_piece(std::string_view text, char separator, F item) {
  while (!text.empty()) {
    const std::size_t end = text.find(separator);
    const std::string_view piece = text.substr(0, end);
    if (!piece.empty()) item(piece);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
}

}  // namespace

std::string_view Banner::property(std::string_view key) const noexcept {
  for (const auto& [name, value] : properties) {
    if (name == key) return value;
  }
  return {};
}

bool Banner::has_feature(std::string_view feature) const noexcept {
  return std::find(features.begin(), features.end(), feature) != features.end();
}

Banner parse_banner(std::string_view text) {
  while (!text.empty() && text.back() == '\0') text.remove_suffix(1);
  Banner banner;
  const std::size_t type_end = text.find(':');
  banner.system_type = std::string(text.substr(0, type_end));
  if (type_end == std::string_view::npos) return banner;
  text.remove_prefix(type_end + 1);

  const std::size_t serial_end = text.find(':');
  banner.serial = std::string(text.substr(0, serial_end));
  if (serial_end == std::string_view::npos) return banner;
  text.remove_prefix(serial_end + 1);

  for_each_piece(text, ';', [&](std::string_view item) {
    const std::size_t equals = item.find('=');
    const std::string_view key = item.substr(0, equals);
    const std::string_view value =
        equals == std::string_view::npos ? std::string_view() : item.substr(equals + 1);
    if (key == "features") {
      // AOSP resets the feature set for every CNXN, so the last features= item wins.
      banner.features.clear();
      for_each_piece(value, ',', [&](std::string_view f) { banner.features.emplace_back(f); });
    } else {
      banner.properties.emplace_back(std::string(key), std::string(value));
    }
  });
  return banner;
}

std::string format_banner(const Banner& banner) {
  std::string out = banner.system_type + ":" + banner.serial + ":";
  bool first = true;
  for (const auto& [key, value] : banner.properties) {
    if (!first) out += ';';
    first = false;
    out += key;
    out += '=';
    out += value;
  }
  if (!banner.features.empty()) {
    if (!first) out += ';';
    out += "features=";
    for (std::size_t i = 0; i < banner.features.size(); ++i) {
      if (i != 0) out += ',';
      out += banner.features[i];
    }
  }
  return out;
}

// A banner promises only what adbwire does: the sync client compresses (sendrecv_v2_brotli/
// lz4/zstd, in AOSP's order) but has no dry-run push, so sendrecv_v2_dry_run_send stays out.
std::vector<std::string> host_features() {
  return {"shell_v2",
          "cmd",
          "stat_v2",
          "ls_v2",
          "fixed_push_mkdir",
          "apex",
          "abb",
          "fixed_push_symlink_timestamp",
          "abb_exec",
          "remount_shell",
          "track_app",
          "sendrecv_v2",
          "sendrecv_v2_brotli",
          "sendrecv_v2_lz4",
          "sendrecv_v2_zstd"};
}

}  // namespace adbwire::protocol
