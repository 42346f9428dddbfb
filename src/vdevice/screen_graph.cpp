#include "vdevice/screen_graph.hpp"

#include <fstream>
#include <pugixml.hpp>
#include <sstream>
#include <utility>

#include "base/keycodes.hpp"
#include "base/mutex.hpp"
#include "base/number.hpp"
#include "ui/bounds.hpp"
#include "vdevice/scrolled_dump.hpp"

namespace adbwire::vdevice {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kDeclaration =
    "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>";

// A key as hosts send it: a number or a KEYCODE_ name.
std::optional<int> key_code(std::string_view word) {
  if (auto number = detail::parse_number<int>(word)) return number;
  return keycodes::code_of_keycode_name(word);
}

// `input text` reads "%s" as a space (InputShellCommand.sendText); nothing else is special.
std::string decode_input_text(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 1 < text.size() && text[i + 1] == 's') {
      out += ' ';
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// A readable dump (one node per line) as uiautomator writes it: one line, no line breaks
// between tags.
std::string one_line(const std::string& xml) {
  std::string out;
  for (std::size_t i = 0; i < xml.size(); ++i) {
    if (xml[i] == '\n' || xml[i] == '\r') {
      std::size_t next = xml.find_first_not_of(" \t\r\n", i);
      const bool between_tags =
          !out.empty() && out.back() == '>' && next != std::string::npos && xml[next] == '<';
      if (between_tags || next == std::string::npos) {
        i = (next == std::string::npos ? xml.size() : next) - 1;
        continue;
      }
    }
    out += xml[i];
  }
  return out;
}

bool is_edit_text(const pugi::xml_node& node) {
  std::string_view cls = node.attribute("class").value();
  return cls.ends_with("EditText");
}

// The deepest node whose bounds contain (x, y) and that matches keep.
template <class Keep>
pugi::xml_node deepest_at(const pugi::xml_node& parent, int x, int y, const Keep& keep) {
  pugi::xml_node found;
  for (pugi::xml_node child : parent.children("node")) {
    const std::optional<ui::Bounds> rect = ui::parse_bounds(child.attribute("bounds").value());
    if (!rect || !rect->contains({x, y})) continue;
    if (keep(child)) found = child;
    if (pugi::xml_node deeper = deepest_at(child, x, y, keep)) found = deeper;
  }
  return found;
}

// What a phone-number field shows for text: its digits as (555) 123-4567, the rest dropped.
std::string phone_format(std::string_view text) {
  std::string digits;
  for (const char c : text) {
    if (c >= '0' && c <= '9') digits += c;
  }
  if (digits.size() <= 3) return digits;
  std::string out = "(" + digits.substr(0, 3) + ") " + digits.substr(3, 3);
  if (digits.size() > 6) out += "-" + digits.substr(6);
  return out;
}

// The texts and descs in node's subtree but `besides`, in document order, joined by " / ".
std::string labels_of(const pugi::xml_node& node, std::string_view besides) {
  std::string out;
  for (const char* attribute : {"text", "content-desc"}) {
    const std::string_view value = node.attribute(attribute).value();
    if (value.empty() || value == besides) continue;
    out += (out.empty() ? "" : " / ") + std::string(value);
  }
  for (pugi::xml_node child : node.children("node")) {
    const std::string more = labels_of(child, besides);
    if (!more.empty()) out += (out.empty() ? "" : " / ") + more;
  }
  return out;
}

// What a tap at (x, y) lands on in a dump: the deepest node there with a text or desc, as
// "LABEL", and when it lies in a list row (not being the row itself), ` in row "LABELS"` (the
// row's other texts and descs, joined by " / "); "nothing" when no labelled node is there.
std::string touched_at(const pugi::xml_document& doc, int x, int y) {
  const pugi::xml_node hit = deepest_at(doc.child("hierarchy"), x, y, [](const pugi::xml_node& n) {
    return *n.attribute("text").value() != '\0' || *n.attribute("content-desc").value() != '\0';
  });
  if (!hit) return "nothing";
  std::string label = hit.attribute("text").value();
  if (label.empty()) label = hit.attribute("content-desc").value();
  std::string out = "\"" + label + "\"";
  for (pugi::xml_node row = hit; row.parent().type() == pugi::node_element; row = row.parent()) {
    if (!row.parent().attribute("scrollable").as_bool()) continue;
    if (row != hit) out += " in row \"" + labels_of(row, label) + "\"";
    break;
  }
  return out;
}

void drop_last_code_point(std::string& text) {
  while (!text.empty()) {
    const auto byte = static_cast<unsigned char>(text.back());
    text.pop_back();
    if ((byte & 0xc0) != 0x80) break;
  }
}

}  // namespace

struct ScreenGraph::Screen {
  struct Tap {
    enum class By { id, text, bounds } by = By::bounds;
    std::string value;
    ui::Bounds bounds;
    std::size_t target = 0;
  };
  std::string name;
  pugi::xml_document doc;
  std::string text;     // the dump as loaded, one line; served until the first edit
  bool edited = false;  // doc differs from text
  std::optional<fs::path> png;
  std::string activity;
  std::vector<Tap> taps;
  std::vector<std::pair<int, std::size_t>> keys;
  mutable std::shared_ptr<const SampleScreen> picture;  // cache, reset by edits
  // How far the first scrollable's content moved by itself (scroll_after_next_dump); while set,
  // dumps show that list cut to its bounds.
  std::optional<std::int32_t> scrolled;

