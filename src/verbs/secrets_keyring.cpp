#include "verbs/secrets_keyring.hpp"

#include <libsecret/secret.h>

#include "adbwire/error.hpp"
#include "adbwire/protocol/printable.hpp"

namespace adbwire::verbs {
namespace {

const SecretSchema* schema() {
  static const SecretSchema kSchema = {
      kKeyringSchema,
      SECRET_SCHEMA_NONE,
      {{"name", SECRET_SCHEMA_ATTRIBUTE_STRING}, {nullptr, SECRET_SCHEMA_ATTRIBUTE_STRING}},
      0,
      nullptr,
      nullptr,
      nullptr,
      nullptr,
      nullptr,
      nullptr,
      nullptr};
  return &kSchema;
}

// Owns a GError.
struct ErrorBox {
  GError* error = nullptr;
  ~ErrorBox() {
    if (error != nullptr) g_error_free(error);
  }
};

[[noreturn]] void unreachable(const GError* error) {
  throw Error(errc::not_supported,
              "the desktop keyring is not reachable (" +
                  protocol::printable(error != nullptr ? error->message : "no answer", 200) +
                  "): start a Secret Service (GNOME Keyring, KeePassXC) in this session and "
                  "unlock it, or give the secret as the environment variable "
                  "ADBWIRE_SECRET_NAME or a line NAME=VALUE in a secrets file of mode 0600 "
                  "(--secrets-file, $ADBWIRE_SECRETS_FILE)");
}

}  // namespace

// GLib and libsecret keep the shared D-Bus connection's bookkeeping for the life of the process
// (and leak a few bytes per connection), which LeakSanitizer reports at exit: in a sanitizer
// build, leaks allocated inside those two libraries are theirs, not ours (we own nothing of theirs
// past a call: values, lists and attribute tables are freed above).
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ADBWIRE_LEAK_CHECKED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(ADBWIRE_LEAK_CHECKED)
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libglib-2.0.so\nleak:libgio-2.0.so\nleak:libsecret-1.so\n";
}
#endif

std::optional<std::string> keyring_secret(const std::string& name) {
  ErrorBox failure;
  gchar* value =
      secret_password_lookup_sync(schema(), nullptr, &failure.error, "name", name.c_str(), nullptr);
  if (failure.error != nullptr) unreachable(failure.error);
  if (value == nullptr) return std::nullopt;
  std::string out(value);
  secret_password_free(value);  // wipes the copy libsecret made
  return out;
}

std::vector<std::string> keyring_names() {
  ErrorBox failure;
  GList* items =
      secret_password_search_sync(schema(), SECRET_SEARCH_ALL, nullptr, &failure.error, nullptr);
  if (failure.error != nullptr) {
    g_list_free_full(items, g_object_unref);
    unreachable(failure.error);
  }
  std::vector<std::string> names;
  for (GList* at = items; at != nullptr; at = at->next) {
    GHashTable* attributes = secret_retrievable_get_attributes(SECRET_RETRIEVABLE(at->data));
    if (attributes == nullptr) continue;
    if (const auto* name = static_cast<const char*>(g_hash_table_lookup(attributes, "name")))
      names.emplace_back(name);
    g_hash_table_unref(attributes);
  }
  g_list_free_full(items, g_object_unref);
  return names;
}

}  // namespace adbwire::verbs
