#include "verbs/memory_store.hpp"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>

#include "adbwire/error.hpp"
#include "base/failure.hpp"
#include "base/private_files.hpp"

namespace adbwire::verbs {
namespace {

namespace fs = std::filesystem;

constexpr int kSchemaVersion = 1;
constexpr int kBusyWaitMs = 5000;
constexpr std::size_t kMaxSeen = 1024;

// docs/memory.md describes these tables; a change bumps kSchemaVersion.
constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS notes(
  id INTEGER PRIMARY KEY,
  created INTEGER NOT NULL,
  device TEXT NOT NULL,
  app TEXT NOT NULL,
  text TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS notes_scope ON notes(device, app);
CREATE VIRTUAL TABLE IF NOT EXISTS notes_fts USING fts5(text, content='notes', content_rowid='id');
CREATE TRIGGER IF NOT EXISTS notes_added AFTER INSERT ON notes BEGIN
  INSERT INTO notes_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER IF NOT EXISTS notes_removed AFTER DELETE ON notes BEGIN
  INSERT INTO notes_fts(notes_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TABLE IF NOT EXISTS observations(
  id INTEGER PRIMARY KEY,
  created INTEGER NOT NULL,
  device TEXT NOT NULL,
  app TEXT NOT NULL,
  screen TEXT NOT NULL,
  seen TEXT NOT NULL,
  action TEXT NOT NULL,
  outcome TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS observations_screen ON observations(device, app, screen);
)sql";

[[noreturn]] void fail(sqlite3* db, const std::string& what) {
  const int code = db ? sqlite3_errcode(db) : SQLITE_ERROR;
  const std::string detail = what + ": " + (db ? sqlite3_errmsg(db) : "out of memory");
  if (code == SQLITE_BUSY || code == SQLITE_LOCKED) throw Error(errc::busy, detail);
  if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT) throw Error(errc::parse_error, detail);
  throw Error(errc::io_error, detail);
}

// One prepared statement; finalized on destruction.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) fail(db, "memory database");
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int index, std::string_view text) {
    sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& bind(int index, std::int64_t value) {
    sqlite3_bind_int64(stmt_, index, value);
    return *this;
  }
  // True while a row is there.
  bool step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(db_, "memory database");
  }
  std::int64_t integer(int column) { return sqlite3_column_int64(stmt_, column); }
  std::string text(int column) {
    const auto* bytes = sqlite3_column_text(stmt_, column);
    return bytes ? std::string(reinterpret_cast<const char*>(bytes),
                               static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)))
                 : std::string();
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// A query as an FTS5 expression that cannot be a syntax error: each word a quoted string (quotes
// doubled), joined by spaces (all must match). "" when the query has no word.
std::string fts_query(std::string_view query) {
  std::string out;
  std::size_t at = 0;
  while (at < query.size()) {
    while (at < query.size() && (query[at] == ' ' || query[at] == '\t' || query[at] == '\n')) ++at;
    std::size_t end = at;
    while (end < query.size() && query[end] != ' ' && query[end] != '\t' && query[end] != '\n')
      ++end;
    if (end > at) {
      out += out.empty() ? "\"" : " \"";
      for (const char c : query.substr(at, end - at))
        out += c == '"' ? std::string("\"\"") : std::string(1, c);
      out += '"';
    }
    at = end;
  }
  return out;
}

// The WHERE clause of a reach, over notes' device (?1) and app (?2).
const char* reach_clause(MemoryReach reach) {
  switch (reach) {
    case MemoryReach::app:
      return "notes.device = ?1 AND (notes.app = ?2 OR notes.app = '')";
    case MemoryReach::device:
      return "notes.device = ?1";
    case MemoryReach::all:
      return "1 = 1";
  }
  return "notes.device = ?1";
}

// Creates the file 0600 unless it exists; an existing one must be a regular file of this user,
// closed to others, reached without a link.
void prepare_file(const fs::path& path) {
  detail::Failure failure;
  const detail::FolderFd folder =
      detail::open_private_folder(path.parent_path().empty() ? fs::path(".") : path.parent_path(),
                                  detail::FolderTrust::chosen, failure);
  failure.throw_if_failed();
  const std::string name = path.filename().string();
  const int fd =
      ::openat(folder.get(), name.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    throw Error(errno == ELOOP ? errc::permission_denied : errc::io_error,
                "cannot open the memory database " + path.string() +
                    (errno == ELOOP ? " (it is a symbolic link; remove it)" : ""));
  }
  struct stat st {};
  const bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid();
  const bool open_to_others = ok && (st.st_mode & 077) != 0;
  if (open_to_others) ::fchmod(fd, 0600);
  ::close(fd);
  if (!ok) {
    throw Error(errc::permission_denied, "the memory database " + path.string() +
                                             " is not a regular file of this user; remove it or "
                                             "name another with --memory-db");
  }
}

std::int64_t now_seconds() { return static_cast<std::int64_t>(std::time(nullptr)); }

}  // namespace

