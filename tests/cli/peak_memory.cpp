// Runs a command and writes its own peak resident memory (bytes) to a file: peak_memory OUT CMD...
// A child started straight from Python carries Python's memory high-water mark into its own
// (the kernel keeps it across exec when the child shared or copied Python's pages); started
// from this small process instead, the command's figure is its own.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: peak_memory OUT_FILE COMMAND [ARGS...]\n");
    return 2;
  }
  pid_t child = fork();
  if (child < 0) return 2;
  if (child == 0) {
    execvp(argv[2], argv + 2);
    std::perror(argv[2]);
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  if (wait4(child, &status, 0, &usage) < 0) return 2;
  FILE* out = std::fopen(argv[1], "w");
  if (!out) return 2;
  std::fprintf(out, "%ld\n", usage.ru_maxrss * 1024L);  // Linux: KiB
  std::fclose(out);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
