// How Device::connect behaves: keys, timeouts and the adb server to go through. Plain values, no
// global state.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>

#include "adbwire/keys.hpp"
#include "adbwire/output_limits.hpp"
#include "adbwire/server_address.hpp"

namespace adbwire {

struct ConnectOptions {
  // Where the host keys come from (adb's ~/.android/adbkey and $ADB_VENDOR_KEYS by default).
  KeyOptions keys;
  // Budget for the TCP connect plus the device's first answer to our CNXN (and signature
  // rounds). Passing it gives errc::timeout.
  std::chrono::milliseconds connect_timeout{5000};
  // After offering our public key, how long a person has to tap "Allow" on the phone.
  // Passing it gives errc::unauthorized with the key fingerprint to look for.
  std::chrono::milliseconds auth_timeout{60000};
  // When the device refuses every signature, offer our public key (the phone shows "Allow USB
  // debugging?"). false: fail at once with errc::unauthorized instead, raising no prompt (for
  // probes that run often, such as `adbwire devices`).
  bool offer_public_key = true;
  // Deadline of every Device and Stream call made with kDefaultDeadline.
  std::chrono::milliseconds command_timeout{30000};
  // How much of a device's output the calls that gather it whole may hold, per kind
  // (adbwire/output_limits.hpp); the Device keeps them (Device::output_limits).
  OutputLimits limits;
  // Receive window per stream for delayed_ack (AOSP burst mode); 0 = classic flow control
  // (one OKAY per WRTE). Used only when the device offers delayed_ack too.
  std::uint32_t delayed_ack_window = 0;
  // The adb server for server: targets that name none (adb's -H/-P); empty parts come from
  // $ADB_SERVER_SOCKET / $ANDROID_ADB_SERVER_PORT, else 127.0.0.1:5037.
  ServerAddress server;
  // When set, every byte sent and received is recorded to this pcapng file (created or
  // truncated once connected), flushed per message: direct TCP as Ethernet/IPv4/TCP frames,
  // USB as usbmon records, server: targets as each smart-socket connection to the server.
  // Connect fails with io_error when the file cannot be created; a later write error (disk
  // full) ends the recording, not the connection. See captures/README.md.
  std::filesystem::path record;
};

}  // namespace adbwire
