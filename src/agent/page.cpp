#include "adbwire/page.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <thread>

#include "adbwire/error.hpp"
#include "adbwire/install.hpp"
#include "adbwire/screencap.hpp"
#include "adbwire/trajectory.hpp"
#include "agent/dump.hpp"
#include "agent/helper_client.hpp"
#include "agent/input_commands.hpp"
#include "agent/web/web_snapshot.hpp"

namespace adbwire {
namespace {

using Args = std::vector<std::pair<std::string, std::string>>;

constexpr std::string_view kAdbKeyboard = "com.android.adbkeyboard/";
// KEYCODE_PASTE: inserts the clipboard into the focused field (API 24+).
constexpr int kKeycodePaste = 279;
constexpr std::chrono::milliseconds kPollPause{250};

std::string unique_dump_path() {
  static std::atomic<std::uint32_t> counter{0};
  std::random_device random;
  return "/data/local/tmp/adbwire-" + std::to_string(::getpid()) + "-" +
         std::to_string(random() % 100000) + "-" + std::to_string(counter++) + ".xml";
}

std::string_view namespace_name(SettingsNamespace ns) {
  switch (ns) {
    case SettingsNamespace::system:
      return "system";
    case SettingsNamespace::secure:
      return "secure";
    case SettingsNamespace::global:
      return "global";
  }
  return "system";
}

std::string trim(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' '))
    text.pop_back();
  std::size_t start = text.find_first_not_of(" \r\n");
  return start == std::string::npos ? std::string() : text.substr(start);
}

bool valid_name(std::string_view name, std::string_view extra) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [&](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' ||
           extra.find(c) != std::string_view::npos;
  });
}

std::string_view direction_name(Direction d) {
  switch (d) {
    case Direction::up:
      return "up";
    case Direction::down:
      return "down";
    case Direction::left:
      return "left";
    case Direction::right:
      return "right";
  }
  return "down";
}

std::string point_text(ScreenPoint p) {
  char text[64];
  std::snprintf(text, sizeof text, p.normalized ? "%.4f,%.4f" : "%.0f,%.0f", p.x, p.y);
  return text;
}

// The last lines of output, for an error message.
std::string quote_output(std::string_view output) {
  std::string text =
      trim(std::string(output.substr(output.size() > 300 ? output.size() - 300 : 0)));
  return text.empty() ? "no output" : "\"" + text + "\"";
}

// The error_code form of a call: the throwing form's work, its Error turned into a code.
template <class F>
void no_throw(std::error_code& error, F&& call) {
  try {
    error.clear();
    call();
  } catch (const Error& e) {
    error = e.code();
  }
}

template <class R, class F>
R no_throw(std::error_code& error, R fallback, F&& call) {
  try {
    error.clear();
    return call();
  } catch (const Error& e) {
    error = e.code();
    return fallback;
  }
}

}  // namespace

std::string_view to_string(Capability c) noexcept {
  switch (c) {
    case Capability::snapshot:
      return "snapshot";
    case Capability::input:
      return "input";
    case Capability::unicode_text:
      return "unicode_text";
    case Capability::clipboard:
      return "clipboard";
    case Capability::drag_and_drop:
      return "drag_and_drop";
    case Capability::screenshot:
      return "screenshot";
    case Capability::install:
      return "install";
    case Capability::settings:
      return "settings";
    case Capability::notifications:
      return "notifications";
    case Capability::dismiss_keyguard:
      return "dismiss_keyguard";
  }
  return "unknown";
}

std::vector<std::string_view> Capabilities::names() const {
  std::vector<std::string_view> out;
  for (std::uint32_t i = 0; i <= static_cast<std::uint32_t>(Capability::dismiss_keyguard); ++i) {
    if (has(static_cast<Capability>(i))) out.push_back(to_string(static_cast<Capability>(i)));
  }
  return out;
}

// An element to act on: where it is now and what it shows.
struct ActionTarget {
  ui::ElementInfo info;
  std::string label;
  std::string text;
  std::string web_node;  // "<socket>|<page id>|<backend node id>" of a web element, else ""
};

std::string web_node_of(const ui::Snapshot& snapshot, ui::NodeIndex node) {
  for (const ui::Attribute& a : snapshot.extra_attributes(node)) {
    if (a.name == agent::web::kWebNodeAttribute) return std::string(a.value);
  }
  return {};
}

struct Page::State {
  State(Device d, PageOptions o) : device(std::move(d)), options(std::move(o)) {
    if (options.dump_path.empty()) options.dump_path = unique_dump_path();
    method = options.dump_method;
  }

  Device device;
  PageOptions options;
  ui::Snapshot snapshot;      // the one refs refer to
  std::string dump;           // its XML
  std::string snapshot_file;  // its file in the trajectory
  ui::Snapshot empty;         // what the error_code form of snapshot() returns on error
  bool changed = false;       // an action ran since `snapshot` was taken
  std::string last_error;
  std::optional<Capabilities> capabilities;
  PageOptions::DumpMethod method;
  agent::HelperClient helper;
  HelperStatus helper_status;
  WebStatus web_status;

  Deadline resolve(Deadline deadline) const {
    return deadline == kDefaultDeadline ? deadline_after(options.timeout) : deadline;
  }

