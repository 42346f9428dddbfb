// The shell command lines Page sends (docs/design.md, Interactions), built as pure functions so
// quoting and splitting are unit-tested without a device.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace adbwire::agent {

// True when text needs a path other than `input text` (bytes >= 0x80).
bool needs_unicode_path(std::string_view text) noexcept;

// The `input` commands that type ASCII text, joined by " && " so the whole sequence is one
// shell command: `input text 'word'` per word (split after a '%' that precedes 's', because
// `input text` reads "%s" as a space), `input keyevent 62` per space, 66 per '\n', 61 per
// '\t'. Returns nullopt, with the offending byte's position in bad_at, for other control
// characters (and bytes >= 0x80: check needs_unicode_path first). "" for empty text.
std::optional<std::string> ascii_type_command(std::string_view text, std::size_t& bad_at);

// Android key code for a name (back, home, enter, … or a number); a KEYCODE_* name is
// returned as is. nullopt for anything else.
std::optional<std::string> key_code(std::string_view name);

// Standard base64 (with padding) of text, as the ADB keyboard takes it (base/base64.hpp).
std::string base64(std::string_view bytes);

// Number of UTF-8 code points in text.
std::size_t code_points(std::string_view text) noexcept;

}  // namespace adbwire::agent
