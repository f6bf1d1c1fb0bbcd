// streamlab-cli: the headless front end. Parses the command line and maps errors to exit
// codes: 0 ok, 1 a verify check (or an exercise goal) failed, 2 bad input, 3 no usable backend, 4 run failed.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <climits>
#include <iostream>

#include "app/cli/cli_options.h"
#include "app/cli/commands.h"
#include "engine/util/errors.h"

namespace {

constexpr const char* kFooter = R"(
Exit codes: 0 ok, 1 a verify check failed, 2 bad input, 3 no usable GPU, 4 the run failed.

Profile a lab in Nsight Systems (each op is an NVTX range named after it):
  nsys profile --trace=cuda,nvtx -o w2-legacy streamlab-cli run w2-legacy-default-stall --backend cuda --variant legacy)";

std::string SelfPath(const char* argv0) {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) return std::string(buf, static_cast<size_t>(n));
  return argv0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace streamlab;
  CLI::App app{"StreamLab: CUDA streams and events, run and explained"};
  app.footer(kFooter);
  app.require_subcommand(1);

  CliCommands commands;
  std::vector<Subcommand> subcommands = AddSubcommands(app, commands, SelfPath(argv[0]));

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "streamlab-cli: " << e.what() << " (see --help)\n";
    return kExitBadInput;
  }

  try {
    for (const Subcommand& subcommand : subcommands)
      if (subcommand.parser->parsed()) return subcommand.run();
  } catch (const InputError& e) {
    std::cerr << "streamlab-cli: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const BackendError& e) {
    std::cerr << "streamlab-cli: " << e.what() << "\n";
    return kExitNoBackend;
  } catch (const std::exception& e) {
    std::cerr << "streamlab-cli: run failed: " << e.what() << "\n";
    return kExitRunError;
  }
  return kExitBadInput;
}