struct MemoryStore::Impl {
  sqlite3* db = nullptr;
  MemoryBounds bounds;

  ~Impl() { sqlite3_close_v2(db); }

  void exec(const char* sql) {
    char* message = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
      const std::string text = message ? message : "failed";
      sqlite3_free(message);
      fail(db, "memory database (" + text + ")");
    }
  }

  void prune() {
    Statement count(db,
                    "DELETE FROM notes WHERE id IN (SELECT id FROM notes ORDER BY id DESC "
                    "LIMIT -1 OFFSET ?1)");
    count.bind(1, static_cast<std::int64_t>(bounds.max_notes)).step();
    Statement bytes(db,
                    "DELETE FROM notes WHERE id IN (SELECT id FROM (SELECT id, SUM(length(CAST("
                    "text AS BLOB))) OVER (ORDER BY id DESC) AS running FROM notes) WHERE "
                    "running > ?1)");
    bytes.bind(1, static_cast<std::int64_t>(bounds.max_note_bytes)).step();
    Statement observations(db,
                           "DELETE FROM observations WHERE id IN (SELECT id FROM observations "
                           "ORDER BY id DESC LIMIT -1 OFFSET ?1)");
    observations.bind(1, static_cast<std::int64_t>(bounds.max_observations)).step();
  }
};

