// The per-user folder where the CLI keeps what outlives one command (the daemon's socket,
// the forward rules of running `adbwire forward` processes).
#pragma once

#include <filesystem>

namespace adbwire::cli {

// $XDG_RUNTIME_DIR/adbwire, else /tmp/adbwire-UID; created 0700 when missing
// (base/private_files.hpp). Throws Error(permission_denied) when it exists but is not a folder
// only this user can enter: whoever could write there could reach our devices.
std::filesystem::path private_runtime_folder();

}  // namespace adbwire::cli
