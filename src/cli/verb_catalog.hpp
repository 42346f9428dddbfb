// The agent verbs as the CLI needs them to parse a command line: names, descriptions,
// parameters and positional order, generated at build time from the verb table
// (src/verbs/table.cpp, by verb_catalog_tool.cpp). Data only, so the lean front registers the
// verb subcommands without linking the handlers and the library behind them.
#pragma once

#include <span>
#include <string_view>

#include "verbs/verb.hpp"

namespace adbwire::cli {

struct CatalogParam {
  std::string_view name;
  verbs::ParamType type;
  std::string_view description;
};

struct CatalogVerb {
  std::string_view name;
  std::string_view title;
  std::string_view description;
  std::span<const CatalogParam> params;
  std::span<const std::string_view> positional;
  // The reply's text is saved as a file of this extension under .adbwire/ ("": printed).
  std::string_view cli_file;
};

// Every verb, in the table's order.
std::span<const CatalogVerb> verb_catalog() noexcept;

}  // namespace adbwire::cli