MemoryStore::MemoryStore(const fs::path& path, MemoryBounds bounds)
    : impl_(std::make_unique<Impl>()) {
  impl_->bounds = bounds;
  prepare_file(path);
  if (sqlite3_open_v2(path.c_str(), &impl_->db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK) {
    fail(impl_->db, "cannot open the memory database " + path.string());
  }
  sqlite3_busy_timeout(impl_->db, kBusyWaitMs);
  impl_->exec("PRAGMA secure_delete = ON");
  impl_->exec("BEGIN IMMEDIATE");
  impl_->exec(kSchema);
  Statement version(impl_->db, "PRAGMA user_version");
  const std::int64_t found = version.step() ? version.integer(0) : 0;
  if (found > kSchemaVersion) {
    impl_->exec("ROLLBACK");
    throw Error(errc::not_supported, "the memory database " + path.string() +
                                         " has schema version " + std::to_string(found) +
                                         ", newer than this adbwire's " +
                                         std::to_string(kSchemaVersion));
  }
  impl_->exec(("PRAGMA user_version = " + std::to_string(kSchemaVersion)).c_str());
  impl_->exec("COMMIT");
}

MemoryStore::~MemoryStore() = default;
MemoryStore::MemoryStore(MemoryStore&&) noexcept = default;
MemoryStore& MemoryStore::operator=(MemoryStore&&) noexcept = default;

std::int64_t MemoryStore::remember(const MemoryScope& scope, std::string_view text) {
  if (text.empty()) throw Error(errc::invalid_argument, "give the text to remember");
  if (text.size() > impl_->bounds.max_note_length) {
    throw Error(errc::invalid_argument,
                "a note holds at most " + std::to_string(impl_->bounds.max_note_length) +
                    " bytes, not " + std::to_string(text.size()) + "; split it");
  }
  impl_->exec("BEGIN IMMEDIATE");
  try {
    Statement insert(impl_->db,
                     "INSERT INTO notes(created, device, app, text) VALUES (?1, ?2, ?3, ?4)");
    insert.bind(1, now_seconds()).bind(2, scope.device).bind(3, scope.app).bind(4, text).step();
    const std::int64_t id = sqlite3_last_insert_rowid(impl_->db);
    impl_->prune();
    impl_->exec("COMMIT");
    return id;
  } catch (...) {
    sqlite3_exec(impl_->db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::vector<MemoryNote> MemoryStore::recall(const MemoryScope& scope, MemoryReach reach,
                                            std::string_view query, std::size_t limit) {
  const std::string match = fts_query(query);
  const std::string sql =
      match.empty() ? std::string("SELECT id, created, device, app, text FROM notes WHERE ") +
                          reach_clause(reach) + " ORDER BY id DESC LIMIT ?3"
                    : std::string(
                          "SELECT notes.id, created, device, app, notes.text FROM notes_fts JOIN "
                          "notes ON notes.id = notes_fts.rowid WHERE notes_fts MATCH ?4 AND ") +
                          reach_clause(reach) + " ORDER BY bm25(notes_fts), notes.id DESC LIMIT ?3";
  Statement select(impl_->db, sql.c_str());
  select.bind(1, scope.device).bind(2, scope.app).bind(3, static_cast<std::int64_t>(limit));
  if (!match.empty()) select.bind(4, match);
  std::vector<MemoryNote> notes;
  while (select.step()) {
    notes.push_back(
        {select.integer(0), select.integer(1), select.text(2), select.text(3), select.text(4)});
  }
  return notes;
}

std::size_t MemoryStore::forget(std::int64_t id) {
  Statement remove(impl_->db, "DELETE FROM notes WHERE id = ?1");
  remove.bind(1, id).step();
  return static_cast<std::size_t>(sqlite3_changes(impl_->db));
}

std::size_t MemoryStore::forget(const MemoryScope& scope, MemoryReach reach,
                                std::string_view query) {
  const std::string match = fts_query(query);
  const std::string sql =
      std::string("DELETE FROM notes WHERE ") + reach_clause(reach) +
      (match.empty() ? "" : " AND id IN (SELECT rowid FROM notes_fts WHERE notes_fts MATCH ?3)");
  Statement remove(impl_->db, sql.c_str());
  remove.bind(1, scope.device).bind(2, scope.app);
  if (!match.empty()) remove.bind(3, match);
  remove.step();
  return static_cast<std::size_t>(sqlite3_changes(impl_->db));
}

std::int64_t MemoryStore::observe(const MemoryScope& scope, std::string_view fingerprint,
                                  std::string_view seen, std::string_view action,
                                  std::string_view outcome) {
  impl_->exec("BEGIN IMMEDIATE");
  try {
    Statement insert(impl_->db,
                     "INSERT INTO observations(created, device, app, screen, seen, action, "
                     "outcome) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
    insert.bind(1, now_seconds())
        .bind(2, scope.device)
        .bind(3, scope.app)
        .bind(4, fingerprint)
        .bind(5, seen.substr(0, kMaxSeen))
        .bind(6, action.substr(0, kMaxSeen))
        .bind(7, outcome.substr(0, kMaxSeen))
        .step();
    const std::int64_t id = sqlite3_last_insert_rowid(impl_->db);
    impl_->prune();
    impl_->exec("COMMIT");
    return id;
  } catch (...) {
    sqlite3_exec(impl_->db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::vector<MemoryObservation> MemoryStore::observations(const MemoryScope& scope,
                                                         std::string_view fingerprint,
                                                         std::size_t limit) {
  return observations(scope.device, scope.app, fingerprint, limit);
}

std::vector<MemoryObservation> MemoryStore::observations(std::string_view device,
                                                         std::optional<std::string_view> app,
                                                         std::string_view fingerprint,
                                                         std::size_t limit) {
  Statement select(impl_->db,
                   "SELECT created, seen, action, outcome FROM observations WHERE device = ?1 "
                   "AND (?2 IS NULL OR app = ?2) AND screen = ?3 AND action != '' ORDER BY id "
                   "DESC LIMIT ?4");
  select.bind(1, device);
  if (app) select.bind(2, *app);
  select.bind(3, fingerprint).bind(4, static_cast<std::int64_t>(limit));
  std::vector<MemoryObservation> found;
  while (select.step())
    found.push_back({select.integer(0), select.text(1), select.text(2), select.text(3)});
  return found;
}

MemoryStore::Sightings MemoryStore::sightings(std::string_view device,
                                              std::optional<std::string_view> app,
                                              std::string_view fingerprint) {
  Statement select(impl_->db,
                   "SELECT count(*), max(id) FROM observations WHERE device = ?1 AND (?2 IS NULL "
                   "OR app = ?2) AND screen = ?3 AND action = ''");
  select.bind(1, device);
  if (app) select.bind(2, *app);
  select.bind(3, fingerprint);
  Sightings found;
  if (!select.step() || select.integer(0) == 0) return found;
  found.times = static_cast<std::size_t>(select.integer(0));
  Statement newest(impl_->db, "SELECT created, app, seen FROM observations WHERE id = ?1");
  newest.bind(1, select.integer(1));
  if (newest.step()) {
    found.last = newest.integer(0);
    found.app = newest.text(1);
    found.seen = newest.text(2);
  }
  return found;
}

bool MemoryStore::settle(std::string_view device, std::string_view outcome) {
  Statement update(impl_->db,
                   "UPDATE observations SET outcome = ?2 WHERE id = (SELECT max(id) FROM "
                   "observations WHERE device = ?1 AND action != '' AND outcome = '')");
  update.bind(1, device).bind(2, outcome.substr(0, kMaxSeen)).step();
  return sqlite3_changes(impl_->db) > 0;
}

std::size_t MemoryStore::forget_observations(const MemoryScope& scope, MemoryReach reach) {
  // An observation is of one app: "every app of the device" is no scope of one.
  const char* clause = reach == MemoryReach::app      ? "device = ?1 AND app = ?2"
                       : reach == MemoryReach::device ? "device = ?1"
                                                      : "1 = 1";
  Statement remove(impl_->db, (std::string("DELETE FROM observations WHERE ") + clause).c_str());
  remove.bind(1, scope.device).bind(2, scope.app).step();
  return static_cast<std::size_t>(sqlite3_changes(impl_->db));
}

std::size_t MemoryStore::observation_count() {
  Statement count(impl_->db, "SELECT count(*) FROM observations");
  return count.step() ? static_cast<std::size_t>(count.integer(0)) : 0;
}

std::size_t MemoryStore::note_count() {
  Statement count(impl_->db, "SELECT count(*) FROM notes");
  return count.step() ? static_cast<std::size_t>(count.integer(0)) : 0;
}

fs::path default_memory_db() {
  if (const char* chosen = std::getenv("ADBWIRE_MEMORY_DB"); chosen && *chosen) return chosen;
  if (const char* data = std::getenv("XDG_DATA_HOME"); data && *data)
    return fs::path(data) / "adbwire" / "memory.db";
  if (const char* home = std::getenv("HOME"); home && *home)
    return fs::path(home) / ".local" / "share" / "adbwire" / "memory.db";
  return {};
}

}  // namespace adbwire::verbs
