#pragma once
// How OpenMP's idle threads wait during `peconform run`: passively, unless the user chose.
//
// libgomp reads OMP_WAIT_POLICY once, as it loads, before main. Unset, a thread of the team
// with nothing to do spins for a while (GOMP_SPINCOUNT) before it sleeps: at the end of every
// parallel region, and between regions while the calling thread works alone. A campaign runs
// its property catalog on a thread of its own beside the team (harness/property_thread.hpp),
// and those spins take the core that thread needs: the ci profile on 2 cores took 16.4-16.6 s
// and 31.4-31.6 s of CPU spinning, 15.3-15.5 s and 27.5-27.8 s passive (tools/BENCHMARKS.md,
// "Fifth step"). So `run` executes itself again, once, with OMP_WAIT_POLICY=passive, where
// neither it nor GOMP_SPINCOUNT is set; where that exec fails, the run goes on as it is.
namespace peconform {

void wait_passively_in_campaigns(int argc, char** argv);

}  // namespace peconform
