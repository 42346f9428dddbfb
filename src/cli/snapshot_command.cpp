#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>

#include "adbwire/error.hpp"
#include "adbwire/page.hpp"
#include "adbwire/ui.hpp"
#include "cli/commands.hpp"
#include "cli/connect.hpp"
#include "cli/helper_option.hpp"
#include "cli/session/session.hpp"
#include "cli/terminal_text.hpp"
#include "verbs/reply_text.hpp"

namespace adbwire::cli {
namespace {

struct SnapshotArgs {
  std::string xml;
  bool json = false;
  bool print = false;
  ui::SnapshotOptions options;
  PageOptions::Helper helper = PageOptions::Helper::off;
  bool no_web = false;
  bool activity = false;
  bool ocr = false;
  bool no_ocr = false;
};

std::string read_dump(const std::string& path) {
  if (path == "-") {
    std::ostringstream in;
    in << std::cin.rdbuf();
    return std::move(in).str();
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    throw Error(errc::not_found, "cannot open the dump '" + path + "'; check the path");
  }
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad()) throw Error(errc::io_error, "reading the dump '" + path + "' failed");
  return text;
}

int run_snapshot(const SnapshotArgs& args, const GlobalOptions& globals) {
  if (args.xml.empty() && globals.serial.empty()) {
    if (args.helper != PageOptions::Helper::off || args.no_web) {
      throw Error(errc::invalid_argument,
                  std::string(args.no_web ? "--no-web" : "--helper") +
                      " belongs to the session: `adbwire open " +
                      (args.no_web ? "--no-web" : "--helper auto") +
                      " [TARGET]` (or use -s TARGET for a one-off snapshot)");
    }
    nlohmann::json arguments = {{"json", args.json},
                                {"interactive", args.options.interactive_only},
                                {"compact", args.options.compact},
                                {"max_depth", args.options.max_depth},
                                {"ids", args.options.show_ids},
                                {"activity", args.activity}};
    if (args.ocr || args.no_ocr) arguments["ocr"] = args.ocr;
    return run_verb(globals, "snapshot", std::move(arguments), args.print);
  }
  std::string xml;
  std::string ocr_cost;  // a reading of the pixels is slow: the first line says what it cost
  if (args.xml.empty()) {
    PageOptions options;
    options.helper = args.helper;
    options.web = !args.no_web;
    if (args.ocr || args.no_ocr)
      options.ocr = args.ocr ? PageOptions::Ocr::on : PageOptions::Ocr::off;
    options.on_warning = [](std::string_view message) {
      print_error("adbwire: " + std::string(message));
    };
    Page page(connect_device(globals), options);
    page.snapshot();
    xml = page.last_dump();
    ocr_cost = verbs::ocr_line(page.ocr_status());
  } else {
    xml = read_dump(args.xml);
  }
  const ui::Snapshot snapshot = ui::parse_dump(std::move(xml), args.options);
  const std::string out = args.json ? snapshot.to_json() + "\n" : ocr_cost + snapshot.to_text();
  return print(out) ? 0 : 1;
}

}  // namespace

void add_snapshot_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  auto args = std::make_shared<SnapshotArgs>();
  auto* cmd = app.add_subcommand(
      "snapshot",
      "the screen as a [ref=N] snapshot: in the session (`adbwire open`) it is saved as "
      ".adbwire/snapshot-N.yml and the path printed; with -s TARGET or --xml FILE it is printed");
  cmd->add_option("--xml", args->xml,
                  "format a saved uiautomator dump (or Appium page source) instead of the "
                  "device's screen; - reads stdin");
  cmd->add_flag("--json", args->json, "print the pruned tree as JSON");
  cmd->add_flag("-p,--print", args->print, "in the session, print the snapshot after its path");
  cmd->add_flag("--interactive", args->options.interactive_only,
                "hide text that is not part of an element with a ref");
  cmd->add_option("--max-depth", args->options.max_depth,
                  "print at most this many levels (0: all)");
  cmd->add_flag("--ids", args->options.show_ids, "show resource ids (#id) for scripts and tests");
  cmd->add_flag("--activity", args->activity,
                "in the session, name the foreground activity at the top (one more query)");
  cmd->add_flag("--compact", args->options.compact,
                "for very large screens: skip unlabeled groups and cut long text");
  auto* ocr = cmd->add_flag("--ocr", args->ocr,
                            "also read the screen's text from its pixels ([ocr] refs), on any "
                            "screen (by default only where nothing is accessible)");
  cmd->add_flag("--no-ocr", args->no_ocr, "never read text from the screen's pixels")
      ->excludes(ocr);
  add_helper_option(*cmd, args->helper);
  cmd->add_flag(
      "--no-web", args->no_web,
      "with -s: show WebViews as the device reports them, without reading debuggable pages "
      "over CDP (in a session: `adbwire open --no-web`)");
  cmd->callback(
      [args, &globals, &run] { run = [args, &globals] { return run_snapshot(*args, globals); }; });
}

}  // namespace adbwire::cli
