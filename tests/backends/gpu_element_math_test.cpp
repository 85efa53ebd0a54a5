// The element math of the GPU backends (backends/gpu/*.h), built here by the host compiler, held
// bit for bit to the CPU kernels it mirrors (backends/cpu/), which the CPU tests hold to the
// reference: so every value the OpenCL and CUDA kernels compute from it is, on the host, the
// CPU's own. Sampled densely where a rounding decides (every 16-bit pattern, every rounding
// boundary of every float32 exponent and mantissa prefix, quadrant boundaries of sin and cos,
// positions near 2^40) and randomly elsewhere, from a fixed seed.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <span>
#include <vector>

#include "backends/cpu/angle.hpp"
#include "backends/cpu/index_kernels.hpp"
#include "backends/cpu/rotary_kernels.hpp"
#include "backends/cpu/rotary_plan.hpp"
#include "backends/cpu/storage.hpp"
#include "backends/cpu/t5_plan.hpp"
#include "backends/cpu/table_kernels.hpp"
#include "backends/cpu/theta_recipe.hpp"
#include "backends/gpu/element_index.h"
#include "backends/gpu/storage_math.h"

namespace peconform::cpu {
namespace {

std::uint16_t half_bits(Half value) {
  std::uint16_t bits;
  static_assert(sizeof(Half) == sizeof bits);
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

Half half_of_bits(std::uint16_t bits) {
  Half value;
  std::memcpy(&value, &bits, sizeof bits);
  return value;
}

// Every float32 whose top `kept` bits are any prefix and whose dropped bits sit at or beside a
// rounding decision (zero, one, just below, at and just above the halfway point, all ones), plus
// one random tail per prefix: every exponent, subnormals, the overflow threshold, infinities and
// NaN payloads included.
template <class Check> void for_rounding_boundaries(int dropped, Check check) {
  std::mt19937 random(20);
  const std::uint32_t half = std::uint32_t{1} << (dropped - 1), all = (std::uint32_t{1} << dropped) - 1;
  const std::uint32_t tails[] = {0, 1, half - 1, half, half + 1, all};
  for (std::uint64_t prefix = 0; prefix < (std::uint64_t{1} << (32 - dropped)); ++prefix) {
    const auto base = static_cast<std::uint32_t>(prefix << dropped);
    for (const std::uint32_t tail : tails) check(base | tail);
    check(base | (random() & all));
  }
}

TEST(GpuElementMath, HalfFromFloatRoundsAsTheCpuStorageTypeOnEveryBoundary) {
  std::int64_t mismatches = 0;
  for_rounding_boundaries(13, [&](std::uint32_t bits) {
    const float value = std::bit_cast<float>(bits);
    const std::uint16_t cpu = half_bits(static_cast<Half>(value)), gpu = pec_half_of_float(value);
    if (cpu != gpu && ++mismatches <= 5) ADD_FAILURE() << std::hex << "float bits 0x" << bits << ": cpu 0x" << cpu << ", gpu 0x" << gpu;
  });
  EXPECT_EQ(mismatches, 0);
  // The edges by value: the largest finite, the overflow tie, the smallest subnormal's half.
  EXPECT_EQ(pec_half_of_float(65504.0f), 0x7bffu);
  EXPECT_EQ(pec_half_of_float(65520.0f), 0x7c00u);
  EXPECT_EQ(pec_half_of_float(std::nextafter(65520.0f, 0.0f)), 0x7bffu);
  EXPECT_EQ(pec_half_of_float(0x1p-25f), 0x0000u);
  EXPECT_EQ(pec_half_of_float(std::nextafter(0x1p-25f, 1.0f)), 0x0001u);
}

TEST(GpuElementMath, HalfToFloatWidensAsTheCpuStorageTypeForEveryPattern) {
  for (std::uint32_t bits = 0; bits <= 0xffffu; ++bits) {
    const auto pattern = static_cast<std::uint16_t>(bits);
    const float cpu = static_cast<float>(half_of_bits(pattern)), gpu = pec_float_of_half(pattern);
    ASSERT_EQ(std::bit_cast<std::uint32_t>(cpu), std::bit_cast<std::uint32_t>(gpu)) << std::hex << "half 0x" << bits;
  }
}

TEST(GpuElementMath, Bfloat16RoundsAndWidensAsTheCpuStorageType) {
  std::int64_t mismatches = 0;
  for_rounding_boundaries(16, [&](std::uint32_t bits) {
    const float value = std::bit_cast<float>(bits);
    const std::uint16_t cpu = narrow_to_bfloat16(value).bits, gpu = pec_bf16_of_float(value);
    if (cpu != gpu && ++mismatches <= 5) ADD_FAILURE() << std::hex << "float bits 0x" << bits << ": cpu 0x" << cpu << ", gpu 0x" << gpu;
  });
  EXPECT_EQ(mismatches, 0);
  for (std::uint32_t bits = 0; bits <= 0xffffu; ++bits) {
    const auto pattern = static_cast<std::uint16_t>(bits);
    ASSERT_EQ(std::bit_cast<std::uint32_t>(widen_bfloat16({pattern})), std::bit_cast<std::uint32_t>(pec_float_of_bf16(pattern)))
        << std::hex << "bf16 0x" << bits;
  }
}

void expect_same_sin_cos(const Angle& cpu_angle, const pec_angle& gpu_angle, std::int64_t& mismatches) {
  const bool angles_equal = std::bit_cast<std::uint64_t>(cpu_angle.head) == std::bit_cast<std::uint64_t>(gpu_angle.head) &&
                            std::bit_cast<std::uint64_t>(cpu_angle.tail) == std::bit_cast<std::uint64_t>(gpu_angle.tail);
  const SinCos cpu = sin_cos(cpu_angle);
  const pec_sin_cos_pair gpu = pec_sin_cos(gpu_angle);
  const bool values_equal = std::bit_cast<std::uint64_t>(cpu.sin) == std::bit_cast<std::uint64_t>(gpu.sin) &&
                            std::bit_cast<std::uint64_t>(cpu.cos) == std::bit_cast<std::uint64_t>(gpu.cos);
  if ((!angles_equal || !values_equal) && ++mismatches <= 5)
    ADD_FAILURE() << std::hexfloat << "angle " << cpu_angle.head << " + " << cpu_angle.tail << " (gpu " << gpu_angle.head << " + "
                  << gpu_angle.tail << "): cpu sin " << cpu.sin << " cos " << cpu.cos << ", gpu sin " << gpu.sin << " cos " << gpu.cos;
}

TEST(GpuElementMath, ExactAngleAndItsSinCosAreTheCpusBitForBit) {
  std::mt19937_64 random(20);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::int64_t mismatches = 0;
  for (int n = 0; n < 200000; ++n) {
    // Positions from 0 to 2^40 on a log scale, signed; frequencies from 1 down to 1e-9 with a
    // low part, as the host's plans split them.
    const double magnitude = std::floor(std::exp2(unit(random) * 40.0));
    const double position = (n % 3 == 0) ? -magnitude : magnitude;
    const double hi = std::exp(-unit(random) * 21.0);
    const double lo = hi * 0x1p-54 * (unit(random) - 0.5);
    const double largest = static_cast<double>(largest_position_for(hi));
    if (std::fabs(position) > largest) continue;
    expect_same_sin_cos(exact_angle(position, {hi, lo}), pec_exact_angle(position, {hi, lo}), mismatches);
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(GpuElementMath, SinCosAgreesAtQuadrantBoundariesAndNearTwoToTheFifty) {
  std::int64_t mismatches = 0;
  const double half_pi = 0x1.921fb54442d18p+0;
  // k pi/2 and the doubles around it, for k up to about 2^49 / (pi/2), with tails of both signs.
  for (double k = 0; k < 0x1p48; k = k < 64 ? k + 1 : std::floor(k * 1.37)) {
    double head = k * half_pi;
    for (int step = 0; step < 4; ++step) head = std::nextafter(head, 0.0);
    for (int step = 0; step < 9; ++step, head = std::nextafter(head, INFINITY))
      for (const double tail_ulps : {0.0, 0.5, -0.5, 0.25}) {
        const double tail = tail_ulps * (std::nextafter(head, INFINITY) - head);
        expect_same_sin_cos({head, tail}, {head, tail}, mismatches);
        expect_same_sin_cos({-head, -tail}, {-head, -tail}, mismatches);
      }
  }
  std::mt19937_64 random(50);
  for (int n = 0; n < 20000; ++n) {
    const double head = std::ldexp(1.0 + std::ldexp(static_cast<double>(random() >> 12), -52), 49) * (n % 2 ? 1 : -1);
    expect_same_sin_cos({head, 0.0}, {head, 0.0}, mismatches);
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(GpuElementMath, Float32AngleIsTheCpusBitForBit) {
  std::mt19937_64 random(32);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::int64_t mismatches = 0;
  for (int n = 0; n < 100000; ++n) {
    const auto position = static_cast<float>(std::floor(std::exp2(unit(random) * 31.0)));
    const auto frequency = static_cast<float>(std::exp(-unit(random) * 21.0));
    expect_same_sin_cos(float32_angle(position, frequency), pec_float32_angle(position, frequency), mismatches);
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(GpuElementMath, GgmlRunningProductIsTheCpusAngleByAngle) {
  for (const char* text : {"rope(d=128,base=10000,precision=fp32-angle,theta=ggml)",
                           "rope(d=64,base=500000,precision=fp32-angle,theta=ggml,scaling=linear(factor=4))",
                           "rope(d=10,base=1e4,rot=6,precision=fp32-angle,theta=ggml)",
                           "rope(d=64,base=1e4,precision=fp32-angle,theta=ggml,scaling=yarn(factor=8,orig=2048))",
                           "rope(d=8,base=5e5,precision=fp32-angle,theta=ggml,scaling=custom(factors=[1,1.5,3.25,8]))"}) {
    const RotaryPlan plan = make_rotary_plan(Spec::parse(text), 1);
    ASSERT_TRUE(plan.float32.running) << text;
    std::vector<double> angles(static_cast<std::size_t>(plan.frequency_count));
    for (const float position : {0.0f, 1.0f, 7.0f, 4095.0f, 131071.0f, 1048575.0f, 16777215.0f, 2147483648.0f, -3.0f}) {
      ggml_angles(plan.float32, position, plan.frequency_count, angles.data());
      for (int k = 0; k < plan.frequency_count; ++k) {
        const auto index = static_cast<std::size_t>(k);
        const float divisor = plan.float32.divisor.empty() ? 1.0f : plan.float32.divisor[index];
        const bool yarn = !plan.float32.ramp.empty();
        const pec_angle gpu = pec_ggml_angle(position, plan.float32.scale, k, divisor, plan.float32.freq_scale, yarn,
                                             yarn ? plan.float32.ramp[index] : 0.0f);
        ASSERT_EQ(std::bit_cast<std::uint64_t>(gpu.head), std::bit_cast<std::uint64_t>(angles[static_cast<std::size_t>(k)]))
            << text << " position " << position << " k " << k;
        ASSERT_EQ(gpu.tail, 0.0);
      }
    }
  }
}

// The CPU kernel's rotation of one token (every layout, partial rotary first and last, xPos's
// amplitude, YaRN's attention factor, the nanochat sign) against the same token rotated pair by
// pair with pec_rotary_pair, pec_rotary_cos_sin and pec_rotate_f64.
TEST(GpuElementMath, RotaryPairsAndTheirRotationAreTheCpuKernelsInEveryLayout) {
  for (const char* text : {"rope(d=16,layout=interleaved)", "rope(d=16,layout=half)", "rope(d=16,layout=interleaved-to-half)",
                           "rope(d=20,layout=half,rot=8)", "rope(d=20,layout=interleaved,rot=8,rot_at=last)",
                           "rope(d=20,layout=interleaved-to-half,rot=12,rot_at=last,sign=-1)",
                           "rope(d=32,base=1e4,layout=half,scaling=yarn(factor=4,orig=4096))", "xpos(d=16,base=1e4,rot=8,role=key)",
                           "xpos(d=12,layout=interleaved)", "rope(d=16,layout=half,precision=fp32-angle,theta=hf)"}) {
    const Spec spec = Spec::parse(text);
    const RotaryPlan plan = make_rotary_plan(spec, 1);
    const int layout = spec.layout == Layout::interleaved ? PEC_GPU_LAYOUT_INTERLEAVED
                       : spec.layout == Layout::half      ? PEC_GPU_LAYOUT_HALF
                                                          : PEC_GPU_LAYOUT_INTERLEAVED_TO_HALF;
    const bool float_angle = spec.precision == PrecisionClass::fp32_angle;
    std::vector<double> x(static_cast<std::size_t>(spec.d));
    for (std::size_t e = 0; e < x.size(); ++e) x[e] = 0.75 + 0.125 * static_cast<double>(e) - (e % 3 == 0 ? 2.0 : 0.0);
    for (const std::int64_t position : {std::int64_t{0}, std::int64_t{5}, std::int64_t{4097}, std::int64_t{1} << 30}) {
      std::vector<double> cpu(x.size());
      std::vector<std::int64_t> ids{position};
      const RotaryOperand<double> operand{bshd<const double>(x.data(), 1, 1, 1, spec.d), bshd<double>(cpu.data(), 1, 1, 1, spec.d)};
      apply_rotary<double>(plan, std::span(&operand, 1), position_ids(ids.data(), 1, 1, 1));

      std::vector<double> gpu = x;  // pass-through elements stay
      for (int i = 0; i < plan.pairs; ++i) {
        const pec_angle angle = float_angle ? pec_float32_angle(static_cast<float>(position), static_cast<float>(plan.frequency_f32[i]))
                                            : pec_exact_angle(static_cast<double>(position), {plan.frequency[i].hi, plan.frequency[i].lo});
        const double log_zeta = plan.xpos_log_zeta.empty() ? 0.0 : plan.xpos_log_zeta[static_cast<std::size_t>(i)];
        const pec_sin_cos_pair cos_sin = pec_rotary_cos_sin(angle, plan.attention, static_cast<double>(position), log_zeta, spec.sign);
        const pec_pair_elements at = pec_rotary_pair(layout, plan.start, plan.pairs, i);
        const pec_rotated_f64 y = pec_rotate_f64(x[static_cast<std::size_t>(at.read_a)], x[static_cast<std::size_t>(at.read_b)],
                                                 cos_sin.cos, cos_sin.sin);
        gpu[static_cast<std::size_t>(at.write_a)] = y.a;
        gpu[static_cast<std::size_t>(at.write_b)] = y.b;
      }
      for (std::size_t e = 0; e < x.size(); ++e)
        ASSERT_EQ(std::bit_cast<std::uint64_t>(cpu[e]), std::bit_cast<std::uint64_t>(gpu[e]))
            << text << " position " << position << " element " << e << ": cpu " << cpu[e] << ", gpu " << gpu[e];
    }
  }
}

TEST(GpuElementMath, SinusoidElementsAreTheCpuTablesInEveryLayout) {
  for (const char* text : {"sinusoidal(d=16,layout=interleaved)", "sinusoidal(d=9,layout=interleaved)",
                           "sinusoidal(d=9,layout=half,order=cos-sin,offset=2)", "sinusoidal(d=16,layout=half,freq=geometric)",
                           "sinusoidal(d=10,base=10000,layout=half,precision=fp32-angle,theta=exp-log)",
                           "xl(d=12,clamp_len=300)", "xl(d=8,base=10000,precision=fp32-angle)"}) {
    const Spec spec = Spec::parse(text);
    const SinusoidPlan plan = make_sinusoid_plan(spec);
    const bool absolute = spec.family == Family::sinusoidal;
    const bool interleaved = absolute && spec.layout == Layout::interleaved;
    const bool cos_first = absolute && spec.order == SinusoidalOrder::cos_sin;
    const bool float_angle = spec.precision == PrecisionClass::fp32_angle;
    // 280 puts xl's clamp_len=300 inside the rows.
    for (const std::int64_t first : {std::int64_t{0}, std::int64_t{280}, (std::int64_t{1} << 39) + 3}) {
      constexpr std::int64_t kRows = 40;
      std::vector<double> table(static_cast<std::size_t>(kRows * spec.d));
      sinusoid_rows<double>(plan, first, kRows, table.data(), spec.d);
      for (std::int64_t r = 0; r < kRows; ++r)
        for (int e = 0; e < spec.d; ++e) {
          const pec_sinusoid_term term = pec_sinusoid_element(spec.d, interleaved, cos_first, e);
          double gpu = 0;
          if (!term.is_zero) {
            const pec_i64 position = pec_sinusoid_row_position(absolute, first, r, spec.offset, spec.clamp_len);
            const auto pair = static_cast<std::size_t>(term.pair);
            const pec_angle angle = float_angle ? pec_float32_angle(static_cast<float>(position), static_cast<float>(plan.frequency_f32[pair]))
                                                : pec_exact_angle(static_cast<double>(position), {plan.frequency[pair].hi, plan.frequency[pair].lo});
            const pec_sin_cos_pair value = pec_sin_cos(angle);
            gpu = term.is_cos ? value.cos : value.sin;
          }
          const double cpu = table[static_cast<std::size_t>(r * spec.d + e)];
          ASSERT_EQ(std::bit_cast<std::uint64_t>(cpu), std::bit_cast<std::uint64_t>(gpu))
              << text << " first " << first << " row " << r << " element " << e << ": cpu " << cpu << ", gpu " << gpu;
        }
    }
  }
}

TEST(GpuElementMath, AlibiBiasIsTheCpusForEveryHeadQueryAndKey) {
  for (const char* text : {"alibi(heads=12,mode=causal)", "alibi(heads=8)", "alibi(heads=12,precision=fp32-angle)",
                           "alibi(heads=5,slopes=bloom,precision=fp32-angle,mode=causal)", "alibi(heads=12,slopes=bloom,precision=fp32-angle)",
                           "alibi(heads=12,mode=key)", "alibi(heads=6,slopes=mpt,precision=fp32-angle,mode=key)",
                           "alibi(heads=12,mode=last-key)", "alibi(heads=24,slopes=mpt,precision=fp32-angle,mode=last-key)"}) {
    const Spec spec = Spec::parse(text);
    const AlibiPlan plan = make_alibi_plan(spec);
    const int mode = static_cast<int>(spec.mode);
    const bool float_angle = spec.precision == PrecisionClass::fp32_angle;
    // Keys beside the queries, and keys 2^39 + 2^15 before them: distances that float32 cannot
    // hold, around the midpoint between two float32 values, where rounding them decides.
    const std::int64_t far_query = (std::int64_t{1} << 40) - 64;
    const std::pair<std::int64_t, std::int64_t> firsts[] = {
        {0, 0}, {90, 70}, {far_query, far_query - 20}, {far_query, far_query - (std::int64_t{1} << 39) - (std::int64_t{1} << 15) - 20}};
    for (const auto& [q_first, k_first] : firsts) {
      constexpr std::int64_t kQueries = 24, kKeys = 40;
      const auto heads = static_cast<std::int64_t>(plan.slope.size());
      std::vector<double> cpu(static_cast<std::size_t>(heads * kQueries * kKeys));
      alibi_bias<double>(plan, q_first, kQueries, k_first, kKeys, cpu.data());
      for (std::int64_t h = 0; h < heads; ++h)
        for (std::int64_t q = 0; q < kQueries; ++q)
          for (std::int64_t k = 0; k < kKeys; ++k) {
            const auto head = static_cast<std::size_t>(h);
            const double gpu = pec_alibi_bias(q_first + q, k_first + k, k_first + kKeys - 1, plan.slope[head],
                                              static_cast<float>(plan.slope_f32[head]), float_angle, mode);
            const double expected = cpu[static_cast<std::size_t>((h * kQueries + q) * kKeys + k)];
            ASSERT_EQ(std::bit_cast<std::uint64_t>(expected), std::bit_cast<std::uint64_t>(gpu))
                << text << " head " << h << " query " << q_first + q << " key " << k_first + k;
          }
    }
  }
}

TEST(GpuElementMath, T5BucketsAndShawIndicesAreTheCpusForEveryPair) {
  constexpr std::int64_t kQueries = 60, kKeys = 300;
  const std::int64_t firsts[] = {0, 200, (std::int64_t{1} << 40) - kKeys};
  for (const char* text : {"t5(buckets=32,max_distance=128)", "t5(buckets=32,max_distance=128,bidirectional=false)",
                           "t5(buckets=8,max_distance=20)", "t5(buckets=64,max_distance=1000,bidirectional=false)"}) {
    const T5Plan plan = make_t5_plan(Spec::parse(text));
    for (const std::int64_t q_first : firsts) {
      const std::int64_t k_first = q_first > 100 ? q_first - 100 : 0;
      std::vector<std::int32_t> cpu(static_cast<std::size_t>(kQueries * kKeys));
      t5_buckets(plan, q_first, kQueries, k_first, kKeys, cpu.data());
      for (std::int64_t q = 0; q < kQueries; ++q)
        for (std::int64_t k = 0; k < kKeys; ++k)
          ASSERT_EQ(cpu[static_cast<std::size_t>(q * kKeys + k)],
                    pec_t5_bucket((k_first + k) - (q_first + q), plan.spec.bidirectional, plan.spec.buckets / 2, plan.exact,
                                  plan.bucket_start.data(), static_cast<int>(plan.bucket_start.size())))
              << text << " query " << q_first + q << " key " << k_first + k;
    }
  }
  // Asymmetric windows too (wav2vec2-BERT's left 64, right 8), wider on either side.
  for (const char* text : {"shaw(k=4)", "shaw(k=1)", "shaw(k=64)", "shaw(k=64,right=8)", "shaw(k=2,right=0)", "shaw(k=1,right=30)"}) {
    const Spec spec = Spec::parse(text);
    for (const std::int64_t q_first : firsts) {
      std::vector<std::int32_t> cpu(static_cast<std::size_t>(kQueries * kKeys));
      shaw_indices(spec, q_first, kQueries, q_first, kKeys, cpu.data());
      for (std::int64_t q = 0; q < kQueries; ++q)
        for (std::int64_t k = 0; k < kKeys; ++k)
          ASSERT_EQ(cpu[static_cast<std::size_t>(q * kKeys + k)], pec_shaw_index(k - q, spec.k, spec.shaw_right()))
              << text << " query " << q << " key " << k;
    }
  }
}

}  // namespace
}  // namespace peconform::cpu
