// Windows of a dump: which top-level node belongs to the foreground app, which is a keyboard,
// a system bar or another package's overlay, and the order the text shows them in.
#include <algorithm>
#include <array>

#include "ui/snapshot_impl.hpp"

namespace adbwire::ui {
namespace {

constexpr std::string_view kSystemUi = "com.android.systemui";

// Parts of an input method's package name (Gboard's com.google.android.inputmethod.latin,
// Samsung's com.samsung.android.honeyboard, com.touchtype.swiftkey, the Sogou, iFlytek and
// QQ pinyin keyboards, AOSP's com.android.inputmethod.latin, many "…keyboard" apps).
constexpr std::array<std::string_view, 5> kKeyboardParts{"inputmethod", "keyboard", "honeyboard",
                                                         "pinyin", "swiftkey"};
// Keyboards whose names say nothing of it: Baidu's (com.baidu.input, com.baidu.input_huawei,
// …) and WeChat's (com.tencent.wetype).
constexpr std::array<std::string_view, 2> kKeyboardPrefixes{"com.baidu.input",
                                                            "com.tencent.wetype"};

char lower(char c) noexcept { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool contains_ignoring_case(std::string_view hay, std::string_view needle) noexcept {
  return std::search(hay.begin(), hay.end(), needle.begin(), needle.end(),
                     [](char a, char b) { return lower(a) == b; }) != hay.end();
}

bool starts_with_part(std::string_view package, std::string_view prefix) noexcept {
  if (!package.starts_with(prefix)) return false;
  if (package.size() == prefix.size()) return true;
  const char next = package[prefix.size()];
  return next == '.' || next == '_';
}

std::string_view package_of(const detail::SnapshotState& impl, NodeIndex root) noexcept {
  for (NodeIndex i = root; i < impl.nodes[root].subtree_end; ++i) {
    if (!impl.nodes[i].package.empty()) return impl.nodes[i].package;
  }
  return {};
}

std::int64_t area(const Bounds& b) noexcept {
  return b.empty() ? 0 : static_cast<std::int64_t>(b.width()) * b.height();
}

// A com.android.systemui window: a thin strip along the top is the status bar, along the
// bottom or a side (landscape) the navigation bar; anything else (shade, lock screen,
// privacy indicators) is "system".
WindowKind system_kind(const Bounds& b, Point screen) noexcept {
  if (screen.x <= 0 || screen.y <= 0 || b.empty()) return WindowKind::system;
  const bool wide = std::int64_t{b.width()} * 4 >= std::int64_t{screen.x} * 3;
  const bool tall = std::int64_t{b.height()} * 4 >= std::int64_t{screen.y} * 3;
  const bool low = std::int64_t{b.height()} * 8 <= screen.y;
  const bool narrow = std::int64_t{b.width()} * 8 <= screen.x;
  if (wide && low && b.top <= 0) return WindowKind::status_bar;
  if (wide && low && b.bottom >= screen.y) return WindowKind::navigation_bar;
  if (tall && narrow && (b.left <= 0 || b.right >= screen.x)) return WindowKind::navigation_bar;
  return WindowKind::system;
}

// Order of the kinds after the app's windows.
int rank(WindowKind kind) noexcept {
  switch (kind) {
    case WindowKind::app:
      return 0;
    case WindowKind::keyboard:
      return 1;
    case WindowKind::overlay:
      return 2;
    case WindowKind::system:
      return 3;
    case WindowKind::status_bar:
      return 4;
    case WindowKind::navigation_bar:
      return 5;
  }
  return 6;
}

// The package of the largest window that is neither a keyboard nor System UI, else of the
// largest window with a package; the first one wins a tie.
std::string_view infer_app(const std::vector<Window>& windows) noexcept {
  std::string_view best;
  std::int64_t best_area = -1;
  for (const bool strict : {true, false}) {
    for (const Window& w : windows) {
      if (w.package.empty()) continue;
      if (strict && (w.package == kSystemUi || is_keyboard_package(w.package))) continue;
      if (area(w.bounds) > best_area) {
        best = w.package;
        best_area = area(w.bounds);
      }
    }
    if (!best.empty()) return best;
  }
  return best;
}

}  // namespace

std::string_view to_string(WindowKind kind) noexcept {
  switch (kind) {
    case WindowKind::app:
      return "app";
    case WindowKind::keyboard:
      return "keyboard";
    case WindowKind::status_bar:
      return "status bar";
    case WindowKind::navigation_bar:
      return "navigation bar";
    case WindowKind::system:
      return "system";
    case WindowKind::overlay:
      return "overlay";
  }
  return "window";
}

bool is_keyboard_package(std::string_view package) noexcept {
  for (std::string_view prefix : kKeyboardPrefixes) {
    if (starts_with_part(package, prefix)) return true;
  }
  while (!package.empty()) {
    const auto dot = package.find('.');
    const std::string_view part = package.substr(0, dot);
    if (part.size() == 3 && lower(part[0]) == 'i' && lower(part[1]) == 'm' && lower(part[2]) == 'e')
      return true;
    for (std::string_view word : kKeyboardParts) {
      if (contains_ignoring_case(part, word)) return true;
    }
    if (dot == std::string_view::npos) break;
    package.remove_prefix(dot + 1);
  }
  return false;
}

void classify_windows(detail::SnapshotState& impl) {
  impl.windows.clear();
  Point screen;
  for (const NodeIndex top : impl.top_level) {
    const Node& n = impl.nodes[top];
    impl.windows.push_back({top, WindowKind::app, package_of(impl, top), n.bounds});
    if (n.has_bounds) {
      screen.x = std::max(screen.x, n.bounds.right);
      screen.y = std::max(screen.y, n.bounds.bottom);
    }
  }

  AppInfo& app = impl.app;
  app = {};
  app.package = impl.options.app_package;
  app.activity = impl.options.app_activity;
  if (app.package.empty()) {
    // "com.example/.Main" names its package before the slash.
    if (const auto slash = app.activity.find('/'); slash != std::string::npos)
      app.package = app.activity.substr(0, slash);
  }
  const bool given_shown = !app.package.empty() &&
                           std::any_of(impl.windows.begin(), impl.windows.end(),
                                       [&](const Window& w) { return w.package == app.package; });
  const std::string_view shown =
      given_shown ? std::string_view(app.package) : infer_app(impl.windows);
  app.shown = std::string(shown);
  if (app.package.empty()) {
    app.package = app.shown;
    app.inferred = !app.package.empty();
  }

  for (Window& w : impl.windows) {
    if (shown.empty() || w.package.empty() || w.package == shown) {
      w.kind = WindowKind::app;
    } else if (is_keyboard_package(w.package)) {
      w.kind = WindowKind::keyboard;
      app.keyboard = true;
    } else if (w.package == kSystemUi) {
      w.kind = system_kind(w.bounds, screen);
    } else {
      w.kind = WindowKind::overlay;
    }
  }
  std::stable_sort(impl.windows.begin(), impl.windows.end(),
                   [](const Window& a, const Window& b) { return rank(a.kind) < rank(b.kind); });
}

}  // namespace adbwire::ui