  // Runs one public call: records it in the trajectory and keeps its error message.
  template <class F>
  decltype(auto) perform(std::string_view action, Args args, bool mutates, F&& work) {
    const auto started = std::chrono::system_clock::now();
    const auto clock_start = Clock::now();
    TrajectoryStep step;
    auto finish = [&](const std::error_code& error, std::string message) {
      if (!error && mutates) changed = true;
      if (error) last_error = message;
      if (!options.trajectory) return;
      step.action = action;
      step.args = std::move(args);
      step.error = error;
      step.message = std::move(message);
      step.started = started;
      step.duration =
          std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - clock_start);
      if (step.snapshot.empty()) step.snapshot = snapshot_file;
      if (!error && mutates && options.trajectory->options().screenshots) {
        std::vector<std::uint8_t> png = screenshot_bytes(deadline_after(options.timeout));
        step.screenshot = options.trajectory->save(
            "after.png", {reinterpret_cast<const char*>(png.data()), png.size()});
      }
      options.trajectory->record(step);
    };
    try {
      if constexpr (std::is_void_v<decltype(work())>) {
        work();
        finish({}, {});
      } else {
        decltype(auto) result = work();
        finish({}, {});
        return result;
      }
    } catch (const Error& e) {
      finish(e.code(), e.what());
      throw;
    }
  }

  // A dump through the on-device dumper (its XML or uiautomator's failure text), or nullopt
  // when this snapshot uses `uiautomator dump` (helper off, or automatic mode gave up on it).
  std::optional<std::string> helper_dump(Deadline deadline) {
    if (options.helper == PageOptions::Helper::off || helper_status.fell_back) return std::nullopt;
    try {
      std::string output = helper.dump(device, helper_budget(), deadline);
      if (classify_dump_output(output) == DumpFailure::no_xml) {
        throw Error(errc::command_failed,
                    "the on-device dumper answered without a UI hierarchy: \"" +
                        output.substr(0, 200) + "\"");
      }
      helper_status.in_use = true;
      return output;
    } catch (const Error& e) {
      helper_status.in_use = false;
      helper_status.last_error = e.what();
      // busy: uiautomator would meet the same holder; a lost connection loses both paths.
      if (options.helper == PageOptions::Helper::on || e.code() == errc::busy ||
          e.code() == errc::device_offline || e.code() == errc::closed) {
        throw;
      }
      helper_status.fell_back = true;
      helper.stop();
      if (options.on_warning) {
        options.on_warning(
            "the on-device dumper (experimental) failed: " + helper_status.last_error +
            "; snapshots use `uiautomator dump` from now on. Turn the helper off with "
            "--helper off (PageOptions::helper = off) and please report this with the "
            "output of `adbwire doctor --helper`");
      }
      return std::nullopt;
    }
  }

  // One dump, with the retries of retryable failures. Returns the device's output (the XML
  // possibly with text around it).
  std::string take_dump(Deadline deadline) {
    std::uint32_t attempts = 0;
    const std::uint32_t allowed = std::max<std::uint32_t>(1, options.dump_attempts);
    for (;;) {
      ++attempts;
      std::optional<std::string> via_helper = helper_dump(deadline);
      const bool trying_tty = method != PageOptions::DumpMethod::file;
      std::string output =
          via_helper ? std::move(*via_helper)
                     : device.exec(agent::dump_command(trying_tty ? PageOptions::DumpMethod::tty
                                                                  : PageOptions::DumpMethod::file,
                                                       options.dump_path),
                                   deadline);
      const DumpFailure failure = classify_dump_output(output);
      if (failure == DumpFailure::none) {
        if (!via_helper && method == PageOptions::DumpMethod::automatic)
          method = PageOptions::DumpMethod::tty;
        return output;
      }
      if (failure == DumpFailure::no_xml && !via_helper &&
          method == PageOptions::DumpMethod::automatic) {
        // /dev/tty gave nothing usable (API 35+): the file method from now on, at no
        // attempt's cost.
        method = PageOptions::DumpMethod::file;
        --attempts;
        continue;
      }
      if (!agent::retryable(failure) || attempts >= allowed ||
          Clock::now() + options.dump_retry_pause >= deadline) {
        throw agent::dump_error(failure, output, attempts);
      }
      std::this_thread::sleep_for(options.dump_retry_pause);
    }
  }

  // A dump with the content of debuggable WebViews added under their nodes (PageOptions::web);
  // report says what the merge did.
  std::string take_dump_with_web(Deadline deadline, agent::web::MergeReport& report) {
    std::string output = take_dump(deadline);
    if (!options.web) return output;
    return agent::web::merge_webviews(
        device, std::move(output), std::min(deadline, deadline_after(options.web_timeout)), report);
  }

  // A left click through CDP on a web element, at its box as the page reports it now.
  void cdp_click(const std::string& web_node, Deadline deadline) {
    const std::size_t first = web_node.find('|');
    const std::size_t second = web_node.find('|', first + 1);
    if (first == std::string::npos || second == std::string::npos) {
      throw Error(errc::invalid_argument, "not a web element: " + web_node);
    }
    const std::string socket = web_node.substr(0, first);
    const std::string page_id = web_node.substr(first + 1, second - first - 1);
    long long backend_id = 0;
    const std::string id_text = web_node.substr(second + 1);
    const auto [end, parsed] =
        std::from_chars(id_text.data(), id_text.data() + id_text.size(), backend_id);
    if (parsed != std::errc() || end != id_text.data() + id_text.size()) {
      throw Error(errc::invalid_argument, "not a web element: " + web_node);
    }
    agent::web::CdpSession session =
        agent::web::CdpSession::connect(device, socket, page_id, deadline);
    // Newer Chrome only: an older WebView that lacks it clicks where the element is.
    try {
      session.call("DOM.scrollIntoViewIfNeeded", {{"backendNodeId", backend_id}}, deadline);
    } catch (const Error& e) {
      if (e.code() != errc::command_failed) throw;
    }
    const agent::web::Json box =
        session.call("DOM.getBoxModel", {{"backendNodeId", backend_id}}, deadline);
    const auto model = box.find("model");
    const agent::web::Json* quad = nullptr;
    if (model != box.end() && model->is_object() && model->contains("content"))
      quad = &(*model)["content"];
    const bool usable =
        quad != nullptr && quad->is_array() && quad->size() >= 8 &&
        std::all_of(quad->begin(), quad->begin() + 8, [](const auto& v) { return v.is_number(); });
    if (!usable)
      throw Error(errc::protocol_error,
                  "DOM.getBoxModel gave no box: " + box.dump().substr(0, 200));
    double x = 0, y = 0;
    for (std::size_t i = 0; i < 8; i += 2) {
      x += (*quad)[i].get<double>() / 4;
      y += (*quad)[i + 1].get<double>() / 4;
    }
    for (const char* type : {"mousePressed", "mouseReleased"}) {
      session.call("Input.dispatchMouseEvent",
                   {{"type", type}, {"x", x}, {"y", y}, {"button", "left"}, {"clickCount", 1}},
                   deadline);
    }
  }

  const ui::Snapshot& take_snapshot(Deadline deadline) {
    agent::web::MergeReport report;
    std::string output = take_dump_with_web(deadline, report);
    web_status = {report.webviews, report.pages, report.web_nodes, std::move(report.problem)};
    ui::Snapshot fresh = ui::parse_dump(output, options.snapshot);
    snapshot = std::move(fresh);
    dump = std::move(output);
    changed = false;
    if (options.trajectory) {
      std::string name = options.trajectory->save("snapshot.txt", snapshot.to_text());
      options.trajectory->save("snapshot.xml", dump);
      snapshot_file = std::move(name);
    }
    return snapshot;
  }

  // Finds ref on the current screen, re-reading it when the options call for it.
  ActionTarget target(std::uint32_t ref, Deadline deadline) {
    const ui::RefInfo* info = snapshot.ref(ref);
    if (info == nullptr) {
      const std::size_t count = snapshot.refs().size();
      throw Error(errc::not_found,
                  count == 0 ? "ref " + std::to_string(ref) +
                                   ": there is no snapshot with refs yet; take a snapshot first"
                             : "ref " + std::to_string(ref) +
                                   " was not issued by the last snapshot (it has refs 1-" +
                                   std::to_string(count) + ")");
    }
    const bool check = options.ref_check == RefCheck::always ||
                       (options.ref_check == RefCheck::when_changed && changed);
    if (!check)
      return {snapshot.info(info->node), info->label, std::string(snapshot.node(info->node).text),
              web_node_of(snapshot, info->node)};
    // Tokens are node-local, so a native ref resolves in a dump without the web part, and the
    // DevTools round trips (up to web_timeout) are paid only for a web ref.
    agent::web::MergeReport ignored;
    const std::string output = web_node_of(snapshot, info->node).empty()
                                   ? take_dump(deadline)
                                   : take_dump_with_web(deadline, ignored);
    ui::Snapshot current = ui::parse_dump(output, options.snapshot);
    std::error_code error;
    const ui::NodeIndex node = ui::resolve(*info, current, error);
    if (error) {
      throw Error(
          errc::stale_ref,
          "ref " + std::to_string(ref) + " (" + describe(*info) +
              ") is not on the screen any more, or not uniquely: the screen changed since the last "
              "snapshot; nothing was sent. Take a new snapshot and use its refs");
    }
    return {current.info(node), info->label, std::string(current.node(node).text),
            web_node_of(current, node)};
  }

  // The ref's label, with the first text inside it when the element shows none itself
  // (a list row is a Group whose children hold its text).
  std::string describe(const ui::RefInfo& info) const {
    std::string label = info.label;
    if (label.find('"') != std::string::npos || info.node >= snapshot.nodes().size()) return label;
    const ui::Node& node = snapshot.node(info.node);
    for (ui::NodeIndex n = info.node + 1; n < node.subtree_end; ++n) {
      if (!snapshot.node(n).text.empty())
        return label + " holding \"" + std::string(snapshot.node(n).text.substr(0, 60)) + "\"";
    }
    return label;
  }

  ui::Point screen_size(Deadline deadline) {
    ui::Point size;
    for (const ui::Node& node : snapshot.nodes()) {
      if (node.depth == 0 && node.has_bounds) {
        size.x = std::max(size.x, node.bounds.right);
        size.y = std::max(size.y, node.bounds.bottom);
      }
    }
    if (size.x > 0 && size.y > 0) return size;
    size = probe(deadline).screen_size;
    return size;
  }

  ui::Point to_pixels(ScreenPoint at, Deadline deadline) {
    if (!std::isfinite(at.x) || !std::isfinite(at.y))
      throw Error(errc::invalid_argument, "a coordinate is not a number");
    const ui::Point size = screen_size(deadline);
    ui::Point p;
    if (at.normalized) {
      if (at.x < 0 || at.x > 1 || at.y < 0 || at.y > 1) {
        throw Error(errc::invalid_argument,
                    "normalized coordinates must lie in 0..1, got " + point_text(at));
      }
      p = {static_cast<std::int32_t>(std::lround(at.x * std::max(0, size.x - 1))),
           static_cast<std::int32_t>(std::lround(at.y * std::max(0, size.y - 1)))};
    } else {
      p = {static_cast<std::int32_t>(std::lround(at.x)),
           static_cast<std::int32_t>(std::lround(at.y))};
    }
    if (p.x < 0 || p.y < 0 || (size.x > 0 && (p.x >= size.x || p.y >= size.y))) {
      throw Error(errc::invalid_argument, "point " + point_text(at) + " is off the " +
                                              std::to_string(size.x) + "x" +
                                              std::to_string(size.y) + " screen");
    }
    return p;
  }

  // Runs an `input`/`am`/… command line; a non-zero exit or an exception trace is
  // command_failed quoting the output.
  // Reads (check_text false) judge only the exit status: their output is data.
  std::string run(const std::string& command, Deadline deadline, bool check_text = true) {
    ShellResult result = device.shell(command, deadline);
    const std::string all = result.out + result.err;
    const bool reported = check_text && (all.find("Exception") != std::string::npos ||
                                         all.find("Error:") != std::string::npos);
    if (result.exit_code > 0 || reported) {
      throw Error(errc::command_failed, "`" + command.substr(0, 120) +
                                            (command.size() > 120 ? "…" : "") +
                                            "` failed on the device: " + quote_output(all));
    }
    return result.out;
  }

  const Capabilities& probe(Deadline deadline) {
    if (capabilities) return *capabilities;
    ShellResult result = device.shell(
        "echo @sdk; getprop ro.build.version.sdk; echo @size; wm size; echo @ime; settings get "
        "secure default_input_method",
        deadline);
    Capabilities caps;
    std::string section;
    std::size_t at = 0;
    while (at < result.out.size()) {
      std::size_t end = result.out.find('\n', at);
      if (end == std::string::npos) end = result.out.size();
      std::string line = trim(result.out.substr(at, end - at));
      at = end + 1;
      if (line.starts_with('@')) {
        section = line;
      } else if (section == "@sdk") {
        caps.sdk = static_cast<std::uint32_t>(std::strtoul(line.c_str(), nullptr, 10));
      } else if (section == "@size") {
        // "Physical size: 1080x2400", then maybe "Override size: …" which wins.
        int w = 0, h = 0;
        const std::size_t colon = line.find(':');
        if (colon != std::string::npos &&
            std::sscanf(line.c_str() + colon + 1, " %dx%d", &w, &h) == 2) {
          caps.screen_size = {w, h};
        }
      } else if (section == "@ime" && line != "null") {
        caps.input_method = line;
      }
    }
    const bool modern = caps.sdk == 0 || caps.sdk >= 26;
    caps.set(Capability::snapshot);
    caps.set(Capability::input);
    caps.set(Capability::screenshot);
    // The clipboard is reached through the on-device dumper (stock Android has no shell
    // command for it); typing non-ASCII text works with it (set, then paste) or ADBKeyBoard.
    // KEYCODE_PASTE exists from API 24.
    const bool clipboard = helper_usable();
    caps.set(Capability::clipboard, clipboard);
    caps.set(Capability::unicode_text, (clipboard && (caps.sdk == 0 || caps.sdk >= 24)) ||
                                           caps.input_method.starts_with(kAdbKeyboard));
    caps.set(Capability::drag_and_drop, caps.sdk >= 31);
    caps.set(Capability::install, caps.sdk == 0 || caps.sdk >= 24);
    caps.set(Capability::settings, caps.sdk == 0 || caps.sdk >= 17);
    caps.set(Capability::notifications, modern);
    caps.set(Capability::dismiss_keyguard, modern);
    capabilities = std::move(caps);
    return *capabilities;
  }

  // The on-device dumper is on for this Page and has not been given up on.
  bool helper_usable() const {
    return options.helper != PageOptions::Helper::off && !helper_status.fell_back;
  }

  agent::HelperBudget helper_budget() const {
    return {options.helper_idle_quiet, options.helper_idle_max, options.helper_timeout};
  }

  void require(Capability c, Deadline deadline, std::string_view what) {
    if (probe(deadline).has(c)) return;
    throw Error(errc::not_supported, std::string(what) +
                                         " is not supported on this device (Android API " +
                                         std::to_string(probe(deadline).sdk) + ")");
  }

  std::vector<std::uint8_t> screenshot_bytes(Deadline deadline) {
    return adbwire::screenshot(device, {}, deadline).bytes;
  }

  void type_text(std::uint32_t ref, std::string_view text, TypeOptions type_options,
                 Deadline deadline) {
    const bool unicode = agent::needs_unicode_path(text);
    // Non-ASCII text goes through ADBKeyBoard when it is the input method, else through the
    // clipboard (set by the on-device dumper) and KEYCODE_PASTE.
    const bool adb_keyboard = unicode && probe(deadline).input_method.starts_with(kAdbKeyboard);
    // Asked now, not from the cached probe: a helper that fell back since must not be started
    // again (it would take UiAutomation from the dumps that replaced it).
    const bool paste = unicode && !adb_keyboard && helper_usable() &&
                       probe(deadline).has(Capability::unicode_text);
    std::string text_command;
    if (unicode) {
      if (!adb_keyboard && !paste) {
        throw Error(
            errc::not_supported,
            "this text has non-ASCII characters, which `input text` cannot type (it would drop or "
            "garble them); turn on the on-device dumper (PageOptions::helper / --helper auto), "
            "which "
            "types it through the clipboard, or install ADBKeyBoard (com.android.adbkeyboard) and "
            "make "
            "it the input method (`ime enable com.android.adbkeyboard/.AdbIME && ime set "
            "com.android.adbkeyboard/.AdbIME`), or type an ASCII transliteration");
      }
      text_command = adb_keyboard ? "am broadcast -a ADB_INPUT_B64 --es msg " + agent::base64(text)
                                  : "input keyevent " + std::to_string(kKeycodePaste);
    } else {
      std::size_t bad_at = 0;
      auto command = agent::ascii_type_command(text, bad_at);
      if (!command) {
        throw Error(errc::invalid_argument,
                    "the text has control character " +
                        std::to_string(static_cast<unsigned char>(text[bad_at])) + " at byte " +
                        std::to_string(bad_at) +
                        "; only newline and tab can be typed (send other keys with press)");
      }
      text_command = std::move(*command);
    }
    const ActionTarget field = target(ref, deadline);
    std::string line = "input tap " + std::to_string(field.info.tap_point.x) + " " +
                       std::to_string(field.info.tap_point.y);
    if (paste) helper.set_clipboard(device, text, helper_budget(), deadline);
    if (type_options.clear) {
      if (adb_keyboard) {
        line += " && am broadcast -a ADB_CLEAR_TEXT";
      } else if (const std::size_t n = agent::code_points(field.text); n > 0) {
        line += " && input keyevent 123 && input keyevent";  // MOVE_END, then DEL per character
        for (std::size_t i = 0; i < n; ++i) line += " 67";
      }
    }
    if (!text_command.empty()) line += " && " + text_command;
    if (type_options.submit) line += " && input keyevent 66";
    run(line, deadline);
  }

  void swipe_px(ui::Point a, ui::Point b, std::chrono::milliseconds duration, Deadline deadline) {
    run("input swipe " + std::to_string(a.x) + " " + std::to_string(a.y) + " " +
            std::to_string(b.x) + " " + std::to_string(b.y) + " " +
            std::to_string(duration.count()),
        deadline);
  }

  void key(std::string_view name, Deadline deadline) {
    auto code = agent::key_code(name);
    if (!code) {
      throw Error(
          errc::invalid_argument,
          "unknown key '" + std::string(name) +
              "'; use back, home, enter, delete, tab, escape, up, down, left, right, "
              "space, power, volup, voldown, recent, menu, paste, a KEYCODE_ name or a number");
    }
    run("input keyevent " + *code, deadline);
  }

  // Snapshots until done(previous dump or nullptr the first time) holds.
  const ui::Snapshot& wait_until(std::chrono::milliseconds timeout, std::string_view what,
                                 const std::function<bool(const std::string* previous)>& done) {
    const Deadline deadline = deadline_after(timeout);
    std::optional<std::string> previous;
    for (;;) {
      take_snapshot(deadline);
      if (done(previous ? &*previous : nullptr)) return snapshot;
      previous = dump;
      if (Clock::now() + kPollPause >= deadline) {
        throw Error(errc::timeout,
                    std::string(what) + " within " + std::to_string(timeout.count()) + " ms");
      }
      std::this_thread::sleep_for(kPollPause);
    }
  }
};

