// The desktop keyring as a source of secrets (SecretSources::keyring): the Secret Service
// (GNOME Keyring, KeePassXC, KWallet's bridge) over the session's D-Bus, through libsecret.
// Items of the schema "org.adbwire.Secret" carry the attribute "name" (secret-tool store
// --label=adbwire name bank_pin, with xdg:schema org.adbwire.Secret). Internal.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "adbwire/deadline.hpp"
#include "base/cancel_token.hpp"

namespace adbwire::verbs {

// The schema items are stored under ("xdg:schema" of secret-tool).
inline constexpr const char* kKeyringSchema = "org.adbwire.Secret";

// The value of the keyring's item called name, nullopt when it holds none. Throws Error:
// not_supported when no Secret Service answers (no session bus, no keyring running, a locked
// keyring that cannot be unlocked here): the message names the other sources; timeout when the
// lookup (all its D-Bus calls and an unlock prompt) is not done by the deadline: the message
// names the secret, never a value; cancelled when cancel (may be null) is cancelled meanwhile.
std::optional<std::string> keyring_secret(const std::string& name, Deadline deadline,
                                          const detail::CancelToken* cancel);

// The names of the keyring's items of the schema (unsorted). Throws as keyring_secret.
std::vector<std::string> keyring_names(Deadline deadline, const detail::CancelToken* cancel);

}  // namespace adbwire::verbs
