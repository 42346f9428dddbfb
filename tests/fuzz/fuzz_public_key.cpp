// PublicKey::parse on arbitrary bytes (an AUTH(RSAPUBLICKEY) payload comes from the peer).
// Beyond not crashing: an accepted key re-encodes to the same n and e it was given, and the
// re-encoded struct parses again to itself.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <system_error>

#include "adbwire/keys.hpp"
#include "auth/android_pubkey.hpp"
#include "base/base64.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  std::error_code error;
  const adbwire::PublicKey key = adbwire::PublicKey::parse(line, error);
  if (error) return 0;

  const auto encoded = key.android_public_key();
  if (encoded.size() != adbwire::auth::kAndroidPublicKeySize) std::abort();
  std::string_view text = line.substr(0, line.find_first_of(" \t"));
  while (!text.empty() && (text.back() == '\0' || text.back() == '\n' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  const auto given = adbwire::detail::base64_decode(text);
  if (!given || given->size() != encoded.size()) std::abort();
  // n at [8, 264) and e at [520, 524) come from the input; n0inv and rr are recomputed.
  for (std::size_t i = 8; i < 264; ++i) {
    if ((*given)[i] != encoded[i]) std::abort();
  }
  for (std::size_t i = 520; i < 524; ++i) {
    if ((*given)[i] != encoded[i]) std::abort();
  }
  const adbwire::PublicKey again =
      adbwire::PublicKey::parse(adbwire::detail::base64_encode(encoded), error);
  if (error || again.android_public_key() != encoded) std::abort();
  if (key.fingerprint().size() != 47) std::abort();
  const std::uint8_t token[20] = {};
  const std::uint8_t signature[256] = {};
  if (key.verify_token(token, signature)) std::abort();
  return 0;
}
