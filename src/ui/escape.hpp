// Escaping device text for the snapshot's renderings (the text format's quoted parts and YAML
// list items, see ui.hpp, "Text format") and for JSON strings, which the trajectory log writes
// too. Internal; pure functions, any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace adbwire::ui {

// Appends text with the escapes of the text format (see ui.hpp), cut to max_code_points
// (0 = no limit) with "…". The result is always valid UTF-8 that YAML accepts.
void append_escaped(std::string& out, std::string_view text, std::size_t max_code_points);

// Appends s as a JSON string (quotes included); bytes that are not UTF-8 become U+FFFD, so the
// result is always valid JSON. Controls (C0, DEL, C1), the bidirectional overrides and isolates
// and U+2028/U+2029 are written \uXXXX, so nothing in it acts on a terminal that shows it.
void append_json_string(std::string& out, std::string_view s);

// True when item (escaped by append_escaped) reads back from YAML as the same plain string.
bool is_plain_yaml(std::string_view item) noexcept;

// Appends item as a YAML list item's value: as is when plain, else single-quoted.
void append_yaml_item(std::string& out, std::string_view item);
std::size_t yaml_item_size(std::string_view item) noexcept;  // bytes append_yaml_item adds

}  // namespace adbwire::ui
