// Verbs that read the screen: snapshot, find, wait, screenshot, page_source, webviews.
#include <cmath>
#include <cstdio>
#include <set>

#include "adbwire/apps.hpp"
#include "adbwire/screencap.hpp"
#include "adbwire/webview.hpp"
#include "verbs/handlers.hpp"
#include "verbs/reply_text.hpp"
#include "verbs/selector.hpp"

namespace adbwire::verbs::handlers {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t kMaxFindMatches = 50;
constexpr auto kWaitPause = 300ms;
// wait's plain pause: longer than any animation or timer an agent waits out, short enough that a
// wrong number does not hold the device for hours.
constexpr double kLongestPause = 600;

// The view of the last dump the arguments ask for (refs keep their numbers whatever is shown).
std::string render(Call& call, Page& page) {
  ui::SnapshotOptions view = page.options().snapshot;
  view.interactive_only = call.flag("interactive");
  view.compact = call.flag("compact");
  view.max_depth = static_cast<std::uint32_t>(call.integer("max_depth").value_or(0));
  view.show_ids = call.flag("ids");
  if (call.flag("activity")) {
    // One query more: the resumed activity, named at the top; a device that names none leaves
    // the app to the dump and says the activity is unknown.
    std::error_code error;
    const ForegroundActivity now = page.foreground(kDefaultDeadline, error);
    if (!error) view.app_package = now.package;
    view.app_activity = error || now.activity.empty() ? "activity unknown" : now.activity;
  }
  const bool as_taken = !view.interactive_only && !view.compact && view.max_depth == 0 &&
                        !view.show_ids && view.app_package.empty();
  if (call.flag("json")) return ui::parse_dump(page.last_dump(), view).to_json() + "\n";
  if (as_taken) return page.last_snapshot().to_text();
  return ui::parse_dump(page.last_dump(), view).to_text();
}

// "scale 0.8333 of the 1080x2400 screen (…)", or "scale 1 (screen pixels)".
std::string scale_words(const EncodedImage& image) {
  if (image.screen_width == 0 || image.width == image.screen_width)
    return "scale 1 (screen pixels)";
  char scale[32];
  std::snprintf(scale, sizeof scale, "%.4g", double(image.width) / image.screen_width);
  return std::string("scale ") + scale + " of the " + std::to_string(image.screen_width) + "x" +
         std::to_string(image.screen_height) +
         " screen (give its pixels with space screenshot, or divide by the scale)";
}

}  // namespace

Reply snapshot(Call& call) {
  Page& page = call.page();
  if (call.has("ocr")) {
    // For this snapshot only; the refs it issues are re-read the same way when acted on.
    const PageOptions::Ocr mode = page.options().ocr;
    page.set_ocr(call.flag("ocr") ? PageOptions::Ocr::on : PageOptions::Ocr::off);
    std::error_code error;
    page.snapshot(kDefaultDeadline, error);
    page.set_ocr(mode);
    if (error) throw Error(error, page.last_error());
  } else {
    page.snapshot();
  }
  std::string text = ocr_line(page.ocr_status()) + fit(call, page, render(call, page));
  // Say why a WebView shows no page content, so the agent knows what it is not seeing.
  const WebStatus& web = page.web_status();
  if (web.webviews > web.pages && !web.problem.empty())
    text += "\n(WebView content not shown: " + web.problem + ")";
  return Reply::text(std::move(text));
}

Reply find(Call& call) {
  Page& page = call.page();
  const ui::Snapshot& snapshot = page.snapshot();
  const ui::MatchMode mode = call.flag("exact") ? ui::MatchMode::exact : ui::MatchMode::partial;
  std::vector<ui::NodeIndex> matches;
  bool first = true;
  const auto keep = [&](std::vector<ui::NodeIndex> more) {
    if (first) {
      matches = std::move(more);
      first = false;
      return;
    }
    const std::set<ui::NodeIndex> in(more.begin(), more.end());
    std::erase_if(matches, [&in](ui::NodeIndex n) { return !in.contains(n); });
  };
  const std::pair<const char*, ui::FindField> fields[] = {{"text", ui::FindField::text},
                                                          {"id", ui::FindField::resource_id},
                                                          {"desc", ui::FindField::content_desc}};
  for (const auto& [name, field] : fields) {
    if (const std::optional<std::string> value = call.string(name))
      keep(snapshot.find(field, *value, mode));
  }
  if (const std::optional<std::string> cls = call.string("class")) {
    std::vector<ui::NodeIndex> found;
    for (ui::NodeIndex n = 0; n < snapshot.nodes().size(); ++n) {
      const ui::Node& node = snapshot.node(n);
      if (node.class_name == *cls || node.role == *cls || node.class_name.ends_with("." + *cls))
        found.push_back(n);
    }
    keep(std::move(found));
  }
  if (const std::optional<std::string> query = call.string("xpath")) keep(snapshot.xpath(*query));
  if (first) throw Error(errc::invalid_argument, "give text, id, desc, class or xpath to look for");
  if (matches.empty()) {
    return Reply::text("Nothing on the current screen matches (" +
                       std::to_string(snapshot.nodes().size()) +
                       " elements searched). Try a shorter text, another field, exact: false, "
                       "scroll to reveal more, or take a snapshot to read the screen.");
  }
  std::string text = std::to_string(matches.size()) +
                     (matches.size() == 1 ? " match" : " matches") +
                     " (refs are from the fresh snapshot just taken):\n";
  for (std::size_t i = 0; i < std::min(matches.size(), kMaxFindMatches); ++i)
    text += describe(snapshot, matches[i]) + '\n';
  if (matches.size() > kMaxFindMatches)
    text += "… " + std::to_string(matches.size() - kMaxFindMatches) + " more; narrow the search.\n";
  return Reply::text(std::move(text));
}

