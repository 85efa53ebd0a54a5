#pragma once
// The one error type for bad user input (spec text, JSON, HF configs, command-line values).
// The command line maps it to exit code 2; its message always names the offending value.
#include <stdexcept>
#include <string>

namespace peconform {

class SpecError : public std::runtime_error {
 public:
  explicit SpecError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace peconform
