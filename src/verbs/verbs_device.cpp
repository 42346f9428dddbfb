// Verbs about the device: devices, connect, pair, capabilities, notifications, rotate, clipboard,
// date, settings, logs, shell.
#include <ctime>

#include "adbwire/adb_server.hpp"
#include "adbwire/logcat.hpp"
#include "adbwire/pairing.hpp"
#include "adbwire/protocol/printable.hpp"
#include "adbwire/settings.hpp"
#include "verbs/handlers.hpp"
#include "verbs/reply_text.hpp"

namespace adbwire::verbs::handlers {
namespace {

using namespace std::chrono_literals;

// How long logs waits for the device's log dump to end.
constexpr std::chrono::seconds kLogsWait{10};

SettingsNamespace namespace_of(const std::string& name) {
  if (name == "secure") return SettingsNamespace::secure;
  if (name == "global") return SettingsNamespace::global;
  return SettingsNamespace::system;
}

std::string time_text(std::chrono::system_clock::time_point at, const char* format) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(at);
  std::tm local{};
  localtime_r(&seconds, &local);
  char text[64];
  std::strftime(text, sizeof text, format, &local);
  return text;
}

}  // namespace

Reply devices(Call& call) {
  std::string text;
  std::error_code error;
  const AdbServer server(call.options().adb_server, 3s, error);
  std::vector<protocol::DeviceEntry> entries;
  if (!error) entries = server.devices(true, deadline_after(3s), error);
  if (error) {
    text += "No adb server answered (" + error.message() +
            "); that is fine for direct tcp: targets, which need none.\n";
  } else {
    text += "adb server " + to_string(server.address()) + ":\n";
    if (entries.empty()) text += "  (no devices)\n";
    for (const protocol::DeviceEntry& entry : entries) {
      text += "  " + entry.serial + "  " + entry.state_text;
      if (!entry.model.empty()) text += "  model:" + entry.model;
      text += '\n';
    }
  }
  text += "Connected here:\n";
  const std::vector<std::string> connected = call.host().connected();
  if (connected.empty()) text += "  (none yet; verbs connect on first use)\n";
  for (const std::string& target : connected) text += "  " + target + '\n';
  const std::string& fallback = call.host().default_device();
  text += "Default device: " + (fallback.empty() ? std::string("$ANDROID_SERIAL") : fallback);
  return Reply::text(std::move(text));
}

Reply connect(Call& call) {
  call.set_device(call.required_string("target"));
  Page& page = call.page();
  std::string text = "Connected to " + call.device();
  const protocol::Banner& banner = page.device().banner();
  bool first = true;
  for (const char* key : {"ro.product.model", "ro.product.device", "ro.product.name"}) {
    const std::string_view value = banner.property(key);
    if (value.empty()) continue;
    text += std::string(first ? " (" : ", ") + key + "=" + std::string(value);
    first = false;
  }
  if (!first) text += ")";
  text += ". Pass device: " + in_quotes(call.device()) + " to other verbs to drive it.";
  return Reply::text(std::move(text));
}

Reply pair(Call& call) {
  PairOptions options;
  options.keys = call.host().options().keys;
  const PairResult paired =
      adbwire::pair(call.required_string("address"), call.required_string("code"), options);
  return Reply::text("Successfully paired to " + protocol::printable(paired.address) +
                     " [guid=" + paired.guid + "]. Pass device: " + in_quotes(paired.guid) +
                     " to connect to it by name (mDNS), or the phone's 'IP address & Port'.");
}

Reply capabilities(Call& call) {
  const Capabilities& caps = call.page().capabilities();
  std::string text = "Android API " + std::to_string(caps.sdk) + ", screen " +
                     std::to_string(caps.screen_size.x) + "x" + std::to_string(caps.screen_size.y) +
                     (caps.input_method.empty() ? "" : ", input method " + caps.input_method) +
                     ". Supported:";
  for (const std::string_view name : caps.names()) text += " " + std::string(name);
  return Reply::text(text + ".");
}

Reply notifications(Call& call) {
  call.page().open_notifications();
  return action_done(call, "Opened the notification shade; take a snapshot to read it.");
}

Reply rotate(Call& call) {
  const std::string name = call.required_string("orientation");
  const Orientation orientation = name == "landscape"           ? Orientation::landscape
                                  : name == "reverse_portrait"  ? Orientation::reverse_portrait
                                  : name == "reverse_landscape" ? Orientation::reverse_landscape
                                                                : Orientation::portrait;
  call.page().rotate(orientation);
  return action_done(call, "Rotated to " + name + " (auto-rotate off).");
}

Reply clipboard_get(Call& call) {
  return Reply::text("The clipboard holds " + in_quotes(call.page().clipboard_get()) + ".");
}

Reply clipboard_set(Call& call) {
  const std::string text = call.required_string("text");
  call.page().clipboard_set(text);
  return Reply::text("The clipboard now holds " + in_quotes(text) + ".");
}

