// Error types shared by the engine, the executors and the CLI.
// InputError = the user's input is wrong (CLI exit 2); BackendError = the requested backend
// cannot run here (CLI exit 3); RunError = a run started but failed (CLI exit 4).
#pragma once

#include <stdexcept>
#include <string>

namespace streamlab {

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class BackendError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class RunError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace streamlab
