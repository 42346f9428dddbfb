// Every subcommand of the adbwire CLI, one file each in src/cli/.
#pragma once

#include <span>
#include <string_view>

#include "cli/command.hpp"

namespace adbwire::cli {

void add_version_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_vdevice_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_snapshot_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_shell_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_exec_out_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_pull_command(CLI::App& app, const GlobalOptions& globals, Run& run);
// The front's pull: only through the daemon, on the device the call names.
void add_front_pull_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_push_command(CLI::App& app, const GlobalOptions& globals, Run& run);
// The front's push: only through the daemon, on the device the call names.
void add_front_push_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_keygen_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_pair_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_mdns_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_capture_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_doctor_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_open_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_screenshot_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_close_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_sessions_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_guide_command(CLI::App& app, const GlobalOptions& globals, Run& run);
// Every agent verb not registered by a command above (verb_commands.cpp); they run in the
// session, so the lean front registers them too.
void add_verb_commands(CLI::App& app, const GlobalOptions& globals, Run& run);
// Only the verb named name, even one registered by a command above (the front parses one
// command line, so it builds one parser; it serves `snapshot` in the session this way).
void add_verb_command(CLI::App& app, const GlobalOptions& globals, Run& run, std::string_view name);
// Whether words (what follows the verb on the command line) are only the verb's own options
// ("--max-depth 3", "--ids", and -p/--print for a verb whose reply is a file): then the
// verb's parser reads them all, and the front may serve a command the full program also has.
bool takes_only_verb_options(std::string_view name, std::span<const char* const> words);
// Whether name is one of those verbs.
bool is_session_verb(std::string_view name);
void add_devices_command(CLI::App& app, const GlobalOptions& globals, Run& run);

void add_install_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_uninstall_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_forward_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_reverse_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_logcat_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_bugreport_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_get_state_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_getprop_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_reboot_command(CLI::App& app, const GlobalOptions& globals, Run& run);
// root, unroot, remount and usb (adbd_restart_commands.cpp).
void add_adbd_restart_commands(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_tcpip_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_mcp_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_webviews_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_server_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_start_server_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_kill_server_command(CLI::App& app, const GlobalOptions& globals, Run& run);
// connect, disconnect and reconnect with adb's meaning (connect_command.cpp).
void add_connect_commands(CLI::App& app, const GlobalOptions& globals, Run& run);
// track-devices and jdwp, adb's streaming listings (track_commands.cpp).
void add_track_commands(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_sideload_command(CLI::App& app, const GlobalOptions& globals, Run& run);

// The table main() registers, in the order `adbwire --help` lists them.
inline constexpr AddCommand kCommands[] = {
    add_version_command,   add_vdevice_command,      add_snapshot_command,
    add_shell_command,     add_exec_out_command,     add_pull_command,
    add_push_command,      add_keygen_command,       add_pair_command,
    add_mdns_command,      add_capture_command,      add_doctor_command,
    add_open_command,      add_screenshot_command,   add_close_command,
    add_sessions_command,  add_guide_command,        add_devices_command,
    add_install_command,   add_uninstall_command,    add_forward_command,
    add_reverse_command,   add_logcat_command,       add_get_state_command,
    add_getprop_command,   add_reboot_command,       add_adbd_restart_commands,
    add_tcpip_command,     add_mcp_command,          add_webviews_command,
    add_server_command,    add_start_server_command, add_kill_server_command,
    add_bugreport_command, add_connect_commands,     add_track_commands,
    add_sideload_command,  add_verb_commands,
};

}  // namespace adbwire::cli
