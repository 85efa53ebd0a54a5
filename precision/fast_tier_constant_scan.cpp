// How much of the fast tier's allowances its errors use (reference/tier_bounds.cpp). The bound
// of a rotated pair is B = S (|phi| (w |ln theta| + 16 + x) + 20 + g), S = A r u (r = 1 for a
// table entry; w and x what the frequency plan adds, g the xPos amplitude growth), and
// |b| u (|ln m| + 16) for an ALiBi bias. Put one constant C in place of both allowances and
// B(C) = B + (C |phi| + C - 16 |phi| - 20) S is linear in C: the C an element needs, error =
// B(C), is C = (error - B + S (16 |phi| + 20)) / (S (|phi| + 1)), and likewise
// (error - B + 16 |b| u) / (|b| u) for ALiBi. This program evaluates both tiers at
// counter-drawn points of specs covering every frequency plan and angular family and reports
// per spec the largest C any element needed and the worst error/B. The derivation it checks is
// in precision/measured_constants.md.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <fmt/format.h>
#include <span>
#include <string>
#include <vector>

#include "reference/element_scales.hpp"
#include "reference/tier_bounds.hpp"
#include "reference/tier_conversion.hpp"

namespace peconform {
namespace {

// Specs chosen for the roundings each plan adds: every plan, the dynamic-NTK cancellation at
// length = orig with a large factor and small d (its exponent d/(d-2) is largest at d = 4),
// YaRN's ramp and attention factor, llama3's three bands, LongRoPE past orig, xPos to its
// position limit, every angular family, and ALiBi with many heads (the smallest slopes).
const char* const kSpecs[] = {
    "rope(d=64,base=10000,layout=half)",
    "rope(d=128,base=500000,layout=half,scaling=linear(factor=4))",
    "rope(d=16,base=10000,layout=half,scaling=dynamic(factor=2,orig=64,len=64))",
    "rope(d=4,base=10000,layout=half,scaling=dynamic(factor=64,orig=4096,len=4096))",
    "rope(d=4,base=10000,layout=half,scaling=dynamic(factor=7.3,orig=3,len=3))",
    "rope(d=4,base=10000,layout=half,scaling=dynamic(factor=1000.7,orig=3,len=3))",
    "rope(d=64,base=10000,layout=half,scaling=dynamic(factor=8,orig=2048,len=1000000))",
    "rope(d=256,base=1000000000,layout=half,scaling=dynamic(factor=1000,orig=2048,len=2048))",
    "rope(d=64,base=10000,layout=half,scaling=yarn(factor=40,orig=4096,beta_fast=32,mscale=0.707,mscale_all_dim=1))",
    "rope(d=16,base=10000,layout=half,scaling=yarn(factor=8,orig=128,beta_fast=16,beta_slow=2,truncate=false))",
    "rope(d=128,base=10000,layout=half,scaling=yarn(factor=40,orig=4096,truncate=false))",
    "rope(d=128,base=500000,layout=half,scaling=llama3(factor=8,orig=8192))",
    "rope(d=8,base=10000,layout=half,scaling=longrope(factor=4,orig=16,short=[1,1.25,1.5,2],long=[2,4,8,16],len=17))",
    "rope(d=8,base=10000,layout=half,scaling=custom(factors=[1,2,4,8]))",
    "xpos(d=32,base=10000,layout=interleaved)",
    "mrope(d=32,base=10000,layout=half,sections=[4,6,6])",
    "rope2d(d=16,base=100,layout=interleaved)",
    "sinusoidal(d=64,base=10000,layout=interleaved)",
    "sinusoidal(d=64,base=10000,layout=interleaved,freq=geometric)",
    "sinusoidal(d=512,base=1000000000,layout=interleaved,freq=geometric)",
    "sinusoidal(d=64,base=1e30,layout=interleaved,freq=geometric)",
    "sinusoidal(d=64,base=1e30,layout=interleaved)",
    "xl(d=64,base=10000)",
    "alibi(heads=12)",
    "alibi(heads=64)",
};

// SplitMix64's finaliser: draw `which` of point `index` of spec `spec_index`, without state.
std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15u;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

double uniform(std::uint64_t seed, std::uint64_t spec_index, std::uint64_t index, int which) {
  const std::uint64_t key = mix(seed ^ mix(spec_index << 8 | static_cast<std::uint64_t>(which)));
  return static_cast<double>(mix(key ^ mix(index)) >> 11) * 0x1p-53;
}

// A coordinate log-uniform in [0, largest], negative half the time where the family allows it.
std::int64_t coordinate(std::int64_t largest, bool signed_coordinate, double magnitude, double sign) {
  const auto value = static_cast<std::int64_t>(std::exp2(std::log2(static_cast<double>(largest) + 1) * magnitude)) - 1;
  return signed_coordinate && sign < 0.5 ? -value : value;
}

struct SpecResult {
  double needed = -INFINITY;  // the largest C any element needed
  double worst_ratio = 0;     // the largest error / B
  std::string where;
};

SpecResult scan(const Spec& spec, std::uint64_t seed, std::uint64_t spec_index, int points) {
  const bool rotary = spec.family == Family::rope || spec.family == Family::xpos || spec.family == Family::mrope ||
                      spec.family == Family::rope2d;
  const std::int64_t largest = spec.family == Family::xpos ? xpos_position_limit(spec) : (std::int64_t{1} << 31) - 1;
  const std::int64_t length = spec.scaling.length.value_or(largest + 1);
  const Reference<ExactReal> exact(spec, length);
  const Reference<FastReal> fast(spec, length);
  const ExactReal unit = ldexp(ExactReal(1), -113);
  SpecResult result;
  for (int index = 0; index < points; ++index) {
    auto draw = [&](int which) { return uniform(seed, spec_index, static_cast<std::uint64_t>(index), which); };
    Point point;
    for (int axis = 0; axis < point_arity(spec.family); ++axis)
      point.c[static_cast<std::size_t>(axis)] =
          coordinate(largest, spec.family != Family::sinusoidal, draw(2 * axis), draw(2 * axis + 1));
    std::vector<ExactReal> exact_input;
    std::vector<FastReal> fast_input;
    for (std::size_t e = 0; e < exact.input_size(); ++e) {
      const double value = 2 * draw(16 + static_cast<int>(e)) - 1;  // doubles, exact in both tiers
      exact_input.emplace_back(value);
      fast_input.emplace_back(value);
    }
    const std::vector<ExactReal> expected = exact.evaluate(point, exact_input);
    const std::vector<FastReal> actual = fast.evaluate(point, fast_input);
    const std::vector<ExactReal> bounds = fast_tier_bounds<ExactReal>(exact, point, exact_input);
    // Of each element: what one unit of C adds to B, and what the allowances 16 and 20 add.
    std::vector<ExactReal> per_unit(expected.size(), ExactReal(0)), allowances(expected.size(), ExactReal(0));
    auto set = [&](std::size_t e, const ExactReal& scale, const ExactReal& angle) {
      per_unit[e] = scale * (abs(angle) + 1);
      allowances[e] = scale * (16 * abs(angle) + 20);
    };
    if (rotary) {
      for (const RotaryPairScale<ExactReal>& pair : rotary_pair_scales(exact, point, std::span<const ExactReal>(exact_input))) {
        set(pair.a, pair.attention * pair.xpos * pair.norm * unit, pair.angle);
        set(pair.b, pair.attention * pair.xpos * pair.norm * unit, pair.angle);
      }
    } else if (spec.family == Family::alibi) {
      for (std::size_t h = 0; h < expected.size(); ++h) {
        per_unit[h] = abs(expected[h]) * unit;
        allowances[h] = 16 * per_unit[h];
      }
    } else {
      for (const TablePairScale<ExactReal>& pair : table_pair_scales(exact, point)) {
        set(pair.first, unit, pair.angle);
        set(pair.second, unit, pair.angle);
      }
    }
    for (std::size_t e = 0; e < expected.size(); ++e) {
      if (per_unit[e] == 0 || isinf(expected[e])) continue;
      const ExactReal error = abs(to_exact_tier(actual[e]) - expected[e]);
      const double needed = static_cast<double>((error - bounds[e] + allowances[e]) / per_unit[e]);
      result.worst_ratio = std::max(result.worst_ratio, static_cast<double>(error / bounds[e]));
      if (needed > result.needed) {
        result.needed = needed;
        result.where = fmt::format("element {} at {}", e, format_point(spec.family, point));
      }
    }
  }
  return result;
}

}  // namespace
}  // namespace peconform

