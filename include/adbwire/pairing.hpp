// Wireless debugging pairing (Android 11+) without adb: what `adb pair HOST:PORT CODE` does.
// The phone's Settings → Developer options → Wireless debugging → "Pair device with pairing
// code" shows a code and a pairing port; pairing makes the phone trust the host's adbkey, after
// which the phone's connect port (another port, shown under "IP address & Port", advertised by
// mDNS as _adb-tls-connect._tcp) takes the host over TLS with no prompt.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "adbwire/keys.hpp"

namespace adbwire {

struct PairOptions {
  // The host key the phone will trust: adbkey of keys.android_dir, made when missing as for a
  // connect (vendor keys are not offered: adb pairs adbkey alone).
  KeyOptions keys;
  // The whole pairing (connect, TLS, both exchanges) ends by then.
  std::chrono::milliseconds timeout{15000};
  // Record the device in the known-hosts file (known_hosts_path(keys)).
  bool remember = true;
};

struct PairResult {
  std::string guid;     // the device's id, "adb-<serial>-<6 characters>": its mDNS instance name
  std::string address;  // the pairing address as given
};

// Pairs with the pairing service at address ("HOST:PORT", IPv6 as "[ADDR]:PORT") using code
// (the digits the phone shows, or a QR code's password). Blocking; thread safe.
// Errors: invalid_argument (address without a port, empty code), connection_refused (nothing
// listens there: the pairing dialog closed, or its port changed), timeout (no answer within
// options.timeout), protocol_error (no TLS 1.3 pairing service there — the connect port is
// another — or the peer broke the pairing framing), closed (the device hung up mid-way),
// unauthorized (the code was wrong), and the key errors of load_host_keys. Nothing is written
// unless pairing succeeded.
PairResult pair(std::string_view address, std::string_view code, const PairOptions& options = {});
PairResult pair(std::string_view address, std::string_view code, const PairOptions& options,
                std::error_code& error);

// A paired device as the known-hosts file remembers it.
struct KnownHost {
  std::string guid;
  std::string address;  // where it was paired ("HOST:PORT" of the pairing port)
};

// "adbwire_known_hosts" beside adbkey (default_key_path's folder); empty when no home is
// known. One line per device, "GUID ADDRESS", mode 0600; adb's own adb_known_hosts.pb is
// left alone.
std::filesystem::path known_hosts_path(const KeyOptions& keys);

// The devices paired so far, oldest first; empty when the file is missing. Lines that are
// not "GUID ADDRESS" are skipped. Errors: permission_denied, io_error, parse_error (a file
// over 1 MiB).
std::vector<KnownHost> load_known_hosts(const KeyOptions& keys);
std::vector<KnownHost> load_known_hosts(const KeyOptions& keys, std::error_code& error);

// True when name (an mDNS instance name) is a known device's: it starts with a known GUID,
// as adb matches (a phone re-registering its service gets " (2)" appended).
bool is_known_host(const std::vector<KnownHost>& hosts, std::string_view name);

}  // namespace adbwire
