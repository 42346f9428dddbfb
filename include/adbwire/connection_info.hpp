// What was negotiated when a Device connected: for logs, tests and diagnostics.
#pragma once

#include <cstdint>
#include <string>

namespace adbwire {

// How this host got past the device's AUTH.
enum class AuthMethod {
  none,        // the device did not ask (auth disabled, e.g. an emulator or `adbwire vdevice`)
  signature,   // a host key signed the device's token: the device already knew the key
  public_key,  // the device knew none of our keys; a person accepted the offered public key
  tls,         // TLS client certificate made from a host key the device knows (paired)
};

struct ConnectionInfo {
  std::string target;  // canonical target, "tcp:127.0.0.1:5555"
  AuthMethod auth = AuthMethod::none;
  std::string key_fingerprint;  // the accepted key (PrivateKey::fingerprint()); empty for none
  std::uint32_t signatures_sent = 0;  // signature rounds before the device let us in
  std::uint32_t version = 0;          // negotiated protocol version
  std::uint32_t max_payload = 0;      // negotiated largest WRTE payload
  bool delayed_ack = false;           // delayed_ack flow control in use
  // The device asked for TLS (STLS, Wireless debugging) and the link runs inside it.
  bool tls = false;
  std::string tls_version;  // "TLSv1.3"; empty without TLS
  std::string tls_cipher;   // "TLS_AES_128_GCM_SHA256"; empty without TLS
  // SHA-256 (hex) of the public key in the device's TLS certificate; empty without TLS. For
  // logs and audits only: adbd makes a new random key for its certificate (per connection on
  // Android 11, per adbd start later; AOSP daemon/auth.cpp), so it cannot identify a device
  // across restarts and AOSP's host does not check it. What TLS does prove: the device let in
  // only a paired host key, and no one in the middle can act on the device (README, threat model).
  std::string tls_peer_fingerprint;
};

}  // namespace adbwire
