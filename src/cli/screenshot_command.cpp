#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/session/session.hpp"

namespace adbwire::cli {

namespace {

struct ScreenshotFlags {
  int jpeg_quality = 0;
  std::uint32_t max_side = 0;
  bool device_png = false;
  bool marks = false;
  std::uint64_t display = 0;
};

}  // namespace

void add_screenshot_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  auto flags = std::make_shared<ScreenshotFlags>();
  auto* cmd = app.add_subcommand(
      "screenshot",
      "save the screen as .adbwire/screenshot-N.png (or .jpg) and print the path; by default raw "
      "screencap is encoded here, sparing the phone its slow PNG compression");
  auto* jpeg =
      cmd->add_flag("--jpeg{80}", flags->jpeg_quality, "JPEG at quality Q (1-100, default 80)")
          ->check(CLI::Range(1, 100));
  cmd->add_option("--max-side", flags->max_side,
                  "scale down so the longer side is at most N pixels");
  cmd->add_flag("--device-png", flags->device_png,
                "use the device's own `screencap -p` PNG (re-encoded only for --jpeg/--max-side)");
  cmd->add_flag("--marks", flags->marks,
                "draw each ref of the session's latest snapshot as a box with its number");
  auto* display =
      cmd->add_option("-d,--display", flags->display,
                      "display id, as `dumpsys SurfaceFlinger --display-id` lists them");
  cmd->callback([flags, jpeg, display, &globals, &run] {
    nlohmann::json args = nlohmann::json::object();
    if (jpeg->count() > 0) {
      args["format"] = "jpeg";
      args["quality"] = flags->jpeg_quality;
    }
    if (flags->max_side != 0) args["max_side"] = flags->max_side;
    if (flags->device_png) args["device_png"] = true;
    if (flags->marks) args["marks"] = true;
    if (display->count() > 0) args["display"] = flags->display;
    run = [args, &globals] { return run_verb(globals, "screenshot", args); };
  });
}

}  // namespace adbwire::cli
