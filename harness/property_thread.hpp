#pragma once
// The campaign's property runs on a thread of their own, so that they go on beside its cases
// instead of after them. RapidCheck is not thread-safe, and this thread is the only one that
// uses it. A property calls the backend's point evaluator while a case may call the backend's
// tensor kernel: every backend with points allows that (the CPU kernels and the reference
// tiers hold no state between calls, and the OpenCL backend takes its lock for each).
#include <atomic>
#include <chrono>
#include <cstdint>
#include <future>
#include <vector>

#include "harness/campaign_result.hpp"
#include "properties/property.hpp"

namespace peconform::harness {

struct PropertyJob {
  const Property* property;
  const Implementation* points;
  std::uint64_t seed;
};

class PropertyThread {
 public:
  // Starts running the jobs in order, `cases` RapidCheck cases each.
  PropertyThread(std::vector<PropertyJob> jobs, int cases);
  // Halts, then waits for the property under way to stop.
  ~PropertyThread();
  PropertyThread(const PropertyThread&) = delete;
  PropertyThread& operator=(const PropertyThread&) = delete;

  std::size_t total() const { return jobs_.size(); }
  std::size_t done() const { return done_.load(); }
  // Stops the property under way before its next RapidCheck case, its verdict dropped, and
  // starts no other.
  void halt() { halt_.store(true); }
  // Waits up to `wait` for the thread to end; true once it has.
  bool wait_for(std::chrono::milliseconds wait) const;
  // Waits for the thread to end, then gives the verdicts of the properties that ran, in job
  // order (seconds(): the time they took). Rethrows what a run threw. Call once.
  std::vector<PropertyVerdict> take_verdicts();
  double seconds() const { return seconds_; }

 private:
  void work();

  std::vector<PropertyJob> jobs_;
  int cases_;
  std::vector<PropertyVerdict> verdicts_;
  double seconds_ = 0;
  std::atomic<std::size_t> done_{0};
  std::atomic<bool> halt_{false};
  std::future<void> finished_;  // last, so that it is destroyed first: its destructor joins
};

}  // namespace peconform::harness
