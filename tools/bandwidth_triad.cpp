#include "tools/bandwidth_triad.hpp"

#include <chrono>

namespace peconform {

BandwidthTriad::BandwidthTriad(std::int64_t elements)
    : elements_(elements),
      a_(static_cast<std::size_t>(elements), 0.0),
      b_(static_cast<std::size_t>(elements), 1.0),
      c_(static_cast<std::size_t>(elements), 2.0) {}

double BandwidthTriad::run() {
  const double scalar = 3.0;
  double* a = a_.data();
  const double* b = b_.data();
  const double* c = c_.data();
  const auto start = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < elements_; ++i) a[i] = b[i] + scalar * c[i];
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace peconform
