// A list's content moved as a finger or a fling moves it, as uiautomator then dumps it: for the
// virtual device's lists that scroll by themselves and for tests that scroll real dumps.
// Internal; pure functions on a pugixml tree, any thread.
#pragma once

#include <cstdint>
#include <pugixml.hpp>

namespace adbwire::vdevice {

// Moves every node below `scrollable` by (dx, dy) pixels (dy < 0: the content goes up, as when
// a feed scrolls down), cuts each node's bounds to its parent's visible part (uiautomator
// reports what is on screen), and removes the nodes left with nothing visible together with all
// they hold (uiautomator leaves out views not visible to the user). Nodes without readable
// bounds move with nothing. The scrollable itself keeps its bounds.
void scroll_content(pugi::xml_node scrollable, std::int32_t dx, std::int32_t dy);

}  // namespace adbwire::vdevice
