// The CLI's subcommands: each one's flags bound to its command struct, and the function
// that runs it. main.cpp parses the line and runs the subcommand that was given.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "app/cli/commands.h"

namespace streamlab {

// Every subcommand's options, filled in by the parser.
struct CliCommands {
  ListCommand list;
  RunCommand run;
  std::string show_path;
  int show_width = 80;
  ExplainCommand explain;
  CompareCommand compare;
  ReplayCommand replay, whatif;
  RecordCommand record;
  std::string import_path;
  std::string import_out = "trace.json";
  std::string probe_out;
  SoakCommand soak;
  VerifyCommand verify;
  ExerciseCommand exercise;
  CalibrateCommand calibrate;
};

struct Subcommand {
  CLI::App* parser = nullptr;
  std::function<int()> run;
};

// Adds every subcommand to `app`, bound to `cmds`; `self` is this executable's path (GPU
// runs and PyTorch runs start it again as a child).
std::vector<Subcommand> AddSubcommands(CLI::App& app, CliCommands& cmds, const std::string& self);

}  // namespace streamlab
