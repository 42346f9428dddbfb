// What the files of the Python binding share: the Python face of adbwire's options, deadlines
// and errors, and the handles that let a Python Device and a Python Page share one connection.
//
// Threads: every blocking call releases the GIL while it waits, so other Python threads run
// meanwhile. A Device is as thread safe as adbwire::Device (any number of calls at once); a
// Page serializes its calls with a mutex (adbwire::Page is for one caller at a time, and a
// Python user must never be able to crash the interpreter by sharing one).
#pragma once

#include <pybind11/pybind11.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "adbwire/connect_options.hpp"
#include "adbwire/deadline.hpp"
#include "adbwire/device.hpp"
#include "adbwire/error.hpp"
#include "adbwire/page.hpp"
#include "base/secret_mask.hpp"
#include "verbs/log_follow.hpp"
#include "verbs/recording.hpp"
#include "verbs/saved_files.hpp"
#include "verbs/verb.hpp"

namespace adbwire::python {

namespace py = pybind11;

// A timeout in seconds as Python callers give it: None = the owner's default (kDefaultDeadline,
// ConnectOptions::command_timeout or PageOptions::timeout), math.inf = no deadline, otherwise
// now + timeout. invalid_argument for a negative or NaN timeout.
Deadline deadline_from(const std::optional<double>& timeout);
// Seconds to milliseconds for options and durations; invalid_argument (naming `what`) for a
// negative, NaN or infinite value.
std::chrono::milliseconds milliseconds_from(double seconds, const char* what);
double seconds_from(std::chrono::milliseconds duration) noexcept;

// One enumeration's names, for values Python callers give as strings ("up", "when_changed").
template <typename Enum>
struct Names {
  const char* name;
  Enum value;
};

// The value named text; invalid_argument naming `what` and the known names otherwise.
template <typename Enum, std::size_t N>
Enum parse_name(const std::string& text, const Names<Enum> (&names)[N], const char* what) {
  std::string known;
  for (const auto& entry : names) {
    if (text == entry.name) return entry.value;
    known += known.empty() ? "" : ", ";
    known += entry.name;
  }
  throw Error(errc::invalid_argument,
              std::string(what) + " \"" + text + "\" is not one of " + known);
}

template <typename Enum, std::size_t N>
std::string name_of(Enum value, const Names<Enum> (&names)[N]) {
  for (const auto& entry : names) {
    if (entry.value == value) return entry.name;
  }
  return {};
}

// PageOptions.ocr's names ("auto", "on", "off"); invalid_argument for any other.
PageOptions::Ocr parse_ocr_mode(const std::string& text);

// Text from a device (or quoting it) as a Python str: UTF-8, with bytes that are not UTF-8
// replaced by U+FFFD. A device is untrusted input: its text must never make a call fail with
// UnicodeDecodeError. Needs the GIL.
py::str text(std::string_view utf8);
py::list texts(const std::vector<std::string>& utf8);

// The detail an Error was made with: what() without the ": <code message>" std::system_error
// appends.
std::string detail_of(const std::system_error& error);

// The one adbwire::Device behind a Python Device. Page(dev) moves the Device into the Page and
// points `device` at page.device(), so `dev` keeps working on the same connection. A call
// copies `device` and counts itself in `in_flight` with the GIL held; Page(dev) also runs with
// the GIL held and refuses to move a Device that a call is using, so no call ever sees the
// move happen.
struct DeviceBox {
  std::shared_ptr<Device> device;
  std::atomic<int> in_flight{0};
  bool owned_by_page = false;
  // ConnectOptions::command_timeout of the connection: what timeout=None means where the
  // binding resolves deadlines itself (ExecStream).
  std::chrono::milliseconds command_timeout{ConnectOptions{}.command_timeout};
  // What Device.connect was given, for reconnecting (Device.reconnect(), reconnect=True).
  std::string target;
  ConnectOptions options;
  bool reconnect = false;  // a call that finds the connection dropped connects again first
  bool closed = false;     // close() was called: a dropped connection stays dropped
};

// With box.reconnect on, and the connection found dropped (by the device, the network or a
// call that met the drop), connects again to the same target with the same options and points
// box.device at the new connection; calls already running keep the old Device (and fail on
// it). Nothing for a Device a Page holds (the Page owns the connection) or one closed on
// purpose. Connect's errors propagate. Needs the GIL (released while connecting).
void reconnect_if_dropped(DeviceBox& box);
// Connects box again now, whatever the old connection's state (Device.reconnect()).
void reconnect_now(DeviceBox& box);

// One call's hold on a DeviceBox: the Device stays alive and the box counts the call until
// the Use is destroyed. Make it with the GIL held; with revive, a dropped connection is first
// replaced (reconnect_if_dropped).
class DeviceUse {
 public:
  explicit DeviceUse(DeviceBox& box, bool revive = true) : box_(box) {
    if (revive) reconnect_if_dropped(box);
    device_ = box.device;
    ++box_.in_flight;
  }
  ~DeviceUse() { --box_.in_flight; }
  DeviceUse(const DeviceUse&) = delete;
  DeviceUse& operator=(const DeviceUse&) = delete;
  Device& operator*() const noexcept { return *device_; }
  Device* operator->() const noexcept { return device_.get(); }

