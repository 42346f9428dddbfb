// adbwire.ConnectOptions and adbwire.PageOptions: the C++ option structs with durations in
// seconds and enumerations as strings, and the conversions every call shares.
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "adbwire/error.hpp"
#include "binding.hpp"

namespace adbwire::python {
namespace {

using std::chrono::milliseconds;

constexpr Names<RefCheck> kRefChecks[] = {{"when_changed", RefCheck::when_changed},
                                          {"always", RefCheck::always},
                                          {"never", RefCheck::never}};
constexpr Names<PageOptions::DumpMethod> kDumpMethods[] = {
    {"automatic", PageOptions::DumpMethod::automatic},
    {"file", PageOptions::DumpMethod::file},
    {"tty", PageOptions::DumpMethod::tty}};
constexpr Names<PageOptions::Helper> kHelpers[] = {{"auto", PageOptions::Helper::automatic},
                                                   {"on", PageOptions::Helper::on},
                                                   {"off", PageOptions::Helper::off}};
constexpr Names<PageOptions::Ocr> kOcrModes[] = {{"auto", PageOptions::Ocr::automatic},
                                                 {"on", PageOptions::Ocr::on},
                                                 {"off", PageOptions::Ocr::off}};
constexpr Names<PageOptions::WebInput> kWebInputs[] = {{"screen", PageOptions::WebInput::screen},
                                                       {"cdp", PageOptions::WebInput::cdp}};

// A duration option as a seconds property.
template <typename Class>
void seconds_property(py::class_<Class>& cls, const char* name, milliseconds Class::*member,
                      const char* doc) {
  cls.def_property(
      name, [member](const Class& self) { return seconds_from(self.*member); },
      [member, name](Class& self, double seconds) {
        self.*member = milliseconds_from(seconds, name);
      },
      doc);
}

// A duration of PageOptions::typing as a seconds property named typing_<field>.
void typing_seconds_property(py::class_<PageOptions>& cls, const char* name,
                             milliseconds TypingOptions::*member, const char* doc) {
  cls.def_property(
      name, [member](const PageOptions& self) { return seconds_from(self.typing.*member); },
      [member, name](PageOptions& self, double seconds) {
        self.typing.*member = milliseconds_from(seconds, name);
      },
      doc);
}

// "HOST:PORT", "[IPV6]:PORT", "HOST" or "" (from the environment) into a ServerAddress.
ServerAddress parse_server(const std::string& text) {
  ServerAddress address;
  std::string port;
  if (text.starts_with('[')) {
    const auto close = text.find(']');
    if (close == std::string::npos || (close + 1 < text.size() && text[close + 1] != ':')) {
      throw Error(errc::invalid_argument, "server \"" + text + "\" is not [IPV6]:PORT");
    }
    address.host = text.substr(1, close - 1);
    if (close + 1 < text.size()) port = text.substr(close + 2);
  } else if (std::count(text.begin(), text.end(), ':') == 1) {
    address.host = text.substr(0, text.find(':'));
    port = text.substr(text.find(':') + 1);
  } else {
    address.host = text;  // a host alone, or a bare IPv6 address
  }
  if (!port.empty() || text.ends_with(':')) {
    unsigned long value = 0;
    std::size_t used = 0;
    try {
      value = std::stoul(port, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (port.empty() || used != port.size() || value == 0 || value > 65535) {
      throw Error(errc::invalid_argument,
                  "server \"" + text + "\" is not HOST:PORT with a port from 1 to 65535");
    }
    address.port = static_cast<std::uint16_t>(value);
  }
  return address;
}

// Class(**kwargs): the defaults, then each keyword set through its property (so it is checked
// as an assignment would be; an unknown name is an AttributeError).
template <typename Class>
void keyword_init(py::class_<Class>& cls) {
  cls.def(py::init([](const py::kwargs& kwargs) {
            py::object options = py::type::of<Class>()();
            for (const auto& [name, value] : kwargs) py::setattr(options, name, value);
            return options.cast<Class>();
          }),
          "The defaults, with the given fields set (keyword arguments named as the fields).");
}

void bind_connect_options(py::module_& module) {
  py::class_<ConnectOptions> cls(module, "ConnectOptions",
                                 "How Device.connect behaves: keys, timeouts (in seconds) and the "
                                 "adb server for server: targets. Plain values.");
  cls.def(py::init<>(),
          "The defaults: adb's keys, 5 s to connect, 60 s for a person to accept "
          "the key, 30 s per command.");
  keyword_init(cls);
  seconds_property(cls, "connect_timeout", &ConnectOptions::connect_timeout,
                   "Budget for the TCP connect plus the device's first answer (TimeoutError).");
  seconds_property(cls, "auth_timeout", &ConnectOptions::auth_timeout,
                   "After offering our public key, how long a person has to tap Allow on the "
                   "phone (UnauthorizedError with the key's fingerprint).");
  seconds_property(cls, "command_timeout", &ConnectOptions::command_timeout,
                   "Deadline of every call made with timeout=None.");
  cls.def_readwrite("offer_public_key", &ConnectOptions::offer_public_key,
                    "Offer our public key when the device refuses every signature (the phone "
                    "then asks). False: fail at once with UnauthorizedError.");
  cls.def_readwrite("delayed_ack_window", &ConnectOptions::delayed_ack_window,
                    "Receive window per stream for delayed_ack (AOSP burst mode); 0 = classic "
                    "flow control.");
  cls.def_property(
      "server",
      [](const ConnectOptions& self) {
        return self.server.host.empty() && self.server.port == 0 ? std::string()
                                                                 : to_string(self.server);
      },
      [](ConnectOptions& self, const std::string& text) { self.server = parse_server(text); },
      "The adb server for server: targets that name none, \"HOST:PORT\"; \"\" = "
      "$ADB_SERVER_SOCKET / $ANDROID_ADB_SERVER_PORT, else 127.0.0.1:5037.");
  cls.def_readwrite("record", &ConnectOptions::record,
                    "When set, every byte of the connection is recorded to this pcapng file.");
  cls.def_property(
      "android_dir", [](const ConnectOptions& self) { return self.keys.android_dir; },
      [](ConnectOptions& self, const std::filesystem::path& dir) { self.keys.android_dir = dir; },
      "Folder holding adbkey; empty = ~/.android, as adb.");
  cls.def_property(
      "vendor_keys", [](const ConnectOptions& self) { return self.keys.vendor_keys; },
      [](ConnectOptions& self, const std::vector<std::filesystem::path>& keys) {
        self.keys.vendor_keys = keys;
      },
      "Extra key files or folders; empty = $ADB_VENDOR_KEYS.");
  cls.def_property(
      "generate_keys", [](const ConnectOptions& self) { return self.keys.generate_if_missing; },
      [](ConnectOptions& self, bool on) { self.keys.generate_if_missing = on; },
      "Create adbkey(.pub) when absent, as adb does on first start.");
  cls.def_property(
      "max_output",
      [](const ConnectOptions& self) {
        OutputLimits limits = self.limits;
        std::map<std::string, std::size_t> bytes;
        for (std::string_view names = output_limit_names(); !names.empty();) {
          const std::size_t comma = std::min(names.find(", "), names.size());
          const std::string name(names.substr(0, comma));
          bytes[name] = *output_limit(limits, name);
          names.remove_prefix(std::min(comma + 2, names.size()));
        }
        return bytes;
      },
      [](ConnectOptions& self, const std::map<std::string, std::size_t>& given) {
        for (const auto& [name, bytes] : given) {
          std::size_t* field = output_limit(self.limits, name);
          if (field == nullptr) {
            throw Error(errc::invalid_argument, "max_output has no kind '" + name + "'; kinds: " +
                                                    std::string(output_limit_names()));
          }
          *field = bytes;
        }
      },
      "Bytes of a device's output a call that gathers it whole may hold, by kind (command, "
      "ui_dump, properties, packages, dumpsys, logcat, screenshot); past one the call raises "
      "LimitExceededError. Setting a dict changes the kinds it names.");
}

void bind_page_options(py::module_& module) {
  py::class_<PageOptions> cls(module, "PageOptions",
                              "How a Page reads the screen and acts (durations in seconds). "
                              "Plain values.");
  cls.def(py::init<>(),
          "The defaults: refs re-checked when the screen may have changed, "
          "uiautomator dumps, WebView content on, 30 s per call.");
  keyword_init(cls);
  cls.def_property(
      "ref_check", [](const PageOptions& self) { return name_of(self.ref_check, kRefChecks); },
      [](PageOptions& self, const std::string& text) {
        self.ref_check = parse_name(text, kRefChecks, "ref_check");
      },
      "When an action on a ref re-reads the screen first: \"when_changed\" (after any action "
      "since the snapshot), \"always\", or \"never\" (fastest; may act on the wrong element).");
  cls.def_readwrite("dump_attempts", &PageOptions::dump_attempts,
                    "Attempts of one snapshot when uiautomator reports a busy screen.");
  seconds_property(cls, "dump_retry_pause", &PageOptions::dump_retry_pause,
                   "Pause between those attempts.");
  seconds_property(cls, "long_press", &PageOptions::long_press, "Duration of a long press.");
  seconds_property(cls, "swipe", &PageOptions::swipe, "Duration of a swipe given no duration.");
  seconds_property(cls, "drag", &PageOptions::drag, "Duration of a drag by refs.");
  cls.def_property(
      "stealth", [](const PageOptions& self) { return self.stealth.on; },
      [](PageOptions& self, bool on) { self.stealth.on = on; },
      "Human-like input (DroidRun's StealthDriver): taps at a random point of the element's "
      "clear area, log-normal pauses before actions and between keystrokes, swipes of varied "
      "duration along a slight curve (the README's Stealth section gives the distributions).");
  cls.def_property(
      "seed", [](const PageOptions& self) { return self.stealth.seed; },
      [](PageOptions& self, std::uint64_t seed) { self.stealth.seed = seed; },
      "With stealth: the seed of its random draws, so a run repeats; 0 draws a new one.");
  cls.def_property(
      "dump_method",
      [](const PageOptions& self) { return name_of(self.dump_method, kDumpMethods); },
      [](PageOptions& self, const std::string& text) {
        self.dump_method = parse_name(text, kDumpMethods, "dump_method");
      },
      "How the dump comes back: \"automatic\" (/dev/tty, then a file where that yields no "
      "XML), \"file\" or \"tty\".");
  cls.def_readwrite("dump_path", &PageOptions::dump_path,
                    "Where the file method writes the dump; \"\" = a name of our own under "
                    "/data/local/tmp.");
  cls.def_property(
      "helper", [](const PageOptions& self) { return name_of(self.helper, kHelpers); },
      [](PageOptions& self, const std::string& text) {
        self.helper = parse_name(text, kHelpers, "helper");
      },
      "The on-device dumper (experimental): \"off\" (default), \"auto\" (used while it works) "
      "or \"on\".");
  seconds_property(cls, "helper_idle_quiet", &PageOptions::helper_idle_quiet,
                   "The helper's idle wait: quiet window.");
  seconds_property(cls, "helper_idle_max", &PageOptions::helper_idle_max,
                   "The helper's idle wait: longest wait.");
  seconds_property(cls, "helper_timeout", &PageOptions::helper_timeout,
                   "Longest the helper may take to start or answer before it counts as hung.");
  cls.def_readwrite("web", &PageOptions::web,
                    "Put the content of debuggable WebViews into the snapshot (over CDP).");
  cls.def_property(
      "web_input", [](const PageOptions& self) { return name_of(self.web_input, kWebInputs); },
      [](PageOptions& self, const std::string& text) {
        self.web_input = parse_name(text, kWebInputs, "web_input");
      },
      "How tap() reaches a web element: \"screen\" (input tap) or \"cdp\" (a DevTools click).");
  cls.def_property(
      "ocr", [](const PageOptions& self) { return name_of(self.ocr, kOcrModes); },
      [](PageOptions& self, const std::string& text) { self.ocr = parse_ocr_mode(text); },
      "Text read from the screen's pixels (Tesseract, English): \"auto\" (default; when the "
      "app's windows hold no ref, each word group becomes a `Text [ref=N] \"...\" [ocr]` "
      "line), \"on\" (any screen) or \"off\". Page.ocr_status says what it cost.");
  seconds_property(cls, "web_timeout", &PageOptions::web_timeout,
                   "Longest the WebView part of one snapshot may take.");
  seconds_property(cls, "timeout", &PageOptions::timeout,
                   "Budget of a call made with timeout=None, all its round trips included.");
  typing_seconds_property(cls, "typing_settle", &TypingOptions::settle,
                          "After type()'s tap on the field, how long the text waits for a "
                          "keyboard to come up when the focus is not cheap to see.");
  typing_seconds_property(cls, "typing_focus_wait", &TypingOptions::focus_wait,
                          "After that tap, longest type() polls for the field to show focused "
                          "when the focus is cheap to see (the on-device dumper).");
  cls.def_property(
      "typing_read_back", [](const PageOptions& self) { return self.typing.read_back; },
      [](PageOptions& self, bool on) { self.typing.read_back = on; },
      "type() reads the field back after typing (with a ref check on; never for password "
      "fields, submit or a line break). False: type() returns None without reading.");
  typing_seconds_property(cls, "typing_read_back_settle", &TypingOptions::read_back_settle,
                          "How long type() reads the field back until it shows the text "
                          "(type(settle=…) overrides it per call).");
  cls.def_property(
      "interactive_only", [](const PageOptions& self) { return self.snapshot.interactive_only; },
      [](PageOptions& self, bool on) { self.snapshot.interactive_only = on; },
      "Hide text of nodes that neither carry a ref nor sit inside one that does.");
  cls.def_property(
      "max_depth", [](const PageOptions& self) { return self.snapshot.max_depth; },
      [](PageOptions& self, std::uint32_t depth) { self.snapshot.max_depth = depth; },
      "Levels of nodes printed; 0 = all (deeper refs are named on a \"- …\" line).");
  cls.def_property(
      "compact", [](const PageOptions& self) { return self.snapshot.compact; },
      [](PageOptions& self, bool on) { self.snapshot.compact = on; },
      "For very large screens: unlabeled groups are not printed and long text is cut.");
}

}  // namespace

PageOptions::Ocr parse_ocr_mode(const std::string& text) {
  return parse_name(text, kOcrModes, "ocr");
}

Deadline deadline_from(const std::optional<double>& timeout) {
  if (!timeout) return kDefaultDeadline;
  if (std::isinf(*timeout) && *timeout > 0) return kNoDeadline;
  return deadline_after(milliseconds_from(*timeout, "timeout"));
}

milliseconds milliseconds_from(double seconds, const char* what) {
  if (!(seconds >= 0) || std::isinf(seconds)) {
    throw Error(errc::invalid_argument, std::string(what) +
                                            " must be a finite number of "
                                            "seconds >= 0, not " +
                                            std::to_string(seconds));
  }
  // Beyond a million years the deadline saturates anyway; the cap keeps the cast defined.
  constexpr double kMax = 3.2e13;
  return milliseconds(static_cast<std::int64_t>(std::min(seconds, kMax) * 1000.0 + 0.5));
}

double seconds_from(milliseconds duration) noexcept {
  return static_cast<double>(duration.count()) / 1000.0;
}

void bind_options(py::module_& module) {
  bind_connect_options(module);
  bind_page_options(module);
}

}  // namespace adbwire::python
