// tshark's ADB dissector as an independent decoder: the ADB messages of a capture, per
// direction, as tshark sees them and as adbwire's decoder does, to compare message for message.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "adbwire/capture.hpp"

namespace adbwire::replay_test {

inline constexpr const char* kInstallTshark =
    "tshark is missing: install it with `apt-get install tshark`";

// "0x4e45504f 0x00000006 0x00000000 32" (command, arg0, arg1, data length), in order, per
// direction.
using MessageLines = std::map<CaptureDirection, std::vector<std::string>>;

struct Views {
  MessageLines tshark;
  MessageLines ours;
  std::string decode_as;  // the -d arguments used
  std::string problem;    // why the comparison could not be made ("" when it could)
};

// True when tshark is on PATH.
bool have_tshark();

// Decodes capture (a .zst one is decompressed to a temporary file for tshark) with both. The
// capture must hold one kind of link: TCP (-d tcp.port==DEVICE_PORT,adb for each device port)
// or USB (-d usb.device==0xBBBBDDDD,adb).
Views decode_both(const std::filesystem::path& capture);

}  // namespace adbwire::replay_test
