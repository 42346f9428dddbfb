#include "verbs/secrets.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "adbwire/error.hpp"
#include "adbwire/protocol/printable.hpp"
#include "verbs/secrets_keyring.hpp"

extern char** environ;

namespace adbwire::verbs {
namespace {

// The most a secrets file may hold.
constexpr std::size_t kMaxFile = 1024 * 1024;

bool valid_name(std::string_view name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
  });
}

std::string shown(const std::filesystem::path& path) {
  return "\"" + protocol::printable(path.string()) + "\"";
}

// The file's NAME=VALUE pairs, after checking that only its owner can read it.
std::vector<std::pair<std::string, std::string>> read_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int e = errno;
    if (e == ELOOP) {
      throw Error(errc::permission_denied,
                  "the secrets file " + shown(path) +
                      " is a symbolic link; name the file itself (a link could be pointed "
                      "elsewhere)");
    }
    throw Error(e == ENOENT ? errc::not_found : errc::io_error,
                "cannot open the secrets file " + shown(path) + ": " + std::strerror(e));
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    throw Error(errc::invalid_argument,
                "the secrets file " + shown(path) + " is not a regular file");
  }
  if (st.st_uid != ::geteuid()) {
    throw Error(errc::permission_denied,
                "the secrets file " + shown(path) + " belongs to another user (uid " +
                    std::to_string(st.st_uid) + "); it must be yours, mode 0600");
  }
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    throw Error(errc::permission_denied,
                "the secrets file " + shown(path) + " has mode " + mode +
                    ": others on this computer can read it (or write it), so its secrets are "
                    "not used; `chmod 600 " +
                    protocol::printable(path.string()) + "`");
  }
  if (static_cast<std::uint64_t>(st.st_size) > kMaxFile) {
    throw Error(errc::limit_exceeded, "the secrets file " + shown(path) + " is larger than 1 MiB");
  }
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  std::vector<std::pair<std::string, std::string>> pairs;
  std::size_t line_number = 0;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    std::string line = text.substr(at, end - at);
    at = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line.front() == '#') continue;
    const std::size_t equals = line.find('=');
    // A bad line is named by its number only: its text may be a value.
    if (equals == std::string::npos || !valid_name(line.substr(0, equals))) {
      throw Error(errc::invalid_argument,
                  "line " + std::to_string(line_number) + " of the secrets file " + shown(path) +
                      " is not NAME=VALUE (a name is letters, digits, '_', '-' and '.')");
    }
    pairs.emplace_back(line.substr(0, equals), line.substr(equals + 1));
  }
  return pairs;
}

}  // namespace

SecretSources SecretSources::from_environment() {
  SecretSources sources;
  if (const char* file = std::getenv("ADBWIRE_SECRETS_FILE"); file != nullptr && *file != '\0')
    sources.file = file;
  if (const char* keyring = std::getenv("ADBWIRE_SECRETS_KEYRING"); keyring != nullptr)
    sources.keyring = std::string_view(keyring) == "1";
  return sources;
}

void check_secret_name(const std::string& name) {
  if (!valid_name(name)) {
    throw Error(errc::invalid_argument,
                "a secret's name is 1 to 64 letters, digits, '_', '-' and '.', not \"" +
                    protocol::printable(name, 80) + "\"");
  }
}

std::vector<std::string> secret_names(const SecretSources& sources,
                                      const detail::CancelToken* cancel) {
  std::vector<std::string> names;
  if (!sources.env_prefix.empty()) {
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
      const std::string_view variable(*entry);
      const std::size_t equals = variable.find('=');
      if (equals == std::string_view::npos || !variable.starts_with(sources.env_prefix)) continue;
      const std::string name(
          variable.substr(sources.env_prefix.size(), equals - sources.env_prefix.size()));
      if (valid_name(name)) names.push_back(name);
    }
  }
  if (!sources.file.empty()) {
    for (const auto& [name, value] : read_file(sources.file)) names.push_back(name);
  }
  if (sources.keyring) {
    for (std::string& name : keyring_names(deadline_after(sources.keyring_timeout), cancel)) {
      if (valid_name(name)) names.push_back(std::move(name));
    }
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::string secret_value(const SecretSources& sources, const std::string& name,
                         const detail::CancelToken* cancel) {
  check_secret_name(name);
  if (!sources.env_prefix.empty()) {
    const std::string variable = sources.env_prefix + name;
    if (const char* value = std::getenv(variable.c_str()); value != nullptr) return value;
  }
  if (!sources.file.empty()) {
    for (auto& [key, value] : read_file(sources.file)) {
      if (key == name) return std::move(value);
    }
  }
  if (sources.keyring) {
    if (std::optional<std::string> value =
            keyring_secret(name, deadline_after(sources.keyring_timeout), cancel))
      return std::move(*value);
  }
  const std::vector<std::string> names = secret_names(sources, cancel);
  std::string known;
  for (const std::string& other : names) known += (known.empty() ? "" : ", ") + other;
  throw Error(
      errc::not_found,
      "no secret named " + name + " (" +
          (known.empty() ? std::string("there are none") : "there are: " + known) +
          "); the operator adds one as the environment variable " +
          (sources.env_prefix.empty() ? std::string("(none read)") : sources.env_prefix + name) +
          " or a line " + name + "=VALUE in a secrets file of mode 0600" +
          (sources.file.empty() ? std::string(" (--secrets-file, $ADBWIRE_SECRETS_FILE)")
                                : " (" + shown(sources.file) + ")") +
          (sources.keyring ? std::string(", or an item of the desktop keyring with schema ") +
                                 kKeyringSchema + " and name " + name
                           : std::string(", or an item of the desktop keyring (with "
                                         "--secrets-keyring)")));
}

}  // namespace adbwire::verbs
