#include "verbs/reply_text.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "adbwire/protocol/printable.hpp"

namespace adbwire::verbs {

std::string advice(const Error& e, const std::string& device) {
  std::string message = e.detail();
  const auto add = [&message](std::string_view hint) {
    if (!message.ends_with('.')) message += '.';
    message += ' ';
    message += hint;
  };
  const bool mentions_snapshot = message.find("snapshot") != std::string::npos;
  switch (static_cast<errc>(e.code().value())) {
    case errc::stale_ref:
    case errc::not_found:
      if (!mentions_snapshot) add("Take a new snapshot to see what is on the screen now.");
      break;
    case errc::device_offline:
    case errc::closed:
      add("The connection to " + (device.empty() ? std::string("the device") : device) +
          " was lost; the next call reconnects (check the cable or network if it fails again).");
      break;
    case errc::timeout:
      add("The device did not finish in time: check that it is awake and responsive, then retry.");
      break;
    case errc::connection_refused:
      add("Check the address, that the device is on and that wireless debugging (or `adb "
          "tcpip`) is enabled; the devices verb lists what is reachable.");
      break;
    default:
      break;
  }
  return message;
}

std::string in_quotes(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string format_number(double value) {
  if (value == std::floor(value) && std::abs(value) < 1e9)
    return std::to_string(static_cast<long long>(value));
  std::string text = std::to_string(value);
  while (text.ends_with('0')) text.pop_back();
  return text;
}

std::string label_of(const Page& page, std::uint32_t ref) {
  const ui::RefInfo* info = page.last_snapshot().ref(ref);
  if (info == nullptr || info->label.empty()) return {};
  return " (" + info->label + (info->row.empty() ? "" : " in the row \"" + info->row + "\"") + ")";
}

std::string text_fields(const Page& page) {
  constexpr std::size_t kListed = 8;
  const ui::Snapshot& snapshot = page.last_snapshot();
  std::string list;
  std::size_t count = 0;
  for (const ui::RefInfo& info : snapshot.refs()) {
    if (!snapshot.node(info.node).editable) continue;
    if (++count <= kListed)
      list += (list.empty() ? "" : ", ") + ("ref " + std::to_string(info.ref)) +
              label_of(page, info.ref);
  }
  if (count == 0)
    return "The screen shows no text field: tap what opens one (a search icon, say), then take "
           "a new snapshot.";
  if (count > kListed) list += " and " + std::to_string(count - kListed) + " more";
  return "Text fields on the screen: " + list + ".";
}

namespace {

std::string only(std::string_view text, bool digits) {
  std::string out;
  for (const char c : text) {
    const bool digit = c >= '0' && c <= '9';
    if (digits ? digit : c != ' ')
      out += digits ? c : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

// True when every character of part appears in whole, in order.
bool in_order(std::string_view part, std::string_view whole) {
  std::size_t at = 0;
  for (const char c : whole) {
    if (at < part.size() && part[at] == c) ++at;
  }
  return at == part.size();
}

}  // namespace

std::string typed_note(std::string_view typed, const TypeResult& result) {
  switch (result.check) {
    case TypeResult::Check::as_typed:
      return {};
    case TypeResult::Check::not_checked:
      return " Not read back: " + result.why + ".";
    case TypeResult::Check::reads_differently:
      break;
  }
  // What the typing added: the field's text after what it held before, when it still starts so.
  const std::string_view reads = result.reads;
  const std::string_view added =
      reads.starts_with(result.before) ? reads.substr(result.before.size()) : reads;
  std::string why;
  if (!only(typed, true).empty() && only(added, true) == only(typed, true)) {
    why = "the same digits, formatted by the app";
  } else if (only(added, false) == only(typed, false)) {
    why = "the same letters, in another case or spacing (the app capitalised or spaced them)";
  } else if (in_order(added, typed) && added.size() < typed.size()) {
    why = std::to_string(typed.size() - added.size()) +
          " typed character(s) are missing: lost on the way, or the app refuses them; if they "
          "matter, type again with clear";
  } else {
    why = "the app changed what was typed (autocorrect, a completion or a mask)";
  }
  return " The field now reads " + in_quotes(protocol::printable(reads, 200)) + ": " + why +
         "; check it before relying on it.";
}

std::string describe(const ui::Snapshot& snapshot, ui::NodeIndex index) {
  const ui::Node& node = snapshot.node(index);
  const ui::ElementInfo info = snapshot.info(index);
  std::string line = "- " + std::string(node.role);
  if (node.ref != 0) line += " [ref=" + std::to_string(node.ref) + "]";
  if (!node.text.empty()) line += " " + in_quotes(node.text);
  if (!node.content_desc.empty()) line += " (" + std::string(node.content_desc) + ")";
  if (!node.resource_id.empty()) line += " id=" + std::string(node.resource_id);
  line += " centre (" + std::to_string(info.center.x) + ", " + std::to_string(info.center.y) + ")";
  if (node.ref == 0) {
    for (ui::NodeIndex up = node.parent; up != ui::kNoNode; up = snapshot.node(up).parent) {
      if (snapshot.node(up).ref == 0) continue;
      line += " inside [ref=" + std::to_string(snapshot.node(up).ref) + "]";
      break;
    }
  }
  return line;
}

std::string moved_note(const Page& page) {
  std::string note;
  for (const RefCheckReport& report : page.last_ref_checks()) {
    if (report.disabled)
      note += " Ref " + std::to_string(report.ref) +
              " is disabled on the screen: the app may ignore the action.";
    if (!report.moved) continue;
    const ui::Point from = report.issued.center();
    const ui::Point to = report.acted.center();
    note += " Ref " + std::to_string(report.ref) + " had moved since the snapshot, from (" +
            std::to_string(from.x) + ", " + std::to_string(from.y) + ") to (" +
            std::to_string(to.x) + ", " + std::to_string(to.y) +
            "): the action went where it is now.";
  }
  return note;
}

std::string fit(Call& call, const Page& page, std::string text) {
  const std::size_t budget = call.options().max_snapshot_chars;
  if (text.size() <= budget) return text;
  const std::string path = call.host().save("snapshot.yml", text);
  std::string out = "The snapshot is " + std::to_string(text.size()) + " characters (" +
                    std::to_string(std::count(text.begin(), text.end(), '\n')) + " lines, " +
                    std::to_string(page.last_snapshot().refs().size()) + " refs), over the " +
                    std::to_string(budget) + "-character budget, so it is saved in full to " +
                    path + ". Its refs are valid. The interactive elements, compactly:\n";
  ui::SnapshotOptions view = page.options().snapshot;
  view.interactive_only = true;
  view.compact = true;
  view.max_depth = 0;
  const std::string compact = ui::parse_dump(page.last_dump(), view).to_text();
  const std::size_t room = budget > out.size() ? budget - out.size() : 0;
  std::size_t cut = compact.size() <= room ? compact.size() : compact.rfind('\n', room);
  if (cut == std::string::npos) cut = 0;
  out.append(compact, 0, cut);
  if (cut < compact.size()) {
    const auto rest =
        std::count(compact.begin() + static_cast<std::ptrdiff_t>(cut), compact.end(), '\n');
    out += (cut > 0 ? "\n… " : "… ") + std::to_string(rest) +
           " more lines: read the file, use find, or snapshot with max_depth.\n";
  }
  return out;
}

std::string cap(const Call& call, const std::string& output) {
  const std::size_t budget = call.options().max_snapshot_chars;
  if (output.size() <= budget) return output;
  return output.substr(0, budget) + "\n… " + std::to_string(output.size() - budget) +
         " more bytes cut; narrow the command (grep, head) to see them";
}

Reply action_done(Call& call, std::string summary) {
  Page& page = call.page();
  summary += moved_note(page);
  if (!call.options().auto_snapshot) return Reply::text(std::move(summary));
  call.cancel().sleep(call.options().settle);
  std::error_code error;
  page.snapshot(kDefaultDeadline, error);
  Reply reply = Reply::text(std::move(summary));
  reply.blocks.push_back(
      {Block::Kind::text,
       error ? "The action was sent, but the snapshot after it failed: " + page.last_error() +
                   ". Take a snapshot before the next action on a ref."
             : "The screen after it (refs are current):\n" +
                   fit(call, page, page.last_snapshot().to_text()),
       {},
       {}});
  return reply;
}

std::string ocr_line(const OcrStatus& ocr) {
  const std::string cost = " in " + std::to_string(ocr.took.count()) + " ms";
  if (!ocr.problem.empty()) return "# text not read from the pixels: " + ocr.problem + "\n";
  if (!ocr.ran) return {};
  if (ocr.texts == 0)
    return "# OCR read the screen's pixels" + cost + " and found no text either\n";
  return "# OCR read " + std::to_string(ocr.texts) + " text" + (ocr.texts == 1 ? "" : "s") +
         " from the screen's pixels" + cost + ": [ocr] refs, tapped at the centre of their box\n";
}

}  // namespace adbwire::verbs
