#include "base/signal_cleanup.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <csignal>
#include <cstring>
#include <utility>

namespace adbwire::detail {
namespace {

// A slot is free (kFree), being filled or emptied by its owner (kBusy), or names a file a
// handler may remove (kReady). Only kReady slots are read by the handler.
enum State : int { kFree, kBusy, kReady };

struct Slot {
  std::atomic<int> state{kFree};
  int folder_fd = -1;
  char name[256] = {};
};

std::array<Slot, SignalCleanup::kSlots> g_slots;
std::atomic<bool> g_installed{false};

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

void on_signal(int signal) {
  remove_registered_files();
  std::signal(signal, SIG_DFL);
  ::raise(signal);
}

}  // namespace

SignalCleanup::SignalCleanup(int folder_fd, std::string_view name) noexcept {
  if (name.size() >= sizeof(Slot::name)) return;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    Slot& slot = g_slots[static_cast<std::size_t>(i)];
    if (!slot.state.compare_exchange_strong(expected, kBusy)) continue;
    slot.folder_fd = folder_fd;
    std::memcpy(slot.name, name.data(), name.size());
    slot.name[name.size()] = '\0';
    slot.state.store(kReady);
    slot_ = i;
    return;
  }
}

SignalCleanup::SignalCleanup(SignalCleanup&& other) noexcept
    : slot_(std::exchange(other.slot_, -1)) {}

SignalCleanup& SignalCleanup::operator=(SignalCleanup&& other) noexcept {
  if (this != &other) {
    release();
    slot_ = std::exchange(other.slot_, -1);
  }
  return *this;
}

void SignalCleanup::release() noexcept {
  if (slot_ < 0) return;
  g_slots[static_cast<std::size_t>(std::exchange(slot_, -1))].state.store(kFree);
}

void remove_registered_files() noexcept {
  for (Slot& slot : g_slots) {
    if (slot.state.load() == kReady) ::unlinkat(slot.folder_fd, slot.name, 0);
  }
}

void remove_on_signals() noexcept {
  if (g_installed.exchange(true)) return;
  for (const int signal : kSignals) {
    struct sigaction now {};
    if (::sigaction(signal, nullptr, &now) != 0 || now.sa_handler == SIG_IGN) continue;
    struct sigaction action {};
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    for (const int other : kSignals) sigaddset(&action.sa_mask, other);
    ::sigaction(signal, &action, nullptr);
  }
}

}  // namespace adbwire::detail