// ---- construction

Page Page::connect(std::string_view target, PageOptions options,
                   const ConnectOptions& connect_options) {
  return Page(Device::connect(target, connect_options), std::move(options));
}

Page Page::connect(std::string_view target, PageOptions options,
                   const ConnectOptions& connect_options, std::error_code& error) {
  Device device = Device::connect(target, connect_options, error);
  return Page(std::move(device), std::move(options));
}

Page::Page(Device device, PageOptions options)
    : state_(std::make_unique<State>(std::move(device), std::move(options))) {}
Page::Page(Page&&) noexcept = default;
Page& Page::operator=(Page&&) noexcept = default;
Page::~Page() = default;

Device& Page::device() noexcept { return state_->device; }
const PageOptions& Page::options() const noexcept { return state_->options; }
const std::string& Page::last_error() const noexcept { return state_->last_error; }
const ui::Snapshot& Page::last_snapshot() const noexcept { return state_->snapshot; }
const std::string& Page::last_dump() const noexcept { return state_->dump; }
const HelperStatus& Page::helper_status() const noexcept { return state_->helper_status; }
const WebStatus& Page::web_status() const noexcept { return state_->web_status; }

// ---- snapshot

const ui::Snapshot& Page::snapshot(Deadline deadline) {
  State& s = *state_;
  const Deadline d = s.resolve(deadline);
  return s.perform("snapshot", {}, false,
                   [&]() -> const ui::Snapshot& { return s.take_snapshot(d); });
}
const ui::Snapshot& Page::snapshot(Deadline deadline, std::error_code& error) {
  return no_throw<const ui::Snapshot&>(error, state_->empty,
                                       [&]() -> const ui::Snapshot& { return snapshot(deadline); });
}

