#include "cli/forward_wait.hpp"

#include <pthread.h>

namespace adbwire::cli {
namespace {

sigset_t stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

}  // namespace

void block_stop_signals() {
  const sigset_t set = stop_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

void wait_for_stop_signal() {
  const sigset_t set = stop_signals();
  int received = 0;
  sigwait(&set, &received);
}

}  // namespace adbwire::cli
