// Driving `adbwire mcp` as a process: the tools/call lines to send it, and its answers read back.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace adbwire::test {

// One JSON-RPC tools/call line per (tool, arguments), with ids 1, 2, …
inline std::string tools_calls(const std::vector<std::pair<std::string, nlohmann::json>>& calls) {
  std::string lines;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    lines += nlohmann::json{{"jsonrpc", "2.0"},
                            {"id", i + 1},
                            {"method", "tools/call"},
                            {"params", {{"name", calls[i].first}, {"arguments", calls[i].second}}}}
                 .dump() +
             "\n";
  }
  return lines;
}

// The results in the server's output: [i] answers the call with id i + 1 (null when none did).
inline std::vector<nlohmann::json> tool_results(const std::string& out, std::size_t count) {
  std::vector<nlohmann::json> results(count);
  for (std::size_t at = 0; at < out.size();) {
    const std::size_t end = out.find('\n', at);
    const nlohmann::json line = nlohmann::json::parse(out.substr(at, end - at));
    at = end == std::string::npos ? out.size() : end + 1;
    const std::size_t id = line.value("id", std::size_t{0});
    if (id >= 1 && id <= count) results[id - 1] = line.value("result", nlohmann::json());
  }
  return results;
}

// The text blocks of a tool result, each followed by '\n'.
inline std::string text_of(const nlohmann::json& result) {
  std::string text;
  for (const nlohmann::json& block : result.value("content", nlohmann::json::array())) {
    if (block.value("type", "") == "text") text += block.value("text", "") + "\n";
  }
  return text;
}

}  // namespace adbwire::test
