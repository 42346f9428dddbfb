#include "cli/helper_option.hpp"

#include <chrono>
#include <cstdio>
#include <map>
#include <string>

#include "adbwire/error.hpp"
#include "cli/connect.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli {

void add_helper_option(CLI::App& cmd, PageOptions::Helper& mode) {
  const std::map<std::string, PageOptions::Helper> names{{"auto", PageOptions::Helper::automatic},
                                                         {"on", PageOptions::Helper::on},
                                                         {"off", PageOptions::Helper::off}};
  cmd.add_option(
         "--helper", mode,
         "snapshots through adbwire's on-device dumper (experimental, unverified on "
         "hardware): auto (falls back to uiautomator dump, with a warning), on (its failure "
         "is the error) or off (default)")
      ->transform(CLI::CheckedTransformer(names, CLI::ignore_case))
      ->option_text("auto|on|off");
}

void check_helper(const GlobalOptions& globals) {
  print("on-device dumper (experimental, --helper):\n");
  if (globals.serial.empty()) {
    print("  name the device to try it on: adbwire -s TARGET doctor --helper\n");
    return;
  }
  PageOptions options;
  options.helper = PageOptions::Helper::on;
  Page page(Device(nullptr, {}), options);
  try {
    page = Page(connect_device(globals), options);
  } catch (const Error& e) {
    print(
        format("  cannot connect to %s: %s\n", globals.serial.c_str(), e.code().message().c_str()));
    return;
  }
  std::error_code error;
  const auto started = std::chrono::steady_clock::now();
  page.snapshot(kDefaultDeadline, error);
  const auto first = std::chrono::steady_clock::now();
  if (!error) page.snapshot(kDefaultDeadline, error);
  const auto second = std::chrono::steady_clock::now();
  if (error) {
    print(
        format("  NOT working: %s\n  keep --helper off (the default) on this device; please report "
               "this output with the device model and Android version\n",
               page.last_error().c_str()));
    return;
  }
  auto ms = [](auto d) { return std::chrono::duration<double, std::milli>(d).count(); };
  print(format("  snapshots: in use, first %.0f ms (with start-up), next %.1f ms\n",
               ms(first - started), ms(second - first)));
  // Neither check touches the screen: capabilities() loads the Gesture class with an empty
  // gesture; labels only read PackageManager.
  const Capabilities& caps = page.capabilities(kDefaultDeadline, error);
  if (!error && caps.has(Capability::multi_touch)) {
    print("  touch (taps, swipes, pinch): can inject\n");
  } else {
    const std::string& why = page.helper_status().input_error;
    print(format("  touch: NOT working (`input` is used instead): %s\n",
                 why.empty() ? page.last_error().c_str() : why.c_str()));
  }
  const auto labels = page.app_labels(kDefaultDeadline, error);
  if (error) {
    print(format("  app labels: NOT working: %s\n", page.last_error().c_str()));
  } else {
    print(format("  app labels: %zu apps read from PackageManager\n", labels.size()));
  }
  print("  please report this output with the device model and Android version\n");
}

void add_ref_check_option(CLI::App& cmd, std::string& value) {
  cmd.add_option("--ref-check", value,
                 "when an action on a ref re-reads the screen first: always (default: a ref never "
                 "acts on the wrong element), when_changed (only after this session acted: misses "
                 "a screen that changed by itself), never (fastest; may act on the wrong element)")
      ->check(CLI::IsMember({"always", "when_changed", "never"}))
      ->capture_default_str();
}

void add_stealth_options(CLI::App& cmd, StealthOptions& stealth) {
  cmd.add_flag("--stealth", stealth.on,
               "human-like input: taps at a random point of the element's clear area, pauses "
               "before actions and between keystrokes, swipes of varied time along a curve "
               "(the README's Stealth section gives the distributions)");
  cmd.add_option("--seed", stealth.seed,
                 "with --stealth: the seed of its random draws, so a run repeats (default: a "
                 "new one each time)")
      ->check(CLI::PositiveNumber);
}

void add_memory_options(CLI::App& cmd, std::filesystem::path& path, bool& observe) {
  cmd.add_option("--memory-db", path,
                 "the SQLite database remember, recall and forget keep notes in, 0600 "
                 "(default: $ADBWIRE_MEMORY_DB, else ~/.local/share/adbwire/memory.db)");
  cmd.add_flag("--observe", observe,
               "record in that database each screen seen and each action done on it with what "
               "followed, for the observations verb (off: nothing of a screen is written)");
}

}  // namespace adbwire::cli
