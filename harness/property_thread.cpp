#include "harness/property_thread.hpp"

#include "harness/property_runs.hpp"

namespace peconform::harness {

PropertyThread::PropertyThread(std::vector<PropertyJob> jobs, int cases)
    : jobs_(std::move(jobs)), cases_(cases), finished_(std::async(std::launch::async, [this] { work(); })) {}

PropertyThread::~PropertyThread() { halt(); }

void PropertyThread::work() {
  using Clock = std::chrono::steady_clock;
  for (const PropertyJob& job : jobs_) {
    if (halt_.load()) return;
    const Clock::time_point start = Clock::now();
    std::optional<PropertyVerdict> verdict = run_property(*job.property, *job.points, job.seed, cases_, halt_);
    seconds_ += std::chrono::duration<double>(Clock::now() - start).count();
    if (!verdict) return;
    verdicts_.push_back(std::move(*verdict));
    done_.fetch_add(1);
  }
}

bool PropertyThread::wait_for(std::chrono::milliseconds wait) const {
  return finished_.wait_for(wait) == std::future_status::ready;
}

std::vector<PropertyVerdict> PropertyThread::take_verdicts() {
  finished_.get();
  return std::move(verdicts_);
}

}  // namespace peconform::harness