  // The screen as a dump shows it now: doc, with the scrolled list moved and cut.
  void render(pugi::xml_document& out) const {
    out.reset(doc);
    if (!scrolled) return;
    const pugi::xml_node list = out.find_node([](const pugi::xml_node& n) {
      return std::string_view(n.name()) == "node" && n.attribute("scrollable").as_bool();
    });
    if (list) scroll_content(list, 0, *scrolled);
  }

  // The region of tap in the current state of the dump; nullopt when its node is gone.
  std::optional<ui::Bounds> region(const Tap& tap) const {
    if (tap.by == Tap::By::bounds) return tap.bounds;
    const char* attribute = tap.by == Tap::By::id ? "resource-id" : "text";
    pugi::xml_node node = doc.find_node([&](const pugi::xml_node& n) {
      return std::string_view(n.name()) == "node" && tap.value == n.attribute(attribute).value();
    });
    if (!node) return std::nullopt;
    return ui::parse_bounds(node.attribute("bounds").value());
  }

  pugi::xml_node focused() const {
    return doc.find_node([](const pugi::xml_node& n) {
      return std::string_view(n.name()) == "node" && is_edit_text(n) &&
             n.attribute("focused").as_bool();
    });
  }
};

ScreenGraph::ScreenGraph() {
  auto screen = std::make_unique<Screen>();
  screen->name = "sample";
  screen->text = sample_screen_xml();
  screen->doc.load_buffer(screen->text.data(), screen->text.size());
  screens_.push_back(std::move(screen));
}

ScreenGraph::ScreenGraph(std::vector<std::unique_ptr<Screen>> screens, std::size_t start)
    : screens_(std::move(screens)), current_(start) {}

ScreenGraph::~ScreenGraph() = default;

std::unique_ptr<ScreenGraph> ScreenGraph::load(const fs::path& folder, std::string& message) {
  const fs::path manifest_path = folder / "screens.xml";
  pugi::xml_document manifest;
  if (pugi::xml_parse_result parsed = manifest.load_file(manifest_path.c_str()); !parsed) {
    message = manifest_path.string() + ": " + parsed.description() + " at byte " +
              std::to_string(parsed.offset);
    return nullptr;
  }
  pugi::xml_node root = manifest.child("screens");
  if (!root) {
    message = manifest_path.string() + ": the root element must be <screens>";
    return nullptr;
  }
  std::vector<std::unique_ptr<Screen>> screens;
  for (pugi::xml_node node : root.children("screen")) {
    auto screen = std::make_unique<Screen>();
    screen->name = node.attribute("name").value();
    const fs::path dump = folder / node.attribute("dump").value();
    if (screen->name.empty() || !node.attribute("dump")) {
      message = manifest_path.string() + ": every <screen> needs name= and dump=";
      return nullptr;
    }
    screen->text = one_line(read_text(dump));
    pugi::xml_parse_result parsed =
        screen->doc.load_buffer(screen->text.data(), screen->text.size());
    if (!parsed || !screen->doc.child("hierarchy")) {
      message = dump.string() + ": not a uiautomator dump (" + parsed.description() + ")";
      return nullptr;
    }
    if (node.attribute("png")) screen->png = folder / node.attribute("png").value();
    screen->activity = node.attribute("activity").value();
    screens.push_back(std::move(screen));
  }
  auto index_of = [&](std::string_view name) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < screens.size(); ++i) {
      if (screens[i]->name == name) return i;
    }
    return std::nullopt;
  };
  std::size_t i = 0;
  for (pugi::xml_node node : root.children("screen")) {
    Screen& screen = *screens[i++];
    for (pugi::xml_node edge : node.children()) {
      auto target = index_of(edge.attribute("goto").value());
      if (!target) {
        message = manifest_path.string() + ": screen '" + screen.name +
                  "' goes to unknown screen '" + edge.attribute("goto").value() + "'";
        return nullptr;
      }
      if (std::string_view(edge.name()) == "key") {
        auto code = key_code(edge.attribute("code").value());
        if (!code) {
          message = manifest_path.string() + ": bad key code in screen '" + screen.name + "'";
          return nullptr;
        }
        screen.keys.emplace_back(*code, *target);
        continue;
      }
      Screen::Tap tap;
      tap.target = *target;
      if (edge.attribute("id")) {
        tap.by = Screen::Tap::By::id;
        tap.value = edge.attribute("id").value();
      } else if (edge.attribute("text")) {
        tap.by = Screen::Tap::By::text;
        tap.value = edge.attribute("text").value();
      } else if (const auto bounds = ui::parse_bounds(edge.attribute("bounds").value())) {
        tap.bounds = *bounds;
      } else {
        message = manifest_path.string() + ": a <tap> in screen '" + screen.name +
                  "' needs id=, text= or bounds=";
        return nullptr;
      }
      screen.taps.push_back(std::move(tap));
    }
  }
  auto start = index_of(root.attribute("start").value());
  if (screens.empty() || !start) {
    message = manifest_path.string() + ": no screens, or start= names none of them";
    return nullptr;
  }
  return std::unique_ptr<ScreenGraph>(new ScreenGraph(std::move(screens), *start));
}

