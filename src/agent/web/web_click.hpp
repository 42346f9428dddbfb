// A left click on a web element through the Chrome DevTools Protocol, at its box as the page
// reports it at that moment (PageOptions::WebInput::cdp). Internal to the library.
#pragma once

#include <string_view>

#include "adbwire/deadline.hpp"
#include "adbwire/device.hpp"
#include "base/failure.hpp"

namespace adbwire::agent::web {

// web_node is the kWebNodeAttribute value of the element ("<socket>|<page id>|<backend node
// id>"). Scrolls it into view where the page's Chrome can (DOM.scrollIntoViewIfNeeded), then
// presses and releases the left button at the centre of its content box. Errors:
// invalid_argument (web_node is not in that form), protocol_error (the page gave no box), and
// CdpSession's errors.
void click_web_node(Device& device, std::string_view web_node, Deadline deadline,
                    detail::Failure& failure);

}  // namespace adbwire::agent::web
