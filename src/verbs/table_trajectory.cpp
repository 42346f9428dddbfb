// The trajectory verbs of the table (verb.hpp): a recording of the agent's calls that can be
// played again on another device, each element found again by what it was.
#include "verbs/verb.hpp"

namespace adbwire::verbs {

void add_trajectory_verbs(std::vector<Verb>& table) {
  table.push_back(
      {"record_trajectory_start",
       "Start recording a trajectory",
       "Record every call on this device from now on as JSON Lines (docs/trajectory.md): each "
       "snapshot's text and hash, each action with its ref, the element it acted on (resource-id, "
       "text, desc, class, bounds, identity), the point touched and the timing. The file is "
       "private (0600); secrets typed show as <secret NAME>. record_trajectory_stop ends it, "
       "replay_trajectory plays it again.",
       {{"path", ParamType::string,
         "A new folder to record into, inside a folder the operator allowed (default: a private "
         "folder of this session)."},
        {"screenshots", ParamType::boolean, "true: also a screenshot after each action."}},
       {.read_only = false, .destructive = false, .idempotent = false},
       {"path"},
       true,
       false,
       ""});
  table.push_back({"record_trajectory_stop",
                   "Stop recording the trajectory",
                   "End the trajectory record_trajectory_start began and return the path of its "
                   "trajectory.jsonl and how many steps it holds.",
                   {},
                   {.read_only = false, .destructive = false, .idempotent = false},
                   {},
                   true,
                   false,
                   ""});
  table.push_back(
      {"replay_trajectory",
       "Play a recorded trajectory again",
       "Play the actions of a recorded trajectory.jsonl on this device in order. Each element is "
       "found again on a fresh snapshot by its recorded identity; at the first step whose element "
       "is gone or ambiguous it stops with an error naming that step, having sent nothing for "
       "it. Reads and steps that had failed are skipped; a secret is typed from its source again.",
       {{"file", ParamType::string,
         "The trajectory.jsonl (or its folder): one this session recorded, or one inside a "
         "folder the operator allowed (default: the one this session recorded last)."}},
       {.read_only = false, .destructive = true, .idempotent = false},
       {"file"},
       true,
       false,
       ""});
}

}  // namespace adbwire::verbs
