// Verbs that act on the screen: tap, long_press, type, scroll, swipe, drag, press, back, home,
// recent. An element is named by ref, by selector (one call where an agent would find, then
// tap), or by a point.
#include "adbwire/protocol/printable.hpp"
#include "base/number.hpp"
#include "verbs/handlers.hpp"
#include "verbs/reply_text.hpp"
#include "verbs/selector.hpp"

namespace adbwire::verbs::handlers {
namespace {

std::string point_words(const ScreenPoint& p) {
  return "(" + format_number(p.x) + ", " + format_number(p.y) + ")" +
         (p.in_screenshot ? " of the screenshot" : "");
}

// An element the call names: by ref, or by selector (then its own ref, or none).
struct Named {
  std::optional<std::uint32_t> ref;
  std::optional<Selected> selected;  // by selector
  bool named() const { return ref || selected; }
};

// The element the call names by ref or selector; nothing when it names none (a point, or
// nothing). invalid_argument when it names more than one way.
Named element(Call& call, bool with_text = true) {
  const int ways =
      (call.ref() ? 1 : 0) + (has_selector(call, with_text) ? 1 : 0) + (call.point() ? 1 : 0);
  if (ways > 1)
    throw Error(errc::invalid_argument,
                "name the element one way: ref, a selector (selector, id, text, desc) or x and y");
  if (call.ref()) return {call.ref(), std::nullopt};
  if (!has_selector(call, with_text)) return {};
  const Selected selected = select_element(call, with_text);
  return {selected.ref != 0 ? std::optional<std::uint32_t>(selected.ref) : std::nullopt, selected};
}

// An element a selector named that has no ref: where the action goes, and the words for it.
struct Spot {
  ScreenPoint at;
  std::string words;
};
Spot spot_of(Page& page, const Selected& selected) {
  const ui::Snapshot& snapshot = page.last_snapshot();
  const ui::Point p = touch_point(snapshot, selected.node);
  const ui::Node& node = snapshot.node(selected.node);
  std::string words = std::string(node.role);
  if (!node.text.empty()) {
    words += " " + in_quotes(protocol::printable(node.text, 80));
  } else if (!node.content_desc.empty()) {
    words += " (" + protocol::printable(node.content_desc, 80) + ")";
  }
  words += " at (" + std::to_string(p.x) + ", " + std::to_string(p.y) +
           "), inside its own bounds (it has no ref)";
  if (!node.enabled) words += "; it is disabled, so the app may ignore it";
  return {ScreenPoint{static_cast<double>(p.x), static_cast<double>(p.y), false}, words};
}

Reply tap_or_press(Call& call, bool long_press) {
  const char* done = long_press ? "Long-pressed" : "Tapped";
  Page& page = call.page();
  const Named named = element(call);
  if (named.ref) {
    const std::string label = label_of(page, *named.ref);
    long_press ? page.long_press(*named.ref) : page.tap(*named.ref);
    return action_done(call,
                       std::string(done) + " ref " + std::to_string(*named.ref) + label + ".");
  }
  if (named.selected) {
    const Spot spot = spot_of(page, *named.selected);
    long_press ? page.long_press_at(spot.at) : page.tap_at(spot.at);
    return action_done(call, std::string(done) + " " + spot.words + ".");
  }
  if (const std::optional<ScreenPoint> at = call.point()) {
    long_press ? page.long_press_at(*at) : page.tap_at(*at);
    return action_done(call, std::string(done) + " at " + point_words(*at) + ".");
  }
  throw Error(errc::invalid_argument,
              "give ref (an element's [ref=N] from the latest snapshot), a selector (selector, "
              "id, text or desc) or x and y");
}

Direction direction_of(const std::string& name) {
  if (name == "up") return Direction::up;
  if (name == "left") return Direction::left;
  if (name == "right") return Direction::right;
  return Direction::down;
}

// "x,y x,y; x,y" → one list of points per finger (fingers split by ';', points by spaces).
std::vector<std::vector<ScreenPoint>> parse_fingers(std::string_view text, const Call& call) {
  std::vector<std::vector<ScreenPoint>> fingers;
  const auto bad = [&text](std::string_view why) {
    return Error(errc::invalid_argument,
                 "fingers \"" + std::string(text.substr(0, 200)) + "\": " + std::string(why) +
                     "; write each finger's points as x,y separated by spaces and the fingers "
                     "separated by ';', e.g. \"300,800 300,400; 700,800 700,400\"");
  };
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(';', start), text.size());
    std::vector<ScreenPoint>& finger = fingers.emplace_back();
    std::size_t at = start;
    while (at < end) {
      if (text[at] == ' ') {
        ++at;
        continue;
      }
      const std::size_t stop = std::min(text.find(' ', at), end);
      const std::string_view point = text.substr(at, stop - at);
      const std::size_t comma = point.find(',');
      const std::optional<double> x = comma == std::string_view::npos
                                          ? std::nullopt
                                          : detail::parse_number<double>(point.substr(0, comma));
      const std::optional<double> y = comma == std::string_view::npos
                                          ? std::nullopt
                                          : detail::parse_number<double>(point.substr(comma + 1));
      if (!x || !y) throw bad("\"" + std::string(point.substr(0, 40)) + "\" is no x,y point");
      finger.push_back(call.at(*x, *y));
      at = stop;
    }
    if (finger.empty()) throw bad("finger " + std::to_string(fingers.size()) + " has no points");
    start = end + 1;
  }
  return fingers;
}

}  // namespace

