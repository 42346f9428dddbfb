// SyncClient: stat/list, pull and push over one "sync:" stream (protocol/sync.md). The stream
// plumbing is services/sync_channel, the pull side services/sync_pull (with pull_plan and
// local_tree) and services/sync_receive, the push side services/sync_push.

#include <optional>
#include <utility>

#include "adbwire/error.hpp"
#include "adbwire/sync.hpp"
#include "base/failure.hpp"
#include "services/pull_plan.hpp"
#include "services/sync_channel.hpp"
#include "services/sync_transfer.hpp"

namespace adbwire {

namespace fs = std::filesystem;
using detail::Failure;

struct SyncClient::Impl {
  explicit Impl(Device& device) : channel(device) {}

  bool stat(std::string_view path, bool follow, RemoteStat& result, Deadline deadline,
            Failure& failure) {
    return channel.stat(path, follow, result, deadline, failure);
  }

  bool list(std::string_view path, std::vector<RemoteEntry>& entries, const SyncLimits& limits,
            Deadline deadline, Failure& failure) {
    std::size_t held = 0;
    return channel.list(
        path,
        [&](std::string&& name, const RemoteStat& st) {
          if (!detail::check_listed_entry(entries.size() + 1, name, path, limits, failure) ||
              !detail::hold_memory(held, sizeof(RemoteEntry) + name.size(), path, limits, failure))
            return false;
          entries.push_back({std::move(name), st});
          return true;
        },
        deadline, failure);
  }

  TransferStats pull(const std::vector<std::string>& remotes, const fs::path& local,
                     const PullOptions& options, Failure& failure) {
    const std::optional<detail::SyncCodec> codec = channel.choose(options.compression);
    const detail::FileFetcher fetch_on_channel =
        [&](const detail::FileFetch& fetch, int fd, SyncProgress& progress,
            std::uint64_t& wire_bytes, Failure& file_failure) {
          return detail::receive_file(channel, fetch, fd, codec, options, progress, wire_bytes,
                                      file_failure);
        };
    return detail::pull_files(channel, remotes, local, options, failure, fetch_on_channel);
  }

  TransferStats push(const std::vector<fs::path>& locals, std::string_view remote,
                     const PushOptions& options, Failure& failure) {
    return detail::push_files(channel, locals, remote, options, failure, detail::send_compressed);
  }

  bool ensure(Deadline deadline, Failure& failure) { return channel.ensure(deadline, failure); }

  // Runs op, keeping last_error and the error_code/throwing pair consistent.
  template <typename T, typename F>
  T run(F&& op, std::error_code* error) {
    Failure failure;
    T result = op(failure);
    last_error = failure.detail;
    if (error) {
      detail::report(std::move(failure), *error);
    } else {
      failure.throw_if_failed();
    }
    return result;
  }

