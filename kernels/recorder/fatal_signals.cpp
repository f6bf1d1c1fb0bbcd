// Fatal signals (fatal_signals.h). Each handler is one-shot (SA_RESETHAND): a second fault in
// the handler itself ends the process the default way instead of looping.
#include "kernels/recorder/fatal_signals.h"

#include <signal.h>

#include "kernels/recorder/python_sampler.h"

namespace streamlab::recorder {
namespace {

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM};
struct sigaction g_previous[64];
void (*g_save)() = nullptr;

void RearmFatalHandler(int sig);

void OnFatalSignal(int sig, siginfo_t* info, void* context) {
  // A fault in reading the main thread's stack from the sampler: that read is abandoned (this
  // does not return when it was one).
  if (sig == SIGSEGV || sig == SIGBUS) EscapeFaultInSample(sig, RearmFatalHandler);
  if (g_save) g_save();
  const struct sigaction& prev = g_previous[sig];
  if (prev.sa_flags & SA_SIGINFO) {
    if (prev.sa_sigaction) return prev.sa_sigaction(sig, info, context);
  } else if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN) {
    return prev.sa_handler(sig);
  } else if (prev.sa_handler == SIG_IGN) {
    return;
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

struct sigaction FatalHandler() {
  struct sigaction sa {};
  sa.sa_sigaction = OnFatalSignal;
  sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  return sa;
}

// After a fault the recorder recovered from (SA_RESETHAND took its handler off).
void RearmFatalHandler(int sig) {
  struct sigaction sa = FatalHandler();
  sigaction(sig, &sa, nullptr);
}

}  // namespace

void InstallFatalSignalHandlers(void (*save)()) {
  g_save = save;
  for (int sig : kFatalSignals) {
    struct sigaction sa = FatalHandler();
    sigaction(sig, &sa, &g_previous[sig]);
  }
}

}  // namespace streamlab::recorder
