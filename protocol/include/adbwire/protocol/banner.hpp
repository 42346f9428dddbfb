// The CNXN banner: "<systemtype>:<serial>:<key=value;…;features=a,b,c>".
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace adbwire::protocol {

struct Banner {
  std::string system_type;  // host, device, recovery, sideload, bootloader, rescue
  std::string serial;
  std::vector<std::pair<std::string, std::string>> properties;  // in banner order, without features
  std::vector<std::string> features;

  // Value of ro.product.name etc.; empty when absent.
  std::string_view property(std::string_view key) const noexcept;
  bool has_feature(std::string_view feature) const noexcept;
};

// Parses a banner (a trailing NUL is ignored). Never fails: unknown pieces are kept as
// properties, a banner with no ':' is all system type, as AOSP's parse_banner does.
Banner parse_banner(std::string_view text);

// Formats a banner; properties first, then features=…; items separated by ';'.
std::string format_banner(const Banner& banner);

// The features adbwire's host side implements and advertises (AOSP names).
std::vector<std::string> host_features();

}  // namespace adbwire::protocol