int main(int argc, char** argv) {
  CLI::App app{"Constant the fast tier's errors need, against its allowances 16 and 20 (precision/measured_constants.md)"};
  int points = 2000;
  std::uint64_t seed = 1;
  app.add_option("--points", points, "points per spec")->check(CLI::PositiveNumber);
  app.add_option("--seed", seed, "seed of the counter-based point generator");
  CLI11_PARSE(app, argc, argv);

  const auto start = std::chrono::steady_clock::now();
  double needed = -INFINITY, worst_ratio = 0;
  std::uint64_t spec_index = 0;
  for (const char* text : peconform::kSpecs) {
    const peconform::Spec spec = peconform::Spec::parse(text);
    const peconform::SpecResult result = peconform::scan(spec, seed, spec_index++, points);
    needed = std::max(needed, result.needed);
    worst_ratio = std::max(worst_ratio, result.worst_ratio);
    fmt::print("{}\n  constant needed {:.3f}, worst error/B {:.4f} ({})\n", text, result.needed, result.worst_ratio,
               result.where);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print("{} points per spec, seed {}, {:.0f} s; largest constant needed {:.3f} (allowances 16 and 20), worst "
             "error/B {:.4f}\n",
             points, seed, seconds, needed, worst_ratio);
  return worst_ratio <= 1 ? 0 : 1;
}
