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
// next dump shows what was typed. Edits stay with the screen until the device stops.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
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
  std::string dump() const;
  // The picture of the current screen drawn from its dump.
  std::shared_ptr<const SampleScreen> picture() const;
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

  // Makes the next `times` dumps fail with fault. Thread safe.
  void set_fault(UiDumpFault fault, std::uint32_t times);
  // The fault the next dump suffers (counting it down), UiDumpFault::none when healthy.
  UiDumpFault take_fault();

 private:
  struct Screen;
  ScreenGraph(std::vector<std::unique_ptr<Screen>> screens, std::size_t start);
  void go_to(std::size_t index);  // requires mutex_
  Screen& current();              // requires mutex_
  const Screen& current() const;  // requires mutex_

  mutable detail::Mutex mutex_;
  std::vector<std::unique_ptr<Screen>> screens_;
  std::size_t current_ = 0;
  std::vector<std::size_t> history_;
  UiDumpFault fault_ = UiDumpFault::none;
  std::string clipboard_ ADBWIRE_GUARDED_BY(mutex_);
  std::uint32_t fault_times_ = 0;
};

}  // namespace adbwire::vdevice
