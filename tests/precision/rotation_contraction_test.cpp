// fp contraction (issue 48; docs/triton.md). Compiled Triton on NVIDIA GPUs fuses a product into
// the addition that takes it: the sm_90 PTX Triton 3.9.0 makes of x0*c - x1*s is mul, neg,
// fma.rn.f32 (x0*c never rounded alone), and of bf16 arithmetic fma.rn.bf16. Triton's interpreter,
// NumPy and our CPU kernels round each product. Which of the two products LLVM fuses is its own
// choice, so the GPU-faithful interpreter does not emulate it; instead every rotation recipe's bound
// must hold for a kernel rounding both products, fusing the first or fusing the second. This holds
// each recipe a Triton kernel can compute by (fp32-angle theta=hf or exact-angle; cos/sin held in
// float32 or in the storage dtype; the rotation in float32 or in the storage dtype) in fp32, fp16
// and bf16 over positions to 2^31 - 1, judged element by element by claimed_error_bounds.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "backends/gpu/storage_math.h"
#include "precision/error_model.hpp"
#include "rotation_sweep.hpp"

namespace peconform {
namespace {
namespace rotation_contraction {  // the precision tests build as one unit: names of their own

// Which product of a*b + c*d is fused into the sum; `none` rounds both, as the interpreter does.
enum class Fused { none, first, second };

const char* name(Fused fused) { return fused == Fused::none ? "unfused" : fused == Fused::first ? "first fused" : "second fused"; }

// One rounding of a float32 value to the spec's dtype (to nearest even), held as the float it widens to.
float to_dtype(float value, Dtype dtype) {
  if (dtype == Dtype::fp32) return value;
  return dtype == Dtype::bf16 ? pec_float_of_bf16(pec_bf16_of_float(value)) : pec_float_of_half(pec_half_of_float(value));
}

// One rounding of the exact a*b + e to the dtype, as fma.rn.bf16 or fma.rn.f16 does: the product of
// two floats is exact in double, the sum's rounding error comes back from TwoSum, and rounding to
// odd (in double, then in float) keeps the dtype's one rounding to nearest even exact (Boldo and
// Melquiond 2005; at least two more bits each step).
float fused_in_dtype(float a, float b, float e, Dtype dtype) {
  const double product = static_cast<double>(a) * static_cast<double>(b), addend = e;
  double sum = product + addend;
  const double addend_part = sum - product, lost = (product - (sum - addend_part)) + (addend - addend_part);
  if (lost != 0 && (std::bit_cast<std::uint64_t>(sum) & 1u) == 0) sum = std::nextafter(sum, lost > 0 ? INFINITY : -INFINITY);
  float narrowed = static_cast<float>(sum);
  if (static_cast<double>(narrowed) != sum && (std::bit_cast<std::uint32_t>(narrowed) & 1u) == 0)
    narrowed = std::nextafter(narrowed, sum > narrowed ? INFINITY : -INFINITY);
  return to_dtype(narrowed, dtype);
}

// a*b + c*d as the recipe's arithmetic rounds it, with `fused`'s product kept exact.
float combine(float a, float b, float c, float d, Fused fused, const Spec& spec) {
  if (spec.math == RoundsIn::storage && spec.dtype != Dtype::fp32) {
    // each product rounded to the dtype (from float32, as a float32 cos times a 16-bit x rounds twice), then the sum
    const auto product = [&](float u, float v) { return to_dtype(u * v, spec.dtype); };
    if (fused == Fused::first) return fused_in_dtype(a, b, product(c, d), spec.dtype);
    if (fused == Fused::second) return fused_in_dtype(c, d, product(a, b), spec.dtype);
    return to_dtype(product(a, b) + product(c, d), spec.dtype);
  }
  // float32 arithmetic, one rounding to the dtype on the store
  if (fused == Fused::first) return to_dtype(std::fma(a, b, c * d), spec.dtype);
  if (fused == Fused::second) return to_dtype(std::fma(c, d, a * b), spec.dtype);
  return to_dtype(a * b + c * d, spec.dtype);
}

// A Triton RoPE kernel (half layout) computing by `spec`'s recipe at position p, the rotation's
// products fused as `fused` says. Under exact-angle, cos and sin are the exact ones rounded to float32.
std::vector<float> rotation(const Spec& spec, const Reference<FastReal>& reference, const std::vector<float>& x, std::int64_t p, Fused fused) {
  const int d = spec.d, pairs = d / 2;
  std::vector<float> cos_sin(static_cast<std::size_t>(d));
  if (spec.precision == PrecisionClass::fp32_angle) {
    const float base = static_cast<float>(spec.base.to_double());
    for (int i = 0; i < pairs; ++i) {
      const float angle = static_cast<float>(p) * (1.0f / std::pow(base, static_cast<float>(2 * i) / static_cast<float>(d)));
      cos_sin[static_cast<std::size_t>(i)] = std::cos(angle);
      cos_sin[static_cast<std::size_t>(i + pairs)] = std::sin(angle);
    }
  } else {  // the reference rotates (1, 0) in each pair into (cos, sin)
    std::vector<Wide> unit(static_cast<std::size_t>(d), Wide(0));
    std::fill(unit.begin(), unit.begin() + pairs, Wide(1));
    const std::vector<Wide> exact = reference.evaluate(Point{{p}}, unit);
    for (std::size_t e = 0; e < exact.size(); ++e) cos_sin[e] = static_cast<float>(exact[e]);
  }
  std::vector<float> y(x.size());
  for (int i = 0; i < pairs; ++i) {
    const auto at = [](int index) { return static_cast<std::size_t>(index); };
    float c = cos_sin[at(i)], s = cos_sin[at(i + pairs)];
    if (spec.cache == RoundsIn::storage) c = to_dtype(c, spec.dtype), s = to_dtype(s, spec.dtype);
    const float x0 = x[at(i)], x1 = x[at(i + pairs)];
    y[at(i)] = combine(x0, c, -x1, s, fused, spec);
    y[at(i + pairs)] = combine(x1, c, x0, s, fused, spec);
  }
  return y;
}

using rotation_sweep::kPositions;

struct Sweep {
  double worst_ratio = 0;
  std::uint64_t bounded = 0, failed = 0, differ_from_unfused = 0;
  std::string first_failure;
};

// The kernel computing by `computes` with `fused`, judged by `judged_by`'s bound.
Sweep sweep(const Spec& computes, const Spec& judged_by, Fused fused, std::uint64_t seed) {
  Sweep out;
  rotation_sweep::HeadDraws heads(seed);
  for (const std::int64_t p : kPositions) {
    const Reference<FastReal> reference(judged_by, p + 1);
    for (int head = 0; head < 8; ++head) {
      const std::vector<float> x = heads.next(judged_by.d, judged_by.dtype);
      const std::vector<float> y = rotation(computes, reference, x, p, fused);
      const std::vector<float> unfused = rotation(computes, reference, x, p, Fused::none);
      const std::vector<Wide> input(x.begin(), x.end());
      const std::vector<Wide> exact = reference.evaluate(Point{{p}}, input);
      const std::vector<Wide> bounds = claimed_error_bounds(reference, Point{{p}}, input);
      for (std::size_t e = 0; e < y.size(); ++e) {
        out.differ_from_unfused += y[e] != unfused[e];
        if (isinf(bounds[e])) continue;
        ++out.bounded;
        const double ratio = static_cast<double>(abs(Wide(y[e]) - exact[e]) / bounds[e]);
        out.worst_ratio = std::max(out.worst_ratio, ratio);
        if (ratio > 1 && out.failed++ == 0)
          out.first_failure = fmt::format("{} ({}) at p {} element {}: {} against {} ({}x the bound)", judged_by.canonical(), name(fused), p,
                                          e, y[e], static_cast<double>(exact[e]), ratio);
      }
    }
  }
  return out;
}

// Every recipe a Triton kernel can compute a rotation by.
std::vector<Spec> recipes() {
  std::vector<Spec> specs;
  for (const char* shape : {"d=128,base=10000", "d=64,base=500000"})
    for (const char* angle : {"precision=fp32-angle,theta=hf", "precision=exact-angle"}) {
      specs.push_back(Spec::parse(fmt::format("rope({},layout=half,dtype=fp32,{})", shape, angle)));
      for (const char* dtype : {"fp16", "bf16"})
        for (const char* cache : {"compute", "storage"})
          for (const char* math : {"compute", "storage"})
            specs.push_back(Spec::parse(fmt::format("rope({},layout=half,dtype={},{},cache={},math={})", shape, dtype, angle, cache, math)));
    }
  return specs;
}

TEST(RotationContraction, EveryRecipesBoundHoldsWhicheverProductIsFused) {
  std::uint64_t seed = 48;
  for (const Spec& spec : recipes()) {
    double worst = 0;
    for (const Fused fused : {Fused::none, Fused::first, Fused::second}) {
      const Sweep result = sweep(spec, spec, fused, seed++);
      EXPECT_EQ(result.failed, 0u) << result.first_failure;
      EXPECT_GT(result.bounded, 0u) << spec.canonical();
      worst = std::max(worst, result.worst_ratio);
    }
    std::cout << spec.canonical() << ": worst error / bound " << worst << " over the three orders\n";
    EXPECT_GE(worst, 0.1) << spec.canonical() << ": the bound is tight (DESIGN.md section 2)";
  }
}

TEST(RotationContraction, FusingChangesResultsSoTheSweepTellsTheOrdersApart) {
  // Were the orders to give the same bits, the test above would show nothing about contraction.
  const Spec fp32 = Spec::parse("rope(d=128,base=10000,layout=half,dtype=fp32,precision=fp32-angle,theta=hf)");
  const Spec bf16 = Spec::parse("rope(d=128,base=10000,layout=half,dtype=bf16,precision=fp32-angle,theta=hf,cache=storage,math=storage)");
  for (const Spec& spec : {fp32, bf16})
    for (const Fused fused : {Fused::first, Fused::second}) {
      const Sweep result = sweep(spec, spec, fused, 7);
      std::cout << spec.canonical() << " (" << name(fused) << "): " << result.differ_from_unfused << " of " << 16 * 8 * spec.d
                << " elements differ from the unfused rotation\n";
      EXPECT_GT(result.differ_from_unfused, 0u) << spec.canonical();
    }
}

TEST(RotationContraction, AFusedKernelStillFailsARecipeItDoesNotCompute) {
  // cos and sin rounded to the 16-bit dtype, judged as if held in float32: caught in either order.
  for (const char* dtype : {"fp16", "bf16"}) {
    const Spec computes = Spec::parse(fmt::format("rope(d=128,base=10000,layout=half,dtype={},precision=fp32-angle,theta=hf,cache=storage)", dtype));
    Spec claimed = computes;
    claimed.cache = RoundsIn::compute;
    for (const Fused fused : {Fused::first, Fused::second}) EXPECT_GT(sweep(computes, claimed, fused, 11).failed, 0u) << dtype << " " << name(fused);
  }
}

}  // namespace rotation_contraction
}  // namespace
}  // namespace peconform