ScreenGraph::Screen& ScreenGraph::current() { return *screens_[current_]; }
const ScreenGraph::Screen& ScreenGraph::current() const { return *screens_[current_]; }

std::string ScreenGraph::render() {
  apply_due_focus();
  apply_due_text();
  const Screen& screen = current();
  if (!screen.edited && !screen.scrolled) return screen.text;
  pugi::xml_document shown;
  screen.render(shown);
  std::ostringstream out;
  out << kDeclaration;
  shown.save(out, "", pugi::format_raw | pugi::format_no_declaration);
  return std::move(out).str();
}

std::string ScreenGraph::dump() {
  detail::MutexLock lock(mutex_);
  std::string xml = render();
  if (pending_scroll_) {
    Screen& screen = current();
    screen.scrolled = screen.scrolled.value_or(0) + *pending_scroll_;
    screen.picture.reset();
    pending_scroll_.reset();
  }
  return xml;
}

std::shared_ptr<const SampleScreen> ScreenGraph::picture() {
  detail::MutexLock lock(mutex_);
  const std::string xml = render();
  const Screen& screen = current();
  if (!screen.picture) screen.picture = std::make_shared<SampleScreen>(layout_from_dump(xml));
  return screen.picture;
}

std::optional<fs::path> ScreenGraph::png_file() const {
  detail::MutexLock lock(mutex_);
  return current().png;
}

std::string ScreenGraph::activity() const {
  detail::MutexLock lock(mutex_);
  return current().activity;
}

std::string ScreenGraph::screen_name() const {
  detail::MutexLock lock(mutex_);
  return current().name;
}

void ScreenGraph::go_to(std::size_t index) {
  history_.push_back(current_);
  current_ = index;
}

void ScreenGraph::input(const std::vector<std::string>& args) {
  if (args.empty()) return;
  detail::MutexLock lock(mutex_);
  apply_due_focus();
  apply_due_text();
  Screen& screen = current();
  const std::string& command = args[0];
  if (command == "tap" && args.size() == 3) {
    auto x = detail::parse_number<int>(args[1]);
    auto y = detail::parse_number<int>(args[2]);
    if (!x || !y) return;
    pugi::xml_document shown;
    screen.render(shown);
    touched_.push_back(touched_at(shown, *x, *y));
    for (const Screen::Tap& tap : screen.taps) {
      const std::optional<ui::Bounds> rect = screen.region(tap);
      if (rect && rect->contains({*x, *y})) {
        go_to(tap.target);
        return;
      }
    }
    pugi::xml_node field = deepest_at(screen.doc.child("hierarchy"), *x, *y, is_edit_text);
    if (field) {
      if (pugi::xml_node old = screen.focused()) old.attribute("focused").set_value("false");
      if (focus_delay_.count() > 0) {
        // The field's path in the document names it until the focus lands.
        pending_focus_.emplace(field.path(), std::chrono::steady_clock::now() + focus_delay_);
      } else {
        field.attribute("focused").set_value("true");
      }
      screen.edited = true;
      screen.picture.reset();
    }
  } else if (command == "text" && args.size() >= 2) {
    if (pugi::xml_node field = screen.focused()) {
      std::string typed;
      for (const char c : decode_input_text(args[1])) {
        if (quirks_.drop_every == 0 || ++typed_ % quirks_.drop_every != 0) typed += c;
      }
      set_field_text(field, field_text(field) + typed);
    }
  } else if (command == "keyevent") {
    for (std::size_t i = 1; i < args.size(); ++i) {
      auto code = key_code(args[i]);
      if (!code) continue;
      Screen& now = current();
      bool moved = false;
      for (const auto& [key, target] : now.keys) {
        if (key == *code) {
          go_to(target);
          moved = true;
          break;
        }
      }
      if (moved) continue;
      if (*code == keycodes::kBack && !history_.empty()) {
        current_ = history_.back();
        history_.pop_back();
      } else if (*code == keycodes::kSpace || *code == keycodes::kDel ||
                 *code == keycodes::kPaste) {
        if (pugi::xml_node field = now.focused()) {
          std::string text = field_text(field);
          if (*code == keycodes::kSpace) {
            text += ' ';
          } else if (*code == keycodes::kPaste) {
            text += clipboard_;
          } else {
            drop_last_code_point(text);
          }
          set_field_text(field, std::move(text));
        }
      }
    }
  }
}