Reply tap(Call& call) { return tap_or_press(call, false); }

Reply click_area(Call& call) {
  const double x1 = call.required_number("x1");
  const double y1 = call.required_number("y1");
  const double x2 = call.required_number("x2");
  const double y2 = call.required_number("y2");
  if (!(x1 <= x2 && y1 <= y2))
    throw Error(errc::invalid_argument,
                "the area runs from its top-left corner (x1, y1) to its bottom-right (x2, y2): "
                "x1 <= x2 and y1 <= y2");
  const ScreenPoint at = call.at((x1 + x2) / 2, (y1 + y2) / 2);
  call.page().tap_at(at);
  return action_done(call, "Tapped the centre of the area, " + point_words(at) + ".");
}

Reply long_press(Call& call) { return tap_or_press(call, true); }

namespace {

// type with secret: the value is read from the operator's sources, typed, and from then on
// hidden from replies and saved files; the reply names the secret, never its value.
Reply type_secret(Call& call, std::uint32_t ref, const std::string& name, const std::string& label,
                  TypeOptions options) {
  std::string value = secret_value(call.options().secrets, name, &call.cancel());
  call.host().secret_mask().add(name, value);
  options.secret_name = name;
  const TypeResult result = call.page().type(ref, value, options);
  std::fill(value.begin(), value.end(), '\0');
  const std::string check =
      result.check == TypeResult::Check::as_typed ? " The field reads it back as typed."
      : result.check == TypeResult::Check::reads_differently
          ? " The field changed but does not read as the secret (formatted, or characters "
            "lost); what it reads is not shown."
          : " Not read back: " + result.why + ".";
  return action_done(call, "Typed the secret " + name + " into ref " + std::to_string(ref) + label +
                               (options.submit ? " and pressed Enter." : ".") + check);
}

}  // namespace

Reply type(Call& call) {
  if (call.point())
    throw Error(errc::invalid_argument, "type names its field by ref or selector, not x and y");
  const Named named = element(call, false);
  if (!named.named())
    throw Error(errc::invalid_argument,
                "give ref (the TextInput's [ref=N]) or a selector (selector, id or desc)");
  Page& page = call.page();
  if (!named.ref) {
    // Every text field holds a ref: an element without one takes no text.
    throw Error(errc::invalid_argument,
                describe(page.last_snapshot(), named.selected->node).substr(2) +
                    " is not a text field; nothing was sent. " + text_fields(page));
  }
  TypeOptions options{.clear = call.flag("clear"), .submit = call.flag("submit")};
  if (const std::optional<std::int64_t> settle = call.integer("settle_ms"))
    options.settle = std::chrono::milliseconds(*settle);
  const std::uint32_t ref = *named.ref;
  const std::string label = label_of(page, ref);
  if (const std::optional<std::string> secret = call.string("secret")) {
    if (call.has("text")) throw Error(errc::invalid_argument, "give text or secret, not both");
    return type_secret(call, ref, *secret, label, options);
  }
  const std::string text = call.required_string("text");
  const TypeResult result = page.type(ref, text, options);
  return action_done(call, "Typed " + in_quotes(text) + " into ref " + std::to_string(ref) + label +
                               (options.submit ? " and pressed Enter." : ".") +
                               typed_note(text, result));
}

Reply scroll(Call& call) {
  const std::string name = call.required_string("direction");
  const Direction direction = direction_of(name);
  Page& page = call.page();
  const Named named = element(call);
  std::optional<std::uint32_t> ref = named.ref;
  if (named.selected) {
    // The list the matched element lies in (or the list itself).
    const ui::Snapshot& snapshot = page.last_snapshot();
    for (ui::NodeIndex at = named.selected->node; at != ui::kNoNode && !ref;
         at = snapshot.node(at).parent) {
      if (snapshot.node(at).scrollable && snapshot.node(at).ref != 0) ref = snapshot.node(at).ref;
    }
    if (!ref) {
      throw Error(errc::invalid_argument,
                  describe(snapshot, named.selected->node).substr(2) +
                      " lies in no scrollable element; scroll the screen (no selector) instead");
    }
  }
  if (ref) {
    const std::string label = label_of(page, *ref);
    page.scroll(*ref, direction);
    return action_done(call, "Scrolled ref " + std::to_string(*ref) + label + " " + name + ".");
  }
  // The whole screen: the finger moves against the direction, from near the middle.
  ScreenPoint from{0.5, 0.5, true};
  ScreenPoint to{0.5, 0.5, true};
  switch (direction) {
    case Direction::down:
      from.y = 0.6;
      to.y = 0.3;
      break;
    case Direction::up:
      from.y = 0.4;
      to.y = 0.7;
      break;
    case Direction::right:
      from.x = 0.6;
      to.x = 0.3;
      break;
    case Direction::left:
      from.x = 0.4;
      to.x = 0.7;
      break;
  }
  page.swipe(from, to);
  return action_done(call, "Scrolled the screen " + name + ".");
}

