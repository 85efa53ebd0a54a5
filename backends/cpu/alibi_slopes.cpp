#include "backends/cpu/alibi_slopes.hpp"

#include <bit>
#include <cmath>
#include <fmt/format.h>

#include "spec/spec_error.hpp"

namespace peconform::cpu {
namespace {

// 2^(-8h/n) through exp2, as a kernel library computes it: for n a power of two the exponent
// -8h/n is exact in double, and exp2 is within 1 ulp (glibc), exact where the slope is a power
// of two. The paper's start * ratio^i, with start = ratio = 2^(-8/n), rounds more often.
std::vector<double> power_of_two_slopes(int heads) {
  std::vector<double> slopes;
  for (int h = 1; h <= heads; ++h) slopes.push_back(std::exp2(-8.0 * h / heads));
  return slopes;
}

}  // namespace

std::vector<double> alibi_slopes(int heads) {
  if (heads < 1) throw SpecError(fmt::format("ALiBi needs heads >= 1, found {}", heads));
  const auto count = static_cast<unsigned>(heads);
  if (std::has_single_bit(count)) return power_of_two_slopes(heads);
  const int closest = static_cast<int>(std::bit_floor(count));
  std::vector<double> slopes = power_of_two_slopes(closest);
  const std::vector<double> doubled = power_of_two_slopes(2 * closest);
  for (int i = 0; i < heads - closest; ++i) slopes.push_back(doubled[static_cast<std::size_t>(2 * i)]);
  return slopes;
}

std::vector<float> bloom_slopes(int heads) {
  if (heads < 1) throw SpecError(fmt::format("ALiBi needs heads >= 1, found {}", heads));
  const int closest = static_cast<int>(std::bit_floor(static_cast<unsigned>(heads)));
  // Python's 2 ** (-(2 ** -(log2(c) - 3))), a double, then torch.tensor(..., dtype=float32).
  const auto series_base = [](int count) {
    return static_cast<float>(std::pow(2.0, -std::pow(2.0, -(std::log2(static_cast<double>(count)) - 3))));
  };
  std::vector<float> slopes;
  const float base = series_base(closest);
  for (int h = 1; h <= closest; ++h) slopes.push_back(std::pow(base, static_cast<float>(h)));
  const float extra_base = series_base(2 * closest);
  for (int i = 0; i < heads - closest; ++i) slopes.push_back(std::pow(extra_base, static_cast<float>(2 * i + 1)));
  return slopes;
}

std::vector<float> mpt_slopes(int heads) {
  if (heads < 1) throw SpecError(fmt::format("ALiBi needs heads >= 1, found {}", heads));
  const int ceiling = static_cast<int>(std::bit_ceil(static_cast<unsigned>(heads)));
  std::vector<float> series;
  for (int k = 1; k <= ceiling; ++k)
    series.push_back(1.0f / std::pow(2.0f, static_cast<float>(k) * (8.0f / static_cast<float>(ceiling))));
  if (ceiling == heads) return series;
  std::vector<float> slopes;
  for (std::size_t k = 1; k < series.size(); k += 2) slopes.push_back(series[k]);
  for (std::size_t k = 0; slopes.size() < static_cast<std::size_t>(heads); k += 2) slopes.push_back(series[k]);
  return slopes;
}

}  // namespace peconform::cpu
