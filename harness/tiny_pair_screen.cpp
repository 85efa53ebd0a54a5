// Compiled with -ffp-contract=off (harness/CMakeLists.txt): the double-double products and sums
// are exact only unfused.
#include "harness/tiny_pair_screen.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <optional>

#include "harness/double_double.hpp"
#include "harness/rotary_row_screen.hpp"

namespace peconform::harness {
namespace {

// The exponent of the power of two ulps_between counts `reference`'s ULPs in.
int ulp_spacing(double reference, const UlpFormat& format) {
  const int biased = static_cast<int>((std::bit_cast<std::uint64_t>(reference) >> 52) & 0x7ff);
  return std::max(biased - 1023, format.min_exponent) - format.mantissa_bits;
}

// What the element's check shares with its pair's other element, scaled by 2^k.
struct ScaledPair {
  int k = 0;
  double r = 0, scale = 0, absolute = 0, store_absolute = 0, screen = 0;
};

// One element whose exact reference is first + second (each an exact product), its output `y`
// scaled (`actual` unscaled): its ratio's histogram bin where the element is neutral
// (tiny_pair_screen.hpp), else nothing.
std::optional<int> neutral_bin(double y, double actual, const DoubleDouble& first, const DoubleDouble& second, const ScaledPair& p,
                               const RotaryBoundTerms<double>& terms, const UlpFormat& format, const TallyMaxima& maxima) {
  const DoubleDouble head = two_sum(first.hi, second.hi);
  const double low = head.lo + (first.lo + second.lo);  // reference = head.hi + low, within 2^-103 T
  const double magnitudes = std::abs(first.hi) + std::abs(second.hi);
  const DoubleDouble difference = two_sum(y, -head.hi);
  const double error = std::abs(difference.hi + (difference.lo - low));
  const double error_allowance = 0x1p-50 * error + 0x1p-100 * magnitudes + 0x1p-1060;
  const double element = std::abs(head.hi + low) + p.screen;
  const double bound =
      ((p.scale * terms.relative + p.r * terms.per_norm + p.absolute) * (1 + terms.final) + terms.final * element + p.store_absolute) *
      kBoundRounding;
  const double bound_low = bound * (1 - 0x1p-47), bound_high = bound * (1 + 0x1p-47);
  const double error_high = error + error_allowance;
  if (!(error_high + p.screen * (1 + 0x1p-48) <= bound_low)) return std::nullopt;
  const double ratio_low = std::max(error - error_allowance, 0.0) / bound_high * (1 - 0x1p-50);
  const double ratio_high = error_high / bound_low * (1 + 0x1p-50);
  const int bin = ratio_bin(ratio_low);
  if (bin != ratio_bin(ratio_high) || ratio_high > maxima.worst_ratio || ratio_high > maxima.worst_at_position) return std::nullopt;
  // binary128's reference rounded to double lies between these ends; ulps_between counts in one
  // spacing across them (the same sign and binade, or both in the format's subnormal range), and
  // |actual - reference| is largest at one of them.
  const double allowance = 0x1p-102 * magnitudes + 0x1p-1060;
  const double low_end = std::nextafter(std::ldexp(std::nextafter(head.hi + std::nextafter(low - allowance, -INFINITY), -INFINITY), -p.k), -INFINITY);
  const double high_end = std::nextafter(std::ldexp(std::nextafter(head.hi + std::nextafter(low + allowance, INFINITY), INFINITY), -p.k), INFINITY);
  const int spacing = ulp_spacing(low_end, format);
  if (spacing != ulp_spacing(high_end, format)) return std::nullopt;
  if (std::signbit(low_end) != std::signbit(high_end) && spacing != format.min_exponent - format.mantissa_bits) return std::nullopt;
  if (std::max(ulps_between(actual, low_end, format), ulps_between(actual, high_end, format)) > maxima.max_ulp) return std::nullopt;
  return bin;
}

}  // namespace

NeutralPair screen_tiny_pair(const TinyPair& pair, const RotaryBoundTerms<double>& terms, const UlpFormat& format,
                             const TallyMaxima& maxima) {
  const double largest_input = std::max(std::abs(pair.xa), std::abs(pair.xb));
  const bool usable = !format.integer && terms.constrains() && largest_input > 0 && pair.xa * pair.xa + pair.xb * pair.xb < 0.5 &&
                      std::isfinite(pair.ya) && std::isfinite(pair.yb) && std::isfinite(pair.cos) && std::isfinite(pair.sin) &&
                      pair.amplitude > 0 && std::isfinite(pair.amplitude) && std::isfinite(pair.reference_relative);
  if (!usable) return {};
  ScaledPair p;
  p.k = -std::ilogb(largest_input);
  const double xa = std::ldexp(pair.xa, p.k), xb = std::ldexp(pair.xb, p.k);
  const double ya = std::ldexp(pair.ya, p.k), yb = std::ldexp(pair.yb, p.k);
  p.r = std::sqrt(xa * xa + xb * xb);
  p.scale = pair.amplitude * p.r;
  p.absolute = std::ldexp(terms.absolute, p.k);
  p.store_absolute = std::ldexp(terms.store_absolute, p.k);
  p.screen = p.scale * pair.reference_relative;
  if (!std::isfinite(ya) || !std::isfinite(yb) || !std::isfinite(p.scale) || !std::isfinite(p.absolute) || !std::isfinite(p.store_absolute))
    return {};
  const DoubleDouble a_cos = two_product(xa, pair.cos), b_sin = two_product(xb, pair.sin);
  const DoubleDouble a_sin = two_product(xa, pair.sin), b_cos = two_product(xb, pair.cos);
  // Element a is xa c - xb s, element b is xa s + xb c.
  const std::optional<int> bin_a = neutral_bin(ya, pair.ya, a_cos, {-b_sin.hi, -b_sin.lo}, p, terms, format, maxima);
  if (!bin_a) return {};
  const std::optional<int> bin_b = neutral_bin(yb, pair.yb, a_sin, b_cos, p, terms, format, maxima);
  if (!bin_b) return {};
  return {true, {*bin_a, *bin_b}};
}

}  // namespace peconform::harness
