#pragma once
// A team of two OpenMP threads for the tests that compare a threaded kernel call with
// one-row calls. Without it, OMP_NUM_THREADS=1 (or a one-core CI runner) gives every parallel
// region one thread and those tests would compare a serial call with itself and pass.
#include <omp.h>

namespace peconform {

class TwoThreadTeam {
 public:
  // Asks for exactly two threads (dynamic adjustment off, so the runtime may not give fewer).
  TwoThreadTeam();
  // Restores the caller's settings.
  ~TwoThreadTeam();
  TwoThreadTeam(const TwoThreadTeam&) = delete;
  TwoThreadTeam& operator=(const TwoThreadTeam&) = delete;

  // How many threads a parallel region gets now: what a kernel's region whose `if` clause
  // holds will get, for the test to assert it is 2 (OMP_THREAD_LIMIT, say, could cap it).
  static int granted();

 private:
  int threads_;
  int dynamic_;
};

}  // namespace peconform
