// Secrets from the desktop keyring (verbs/secrets_keyring.hpp): a real Secret Service (GNOME
// Keyring on a private session bus, both our children, headless) holds a secret stored with
// secret-tool as the README says; `adbwire mcp --secrets-keyring` and a CLI session with
// ADBWIRE_SECRETS_KEYRING=1 list its name and type its value, which no output shows. Without a
// Secret Service, asking the keyring is a typed error naming the other sources; one that takes
// the call and never answers is a timeout at the lookup's deadline, naming the secret.
#include <gio/gio.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "integration/adb_server.hpp"
#include "integration/cli_host_fixture.hpp"
#include "integration/mcp_lines.hpp"

namespace adbwire {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Json = nlohmann::json;
using test::text_of;

constexpr const char* kInstall =
    " is missing: apt-get install gnome-keyring libsecret-tools dbus-daemon (or run scripts/setup)";

using Keyring = test::CliHostTest;

TEST_F(Keyring, ASecretOfTheDesktopKeyringIsTypedAndShownNowhere) {
  for (const char* program :
       {"/usr/bin/dbus-daemon", "/usr/bin/gnome-keyring-daemon", "/usr/bin/secret-tool"})
    ASSERT_TRUE(fs::exists(program)) << program << kInstall;
  test::Background bus({"/usr/bin/dbus-daemon", "--session", "--nofork", "--print-address=1"},
                       env());
  const std::string address = bus.first_line();
  ASSERT_TRUE(address.starts_with("unix:")) << "dbus-daemon printed no address: " << address;
  const std::string on_bus = "DBUS_SESSION_BUS_ADDRESS=" + address;
  // gnome-keyring-daemon unlocks (creating) the login keyring with the password on its stdin.
  const fs::path password = dir_.path() / "password";
  std::ofstream(password) << "test-keyring-password";
  test::Background keyring({"/bin/sh", "-c",
                            "exec /usr/bin/gnome-keyring-daemon --foreground --unlock "
                            "--components=secrets < '" +
                                password.string() + "'"},
                           env({on_bus}));
  const std::string value = "Kr9-from_the-keyring";
  bool stored = false;
  std::string why;
  for (int tried = 0; tried < 100 && !stored; ++tried) {
    const test::ProcessResult store =
        test::run_process({"/usr/bin/secret-tool", "store", "--label=adbwire bank_pin",
                           "xdg:schema", "org.adbwire.Secret", "name", "bank_pin"},
                          env({on_bus}), value, 10s);
    stored = store.exit_code == 0;
    why = store.err;
    if (!stored) std::this_thread::sleep_for(100ms);
  }
  ASSERT_TRUE(stored) << "secret-tool store failed: " << why;

  const std::vector<std::pair<std::string, Json>> calls = {
      {"secrets", Json::object()},
      {"tap", {{"text", "Add item"}}},
      {"type", {{"id", "name"}, {"secret", "bank_pin"}}},
      {"snapshot", Json::object()},
      {"type", {{"id", "name"}, {"secret", "unknown"}}},
  };
  const test::ProcessResult server =
      adbwire({"mcp", vd_->target(), "--secrets-keyring"}, {on_bus}, test::tools_calls(calls));
  ASSERT_EQ(server.exit_code, 0) << server.err;
  const std::vector<Json> results = test::tool_results(server.out, calls.size());
  EXPECT_NE(text_of(results[0]).find("1 secret"), std::string::npos) << results[0];
  EXPECT_NE(text_of(results[0]).find("bank_pin\n"), std::string::npos) << results[0];
  EXPECT_FALSE(results[2].value("isError", true)) << results[2];
  EXPECT_NE(text_of(results[2]).find("Typed the secret bank_pin"), std::string::npos) << results[2];
  EXPECT_NE(text_of(results[3]).find("<secret bank_pin>"), std::string::npos) << results[3];
  EXPECT_NE(text_of(results[4]).find("no secret named unknown (there are: bank_pin)"),
            std::string::npos)
      << results[4];
  EXPECT_NE(text_of(results[4]).find("org.adbwire.Secret"), std::string::npos) << results[4];
  const std::vector<std::string> events = vd_->events();
  EXPECT_TRUE(std::any_of(events.begin(), events.end(), [&](const std::string& e) {
    return e.find(value) != std::string::npos;
  })) << "the keyring's value never reached the device";
  EXPECT_EQ(server.out.find(value), std::string::npos);
  EXPECT_EQ(server.err.find(value), std::string::npos);

  // A CLI session: the daemon `open` starts reads the keyring when its environment asks.
  std::string said;
  for (const std::vector<std::string>& words :
       std::vector<std::vector<std::string>>{{"open", vd_->target()}, {"secrets"}, {"close"}}) {
    const test::ProcessResult step = adbwire(words, {on_bus, "ADBWIRE_SECRETS_KEYRING=1"});
    EXPECT_EQ(step.exit_code, 0) << step.out << step.err;
    said += step.out + step.err;
  }
  EXPECT_NE(said.find("bank_pin"), std::string::npos) << said;
  EXPECT_EQ(said.find(value), std::string::npos) << said;
  adbwire({"kill-server"}, {});
}

TEST_F(Keyring, WithoutASecretServiceTheKeyringIsATypedErrorNamingTheOtherSources) {
  const std::string no_bus =
      "DBUS_SESSION_BUS_ADDRESS=unix:path=" + (dir_.path() / "no-bus").string();
  const std::vector<std::pair<std::string, Json>> calls = {
      {"secrets", Json::object()},
      {"tap", {{"text", "Add item"}}},
      {"type", {{"id", "name"}, {"secret", "bank_pin"}}},
  };
  const test::ProcessResult asked =
      adbwire({"mcp", vd_->target(), "--secrets-keyring"}, {no_bus}, test::tools_calls(calls));
  ASSERT_EQ(asked.exit_code, 0) << asked.err;
  const std::vector<Json> results = test::tool_results(asked.out, calls.size());
  for (const std::size_t i : {std::size_t{0}, std::size_t{2}}) {
    EXPECT_TRUE(results[i].value("isError", false)) << results[i];
    EXPECT_EQ(results[i]["_meta"]["adbwire/errc"], static_cast<int>(errc::not_supported))
        << results[i];
    const std::string text = text_of(results[i]);
    EXPECT_NE(text.find("the desktop keyring is not reachable"), std::string::npos) << text;
    EXPECT_NE(text.find("ADBWIRE_SECRET_NAME"), std::string::npos) << text;
    EXPECT_NE(text.find("--secrets-file"), std::string::npos) << text;
  }
  const std::vector<std::string> events = vd_->events();
  EXPECT_TRUE(std::none_of(events.begin(), events.end(), [](const std::string& e) {
    return e.find("input text") != std::string::npos;
  })) << "nothing is typed without the secret";

  // Not asked for, the keyring is not a source: the other sources answer alone.
  const test::ProcessResult plain =
      adbwire({"mcp", vd_->target()}, {no_bus}, test::tools_calls({calls[0]}));
  const std::vector<Json> alone = test::tool_results(plain.out, 1);
  EXPECT_FALSE(alone[0].value("isError", true)) << alone[0];
  EXPECT_NE(text_of(alone[0]).find("No secrets are configured"), std::string::npos) << alone[0];
}

// A real D-Bus peer on the bus at `address` that owns the Secret Service's name and takes every
// method call sent to it without ever answering (a keyring hung on an unlock prompt, a
// debugger, a stopped process): GDBus's filter drops each call before anything could reply.
class SilentSecretService {
 public:
  explicit SilentSecretService(const std::string& address) {
    GError* error = nullptr;
    connection_ = g_dbus_connection_new_for_address_sync(
        address.c_str(),
        static_cast<GDBusConnectionFlags>(G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                          G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION),
        nullptr, nullptr, &error);
    if (connection_ == nullptr) {
      problem_ = error->message;
      g_error_free(error);
      return;
    }
    g_dbus_connection_add_filter(connection_, &SilentSecretService::drop_calls, &calls_, nullptr);
    GVariant* owned = g_dbus_connection_call_sync(
        connection_, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
        "RequestName", g_variant_new("(su)", "org.freedesktop.secrets", 4u /* do not queue */),
        G_VARIANT_TYPE("(u)"), G_DBUS_CALL_FLAGS_NONE, 5000, nullptr, &error);
    if (owned == nullptr) {
      problem_ = error->message;
      g_error_free(error);
      return;
    }
    guint32 reply = 0;
    g_variant_get(owned, "(u)", &reply);
    g_variant_unref(owned);
    if (reply != 1) problem_ = "RequestName answered " + std::to_string(reply) + ", not 1 (owner)";
  }
  ~SilentSecretService() {
    if (connection_ != nullptr) {
      g_dbus_connection_close_sync(connection_, nullptr, nullptr);
      g_object_unref(connection_);
    }
  }
  SilentSecretService(const SilentSecretService&) = delete;
  SilentSecretService& operator=(const SilentSecretService&) = delete;