// ---- actions on refs

void Page::tap(std::uint32_t ref, Deadline deadline) {
  State& s = *state_;
  const Deadline d = s.resolve(deadline);
  s.perform("tap", {{"ref", std::to_string(ref)}}, true, [&] {
    const ActionTarget t = s.target(ref, d);
    if (!t.web_node.empty() && s.options.web_input == PageOptions::WebInput::cdp) {
      s.cdp_click(t.web_node, d);
      return;
    }
    s.run("input tap " + std::to_string(t.info.tap_point.x) + " " +
              std::to_string(t.info.tap_point.y),
          d);
  });
}
void Page::tap(std::uint32_t ref, Deadline deadline, std::error_code& error) {
  no_throw(error, [&] { tap(ref, deadline); });
}

void Page::long_press(std::uint32_t ref, Deadline deadline) {
  State& s = *state_;
  const Deadline d = s.resolve(deadline);
  s.perform("long_press", {{"ref", std::to_string(ref)}}, true, [&] {
    const ActionTarget t = s.target(ref, d);
    s.swipe_px(t.info.tap_point, t.info.tap_point, s.options.long_press, d);
  });
}
void Page::long_press(std::uint32_t ref, Deadline deadline, std::error_code& error) {
  no_throw(error, [&] { long_press(ref, deadline); });
}

