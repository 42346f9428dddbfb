// What an agent remembers between sessions (the remember, recall and forget verbs): notes in a
// per-user SQLite database, scoped by device (its serial) and app (the foreground package), with
// full-text search (FTS5), and an observation cache keyed by a screen's fingerprint (what was
// seen there, what was done, what happened). docs/memory.md documents the schema and bounds.
//
// The database holds what screens showed (names, messages), so it is private: its folder is
// made 0700 (an existing one must be this user's and closed to others' writes), the file is
// created 0600 and never opened through a link (SQLite's journal takes the file's mode). Its
// size is bounded (MemoryBounds): past a bound the oldest rows go. Internal.
//
// Thread safety: one MemoryStore per thread; several processes may share a file (SQLite locks
// it; a busy database is waited for up to 5 s, then errc::busy).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace adbwire::verbs {

struct MemoryBounds {
  std::size_t max_notes = 10'000;
  // Bytes of note text in all; the oldest notes go first past it.
  std::size_t max_note_bytes = 8 * 1024 * 1024;
  std::size_t max_observations = 20'000;
  // One note's text at most (longer is refused: invalid_argument).
  std::size_t max_note_length = 4096;
};

// Where a note belongs: "" app means every app of the device.
struct MemoryScope {
  std::string device;
  std::string app;
};

struct MemoryNote {
  std::int64_t id = 0;
  std::int64_t created = 0;  // seconds since 1970
  std::string device;
  std::string app;
  std::string text;
};

struct MemoryObservation {
  std::int64_t created = 0;
  std::string seen;     // what the screen showed (cut to 1024 bytes)
  std::string action;   // what was done there
  std::string outcome;  // what happened
};

// Which notes recall and forget look at.
enum class MemoryReach {
  app,     // the scope's device and app, and the device's notes for every app
  device,  // every note of the scope's device
  all,     // every note
};

class MemoryStore {
 public:
  // Opens the database at path, creating it and its folder. Errors (Error): permission_denied
  // (a link, another owner, a folder open to others), io_error (cannot create), parse_error (a
  // file that is not such a database).
  MemoryStore(const std::filesystem::path& path, MemoryBounds bounds = {});
  ~MemoryStore();
  MemoryStore(MemoryStore&&) noexcept;
  MemoryStore& operator=(MemoryStore&&) noexcept;

  // Stores a note; returns its id. Prunes the oldest past the bounds.
  std::int64_t remember(const MemoryScope& scope, std::string_view text);
  // Notes within reach whose text matches every word of query (FTS5, any order, prefixes not
  // implied), best first; the newest first without a query. At most limit.
  std::vector<MemoryNote> recall(const MemoryScope& scope, MemoryReach reach,
                                 std::string_view query, std::size_t limit);
  // Deletes one note by id (0 or 1), the notes within reach matching query, or with an empty
  // query every note within reach; returns how many went.
  std::size_t forget(std::int64_t id);
  std::size_t forget(const MemoryScope& scope, MemoryReach reach, std::string_view query);

  // The observation cache: a row per screen seen (action "") and per action done on a screen
  // (outcome "" until the device's next screen is seen: settle). Each text is cut to 1024
  // bytes. Returns the row's id. Prunes the oldest past the bounds.
  std::int64_t observe(const MemoryScope& scope, std::string_view fingerprint,
                       std::string_view seen, std::string_view action, std::string_view outcome);
  // Gives the device's newest action still waiting for its outcome this one; false when none
  // waits.
  bool settle(std::string_view device, std::string_view outcome);
  // The actions done on the screen with this fingerprint in scope (device and app; of any app
  // of the device without one), newest first, at most limit.
  std::vector<MemoryObservation> observations(const MemoryScope& scope,
                                              std::string_view fingerprint, std::size_t limit);
  std::vector<MemoryObservation> observations(std::string_view device,
                                              std::optional<std::string_view> app,
                                              std::string_view fingerprint, std::size_t limit);
  // How often that screen was seen, and the newest sighting (times 0: never).
  struct Sightings {
    std::size_t times = 0;
    std::int64_t last = 0;  // seconds since 1970
    std::string app;
    std::string seen;
  };
  Sightings sightings(std::string_view device, std::optional<std::string_view> app,
                      std::string_view fingerprint);
  // Deletes the observations within reach; returns how many went.
  std::size_t forget_observations(const MemoryScope& scope, MemoryReach reach);

  // Rows kept now, for tests and the reply.
  std::size_t note_count();
  std::size_t observation_count();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The database a surface uses: $ADBWIRE_MEMORY_DB, else $XDG_DATA_HOME/adbwire/memory.db, else
// ~/.local/share/adbwire/memory.db; empty when none of HOME and XDG_DATA_HOME is set.
std::filesystem::path default_memory_db();

}  // namespace adbwire::verbs