  // "" once it owns the name.
  const std::string& problem() const { return problem_; }
  // The method calls it took (and never answered).
  int calls() const { return calls_.load(); }

 private:
  static GDBusMessage* drop_calls(GDBusConnection*, GDBusMessage* message, gboolean incoming,
                                  gpointer calls) {
    if (incoming && g_dbus_message_get_message_type(message) == G_DBUS_MESSAGE_TYPE_METHOD_CALL) {
      static_cast<std::atomic<int>*>(calls)->fetch_add(1);
      g_object_unref(message);
      return nullptr;
    }
    return message;
  }

  GDBusConnection* connection_ = nullptr;
  std::atomic<int> calls_{0};
  std::string problem_;
};

TEST_F(Keyring, AKeyringThatNeverAnswersIsATimeoutNamingTheSecretAtTheLookupsDeadline) {
  ASSERT_TRUE(fs::exists("/usr/bin/dbus-daemon")) << "/usr/bin/dbus-daemon" << kInstall;
  test::Background bus({"/usr/bin/dbus-daemon", "--session", "--nofork", "--print-address=1"},
                       env());
  const std::string address = bus.first_line();
  ASSERT_TRUE(address.starts_with("unix:")) << "dbus-daemon printed no address: " << address;
  SilentSecretService silent(address);
  ASSERT_EQ(silent.problem(), "");

  const std::vector<std::pair<std::string, Json>> calls = {
      {"secrets", Json::object()},
      {"tap", {{"text", "Add item"}}},
      {"type", {{"id", "name"}, {"secret", "bank_pin"}}},
  };
  const auto started = std::chrono::steady_clock::now();
  const test::ProcessResult server =
      adbwire({"mcp", vd_->target(), "--secrets-keyring", "--secrets-keyring-timeout", "1"},
              {"DBUS_SESSION_BUS_ADDRESS=" + address}, test::tools_calls(calls));
  const auto took = std::chrono::steady_clock::now() - started;
  ASSERT_EQ(server.exit_code, 0) << server.err;
  const std::vector<Json> results = test::tool_results(server.out, calls.size());
  for (const auto& [i, asked] : {std::pair<std::size_t, const char*>{0, "the names of its secrets"},
                                 {2, "the secret bank_pin"}}) {
    EXPECT_TRUE(results[i].value("isError", false)) << results[i];
    EXPECT_EQ(results[i]["_meta"]["adbwire/errc"], static_cast<int>(errc::timeout)) << results[i];
    const std::string text = text_of(results[i]);
    EXPECT_NE(text.find(std::string("the desktop keyring did not answer for ") + asked),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("--secrets-file"), std::string::npos) << text;
  }
  EXPECT_FALSE(results[1].value("isError", true)) << results[1];
  // The peer took the calls (the timeout is its silence, not a missing service), and two
  // lookups of 1 s end well before D-Bus's own 25 s.
  EXPECT_GE(silent.calls(), 2);
  EXPECT_LT(took, 20s);
  const std::vector<std::string> events = vd_->events();
  EXPECT_TRUE(std::none_of(events.begin(), events.end(), [](const std::string& e) {
    return e.find("input text") != std::string::npos;
  })) << "nothing is typed without the secret";
}

}  // namespace
}  // namespace adbwire
