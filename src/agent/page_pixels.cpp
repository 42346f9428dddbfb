// Page's screen pixels: screenshots with marks (marks.hpp), the last screenshot's scale for
// points given in its pixels, and text read from the pixels where the tree is empty (ocr.hpp).
#include <pugixml.hpp>
#include <sstream>

#include "adbwire/marks.hpp"
#include "agent/page_state.hpp"

namespace adbwire {
namespace {

std::string bounds_text(const ui::Bounds& b) {
  return "[" + std::to_string(b.left) + "," + std::to_string(b.top) + "][" +
         std::to_string(b.right) + "," + std::to_string(b.bottom) + "]";
}

// A uiautomator node with every attribute a dump writes, as the parser reads them.
pugi::xml_node add_node(pugi::xml_node parent, int index, std::string_view cls,
                        std::string_view text, std::string_view package, const ui::Bounds& bounds,
                        bool clickable) {
  pugi::xml_node n = parent.append_child("node");
  const auto set = [&](const char* name, std::string_view value) {
    n.append_attribute(name).set_value(std::string(value).c_str());
  };
  set("index", std::to_string(index));
  set("text", text);
  set("resource-id", "");
  set("class", cls);
  set("package", package);
  set("content-desc", "");
  for (const char* flag : {"checkable", "checked", "focusable", "focused", "scrollable",
                           "long-clickable", "password", "selected"})
    set(flag, "false");
  set("clickable", clickable ? "true" : "false");
  set("enabled", "true");
  set("bounds", bounds_text(bounds));
  return n;
}

// The app's first window, the screen's size when there is none.
ui::Bounds app_area(const ui::Snapshot& parsed, const RawImage& screen) {
  for (const ui::Window& w : parsed.windows()) {
    if (w.kind == ui::WindowKind::app && !w.bounds.empty()) return w.bounds;
  }
  return {0, 0, static_cast<std::int32_t>(screen.width), static_cast<std::int32_t>(screen.height)};
}

}  // namespace

bool Page::State::wants_ocr(const ui::Snapshot& parsed) const {
  if (options.ocr == PageOptions::Ocr::on) return true;
  if (options.ocr == PageOptions::Ocr::off) return false;
  for (const ui::Window& w : parsed.windows()) {
    if (w.kind != ui::WindowKind::app) continue;
    const ui::NodeIndex end = parsed.node(w.root).subtree_end;
    for (ui::NodeIndex n = w.root; n < end; ++n) {
      if (parsed.node(n).ref != 0) return false;
    }
  }
  return true;
}

void Page::State::add_ocr(std::string& xml, ui::Snapshot& parsed, Deadline deadline,
                          detail::Failure& failure) {
  const Clock::time_point start = Clock::now();
  std::error_code error;
  const RawImage screen = screencap_raw(device, std::nullopt, deadline, error);
  std::vector<TextBox> texts;
  if (!error) texts = text_reader.read(screen, deadline, error);
  ocr_status.took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  if (error) {
    // Asked for, a failure is the snapshot's; in automatic mode the tree alone is still an
    // answer, and the status says why the pixels were not read.
    detail::Failure reading = detail::reported(error);
    if (options.ocr == PageOptions::Ocr::automatic && error != errc::timeout &&
        error != errc::cancelled) {
      ocr_status.problem = reading.detail;
      return;
    }
    failure = std::move(reading);
    return;
  }
  ocr_status.ran = true;
  ocr_status.texts = static_cast<std::uint32_t>(texts.size());
  if (texts.empty()) return;
  const std::size_t end = xml.rfind("</hierarchy>");
  if (end == std::string::npos) return;  // parse_dump accepted it, so a root is there
  const std::string package = parsed.app().package;
  pugi::xml_document doc;
  pugi::xml_node window =
      add_node(doc, 0, "adbwire.ocr.Screen", "", package, app_area(parsed, screen), false);
  int index = 0;
  for (const TextBox& t : texts)
    add_node(window, index++, ui::kOcrClass, t.text, package, t.bounds, true);
  std::ostringstream out;
  doc.save(out, "", pugi::format_raw | pugi::format_no_declaration);
  xml.insert(end, out.str());
  std::string detail;
  ui::Snapshot with_text = ui::parse_dump(xml, options.snapshot, error, &detail);
  if (error) {
    failure.set(error, std::move(detail));
    return;
  }
  parsed = std::move(with_text);
}

ui::Snapshot Page::State::read_with_ocr(Deadline deadline, detail::Failure& failure) {
  std::string xml = settled.read(deadline, failure);
  if (failure) return {};
  std::error_code error;
  std::string detail;
  ui::Snapshot current = ui::parse_dump(xml, options.snapshot, error, &detail);
  if (error) {
    failure.set(error, std::move(detail));
    return {};
  }
  // The ref came from the pixels, so they are read whatever the mode says now.
  const PageOptions::Ocr mode = options.ocr;
  options.ocr = PageOptions::Ocr::on;
  const OcrStatus kept = ocr_status;
  add_ocr(xml, current, deadline, failure);
  ocr_status = kept;
  options.ocr = mode;
  return current;
}

PageScreenshot Page::State::screenshot(const ScreenshotOptions& shot, bool marks, Deadline deadline,
                                       detail::Failure& failure) {
  const Deadline d = resolve(deadline);
  return call("screenshot", {{"marks", marks ? "true" : "false"}}, false, failure,
              [&](detail::Failure& f) {
                PageScreenshot out;
                std::error_code error;
                if (!marks) {
                  out.image = adbwire::screenshot(device, shot, d, error);
                } else {
                  if (snapshot.nodes().empty()) {
                    take_snapshot(d, f);
                    if (f) return out;
                    out.took_snapshot = true;
                  }
                  const RawImage screen = screencap_raw(device, shot.display_id, d, error);
                  if (!error) {
                    const std::vector<Mark> list = marks_of(snapshot, screen.width, screen.height);
                    const std::uint32_t longest = std::max(screen.width, screen.height);
                    const double scale = shot.max_side == 0 || longest <= shot.max_side
                                             ? 1.0
                                             : double(shot.max_side) / longest;
                    const MarkedImage marked = draw_marks(screen, list, scale, error);
                    if (!error) out.image = encode(marked.image, shot, error);
                    out.marks = static_cast<std::uint32_t>(list.size());
                    out.refs = static_cast<std::uint32_t>(snapshot.refs().size());
                  }
                }
                if (error) {
                  f = detail::reported(error);
                  return out;
                }
                shot_width = out.image.width;
                shot_height = out.image.height;
                shot_screen_width = out.image.screen_width;
                shot_screen_height = out.image.screen_height;
                return out;
              });
}

PageScreenshot Page::screenshot(const ScreenshotOptions& options, bool marks, Deadline deadline) {
  return detail::or_throw(
      [&](detail::Failure& f) { return state_->screenshot(options, marks, deadline, f); });
}

PageScreenshot Page::screenshot(const ScreenshotOptions& options, bool marks, Deadline deadline,
                                std::error_code& error) {
  return detail::or_code(
      error, [&](detail::Failure& f) { return state_->screenshot(options, marks, deadline, f); });
}

}  // namespace adbwire