void Page::type(std::uint32_t ref, std::string_view text, TypeOptions options, Deadline deadline) {
  State& s = *state_;
  const Deadline d = s.resolve(deadline);
  s.perform("type",
            {{"ref", std::to_string(ref)},
             {"text", std::string(text)},
             {"clear", options.clear ? "true" : "false"},
             {"submit", options.submit ? "true" : "false"}},
            true, [&] { s.type_text(ref, text, options, d); });
}
void Page::type(std::uint32_t ref, std::string_view text, TypeOptions options, Deadline deadline,
                std::error_code& error) {
  no_throw(error, [&] { type(ref, text, options, deadline); });
}

void Page::scroll(std::uint32_t ref, Direction direction, Deadline deadline) {
  State& s = *state_;
  const Deadline d = s.resolve(deadline);
  s.perform("scroll",
            {{"ref", std::to_string(ref)}, {"direction", std::string(direction_name(direction))}},
            true, [&] {
              const ActionTarget t = s.target(ref, d);
              const ui::Point from = t.info.bounds.center();
              const std::int32_t dx = t.info.bounds.width() / 3;
              const std::int32_t dy = t.info.bounds.height() / 3;
              ui::Point to = from;
              // The finger moves against the direction of travel: scrolling down drags content up.
              switch (direction) {
                case Direction::down:
                  to.y -= dy;
                  break;
                case Direction::up:
                  to.y += dy;
                  break;
                case Direction::right:
                  to.x -= dx;
                  break;
                case Direction::left:
                  to.x += dx;
                  break;
              }
              s.swipe_px(from, to, s.options.swipe, d);
            });
}
void Page::scroll(std::uint32_t ref, Direction direction, Deadline deadline,
                  std::error_code& error) {
  no_throw(error, [&] { scroll(ref, direction, deadline); });
}

