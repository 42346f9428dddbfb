// The observation cache's feed (docs/memory.md): with Options::observe, each verb that takes a
// snapshot or acts on the screen leaves a row in the memory database: the screen seen (its
// fingerprint and what it showed), and the action done on it (the verb, its arguments, the
// element its ref named) with what happened (the error, or the next screen seen on the device).
// And what the memory verbs share: the database a surface names and the scope of a device.
// Internal.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "verbs/call.hpp"
#include "verbs/memory_store.hpp"

namespace adbwire::verbs {

// The database of options (memory_db, else default_memory_db()). Throws Error:
// invalid_argument when none is known, MemoryStore's errors.
MemoryStore open_memory(const Options& options);

// The device's own serial (ro.serialno: the same over USB, TCP and Wi-Fi), else the name adb
// would list; asked once per Page and target.
std::string device_identity(Page& page);

// One verb's observation: made before its handler runs, told after how it ended.
class Observer {
 public:
  // Observes when options.observe is on and the verb sees or acts on the screen; connects the
  // call's Page then (throws as Call::page does).
  explicit Observer(Call& call);
  // The verb ended: error is its error reply's message, nullopt on success. Never throws: a
  // database that cannot be written is told to the host's log.
  void finished(Call& call, const std::optional<std::string>& error) noexcept;

 private:
  bool on_ = false;
  bool action_ = false;
  std::string before_;      // the fingerprint of the screen the refs came from
  std::string before_app_;  // its package
  std::string target_;      // the element the ref named, as its label
  const void* snapshot_ = nullptr;
  std::size_t dump_hash_ = 0;
};

}  // namespace adbwire::verbs
