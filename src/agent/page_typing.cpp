// Page::type: only into a text field, with the focus awaited and the field read back until it
// shows what was typed (docs/design.md, Interactions).
#include <algorithm>
#include <thread>

#include "adbwire/protocol/printable.hpp"
#include "agent/input_commands.hpp"
#include "agent/page_state.hpp"
#include "base/advice.hpp"
#include "base/keycodes.hpp"

namespace adbwire {
namespace {

using namespace std::chrono_literals;

constexpr std::string_view kAdbKeyboard = "com.android.adbkeyboard/";
// Between two readings of a field that does not show the text yet.
constexpr auto kReadBackPause = 50ms;
// Text fields named in a refusal.
constexpr std::size_t kListedFields = 8;

std::string keyevent(int code) { return "input keyevent " + std::to_string(code); }

std::string shown(std::string_view text) { return "\"" + protocol::printable(text, 200) + "\""; }

// What a field holding `before` reads after `typed` arrived whole: the text alone when the
// field was cleared, else the text somewhere in it (the cursor may not have been at the end).
bool shows(std::string_view arrived, std::string_view typed, bool cleared) {
  return cleared ? arrived == typed : arrived.find(typed) != std::string_view::npos;
}

}  // namespace

void Page::State::require_text_field(std::uint32_t ref, detail::Failure& failure) const {
  const ui::RefInfo* info = snapshot.ref(ref);
  if (info == nullptr || snapshot.node(info->node).editable) return;  // target() says the rest
  std::string fields;
  std::size_t count = 0;
  for (const ui::RefInfo& other : snapshot.refs()) {
    if (!snapshot.node(other.node).editable) continue;
    if (++count <= kListedFields)
      fields += (fields.empty() ? "" : ", ") + ("ref " + std::to_string(other.ref)) + " (" +
                describe(other) + ")";
  }
  if (count > kListedFields) fields += " and " + std::to_string(count - kListedFields) + " more";
  failure.set(errc::invalid_argument,
              "ref " + std::to_string(ref) + " (" + describe(*info) +
                  ") is not a text field: typing would tap it and send the text wherever the "
                  "focus is; nothing was sent. " +
                  (count == 0 ? std::string("The screen shows no text field: tap what opens one "
                                            "(a search icon, say), then take a new snapshot")
                              : "Text fields on the screen: " + fields));
}

TypeResult Page::State::type_text(std::uint32_t ref, std::string_view text,
                                  TypeOptions type_options, Deadline deadline,
                                  detail::Failure& failure) {
  const bool unicode = agent::needs_unicode_path(text);
  // Non-ASCII text goes through ADBKeyBoard when it is the input method, else through the
  // clipboard (set by the on-device dumper) and KEYCODE_PASTE.
  const bool adb_keyboard =
      unicode && probe(deadline, failure).input_method.starts_with(kAdbKeyboard);
  if (failure) return {};
  // Asked now, not from the cached probe: a helper that fell back since must not be started
  // again (it would take UiAutomation from the dumps that replaced it).
  const bool paste = unicode && !adb_keyboard && helper.usable() &&
                     probe(deadline, failure).has(Capability::unicode_text);
  if (failure) return {};
  std::string text_command;
  if (unicode) {
    if (!adb_keyboard && !paste) {
      failure.set(
          errc::not_supported,
          "this text has non-ASCII characters, which `input text` cannot type (it would drop or "
          "garble them); turn on the on-device dumper (" +
              std::string(detail::advice("PageOptions::helper / --helper auto",
                                         "PageOptions(helper=\"auto\")")) +
              "), which types it through the clipboard, or install ADBKeyBoard "
              "(com.android.adbkeyboard) and make it the input method (`ime enable "
              "com.android.adbkeyboard/.AdbIME && ime set com.android.adbkeyboard/.AdbIME`), or "
              "type an ASCII transliteration");
      return {};
    }
    if (paste && !type_options.secret_name.empty()) {
      failure.set(errc::not_supported,
                  "the secret " + type_options.secret_name +
                      " has non-ASCII characters, and a secret is never put on the clipboard "
                      "(other apps read it); make ADBKeyBoard (com.android.adbkeyboard) the "
                      "input method, which types it; nothing was sent");
      return {};
    }
    text_command = adb_keyboard ? "am broadcast -a ADB_INPUT_B64 --es msg " + agent::base64(text)
                                : keyevent(keycodes::kPaste);
  } else {
    std::size_t bad_at = 0;
    std::optional<std::string> command = agent::ascii_type_command(text, bad_at);
    if (!command) {
      failure.set(errc::invalid_argument,
                  "the text has control character " +
                      std::to_string(static_cast<unsigned char>(text[bad_at])) + " at byte " +
                      std::to_string(bad_at) +
                      "; only newline and tab can be typed (send other keys with press)");
      return {};
    }
    text_command = std::move(*command);
  }
  require_text_field(ref, failure);
  if (failure) return {};
  const ActionTarget field = target(ref, deadline, failure);
  if (failure) return {};
  // The focus tap goes alone: on a phone the keyboard takes a moment to come up, and text sent
  // before it did loses its first characters.
  tap_px(tap_point_of(field.info), deadline, failure);
  if (failure) return {};
  const ui::RefInfo& issued = *snapshot.ref(ref);
  wait_for_focus(issued, deadline, failure);
  if (failure) return {};
  std::string line;
  const auto then = [&line](const std::string& command) {
    line += line.empty() ? command : " && " + command;
  };
  if (paste) {
    helper.set_clipboard(text, deadline, failure);
    if (failure) return {};
  }
  if (type_options.clear) {
    if (adb_keyboard) {
      then("am broadcast -a ADB_CLEAR_TEXT");
    } else if (const std::size_t n = agent::code_points(field.text); n > 0) {
      // To the end of the field, then one backspace per character.
      std::string deletes = "input keyevent";
      for (std::size_t i = 0; i < n; ++i) deletes += " " + std::to_string(keycodes::kDel);
      then(keyevent(keycodes::kMoveEnd));
      then(deletes);
    }
  }
  if (stealth && !unicode && !text.empty()) {
    // One character a command, a keystroke's pause between: what went before goes first.
    if (!line.empty()) run(line, deadline, failure);
    line.clear();
    for (std::size_t i = 0; i < text.size() && !failure; ++i) {
      if (i > 0) human_pause(agent::Stealth::kKeystrokePause);
      std::size_t bad_at = 0;
      run(*agent::ascii_type_command(text.substr(i, 1), bad_at), deadline, failure);
    }
  } else if (!text_command.empty()) {
    then(text_command);
  }
  if (type_options.submit && !failure) then(keyevent(keycodes::kEnter));
  if (!line.empty() && !failure) run(line, deadline, failure);
  if (failure && !type_options.secret_name.empty()) {
    // The failed command line holds the secret: the message says what failed without it.
    failure.set(failure.code, "typing the secret " + type_options.secret_name + " into ref " +
                                  std::to_string(ref) + " (" + describe(issued) +
                                  ") failed on the device (the command is not shown: it holds "
                                  "the secret)");
  }
  if (failure) return {};
  TypeResult result;
  if (type_options.submit || text.find_first_of("\n\t") != std::string::npos) {
    result.why = "the text was sent away (Enter or Tab) before it could be read back";
  } else if (snapshot.node(issued.node).password) {
    result.why = "a password field is never read back";
  } else if (!options.typing.read_back || options.ref_check == RefCheck::never) {
    result.why = "reading back is off (" +
                 std::string(detail::advice("PageOptions::typing.read_back, ref_check",
                                            "PageOptions.typing_read_back, ref_check")) +
                 ")";
  } else {
    result = read_back(ref, field, text, type_options.clear,
                       type_options.settle.value_or(options.typing.read_back_settle), deadline,
                       failure, type_options.secret_name);
    if (!type_options.secret_name.empty()) {
      // Compared, never returned: what the field reads holds the secret.
      result.before.clear();
      result.reads.clear();
    }
  }
  return result;
}

void Page::State::wait_for_focus(const ui::RefInfo& field, Deadline deadline,
                                 detail::Failure& failure) {
  const TypingOptions& typing = options.typing;
  if (helper.usable()) {
    // A dump costs about a millisecond here: look until the field has focus.
    const Deadline until = std::min(deadline, deadline_after(typing.focus_wait));
    for (;;) {
      const ui::Snapshot now = read_current(false, deadline, failure);
      if (failure) return;
      const ui::RefMatch match = ui::find_ref(field, now);
      if (match.node != ui::kNoNode && now.node(match.node).focused) return;
      // Never seen focused (some fields do not report it): type anyway; the read-back tells.
      if (Clock::now() + std::chrono::milliseconds(20) >= until) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  std::this_thread::sleep_for(
      std::min(typing.settle, std::max(left, std::chrono::milliseconds(0))));
}

TypeResult Page::State::read_back(std::uint32_t ref, const ActionTarget& field,
                                  std::string_view typed, bool cleared,
                                  std::chrono::milliseconds settle, Deadline deadline,
                                  detail::Failure& failure, std::string_view secret_name) {
  const ui::RefInfo& issued = *snapshot.ref(ref);
  const Deadline until = std::min(deadline, deadline_after(settle));
  TypeResult result;
  result.before = field.field;
  // A web field is read through the DevTools protocol, with the page's own value.
  const bool web_field = !field.web_node.empty();
  for (;;) {
    const ui::Snapshot now = read_current(web_field, deadline, failure);
    if (failure) return {};
    const ui::RefMatch match = ui::find_ref(issued, now);
    if (match.node == ui::kNoNode) {
      result.check = TypeResult::Check::not_checked;
      result.why = "the field left the screen before it could be read back (the app moved on)";
      return result;
    }
    result.reads = std::string(ui::field_text(now.node(match.node)));
    if (shows(result.reads, typed, cleared)) {
      result.check = TypeResult::Check::as_typed;
      return result;
    }
    if (Clock::now() + kReadBackPause >= until) break;
    std::this_thread::sleep_for(kReadBackPause);
  }
  const bool nothing_arrived =
      result.reads == result.before || (cleared && !typed.empty() && result.reads.empty());
  if (!nothing_arrived) {
    result.check = TypeResult::Check::reads_differently;
    return result;
  }
  const std::string what =
      secret_name.empty() ? shown(typed) : "the secret " + std::string(secret_name);
  const std::string reads = secret_name.empty()
                                ? "the field now reads " + shown(result.reads) + " as before"
                                : "the field reads as before (not shown)";
  failure.set(errc::command_failed,
              "typed " + what + " into ref " + std::to_string(ref) + " (" + describe(issued) +
                  "), but nothing arrived: " + reads + ", " + std::to_string(settle.count()) +
                  " ms after typing (a keyboard that was not ready, or a field that ignores "
                  "typed keys); type again, or give it longer with settle");
  return {};
}

TypeResult Page::State::type(std::uint32_t ref, std::string_view text, TypeOptions type_options,
                             Deadline deadline, detail::Failure& failure) {
  const Deadline d = resolve(deadline);
  const bool secret = !type_options.secret_name.empty();
  if (secret) secrets.add(type_options.secret_name, text);
  return call("type",
              {{"ref", std::to_string(ref)},
               {"text", secret ? "<secret " + type_options.secret_name + ">" : std::string(text)},
               {"clear", type_options.clear ? "true" : "false"},
               {"submit", type_options.submit ? "true" : "false"}},
              true, failure,
              [&](detail::Failure& f) { return type_text(ref, text, type_options, d, f); });
}

TypeResult Page::type(std::uint32_t ref, std::string_view text, TypeOptions options,
                      Deadline deadline) {
  return detail::or_throw(
      [&](detail::Failure& f) { return state_->type(ref, text, options, deadline, f); });
}
TypeResult Page::type(std::uint32_t ref, std::string_view text, TypeOptions options,
                      Deadline deadline, std::error_code& error) {
  return detail::or_code(
      error, [&](detail::Failure& f) { return state_->type(ref, text, options, deadline, f); });
}

}  // namespace adbwire