void Page::drag(std::uint32_t from, std::uint32_t to, Deadline deadline) {
  State& s = *state_;
  const Deadline d = s.resolve(deadline);
  s.perform("drag", {{"from", std::to_string(from)}, {"to", std::to_string(to)}}, true, [&] {
    const ActionTarget a = s.target(from, d);
    const ActionTarget b = s.target(to, d);
    const ui::Point p = a.info.tap_point;
    const ui::Point q = b.info.tap_point;
    if (s.probe(d).has(Capability::drag_and_drop)) {
      s.run("input draganddrop " + std::to_string(p.x) + " " + std::to_string(p.y) + " " +
                std::to_string(q.x) + " " + std::to_string(q.y) + " " +
                std::to_string(s.options.drag.count()),
            d);
    } else {
      s.swipe_px(p, q, s.options.drag, d);
    }
  });
}
void Page::drag(std::uint32_t from, std::uint32_t to, Deadline deadline, std::error_code& error) {
  no_throw(error, [&] { drag(from, to, deadline); });
}

// ---- coordinates

void Page::tap_at(ScreenPoint at, Deadline deadline) {
  State& s = *state_;
  const Deadline d = s.resolve(deadline);
  s.perform("tap_at", {{"at", point_text(at)}}, true, [&] {
    const ui::Point p = s.to_pixels(at, d);
    s.run("input tap " + std::to_string(p.x) + " " + std::to_string(p.y), d);
  });
}
void Page::tap_at(ScreenPoint at, Deadline deadline, std::error_code& error) {
  no_throw(error, [&] { tap_at(at, deadline); });
}

void Page::long_press_at(ScreenPoint at, Deadline deadline) {
  State& s = *state_;
  const Deadline d = s.resolve(deadline);
  s.perform("long_press_at", {{"at", point_text(at)}}, true, [&] {
    const ui::Point p = s.to_pixels(at, d);
    s.swipe_px(p, p, s.options.long_press, d);
  });
}
void Page::long_press_at(ScreenPoint at, Deadline deadline, std::error_code& error) {
  no_throw(error, [&] { long_press_at(at, deadline); });
}

void Page::swipe(ScreenPoint from, ScreenPoint to, std::chrono::milliseconds duration,
                 Deadline deadline) {
  State& s = *state_;
  const Deadline d = s.resolve(deadline);
  s.perform("swipe",
            {{"from", point_text(from)},
             {"to", point_text(to)},
             {"ms", std::to_string(duration.count())}},
            true, [&] {
              if (duration.count() < 0)
                throw Error(errc::invalid_argument, "a swipe cannot take negative time");
              s.swipe_px(s.to_pixels(from, d), s.to_pixels(to, d),
                         duration.count() == 0 ? s.options.swipe : duration, d);
            });
}
void Page::swipe(ScreenPoint from, ScreenPoint to, std::chrono::milliseconds duration,
                 Deadline deadline, std::error_code& error) {
  no_throw(error, [&] { swipe(from, to, duration, deadline); });
}

// ---- keys

void Page::press(std::string_view key, Deadline deadline) {
  State& s = *state_;
  const Deadline d = s.resolve(deadline);
  s.perform("press", {{"key", std::string(key)}}, true, [&] { s.key(key, d); });
}
void Page::press(std::string_view key, Deadline deadline, std::error_code& error) {
  no_throw(error, [&] { press(key, deadline); });
}
void Page::back(Deadline deadline) { press("back", deadline); }
void Page::back(Deadline deadline, std::error_code& error) {
  no_throw(error, [&] { back(deadline); });
}
void Page::home(Deadline deadline) { press("home", deadline); }
void Page::home(Deadline deadline, std::error_code& error) {
  no_throw(error, [&] { home(deadline); });
}
void Page::recent(Deadline deadline) { press("recent", deadline); }
void Page::recent(Deadline deadline, std::error_code& error) {
  no_throw(error, [&] { recent(deadline); });
}

// ---- apps

void Page::launch(std::string_view package, std::string_view activity, Deadline deadline) {
  State& s = *state_;
  const Deadline d = s.resolve(deadline);
  s.perform(
      "launch", {{"package", std::string(package)}, {"activity", std::string(activity)}}, true,
      [&] {
        if (!valid_name(package, "") || (!activity.empty() && !valid_name(activity, "$"))) {
          throw Error(errc::invalid_argument,
                      "'" + std::string(package) + (activity.empty() ? "" : "/") +
                          std::string(activity) + "' is not a package/activity name");
        }
        const std::string pkg(package);
        std::string command = activity.empty()
                                  ? "monkey -p " + pkg + " -c android.intent.category.LAUNCHER 1"
                                  : "am start -n " + pkg + "/" + std::string(activity);
        ShellResult result = s.device.shell(command, d);
        const std::string all = result.out + result.err;
        if (all.find("No activities found") != std::string::npos ||
            all.find("does not exist") != std::string::npos ||
            all.find("unable to resolve Intent") != std::string::npos) {
          throw Error(errc::not_found, "cannot launch " + pkg + ": " + quote_output(all) +
                                           " (is it installed? `adbwire` packages lists what is)");
        }
        if (result.exit_code > 0 || all.find("Error") != std::string::npos) {
          throw Error(errc::command_failed, "launching " + pkg + " failed: " + quote_output(all));
        }
      });
}
void Page::launch(std::string_view package, std::string_view activity, Deadline deadline,
                  std::error_code& error) {
  no_throw(error, [&] { launch(package, activity, deadline); });
}

