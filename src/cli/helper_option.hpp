// The CLI's side of the on-device dumper (PageOptions::helper): the --helper option and the
// `adbwire doctor --helper` probe; and the options of a Page the verbs drive that `open` and
// `mcp` share.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>

#include "adbwire/page.hpp"
#include "cli/command.hpp"

namespace adbwire::cli {

// Adds `--helper auto|on|off` to cmd, stored into mode.
void add_helper_option(CLI::App& cmd, PageOptions::Helper& mode);

// Pushes and starts the dumper on globals.serial and takes one snapshot through it (helper
// on), then prints whether it works, the time it took, or its error and how to report it.
void check_helper(const GlobalOptions& globals);

// --ref-check always|when_changed|never (PageOptions::ref_check), into value.
void add_ref_check_option(CLI::App& cmd, std::string& value);

// --stealth and --seed N (PageOptions::stealth), into stealth.
void add_stealth_options(CLI::App& cmd, StealthOptions& stealth);

// --memory-db FILE and --observe (verbs::Options::memory_db, observe), into path and observe.
void add_memory_options(CLI::App& cmd, std::filesystem::path& path, bool& observe);

}  // namespace adbwire::cli