Reply date(Call& call) {
  const auto now = call.page().device_time();
  const auto seconds =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  return Reply::text("The device's clock: " + time_text(now, "%Y-%m-%d %H:%M:%S %z") +
                     " (this computer's time zone; " + std::to_string(seconds) +
                     " seconds since 1970).");
}

Reply setting_get(Call& call) {
  const std::string ns = call.string("namespace").value_or("system");
  const std::string key = call.required_string("key");
  const std::string value = call.page().setting(namespace_of(ns), key);
  return Reply::text(ns + " " + key + " = " + (value.empty() ? "(unset)" : in_quotes(value)));
}

Reply setting_put(Call& call) {
  const std::string ns = call.string("namespace").value_or("system");
  const std::string key = call.required_string("key");
  const std::string value = call.required_string("value");
  call.page().put_setting(namespace_of(ns), key, value);
  return action_done(call, "Set " + ns + " " + key + " to " + in_quotes(value) + ".");
}

LogFilter log_filter(const Call& call) {
  std::vector<std::string> specs;
  if (const std::optional<std::string> filter = call.string("filter")) {
    for (std::size_t at = 0; at < filter->size();) {
      const std::size_t space = std::min(filter->find(' ', at), filter->size());
      if (space > at) specs.push_back(filter->substr(at, space - at));
      at = space + 1;
    }
  }
  return LogFilter::parse(specs, false);
}

std::string log_line(const LogRecord& record) {
  return time_text(record.time, "%m-%d %H:%M:%S") + " " + std::to_string(record.pid) + " " +
         log_level_letter(record.level) + " " + protocol::printable(record.tag) + ": " +
         protocol::printable(record.message) + "\n";
}

Reply logs(Call& call) {
  if (call.flag("follow")) return logs_follow(call);
  if (call.has("cursor"))
    throw Error(errc::invalid_argument, "cursor reads a followed log: give follow too");
  LogcatOptions options;
  options.filter = log_filter(call);
  options.dump = true;
  const auto lines = static_cast<std::size_t>(call.integer("lines").value_or(100));
  options.tail = lines;
  options.ring_capacity = lines;
  Logcat logcat = Logcat::start(call.page().device(), options, nullptr);
  const bool ended = logcat.wait(deadline_after(kLogsWait));
  if (const std::error_code error = logcat.error()) {
    if (error == errc::limit_exceeded) throw Error(error, logcat.error_detail());
    // A logcat that failed (missing, refused, printing an error instead of records) is no empty
    // log.
    throw Error(errc::command_failed,
                "logcat failed on the device (" + logcat.error_detail() +
                    ": what it sent is not log records; is logcat there and allowed to this "
                    "shell?); no log lines were read");
  }
  if (!ended) {
    throw Error(errc::timeout, "the device's `logcat -d` was still sending after " +
                                   std::to_string(kLogsWait.count()) +
                                   " s; a dump of the log ends in about a second");
  }
  const std::string contains = call.string("contains").value_or("");
  std::string text;
  std::size_t shown = 0;
  for (const LogRecord& record : logcat.recent()) {
    if (!contains.empty() && record.message.find(contains) == std::string::npos &&
        record.tag.find(contains) == std::string::npos) {
      continue;
    }
    ++shown;
    text += log_line(record);
  }
  if (shown == 0)
    return Reply::text("No log lines match (of the last " + std::to_string(lines) + ").");
  return Reply::text(cap(call, text));
}

Reply secrets(Call& call) {
  const std::vector<std::string> names = secret_names(call.options().secrets, &call.cancel());
  if (names.empty()) {
    return Reply::text(
        "No secrets are configured. The operator adds one as an environment variable " +
        call.options().secrets.env_prefix +
        "NAME of the server, or a line NAME=VALUE in a secrets file of mode 0600 "
        "(--secrets-file, $ADBWIRE_SECRETS_FILE).");
  }
  std::string text = std::to_string(names.size()) + " secret" + (names.size() == 1 ? "" : "s") +
                     " (type one with type's secret; values are never shown):\n";
  for (const std::string& name : names) text += name + '\n';
  return Reply::text(std::move(text));
}

Reply shell(Call& call) {
  const std::string command = call.required_string("command");
  const std::chrono::milliseconds timeout{call.integer("timeout_ms").value_or(30000)};
  const ShellResult ran = call.page().device().shell(command, deadline_after(timeout));
  std::string text =
      "exit code: " +
      (ran.exit_code < 0 ? std::string("unknown (no shell v2)") : std::to_string(ran.exit_code)) +
      "\n";
  text += "stdout:\n" + cap(call, ran.out) +
          (ran.err.empty() ? "" : "\nstderr:\n" + cap(call, ran.err));
  return Reply::text(std::move(text));
}

}  // namespace adbwire::verbs::handlers