  detail::SyncChannel channel;
  std::string last_error;
};

SyncClient::SyncClient(Device& device, Deadline deadline) : impl_(std::make_unique<Impl>(device)) {
  impl_->run<bool>([&](Failure& f) { return impl_->ensure(deadline, f); }, nullptr);
}

SyncClient::SyncClient(Device& device, Deadline deadline, std::error_code& error)
    : impl_(std::make_unique<Impl>(device)) {
  impl_->run<bool>([&](Failure& f) { return impl_->ensure(deadline, f); }, &error);
}

SyncClient::SyncClient(SyncClient&&) noexcept = default;
SyncClient& SyncClient::operator=(SyncClient&&) noexcept = default;
SyncClient::~SyncClient() = default;

RemoteStat SyncClient::stat(std::string_view path, Deadline deadline) {
  return impl_->run<RemoteStat>(
      [&](Failure& f) {
        RemoteStat s;
        impl_->stat(path, true, s, deadline, f);
        return s;
      },
      nullptr);
}
RemoteStat SyncClient::stat(std::string_view path, Deadline deadline, std::error_code& error) {
  return impl_->run<RemoteStat>(
      [&](Failure& f) {
        RemoteStat s;
        impl_->stat(path, true, s, deadline, f);
        return s;
      },
      &error);
}
RemoteStat SyncClient::lstat(std::string_view path, Deadline deadline) {
  return impl_->run<RemoteStat>(
      [&](Failure& f) {
        RemoteStat s;
        impl_->stat(path, false, s, deadline, f);
        return s;
      },
      nullptr);
}
RemoteStat SyncClient::lstat(std::string_view path, Deadline deadline, std::error_code& error) {
  return impl_->run<RemoteStat>(
      [&](Failure& f) {
        RemoteStat s;
        impl_->stat(path, false, s, deadline, f);
        return s;
      },
      &error);
}

std::vector<RemoteEntry> SyncClient::list(std::string_view path, Deadline deadline) {
  return impl_->run<std::vector<RemoteEntry>>(
      [&](Failure& f) {
        std::vector<RemoteEntry> e;
        impl_->list(path, e, SyncLimits{}, deadline, f);
        return e;
      },
      nullptr);
}
std::vector<RemoteEntry> SyncClient::list(std::string_view path, Deadline deadline,
                                          std::error_code& error) {
  return impl_->run<std::vector<RemoteEntry>>(
      [&](Failure& f) {
        std::vector<RemoteEntry> e;
        impl_->list(path, e, SyncLimits{}, deadline, f);
        return e;
      },
      &error);
}

std::vector<RemoteEntry> SyncClient::list(std::string_view path, const SyncLimits& limits,
                                          Deadline deadline, std::error_code& error) {
  return impl_->run<std::vector<RemoteEntry>>(
      [&](Failure& f) {
        std::vector<RemoteEntry> e;
        impl_->list(path, e, limits, deadline, f);
        return e;
      },
      &error);
}

TransferStats SyncClient::pull(std::string_view remote, const fs::path& local,
                               const PullOptions& options) {
  return pull(std::vector<std::string>{std::string(remote)}, local, options);
}
TransferStats SyncClient::pull(std::string_view remote, const fs::path& local,
                               const PullOptions& options, std::error_code& error) {
  return pull(std::vector<std::string>{std::string(remote)}, local, options, error);
}
TransferStats SyncClient::pull(const std::vector<std::string>& remotes, const fs::path& local,
                               const PullOptions& options) {
  return impl_->run<TransferStats>(
      [&](Failure& f) { return impl_->pull(remotes, local, options, f); }, nullptr);
}
TransferStats SyncClient::pull(const std::vector<std::string>& remotes, const fs::path& local,
                               const PullOptions& options, std::error_code& error) {
  return impl_->run<TransferStats>(
      [&](Failure& f) { return impl_->pull(remotes, local, options, f); }, &error);
}

TransferStats SyncClient::push(const fs::path& local, std::string_view remote,
                               const PushOptions& options) {
  return push(std::vector<fs::path>{local}, remote, options);
}
TransferStats SyncClient::push(const fs::path& local, std::string_view remote,
                               const PushOptions& options, std::error_code& error) {
  return push(std::vector<fs::path>{local}, remote, options, error);
}
TransferStats SyncClient::push(const std::vector<fs::path>& locals, std::string_view remote,
                               const PushOptions& options) {
  return impl_->run<TransferStats>(
      [&](Failure& f) { return impl_->push(locals, remote, options, f); }, nullptr);
}
TransferStats SyncClient::push(const std::vector<fs::path>& locals, std::string_view remote,
                               const PushOptions& options, std::error_code& error) {
  return impl_->run<TransferStats>(
      [&](Failure& f) { return impl_->push(locals, remote, options, f); }, &error);
}

const std::string& SyncClient::last_error() const noexcept { return impl_->last_error; }

TransferStats pull(Device& device, std::string_view remote, const fs::path& local,
                   const PullOptions& options) {
  return SyncClient(device, options.deadline).pull(remote, local, options);
}

TransferStats pull(Device& device, std::string_view remote, const fs::path& local,
                   const PullOptions& options, std::error_code& error) {
  SyncClient client(device, options.deadline, error);
  return error ? TransferStats{} : client.pull(remote, local, options, error);
}

TransferStats push(Device& device, const fs::path& local, std::string_view remote,
                   const PushOptions& options) {
  return SyncClient(device, options.deadline).push(local, remote, options);
}

TransferStats push(Device& device, const fs::path& local, std::string_view remote,
                   const PushOptions& options, std::error_code& error) {
  SyncClient client(device, options.deadline, error);
  return error ? TransferStats{} : client.push(local, remote, options, error);
}

}  // namespace adbwire
