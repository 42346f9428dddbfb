// Writing the known-hosts file (adbwire/pairing.hpp reads it). Internal to the pairing layer.
#pragma once

#include <string_view>

#include "adbwire/pairing.hpp"
#include "base/failure.hpp"

namespace adbwire::pairing {

inline constexpr std::size_t kMaxGuidSize = 255;

// A GUID a device may give: 1..255 printable ASCII characters, no space. It names a device in
// a file and on the terminal, so nothing else is taken from a device.
bool is_usable_guid(std::string_view guid);

// Adds host (replacing an entry of the same GUID) by writing the whole file anew, 0600,
// through a temporary renamed into place. Errors: not_found (no home), permission_denied,
// io_error, parse_error (the present file is over 1 MiB).
bool remember_host(const KeyOptions& keys, const KnownHost& host, detail::Failure& failure);

}  // namespace adbwire::pairing
