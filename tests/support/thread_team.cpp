#include "support/thread_team.hpp"

namespace peconform {

TwoThreadTeam::TwoThreadTeam() : threads_(omp_get_max_threads()), dynamic_(omp_get_dynamic()) {
  omp_set_dynamic(0);
  omp_set_num_threads(2);
}

TwoThreadTeam::~TwoThreadTeam() {
  omp_set_num_threads(threads_);
  omp_set_dynamic(dynamic_);
}

int TwoThreadTeam::granted() {
  int team = 0;
#pragma omp parallel
  {
#pragma omp single
    team = omp_get_num_threads();
  }
  return team;
}

}  // namespace peconform