void Page::stop(std::string_view package, Deadline deadline) {
  State& s = *state_;
  const Deadline d = s.resolve(deadline);
  s.perform("stop", {{"package", std::string(package)}}, true, [&] {
    if (!valid_name(package, ""))
      throw Error(errc::invalid_argument, "'" + std::string(package) + "' is not a package name");
    s.run("am force-stop " + std::string(package), d);
  });
}
void Page::stop(std::string_view package, Deadline deadline, std::error_code& error) {
  no_throw(error, [&] { stop(package, deadline); });
}

ForegroundActivity Page::foreground(Deadline deadline) {
  State& s = *state_;
  const Deadline d = s.resolve(deadline);
  return s.perform("foreground", {}, false, [&] {
    const std::string out = s.run("dumpsys activity activities", d, false);
    std::size_t at = 0;
    while (at < out.size()) {
      std::size_t end = out.find('\n', at);
      if (end == std::string::npos) end = out.size();
      std::string_view line(out.data() + at, end - at);
      at = end + 1;
      if (line.find("ResumedActivity") == std::string_view::npos) continue;
      const std::size_t record = line.find("ActivityRecord{");
      if (record == std::string_view::npos) continue;
      // ActivityRecord{HASH uN PACKAGE/ACTIVITY tTASK}
      std::string_view rest = line.substr(record);
      const std::size_t slash = rest.find('/');
      if (slash == std::string_view::npos) continue;
      const std::size_t start = rest.rfind(' ', slash) + 1;
      std::size_t stop = rest.find_first_of(" }", slash);
      if (stop == std::string_view::npos) stop = rest.size();
      ForegroundActivity result{std::string(rest.substr(start, slash - start)),
                                std::string(rest.substr(slash + 1, stop - slash - 1))};
      if (result.activity.starts_with('.')) return result;
      if (result.activity.starts_with(result.package + "."))
        result.activity.erase(0, result.package.size());
      return result;
    }
    throw Error(errc::not_found,
                "the device reports no resumed activity (is the screen off or locked?)");
  });
}
ForegroundActivity Page::foreground(Deadline deadline, std::error_code& error) {
  return no_throw(error, ForegroundActivity{}, [&] { return foreground(deadline); });
}

std::vector<std::string> Page::packages(Deadline deadline) {
  State& s = *state_;
  const Deadline d = s.resolve(deadline);
  return s.perform("packages", {}, false, [&] {
    const std::string out = s.run("pm list packages", d, false);
    std::vector<std::string> names;
    std::size_t at = 0;
    while (at < out.size()) {
      std::size_t end = out.find('\n', at);
      if (end == std::string::npos) end = out.size();
      std::string line = trim(out.substr(at, end - at));
      at = end + 1;
      if (line.starts_with("package:")) names.push_back(line.substr(8));
    }
    std::sort(names.begin(), names.end());
    return names;
  });
}
std::vector<std::string> Page::packages(Deadline deadline, std::error_code& error) {
  return no_throw(error, std::vector<std::string>{}, [&] { return packages(deadline); });
}

void Page::install(const std::filesystem::path& apk, Deadline deadline) {
  State& s = *state_;
  const Deadline d = s.resolve(deadline);
  s.perform("install", {{"apk", apk.string()}}, true,
            [&] { adbwire::install(s.device, {apk}, {}, {}, d); });
}
void Page::install(const std::filesystem::path& apk, Deadline deadline, std::error_code& error) {
  no_throw(error, [&] { install(apk, deadline); });
}

void Page::uninstall(std::string_view package, Deadline deadline) {
  State& s = *state_;
  const Deadline d = s.resolve(deadline);
  s.perform("uninstall", {{"package", std::string(package)}}, true,
            [&] { adbwire::uninstall(s.device, package, false, d); });
}
void Page::uninstall(std::string_view package, Deadline deadline, std::error_code& error) {
  no_throw(error, [&] { uninstall(package, deadline); });
}

// ---- device

std::vector<std::uint8_t> Page::screenshot(Deadline deadline) {
  State& s = *state_;
  const Deadline d = s.resolve(deadline);
  return s.perform("screenshot", {}, false, [&] { return s.screenshot_bytes(d); });
}
std::vector<std::uint8_t> Page::screenshot(Deadline deadline, std::error_code& error) {
  return no_throw(error, std::vector<std::uint8_t>{}, [&] { return screenshot(deadline); });
}

namespace {
[[noreturn]] void clipboard_unsupported() {
  throw Error(
      errc::not_supported,
      "Android has no shell command for the clipboard: adbwire reaches it through its on-device "
      "dumper, which is off for this Page (PageOptions::helper, CLI --helper auto) or failed "
      "earlier (helper_status())");
}
}  // namespace

void Page::clipboard_set(std::string_view text, Deadline deadline) {
  State& s = *state_;
  const Deadline d = s.resolve(deadline);
  s.perform("clipboard_set", {{"text", std::string(text)}}, false, [&] {
    if (!s.helper_usable()) clipboard_unsupported();
    s.helper.set_clipboard(s.device, text, s.helper_budget(), d);
  });
}
void Page::clipboard_set(std::string_view text, Deadline deadline, std::error_code& error) {
  no_throw(error, [&] { clipboard_set(text, deadline); });
}
std::string Page::clipboard_get(Deadline deadline) {
  State& s = *state_;
  const Deadline d = s.resolve(deadline);
  return s.perform("clipboard_get", {}, false, [&]() -> std::string {
    if (!s.helper_usable()) clipboard_unsupported();
    return s.helper.get_clipboard(s.device, s.helper_budget(), d);
  });
}
std::string Page::clipboard_get(Deadline deadline, std::error_code& error) {
  return no_throw(error, std::string{}, [&] { return clipboard_get(deadline); });
}

