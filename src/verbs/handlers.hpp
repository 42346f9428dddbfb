// The handlers of the verb table (table.cpp), one function a verb, grouped by what they touch:
// the screen (verbs_screen.cpp, verbs_record.cpp), input (verbs_input.cpp), apps (verbs_apps.cpp),
// the device (verbs_device.cpp), its hardware (verbs_hardware.cpp) and the agent's memory
// (verbs_memory.cpp). Internal.
#pragma once

#include <span>
#include <string_view>

#include "adbwire/logcat.hpp"
#include "verbs/call.hpp"

namespace adbwire::verbs {

// What runs a verb of the table (verb.hpp) on a Call.
using Handler = Reply (*)(Call& call);
// The handler of the verb named name; nullptr when the table has no such verb.
Handler handler_of(std::string_view name) noexcept;
// Every handler's verb name, in the table's order (a test checks the two lists are one).
std::span<const std::string_view> handled_verbs() noexcept;

}  // namespace adbwire::verbs

namespace adbwire::verbs::handlers {

// verbs_screen.cpp
Reply snapshot(Call& call);
Reply find(Call& call);
Reply wait(Call& call);
Reply screenshot(Call& call);
Reply page_source(Call& call);
Reply webviews(Call& call);

// verbs_record.cpp
Reply record_start(Call& call);
Reply record_stop(Call& call);
Reply record_trajectory_start(Call& call);
Reply record_trajectory_stop(Call& call);
Reply replay_trajectory(Call& call);

// verbs_input.cpp
Reply tap(Call& call);
Reply click_area(Call& call);
Reply long_press(Call& call);
Reply type(Call& call);
Reply scroll(Call& call);
Reply swipe(Call& call);
Reply drag(Call& call);
Reply pinch(Call& call);
Reply gesture(Call& call);
Reply press(Call& call);
Reply back(Call& call);
Reply home(Call& call);
Reply recent(Call& call);

// verbs_apps.cpp
Reply launch(Call& call);
Reply stop(Call& call);
Reply open_url(Call& call);
Reply foreground(Call& call);
Reply apps(Call& call);
Reply install(Call& call);
Reply uninstall(Call& call);

// verbs_follow.cpp: logs with follow (logs hands it over)
Reply logs_follow(Call& call);

// verbs_files.cpp
Reply push(Call& call);
Reply pull(Call& call);

// verbs_device.cpp
Reply devices(Call& call);
Reply connect(Call& call);
Reply pair(Call& call);
Reply capabilities(Call& call);
Reply notifications(Call& call);
Reply rotate(Call& call);
Reply clipboard_get(Call& call);
Reply clipboard_set(Call& call);
Reply date(Call& call);
Reply setting_get(Call& call);
Reply setting_put(Call& call);
Reply logs(Call& call);
// What logs and its follow share: the filter of the call's `filter` (adb filter specs), and one
// record as a line of text (the device's words escaped).
LogFilter log_filter(const Call& call);
std::string log_line(const LogRecord& record);
Reply shell(Call& call);
Reply secrets(Call& call);

// verbs_hardware.cpp
Reply battery(Call& call);
Reply sensors(Call& call);
Reply wifi(Call& call);
Reply data(Call& call);
Reply airplane(Call& call);
Reply camera(Call& call);

// verbs_memory.cpp
Reply remember(Call& call);
Reply recall(Call& call);
Reply forget(Call& call);
Reply observations(Call& call);

}  // namespace adbwire::verbs::handlers
