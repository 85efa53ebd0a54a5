#pragma once
#include <stdexcept>

namespace peconform {

inline constexpr int kExitOk = 0;
inline constexpr int kExitCheckFailed = 1;  // the run completed and something did not conform
inline constexpr int kExitBadInput = 2;     // bad spec, option, file or value
inline constexpr int kExitInternal = 3;     // an I/O failure or a bug in peconform itself

// Thrown by a command whose checks ran to completion and found a failure.
class CheckFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace peconform
