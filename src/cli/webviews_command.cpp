// adbwire webviews: the debuggable WebViews and browser tabs of a device (webview.hpp), one
// line each, reached over CDP through ADB.
#include <cstdio>
#include <memory>
#include <string>

#include "adbwire/protocol/printable.hpp"
#include "adbwire/webview.hpp"
#include "cli/commands.hpp"
#include "cli/connect.hpp"
#include "cli/terminal_text.hpp"

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
        print(
            "no debuggable WebView: a WebView is debuggable in debug builds, after "
            "WebView.setWebContentsDebuggingEnabled(true), and in Chrome\n");
        return 0;
      }
      print("SOCKET  PACKAGE  TYPE  ID  VISIBLE  TITLE  URL\n");
      for (const WebViewPage& page : pages) {
        // Titles and URLs are the web page's words: escaped like everything from a device.
        print(format("@%s  %s  %s  %s  %s  %s  %s\n", protocol::printable(page.socket).c_str(),
                     page.package.empty() ? "?" : protocol::printable(page.package).c_str(),
                     protocol::printable(page.type).c_str(), protocol::printable(page.id).c_str(),
                     page.has_screen_rect ? (page.visible ? "yes" : "no") : "-",
                     page.title.empty() ? "\"\"" : protocol::printable(page.title).c_str(),
                     protocol::printable(page.url).c_str()));
      }
      return 0;
    };
  });
}

}  // namespace adbwire::cli
