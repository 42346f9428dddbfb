#include "pairing/known_hosts.hpp"

#include <fstream>
#include <sstream>

#include "adbwire/pairing.hpp"
#include "auth/key_files.hpp"
#include "base/failure.hpp"

namespace adbwire {
namespace {

constexpr std::size_t kMaxKnownHostsFile = 1 << 20;

std::vector<KnownHost> parse_known_hosts(std::string_view text) {
  std::vector<KnownHost> hosts;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    KnownHost host;
    std::string extra;
    if (fields >> host.guid >> host.address && !(fields >> extra) &&
        pairing::is_usable_guid(host.guid)) {
      hosts.push_back(std::move(host));
    }
  }
  return hosts;
}

std::vector<KnownHost> load(const KeyOptions& keys, detail::Failure& failure) {
  const std::filesystem::path path = known_hosts_path(keys);
  if (path.empty()) return {};
  auth::Status status;
  auto text = auth::read_small_file(path, kMaxKnownHostsFile, status);
  if (!text) {
    if (status.code != make_error_code(errc::not_found)) failure.set(status.code, status.detail);
    return {};
  }
  return parse_known_hosts(*text);
}

}  // namespace

std::filesystem::path known_hosts_path(const KeyOptions& keys) {
  const std::filesystem::path key = default_key_path(keys);
  return key.empty() ? key : key.parent_path() / "adbwire_known_hosts";
}

std::vector<KnownHost> load_known_hosts(const KeyOptions& keys) {
  return detail::or_throw([&](detail::Failure& failure) { return load(keys, failure); });
}

std::vector<KnownHost> load_known_hosts(const KeyOptions& keys, std::error_code& error) {
  return detail::or_code(error, [&](detail::Failure& failure) { return load(keys, failure); });
}

bool is_known_host(const std::vector<KnownHost>& hosts, std::string_view name) {
  for (const KnownHost& host : hosts) {
    if (name.starts_with(host.guid)) return true;
  }
  return false;
}

namespace pairing {

bool is_usable_guid(std::string_view guid) {
  if (guid.empty() || guid.size() > kMaxGuidSize) return false;
  for (char c : guid) {
    if (c <= ' ' || c > '~') return false;
  }
  return true;
}

bool remember_host(const KeyOptions& keys, const KnownHost& host, detail::Failure& failure) {
  const std::filesystem::path path = known_hosts_path(keys);
  if (path.empty()) {
    failure.set(errc::not_found, "no home folder to keep the known-hosts file in");
    return false;
  }
  std::vector<KnownHost> hosts = load(keys, failure);
  if (failure) return false;
  std::string text;
  for (const KnownHost& old : hosts) {
    if (old.guid != host.guid) text += old.guid + " " + old.address + "\n";
  }
  text += host.guid + " " + host.address + "\n";
  auth::Status status;
  auto pending = auth::PendingFile::write(path, text, 0600, true, status);
  if (!pending || !pending->commit(status)) {
    failure.set(status.code, status.detail);
    return false;
  }
  return true;
}

}  // namespace pairing
}  // namespace adbwire
