// Fuzzes pull planning with a device whose listings come from the input: whatever it lists, a
// plan that succeeds holds only single-component names within SyncLimits, and a plan that fails
// says protocol_error, limit_exceeded or not_found. Input: byte 0 sets small limits; then for
// each folder listed, entries of [kind, name length, name bytes] until a 0xFF kind byte.
#include <sys/stat.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "services/pull_plan.hpp"

namespace {

using namespace adbwire;
using namespace adbwire::detail;

class FuzzLister final : public PullLister {
 public:
  FuzzLister(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}

  bool stat(std::string_view path, RemoteStat& result, Failure& failure) override {
    if (path.empty() || next() % 7 == 0) {
      failure.set(errc::not_found, "no such path");
      return false;
    }
    result.mode = (next() & 1) ? S_IFDIR | 0755 : S_IFREG | 0644;
    result.size = next();
    return true;
  }

  bool list(std::string_view, const std::function<bool(std::string&&, const RemoteStat&)>& on_entry,
            Failure&) override {
    while (at_ < size_) {
      const std::uint8_t kind = next();
      if (kind == 0xFF) break;
      const std::size_t length = next();
      std::string name;
      for (std::size_t i = 0; i < length && at_ < size_; ++i) name += static_cast<char>(next());
      RemoteStat st;
      switch (kind % 4) {
        case 0:
          st.mode = S_IFREG | 0644;
          break;
        case 1:
          st.mode = S_IFDIR | 0755;
          break;
        case 2:
          st.mode = S_IFLNK | 0777;
          break;
        default:
          st.mode = S_IFIFO | 0644;
      }
      st.size = kind;
      if (!on_entry(std::move(name), st)) return false;
    }
    return true;
  }

 private:
  std::uint8_t next() { return at_ < size_ ? data_[at_++] : 0xFF; }

  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 1;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  SyncLimits limits;
  limits.max_listing_entries = 1 + data[0] % 64;
  limits.max_tree_entries = 1 + data[0] % 200;
  limits.max_depth = data[0] % 16;
  limits.max_name_length = 1 + data[0] % 40;
  FuzzLister lister(data, size);
  PullPlan plan(limits);
  Failure failure;
  const bool built = plan.build({{"/sdcard/root", "root"}}, lister, failure);
  if (!built) {
    if (failure.code != errc::protocol_error && failure.code != errc::limit_exceeded &&
        failure.code != errc::not_found)
      std::abort();
    return 0;
  }
  if (plan.entries().size() > limits.max_tree_entries) std::abort();
  for (std::uint32_t i = 1; i < plan.entries().size(); ++i) {
    const PlanEntry& entry = plan.entries()[i];
    if (unsafe_name_reason(entry.name, limits.max_name_length) != nullptr) std::abort();
    if (entry.parent >= i) std::abort();
    if (entry.depth > limits.max_depth + 1) std::abort();
    if (plan.local_path(i).find("..") == 0 || plan.local_path(i).find("/../") != std::string::npos)
      std::abort();
  }
  return 0;
}
