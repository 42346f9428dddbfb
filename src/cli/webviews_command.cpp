// adbwire webviews: the debuggable WebViews and browser tabs of a device (webview.hpp), one
// line each, reached over CDP through ADB.
#include <cstdio>
#include <memory>
#include <string>

#include "adbwire/webview.hpp"
#include "cli/commands.hpp"
#include "cli/connect.hpp"

namespace adbwire::cli {

void add_webviews_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  auto* cmd = app.add_subcommand("webviews",
                                 "list debuggable WebViews and browser tabs (DevTools sockets, "
                                 "reached through ADB; no forward)");
  cmd->callback([&globals, &run] {
    run = [&globals] {
      Device device = connect_device(globals);
      const std::vector<WebViewPage> pages = list_webviews(device);
      if (pages.empty()) {
        std::printf(
            "no debuggable WebView: a WebView is debuggable in debug builds, after "
            "WebView.setWebContentsDebuggingEnabled(true), and in Chrome\n");
        return 0;
      }
      std::printf("SOCKET  PACKAGE  TYPE  ID  VISIBLE  TITLE  URL\n");
      for (const WebViewPage& page : pages) {
        std::printf("@%s  %s  %s  %s  %s  %s  %s\n", page.socket.c_str(),
                    page.package.empty() ? "?" : page.package.c_str(), page.type.c_str(),
                    page.id.c_str(), page.has_screen_rect ? (page.visible ? "yes" : "no") : "-",
                    page.title.empty() ? "\"\"" : page.title.c_str(), page.url.c_str());
      }
      return 0;
    };
  });
}

}  // namespace adbwire::cli