void Page::rotate(Orientation orientation, Deadline deadline) {
  State& s = *state_;
  const Deadline d = s.resolve(deadline);
  s.perform("rotate", {{"orientation", std::to_string(static_cast<int>(orientation))}}, true, [&] {
    s.require(Capability::settings, d, "settings");
    s.run("settings put system accelerometer_rotation 0 && settings put system user_rotation " +
              std::to_string(static_cast<int>(orientation)),
          d);
  });
}
void Page::rotate(Orientation orientation, Deadline deadline, std::error_code& error) {
  no_throw(error, [&] { rotate(orientation, deadline); });
}

void Page::wake(Deadline deadline) {
  State& s = *state_;
  const Deadline d = s.resolve(deadline);
  s.perform("wake", {}, true, [&] {
    // MENU dismisses a swipe keyguard on devices older than `wm dismiss-keyguard`.
    s.run(s.probe(d).has(Capability::dismiss_keyguard) ? "input keyevent 224 && wm dismiss-keyguard"
                                                       : "input keyevent 224 && input keyevent 82",
          d);
  });
}
void Page::wake(Deadline deadline, std::error_code& error) {
  no_throw(error, [&] { wake(deadline); });
}

void Page::open_notifications(Deadline deadline) {
  State& s = *state_;
  const Deadline d = s.resolve(deadline);
  s.perform("open_notifications", {}, true, [&] {
    s.require(Capability::notifications, d, "opening the notification shade (cmd statusbar)");
    s.run("cmd statusbar expand-notifications", d);
  });
}
void Page::open_notifications(Deadline deadline, std::error_code& error) {
  no_throw(error, [&] { open_notifications(deadline); });
}

std::chrono::system_clock::time_point Page::device_time(Deadline deadline) {
  State& s = *state_;
  const Deadline d = s.resolve(deadline);
  return s.perform("device_time", {}, false, [&] {
    const std::string out = trim(s.run("date +%s", d, false));
    char* end = nullptr;
    const long long seconds = std::strtoll(out.c_str(), &end, 10);
    if (out.empty() || end != out.c_str() + out.size()) {
      throw Error(errc::parse_error,
                  "`date +%s` printed " + quote_output(out) + ", not a number of seconds");
    }
    return std::chrono::system_clock::time_point(std::chrono::seconds(seconds));
  });
}
std::chrono::system_clock::time_point Page::device_time(Deadline deadline, std::error_code& error) {
  return no_throw(error, std::chrono::system_clock::time_point{},
                  [&] { return device_time(deadline); });
}

std::string Page::setting(SettingsNamespace ns, std::string_view key, Deadline deadline) {
  State& s = *state_;
  const Deadline d = s.resolve(deadline);
  return s.perform(
      "setting", {{"namespace", std::string(namespace_name(ns))}, {"key", std::string(key)}}, false,
      [&] {
        s.require(Capability::settings, d, "settings");
        std::string value = trim(
            s.run("settings get " + std::string(namespace_name(ns)) + " " + agent::shell_quote(key),
                  d, false));
        return value == "null" ? std::string() : value;
      });
}
std::string Page::setting(SettingsNamespace ns, std::string_view key, Deadline deadline,
                          std::error_code& error) {
  return no_throw(error, std::string{}, [&] { return setting(ns, key, deadline); });
}

void Page::put_setting(SettingsNamespace ns, std::string_view key, std::string_view value,
                       Deadline deadline) {
  State& s = *state_;
  const Deadline d = s.resolve(deadline);
  s.perform("put_setting",
            {{"namespace", std::string(namespace_name(ns))},
             {"key", std::string(key)},
             {"value", std::string(value)}},
            true, [&] {
              s.require(Capability::settings, d, "settings");
              s.run("settings put " + std::string(namespace_name(ns)) + " " +
                        agent::shell_quote(key) + " " + agent::shell_quote(value),
                    d);
            });
}
void Page::put_setting(SettingsNamespace ns, std::string_view key, std::string_view value,
                       Deadline deadline, std::error_code& error) {
  no_throw(error, [&] { put_setting(ns, key, value, deadline); });
}

// ---- waiting

const ui::Snapshot& Page::wait_for_text(std::string_view text, std::chrono::milliseconds timeout) {
  State& s = *state_;
  return s.perform("wait_for_text",
                   {{"text", std::string(text)}, {"timeout_ms", std::to_string(timeout.count())}},
                   false, [&]() -> const ui::Snapshot& {
                     return s.wait_until(
                         timeout, "\"" + std::string(text) + "\" did not appear on the screen",
                         [&](const std::string*) { return !s.snapshot.find(text).empty(); });
                   });
}
const ui::Snapshot& Page::wait_for_text(std::string_view text, std::chrono::milliseconds timeout,
                                        std::error_code& error) {
  return no_throw<const ui::Snapshot&>(
      error, state_->empty, [&]() -> const ui::Snapshot& { return wait_for_text(text, timeout); });
}

const ui::Snapshot& Page::wait_for_idle(std::chrono::milliseconds timeout) {
  State& s = *state_;
  return s.perform("wait_for_idle", {{"timeout_ms", std::to_string(timeout.count())}}, false,
                   [&]() -> const ui::Snapshot& {
                     return s.wait_until(timeout, "the screen did not stop changing",
                                         [&](const std::string* previous) {
                                           return previous != nullptr && *previous == s.dump;
                                         });
                   });
}
const ui::Snapshot& Page::wait_for_idle(std::chrono::milliseconds timeout, std::error_code& error) {
  return no_throw<const ui::Snapshot&>(
      error, state_->empty, [&]() -> const ui::Snapshot& { return wait_for_idle(timeout); });
}

const Capabilities& Page::capabilities(Deadline deadline) {
  State& s = *state_;
  const Deadline d = s.resolve(deadline);
  return s.perform("capabilities", {}, false, [&]() -> const Capabilities& { return s.probe(d); });
}
const Capabilities& Page::capabilities(Deadline deadline, std::error_code& error) {
  static const Capabilities kNone;
  return no_throw<const Capabilities&>(
      error, kNone, [&]() -> const Capabilities& { return capabilities(deadline); });
}

}  // namespace adbwire