Reply wait(Call& call) {
  if (const std::optional<double> seconds = call.number("seconds")) {
    if (has_selector(call))
      throw Error(errc::invalid_argument,
                  "give seconds (a pause) or what to wait for (selector, text, id or desc), not "
                  "both");
    if (!(*seconds >= 0 && *seconds <= kLongestPause))
      throw Error(errc::invalid_argument, "seconds must be between 0 and " +
                                              format_number(kLongestPause) + ", not " +
                                              format_number(*seconds));
    call.cancel().sleep(std::chrono::milliseconds(std::llround(*seconds * 1000)));
    return Reply::text("Waited " + format_number(*seconds) + " s; nothing was read.");
  }
  if (!has_selector(call))
    throw Error(errc::invalid_argument, "give selector, text, id or desc: what to wait for");
  const bool until_gone = call.flag("gone");
  const std::chrono::milliseconds timeout{call.integer("timeout_ms").value_or(10000)};
  const Deadline end = deadline_after(timeout);
  Page& page = call.page();
  const std::string what = selector_label(call);
  for (;;) {
    call.cancel().check();
    // Text outside any element with a ref counts: "Done" may be a label, not a button.
    const bool present = selector_matches(call);
    if (present != until_gone) {
      return Reply::text(what + (until_gone ? " is gone" : " is there") +
                         ". The screen now (its refs are current):\n" +
                         fit(call, page, page.last_snapshot().to_text()));
    }
    if (Clock::now() + kWaitPause >= end) {
      Reply reply = Reply::text(what + (until_gone ? " was still there" : " did not appear") +
                                    " after " + std::to_string(timeout.count()) +
                                    " ms. The screen now (its refs are current):\n" +
                                    fit(call, page, page.last_snapshot().to_text()),
                                true);
      reply.error = make_error_code(errc::timeout);
      return reply;
    }
    call.cancel().sleep(kWaitPause);
  }
}

Reply screenshot(Call& call) {
  ScreenshotOptions options;
  options.format =
      call.string("format").value_or("png") == "jpeg" ? ImageFormat::jpeg : ImageFormat::png;
  options.jpeg_quality = static_cast<int>(call.integer("quality").value_or(80));
  options.max_side =
      static_cast<std::uint32_t>(call.integer("max_side").value_or(call.options().max_image_side));
  options.max_bytes = call.options().max_image_bytes;
  if (const std::optional<std::int64_t> display = call.integer("display"))
    options.display_id = static_cast<std::uint64_t>(*display);
  options.encode_on_host = !call.flag("device_png");
  const PageScreenshot shot = call.page().screenshot(options, call.flag("marks"));
  const EncodedImage& image = shot.image;
  Reply reply;
  reply.blocks.push_back(
      {Block::Kind::image, "screenshot", image.bytes, std::string(image.mime_type())});
  std::string summary =
      "Screenshot " + std::to_string(image.width) + "x" + std::to_string(image.height) + " " +
      (image.format == ImageFormat::png ? "PNG" : "JPEG") + ", " +
      std::to_string((image.bytes.size() + 1023) / 1024) + " KiB, " + scale_words(image) + ".";
  if (call.flag("marks")) {
    summary += " Marks: " + std::to_string(shot.marks) + " of the " + std::to_string(shot.refs) +
               " refs of the " + (shot.took_snapshot ? "snapshot just taken" : "latest snapshot") +
               (shot.marks < shot.refs ? " (the others lie off the screen)" : "") +
               "; each box's number is its ref.";
  }
  if (call.flag("save")) {
    summary +=
        " Saved to " +
        call.host().save(image.format == ImageFormat::png ? "screenshot.png" : "screenshot.jpg",
                         {reinterpret_cast<const char*>(image.bytes.data()), image.bytes.size()}) +
        ".";
  }
  reply.blocks.push_back({Block::Kind::text, std::move(summary), {}, {}});
  return reply;
}

Reply page_source(Call& call) {
  Page& page = call.page();
  page.snapshot();
  const std::string& xml = page.last_dump();
  const std::string path = call.host().save("page-source.xml", xml);
  return Reply::text("The screen's raw uiautomator XML (" + std::to_string(xml.size()) +
                     " bytes, with debuggable WebViews' elements merged in) is saved to " + path +
                     ". Refs of the snapshot taken with it are current.");
}

Reply webviews(Call& call) {
  const std::vector<WebViewPage> pages = list_webviews(call.page().device());
  if (pages.empty()) {
    return Reply::text(
        "No debuggable WebView or browser tab: WebView content is readable only in debug builds, "
        "in apps that call WebView.setWebContentsDebuggingEnabled(true), and in Chrome.");
  }
  std::string text;
  for (const WebViewPage& p : pages) {
    text += "- " + p.type + " " + in_quotes(p.title) + " " + p.url + " (app " +
            (p.package.empty() ? "?" : p.package) + ", socket @" + p.socket +
            (p.has_screen_rect ? (p.visible ? ", visible" : ", not visible") : "") + ")\n";
  }
  text += "Visible pages appear inside snapshot under their WebView, with refs.";
  return Reply::text(std::move(text));
}

}  // namespace adbwire::verbs::handlers