Reply swipe(Call& call) {
  const ScreenPoint from = call.at(call.required_number("from_x"), call.required_number("from_y"));
  const ScreenPoint to = call.at(call.required_number("to_x"), call.required_number("to_y"));
  const std::chrono::milliseconds duration{call.integer("duration_ms").value_or(0)};
  call.page().swipe(from, to, duration);
  return action_done(call, "Swiped from " + point_words(from) + " to " + point_words(to) + ".");
}

Reply drag(Call& call) {
  Page& page = call.page();
  const std::optional<std::int64_t> from_ref = call.integer("from_ref");
  const std::optional<std::int64_t> to_ref = call.integer("to_ref");
  const std::optional<ScreenPoint> from = call.point("from_x", "from_y");
  const std::optional<ScreenPoint> to = call.point("to_x", "to_y");
  if ((from_ref.has_value() == from.has_value()) || (to_ref.has_value() == to.has_value()))
    throw Error(errc::invalid_argument,
                "give the start as from_ref or from_x and from_y, and the end as to_ref or to_x "
                "and to_y");
  if (from_ref && to_ref) {
    const auto a = static_cast<std::uint32_t>(*from_ref);
    const auto b = static_cast<std::uint32_t>(*to_ref);
    const std::string labels =
        label_of(page, a) + " onto ref " + std::to_string(b) + label_of(page, b);
    page.drag(a, b);
    return action_done(call, "Dragged ref " + std::to_string(a) + labels + ".");
  }
  if (from_ref || to_ref)
    throw Error(errc::invalid_argument,
                "drag from a ref to a ref, or from a point to a point (a snapshot's centre of an "
                "element is in find's reply)");
  page.drag_at(*from, *to);
  return action_done(call, "Dragged from " + point_words(*from) + " to " + point_words(*to) + ".");
}

Reply pinch(Call& call) {
  const double scale = call.required_number("scale");
  const std::chrono::milliseconds duration{call.integer("duration_ms").value_or(0)};
  const char* zoom = scale > 1 ? "in" : "out";
  Page& page = call.page();
  const Named named = element(call);
  if (named.ref) {
    const std::string label = label_of(page, *named.ref);
    page.pinch(*named.ref, scale, duration);
    return action_done(call, "Pinched ref " + std::to_string(*named.ref) + label + " (zoom " +
                                 zoom + ", scale " + format_number(scale) + ").");
  }
  if (named.selected) {
    const Spot spot = spot_of(page, *named.selected);
    page.pinch_at(spot.at, scale, duration);
    return action_done(call, "Pinched " + spot.words + " (zoom " + zoom + ", scale " +
                                 format_number(scale) + ").");
  }
  const std::optional<ScreenPoint> at = call.point();
  page.pinch_at(at.value_or(ScreenPoint{0.5, 0.5, true}), scale, duration);
  return action_done(
      call, "Pinched " + (at ? "at " + point_words(*at) : std::string("the middle of the screen")) +
                " (zoom " + zoom + ", scale " + format_number(scale) + ").");
}

Reply gesture(Call& call) {
  const std::string text = call.required_string("fingers");
  const std::vector<std::vector<ScreenPoint>> fingers = parse_fingers(text, call);
  const std::chrono::milliseconds duration{call.integer("duration_ms").value_or(300)};
  call.page().gesture(fingers, duration);
  return action_done(call, "Made a " + std::to_string(fingers.size()) + "-finger gesture over " +
                               std::to_string(duration.count()) + " ms.");
}

Reply press(Call& call) {
  const std::string key = call.required_string("key");
  call.page().press(key);
  return action_done(call, "Pressed " + key + ".");
}

Reply back(Call& call) {
  call.page().back();
  return action_done(call, "Pressed back.");
}

Reply home(Call& call) {
  call.page().home();
  return action_done(call, "Pressed home.");
}

Reply recent(Call& call) {
  call.page().recent();
  return action_done(call, "Opened the recent apps.");
}

}  // namespace adbwire::verbs::handlers