 private:
  DeviceBox& box_;
  std::shared_ptr<Device> device_;
};

// The adbwire::Page behind a Python Page, and the mutex its calls take (GIL released).
struct PageBox {
  PageBox(Device device, PageOptions options, std::chrono::milliseconds timeout)
      : page(std::move(device), std::move(options)), command_timeout(timeout) {}
  PageBox(Page connected, std::chrono::milliseconds timeout)
      : page(std::move(connected)), command_timeout(timeout) {}
  std::mutex mutex;
  Page page;
  std::chrono::milliseconds command_timeout;  // of the connection (DeviceBox::command_timeout)
  // Where Page.call's verbs save files (page_source, screenshot save=True): a private folder
  // of this Page's own, so two Pages never pick the same name.
  verbs::SavedFiles saved{"", saved_folder_name(), "check $XDG_RUNTIME_DIR or /tmp"};
  // After page: destroyed first, so a recording ends before the Device it records goes.
  verbs::Recordings recordings;
  verbs::LogFollows log_follows;   // likewise: a followed log ends before its Device goes
  detail::SecretMask secret_mask;  // the secrets typed through this Page's verbs
  // The memory database of remember, recall, forget and observations ("" = $ADBWIRE_MEMORY_DB,
  // else the user's data folder) and whether the verbs feed its observation cache.
  std::filesystem::path memory_db;
  bool observe = false;

 private:
  static std::string saved_folder_name();
};

// Runs act(box.page) (box.mutex held by the caller) as the agent verb `verb` with `arguments`
// would be seen by the observation cache (verbs/observer.hpp): with box.observe on, the screen
// the call saw and the action it did, with its error, are rows of the memory database, as for
// Page.call. Page's own methods (snapshot, tap, type …) go through it.
void observed_call(PageBox& box, std::string_view verb, const verbs::Json& arguments,
                   const std::function<void(Page&)>& act);

// A Python Device over the Device a Page holds (Page.device, and dev after Page(dev)).
std::shared_ptr<DeviceBox> device_of(const std::shared_ptr<PageBox>& page);

// Registers adbwire.Error, one subclass per adbwire::errc code and adbwire.ErrorCode, and
// translates adbwire::Error (thrown by the library or by the binding) into them.
void bind_errors(py::module_& module);
// adbwire.ConnectOptions and adbwire.PageOptions.
void bind_options(py::module_& module);
// adbwire.Device, ShellResult, TransferStats and ExecStream.
void bind_device(py::module_& module);
// adbwire.Page and the small types its calls return.
void bind_page(py::module_& module);
// pair(), mdns_services(), devices() and their result types.
void bind_wireless(py::module_& module);
// adbwire.Forwarder (forward and reverse).
void bind_forward(py::module_& module);
// Page.call, adbwire.VerbReply and adbwire.verbs(): the agent verb table on a Page.
void bind_verbs(py::module_& module, py::class_<PageBox, std::shared_ptr<PageBox>>& page);

}  // namespace adbwire::python
