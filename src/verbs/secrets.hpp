// Named secrets an agent types without seeing them (type --secret NAME): their values come from
// sources the operator configures, never from the agent. Internal.
//
// Sources, in the order a name is looked up:
//   environment  PREFIX + NAME (ADBWIRE_SECRET_ by default): ADBWIRE_SECRET_bank_pin=1234
//   file         NAME=VALUE lines ('#' starts a comment line), readable by its owner alone
//                (mode 0600 or stricter, owned by this user, a regular file, not a link)
//   keyring      when asked for (--secrets-keyring, ADBWIRE_SECRETS_KEYRING=1): the desktop
//                keyring's items of the schema org.adbwire.Secret, by their attribute "name"
//                (verbs/secrets_keyring.hpp); a keyring that does not answer is not_supported,
//                one that answers nothing within keyring_timeout is timeout
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "base/cancel_token.hpp"

namespace adbwire::verbs {

struct SecretSources {
  // Environment variables whose name begins with this carry a secret each; "" reads none.
  std::string env_prefix = "ADBWIRE_SECRET_";
  // The secrets file; empty: none.
  std::filesystem::path file;
  // Ask the desktop keyring (the Secret Service) too.
  bool keyring = false;
  // The longest a keyring lookup may take, its D-Bus calls and an unlock prompt included (D-Bus
  // alone waits 25 s a call, and a prompt nobody answers for ever).
  std::chrono::milliseconds keyring_timeout{10000};
  // The default: the ADBWIRE_SECRET_ prefix, $ADBWIRE_SECRETS_FILE when set, the keyring when
  // $ADBWIRE_SECRETS_KEYRING is 1.
  static SecretSources from_environment();
};

// A name is letters, digits, '_', '-' and '.', 1 to 64 of them. Throws Error(invalid_argument)
// for another, naming the rule.
void check_secret_name(const std::string& name);

// The names the sources hold, sorted, without repeats. Throws as secret_value for the file and
// the keyring.
std::vector<std::string> secret_names(const SecretSources& sources,
                                      const detail::CancelToken* cancel = nullptr);

// The value of the secret called name. Throws Error: not_found (no source holds it: the message
// lists the names there are, never a value, and how to add one), permission_denied (the file is
// readable by others, owned by another user or a link: the message says which and what to do),
// invalid_argument (a bad name), io_error, not_supported (the keyring is asked for and does not
// answer: the message names the other sources), timeout (the keyring did not answer within
// keyring_timeout: the message names the secret), cancelled (cancel, which may be null, was
// cancelled during the keyring's lookup).
std::string secret_value(const SecretSources& sources, const std::string& name,
                         const detail::CancelToken* cancel = nullptr);

}  // namespace adbwire::verbs