bool ScreenGraph::show(const std::string& xml, std::string& message) {
  detail::MutexLock lock(mutex_);
  Screen& screen = current();
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed = doc.load_string(xml.c_str());
  if (!parsed || !doc.child("hierarchy")) {
    message = std::string("not a uiautomator dump: ") + parsed.description();
    return false;
  }
  screen.doc.reset(doc);
  screen.edited = true;
  screen.scrolled.reset();
  screen.picture.reset();
  pending_text_.reset();
  return true;
}

void ScreenGraph::type_raw(std::string_view text) {
  detail::MutexLock lock(mutex_);
  apply_due_focus();
  apply_due_text();
  if (pugi::xml_node field = current().focused())
    set_field_text(field, field_text(field) + std::string(text));
}

void ScreenGraph::clear_focused() {
  detail::MutexLock lock(mutex_);
  apply_due_focus();
  apply_due_text();
  if (pugi::xml_node field = current().focused()) set_field_text(field, "");
}

void ScreenGraph::scroll_after_next_dump(std::int32_t dy) {
  detail::MutexLock lock(mutex_);
  Screen& screen = current();
  if (!screen.scrolled) screen.scrolled = 0;
  screen.picture.reset();
  pending_scroll_ = dy;
}

std::vector<std::string> ScreenGraph::touched() const {
  detail::MutexLock lock(mutex_);
  return touched_;
}

void ScreenGraph::set_field_quirks(const FieldQuirks& quirks) {
  detail::MutexLock lock(mutex_);
  quirks_ = quirks;
}

std::string ScreenGraph::field_text(const pugi::xml_node& field) const {
  if (pending_text_ && pending_text_->path == field.path()) return pending_text_->text;
  return field.attribute("text").value();
}

void ScreenGraph::set_field_text(pugi::xml_node field, std::string text) {
  if (quirks_.phone_format) text = phone_format(text);
  if (quirks_.show_delay.count() > 0) {
    pending_text_ = PendingText{field.path(), std::move(text),
                                std::chrono::steady_clock::now() + quirks_.show_delay};
    return;
  }
  field.attribute("text").set_value(text.c_str());
  current().edited = true;
  current().picture.reset();
}

void ScreenGraph::apply_due_text() {
  if (!pending_text_ || std::chrono::steady_clock::now() < pending_text_->due) return;
  Screen& screen = current();
  if (const pugi::xml_node field = screen.doc.first_element_by_path(pending_text_->path.c_str())) {
    field.attribute("text").set_value(pending_text_->text.c_str());
    screen.edited = true;
    screen.picture.reset();
  }
  pending_text_.reset();
}

void ScreenGraph::set_focus_delay(std::chrono::milliseconds delay) {
  detail::MutexLock lock(mutex_);
  focus_delay_ = delay;
}

void ScreenGraph::apply_due_focus() {
  if (!pending_focus_ || std::chrono::steady_clock::now() < pending_focus_->second) return;
  Screen& screen = current();
  const pugi::xml_node field = screen.doc.first_element_by_path(pending_focus_->first.c_str());
  pending_focus_.reset();
  if (!field) return;
  if (pugi::xml_node old = screen.focused()) old.attribute("focused").set_value("false");
  field.attribute("focused").set_value("true");
  screen.edited = true;
  screen.picture.reset();
}

void ScreenGraph::set_clipboard(std::string text) {
  detail::MutexLock lock(mutex_);
  clipboard_ = std::move(text);
}

std::string ScreenGraph::clipboard() const {
  detail::MutexLock lock(mutex_);
  return clipboard_;
}

void ScreenGraph::set_fault(UiDumpFault fault, std::uint32_t times) {
  detail::MutexLock lock(mutex_);
  fault_ = fault;
  fault_times_ = times;
}

UiDumpFault ScreenGraph::take_fault() {
  detail::MutexLock lock(mutex_);
  if (fault_times_ == 0) return UiDumpFault::none;
  if (--fault_times_ == 0) {
    UiDumpFault fault = fault_;
    fault_ = UiDumpFault::none;
    return fault;
  }
  return fault_;
}

}  // namespace adbwire::vdevice
