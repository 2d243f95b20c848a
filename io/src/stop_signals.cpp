#include <blockwire/io/stop_signals.hpp>

#include <csignal>
#include <cstring>
#include <pthread.h>
#include <sys/signalfd.h>
#include <unistd.h>

namespace blockwire {

FileDescriptor block_stop_signals() {
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  return FileDescriptor(signalfd(-1, &stop, SFD_CLOEXEC | SFD_NONBLOCK), ownership::own);
}

std::string stop_signal_name(const FileDescriptor& signals) {
  signalfd_siginfo info{};
  if (signals.get() < 0 || ::read(signals.get(), &info, sizeof info) != static_cast<ssize_t>(sizeof info)) return {};
  return strsignal(static_cast<int>(info.ssi_signo));
}

}  // namespace blockwire
