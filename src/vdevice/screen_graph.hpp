// What the virtual device shows and how input moves it: a graph of screens (uiautomator
// dumps, optional PNGs) with tap regions and keys leading to other screens, so a multi-step
// agent flow runs offline. The default graph is the bundled single sample screen.
//
// Folder format (src/vdevice/screens/demo is the bundled example): screens.xml
//   <screens start="NAME">
//     <screen name="NAME" dump="FILE.xml" [png="FILE.png"] [activity="PKG/.Activity"]>
//       <tap id="RESOURCE-ID" goto="NAME"/>        a tap inside that node's bounds
//       <tap text="TEXT" goto="NAME"/>             a tap inside the node with that text
//       <tap bounds="[l,t][r,b]" goto="NAME"/>     a tap inside the rectangle
//       <key code="N" goto="NAME"/>                `input keyevent N`
//     </screen>
//   </screens>
// `input keyevent 4` (back) without a <key code="4"> returns to the previous screen.
// `input tap` on an EditText focuses it; `input text` (with %s read as a space) appends to
// the focused field, `input keyevent 62` appends a space and 67 deletes a character, so the
// next dump shows what was typed (as FieldQuirks say). Edits stay with the screen until the
// device stops.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <pugixml.hpp>
#include <string>
#include <vector>

#include "adbwire/testing/vdevice.hpp"
#include "base/mutex.hpp"
#include "vdevice/sample_screen.hpp"

namespace adbwire::vdevice {

class ScreenGraph {
 public:
  // The bundled sample screen alone.
  ScreenGraph();
  // Loads folder/screens.xml and every dump it names. On failure returns nullptr and sets
  // message to what is wrong (file, line, reason).
  static std::unique_ptr<ScreenGraph> load(const std::filesystem::path& folder,
                                           std::string& message);
  ~ScreenGraph();

  // The current screen as `uiautomator dump` writes it (declaration, one line).
  std::string dump();
  // The picture of the current screen drawn from its dump.
  std::shared_ptr<const SampleScreen> picture();
  // The current screen's PNG file, when the graph names one (screencap -p streams it).
  std::optional<std::filesystem::path> png_file() const;
  // "PKG/.Activity" of the current screen ("" when the graph does not say).
  std::string activity() const;
  std::string screen_name() const;

  // The device's clipboard (what the emulated on-device dumper sets and reads); `input
  // keyevent 279` (KEYCODE_PASTE) appends it to the focused field. Thread safe.
  void set_clipboard(std::string text);
  std::string clipboard() const;

  // Applies an `input` command (argv without "input" and the source word). Thread safe.
  void input(const std::vector<std::string>& args);
  // Appends text to the focused field exactly as given (an input method typing it), and empties
  // the focused field. Thread safe.
  void type_raw(std::string_view text);
  void clear_focused();

  // Makes the next `times` dumps fail with fault. Thread safe.
  void set_fault(UiDumpFault fault, std::uint32_t times);
  // The current screen changes by itself to `xml` (a dump), until input moves the graph. On
  // malformed xml returns false and sets message. Thread safe.
  bool show(const std::string& xml, std::string& message);
  // A tap on a text field focuses it only `delay` later, as on a phone busy bringing the keyboard
  // up: until then dumps show it unfocused and `input text` has nowhere to go (it is lost).
  // Thread safe.
  void set_focus_delay(std::chrono::milliseconds delay);
  // The fault the next dump suffers (counting it down), UiDumpFault::none when healthy.
  UiDumpFault take_fault();
  // Right after the next dump, the current screen's first scrollable (in document order) moves
  // its content by dy pixels (VirtualDevice::scroll_after_next_dump); from now on dumps show
  // that list cut to its bounds, without the nodes outside it. Thread safe.
  void scroll_after_next_dump(std::int32_t dy);
  // What each `input tap` landed on (VirtualDevice::touched). Thread safe.
  std::vector<std::string> touched() const;
  // How text fields take typed text from now on. Thread safe.
  void set_field_quirks(const FieldQuirks& quirks);

 private:
  struct Screen;
  ScreenGraph(std::vector<std::unique_ptr<Screen>> screens, std::size_t start);
  void go_to(std::size_t index);  // requires mutex_
  Screen& current();              // requires mutex_
  const Screen& current() const;  // requires mutex_
  // The current screen's dump as served now, with no side effect.
  std::string render() ADBWIRE_REQUIRES(mutex_);
  // A field's text as typed so far (a change set_field_quirks delays counts), and a change of
  // it, formatted and delayed as the quirks say.
  std::string field_text(const pugi::xml_node& field) const ADBWIRE_REQUIRES(mutex_);
  void set_field_text(pugi::xml_node field, std::string text) ADBWIRE_REQUIRES(mutex_);
  void apply_due_text() ADBWIRE_REQUIRES(mutex_);

  mutable detail::Mutex mutex_;
  std::vector<std::unique_ptr<Screen>> screens_;
  std::size_t current_ = 0;
  std::vector<std::size_t> history_;
  UiDumpFault fault_ = UiDumpFault::none;
  std::string clipboard_ ADBWIRE_GUARDED_BY(mutex_);
  std::uint32_t fault_times_ = 0;
  // A focus tap not applied yet (set_focus_delay): the field and when it takes focus.
  void apply_due_focus() ADBWIRE_REQUIRES(mutex_);
  std::chrono::milliseconds focus_delay_ ADBWIRE_GUARDED_BY(mutex_){0};
  std::optional<std::pair<std::string, std::chrono::steady_clock::time_point>> pending_focus_
      ADBWIRE_GUARDED_BY(mutex_);
  std::optional<std::int32_t> pending_scroll_ ADBWIRE_GUARDED_BY(mutex_);
  std::vector<std::string> touched_ ADBWIRE_GUARDED_BY(mutex_);
  FieldQuirks quirks_ ADBWIRE_GUARDED_BY(mutex_);
  std::uint64_t typed_ ADBWIRE_GUARDED_BY(mutex_) = 0;  // characters `input text` got (drop_every)
  // A field's text that dumps show only from `due` on (FieldQuirks::show_delay).
  struct PendingText {
    std::string path;
    std::string text;
    std::chrono::steady_clock::time_point due;
  };
  std::optional<PendingText> pending_text_ ADBWIRE_GUARDED_BY(mutex_);
};

}  // namespace adbwire::vdevice
