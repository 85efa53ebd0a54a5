// Measures the worst absolute error of cpu::sin_cos(), the sine and cosine every CPU kernel
// evaluates, which the error model charges 2^-52 each (precision/error_model.hpp). The method,
// the figures and the command lines are in precision/measured_constants.md.
//
// Arguments come from four strata, one in four indices each, so that no kind of argument is
// drowned by another. Argument i of a stratum is a pure function of (seed, stratum, i): the
// result does not depend on the number of threads, and a worst case can be replayed alone.
// Every argument is first measured against a cheap reference in x87 extended precision (glibc's
// sincosl, 64-bit significand); those whose error it puts above a screening threshold, and one
// in 64 of all the others, are measured again against binary128 (libquadmath's sincosq), which
// decides the worst cases; the largest gap seen between the two references bounds how far the
// screen may err on the arguments it let through. Each worst case is finally recomputed with
// MPFR from the exact angle, so that the figures reported do not lean on libquadmath either.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <fmt/format.h>
#include <mpfr.h>
#include <omp.h>
#include <quadmath.h>
#include <string>

#include "backends/cpu/angle.hpp"

namespace {

__extension__ typedef __float128 Quad;

using peconform::cpu::Angle;

constexpr int kStrata = 4;
constexpr std::uint64_t kAuditEvery = 64;  // one argument in this many is measured in binary128 whatever the screen says
const char* const kStratumNames[kStrata] = {"four quadrants, |x| <= 2 pi", "near multiples of pi/2, |x| < 2^50",
                                            "exact-angle p (hi + lo), |x| < 2^50", "fp32-angle float(p theta), |x| < 2^50"};

// SplitMix64's finaliser (Steele, Lea and Flood, 2014): a counter-based generator, so that any
// thread draws argument i of stratum s without drawing those before it.
std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15u;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

// The `which`-th uniform draw in [0, 1), 53 bits, for argument `index` of `stratum`.
double uniform(std::uint64_t seed, int stratum, std::uint64_t index, int which) {
  const std::uint64_t key = mix(seed ^ mix(static_cast<std::uint64_t>(stratum) << 8 | static_cast<std::uint64_t>(which)));
  return static_cast<double>(mix(key ^ mix(index)) >> 11) * 0x1p-53;
}

double random_sign(double draw) { return draw < 0.5 ? -1.0 : 1.0; }

// An integer position log-uniform in [1, largest], with a random sign (relative positions and
// negated positions reach the kernels too).
double position_up_to(std::int64_t largest, double magnitude_draw, double sign_draw) {
  const double position = std::floor(std::exp2(std::log2(static_cast<double>(largest)) * magnitude_draw));
  return random_sign(sign_draw) * std::min(position, static_cast<double>(largest));
}

// The angles the kernels form: frequencies up to 2 (every plan's largest is at most 1, the base
// frequency; 2 leaves room) and down to 2^-40, positions up to largest_position_for() them.
constexpr double kFrequencyOctaves = 41;

Angle draw_angle(std::uint64_t seed, int stratum, std::uint64_t index) {
  auto draw = [&](int which) { return uniform(seed, stratum, index, which); };
  switch (stratum) {
    case 0:  // every quadrant of both signs, where the polynomials' own error dominates
      return {(2 * draw(0) - 1) * 0x1.921fb54442d18p+2, 0.0};
    case 1: {  // k pi/2 + delta: the reduction cancels all but the last bits of the angle
      const double k = std::floor(std::exp2(49 * draw(0)));
      const Quad half_pi = acosq(Quad(0));
      const double multiple = static_cast<double>(Quad(k) * half_pi);
      const double delta = random_sign(draw(1)) * std::exp2(-50 * draw(2));
      return {random_sign(draw(3)) * (multiple + delta), 0.0};
    }
    case 2: {  // exact_angle(p, hi + lo), the tail included, as the exact-angle kernels form it
      const double hi = std::exp2(1 - kFrequencyOctaves * draw(0));
      const double lo = (2 * draw(1) - 1) * std::ldexp(0.5, std::ilogb(hi) - 52);
      const double position = position_up_to(peconform::cpu::largest_position_for(hi), draw(2), draw(3));
      return peconform::cpu::exact_angle(position, {hi, lo});
    }
    default: {  // float32_angle(float(p), float(theta)), as the fp32-angle kernels form it
      const double theta = static_cast<float>(std::exp2(1 - kFrequencyOctaves * draw(0)));
      const double position = position_up_to(peconform::cpu::largest_position_for(theta), draw(2), draw(3));
      return peconform::cpu::float32_angle(static_cast<float>(position), theta);
    }
  }
}

// sin and cos of head + tail in extended precision, for screening: the sum s rounds with a
// residual e, |e| <= 2^-14 for |head| < 2^50, found exactly (TwoSum); sin(s + e) =
// sin s cos e + cos s sin e with cos e and sin e from their Taylor series (terms dropped below
// e^6 / 720 <= 2^-93).
struct Screen {
  long double sin, cos;
};
Screen screen(const Angle& angle) {
  const long double head = angle.head, tail = angle.tail;
  const long double sum = head + tail;
  const long double tail_part = sum - head;
  const long double residual = (head - (sum - tail_part)) + (tail - tail_part);
  const long double square = residual * residual;
  const long double cos_residual = 1 - square / 2 + square * square / 24;
  const long double sin_residual = residual - residual * square / 6;
  long double sine, cosine;
  sincosl(sum, &sine, &cosine);
  return {sine * cos_residual + cosine * sin_residual, cosine * cos_residual - sine * sin_residual};
}

struct Reference {
  Quad sin, cos;
};

// sin and cos of head + tail. The sum s rounds to binary128 with a residual e, |e| <= 2^-64
// for |head| < 2^50, found exactly (Knuth's TwoSum); sin(s + e) = sin s + e cos s within
// e^2 / 2 <= 2^-129, and likewise for cos.
Reference reference(const Angle& angle) {
  const Quad head = angle.head, tail = angle.tail;
  const Quad sum = head + tail;
  const Quad tail_part = sum - head;
  const Quad residual = (head - (sum - tail_part)) + (tail - tail_part);
  Quad sine, cosine;
  sincosq(sum, &sine, &cosine);
  return {sine + residual * cosine, cosine - residual * sine};
}

// The error of `value` against sin (or cos) of the exact angle head + tail, from MPFR: the
// angle is held exactly (|head| < 2^50 and tail a double need at most 50 + 1074 + 1 bits).
double exact_error(const Angle& angle, double value, bool cosine) {
  mpfr_t x, y;
  mpfr_init2(x, 1200);
  mpfr_init2(y, 160);
  mpfr_set_d(x, angle.head, MPFR_RNDN);
  mpfr_add_d(x, x, angle.tail, MPFR_RNDN);  // exact at this precision
  if (cosine)
    mpfr_cos(y, x, MPFR_RNDN);
  else
    mpfr_sin(y, x, MPFR_RNDN);
  mpfr_d_sub(y, value, y, MPFR_RNDN);
  const double error = std::abs(mpfr_get_d(y, MPFR_RNDN));
  mpfr_clears(x, y, static_cast<mpfr_ptr>(nullptr));
  return error;
}

struct Worst {
  double error = -1;  // in units of 2^-52
  std::uint64_t index = 0;
  Angle angle;
  double value = 0;

  // The larger error, ties to the smaller index, so that the merge is the same in any order.
  void take(const Worst& other) {
    if (other.error > error || (other.error == error && other.index < index)) *this = other;
  }
};

// Binade b >= 1 holds 2^(b-1) <= |head| < 2^b, binade 0 holds |head| < 1: where the error grows
// with the angle, this says from which angle on.
constexpr int kBinades = 51;
int binade_of(double head) { return head == 0 ? 0 : std::clamp(std::ilogb(head) + 1, 0, kBinades - 1); }

struct Worsts {
  Worst sin[kStrata], cos[kStrata];
  Worst sin_by_binade[kBinades], cos_by_binade[kBinades];  // over all strata, indexed by i
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Worst absolute error of cpu::sin_cos() against binary128 and MPFR (precision/measured_constants.md)"};
  std::uint64_t arguments = 1'000'000'000;
  std::uint64_t seed = 1;
  double limit = 1.0;
  double threshold = 0.45;
  double largest_angle = 0x1p50;
  app.add_option("--arguments", arguments, "how many arguments, split evenly over the four strata")->check(CLI::PositiveNumber);
  app.add_option("--seed", seed, "seed of the counter-based argument generator");
  app.add_option("--limit", limit,
                 "exit 1 unless every worst error is below this many units of 2^-52 (the error model charges 1)");
  app.add_option("--threshold", threshold,
                 "screened errors above this many units of 2^-52 are measured again in binary128");
  app.add_option("--largest-angle", largest_angle,
                 "skip arguments with |head| at or above this (the kernels accept up to 2^50)");
  CLI11_PARSE(app, argc, argv);

  const auto start = std::chrono::steady_clock::now();
  Worsts worst;
  int threads = 1;
  double gap = 0;  // the largest |screened error - binary128 error| seen, units of 2^-52
  std::uint64_t rechecked = 0, skipped = 0;
#pragma omp parallel
  {
#pragma omp single
    threads = omp_get_num_threads();
    Worsts local;
    double local_gap = 0;
    std::uint64_t local_rechecked = 0, local_skipped = 0;
#pragma omp for schedule(static, 1 << 16)
    for (std::uint64_t i = 0; i < arguments; ++i) {
      const int stratum = static_cast<int>(i % kStrata);
      const std::uint64_t index = i / kStrata;
      const Angle angle = draw_angle(seed, stratum, index);
      if (std::abs(angle.head) >= largest_angle) {
        ++local_skipped;
        continue;
      }
      const peconform::cpu::SinCos value = peconform::cpu::sin_cos(angle);
      const Screen cheap = screen(angle);
      double sin_error = static_cast<double>(std::abs(value.sin - cheap.sin) * 0x1p52L);
      double cos_error = static_cast<double>(std::abs(value.cos - cheap.cos) * 0x1p52L);
      if (std::max(sin_error, cos_error) > threshold || index % kAuditEvery == 0) {
        const Reference exact = reference(angle);
        const double sin_exact = static_cast<double>(fabsq(Quad(value.sin) - exact.sin) * Quad(0x1p52));
        const double cos_exact = static_cast<double>(fabsq(Quad(value.cos) - exact.cos) * Quad(0x1p52));
        local_gap = std::max({local_gap, std::abs(sin_error - sin_exact), std::abs(cos_error - cos_exact)});
        ++local_rechecked;
        sin_error = sin_exact;
        cos_error = cos_exact;
      }
      local.sin[stratum].take({sin_error, index, angle, value.sin});
      local.cos[stratum].take({cos_error, index, angle, value.cos});
      const int binade = binade_of(angle.head);
      local.sin_by_binade[binade].take({sin_error, i, angle, value.sin});
      local.cos_by_binade[binade].take({cos_error, i, angle, value.cos});
    }
#pragma omp critical
    {
      gap = std::max(gap, local_gap);
      rechecked += local_rechecked;
      skipped += local_skipped;
    }
#pragma omp critical
    for (int stratum = 0; stratum < kStrata; ++stratum) {
      worst.sin[stratum].take(local.sin[stratum]);
      worst.cos[stratum].take(local.cos[stratum]);
    }
#pragma omp critical
    for (int binade = 0; binade < kBinades; ++binade) {
      worst.sin_by_binade[binade].take(local.sin_by_binade[binade]);
      worst.cos_by_binade[binade].take(local.cos_by_binade[binade]);
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  fmt::print("cpu::sin_cos over {} arguments (seed {}, {} threads, {:.0f} s)\n", arguments, seed, threads, seconds);
  if (skipped > 0) fmt::print("{} arguments at or above |head| = {:a} skipped\n", skipped, largest_angle);
  fmt::print("screen: extended precision, threshold {}; {} arguments measured again in binary128 (all above the "
             "threshold and one in {}); largest gap between the two references {:.3e}, so every argument not "
             "measured again has error below {:.6f}\n",
             threshold, rechecked, kAuditEvery, gap, threshold + gap);
  fmt::print("errors in units of 2^-52: binary128 reference (sincosq), then MPFR on the exact angle\n");
  bool within = true;
  double overall[2] = {0, 0};
  for (int stratum = 0; stratum < kStrata; ++stratum) {
    fmt::print("{}: {} arguments\n", kStratumNames[stratum], (arguments + kStrata - 1 - stratum) / kStrata);
    for (int function = 0; function < 2; ++function) {
      const Worst& w = function == 0 ? worst.sin[stratum] : worst.cos[stratum];
      const double exact = exact_error(w.angle, w.value, function == 1) * 0x1p52;
      overall[function] = std::max(overall[function], exact);
      within = within && exact < limit && w.error < limit;
      fmt::print("  {} worst {:.6f} (MPFR {:.6f}) at index {}, head {:a}, tail {:a}\n", function == 0 ? "sin" : "cos",
                 w.error, exact, w.index, w.angle.head, w.angle.tail);
    }
  }
  fmt::print("worst by binade of |head| (binary128 above the threshold, screened below it), sin and cos:\n");
  for (int binade = 0; binade < kBinades; ++binade) {
    const Worst &sine = worst.sin_by_binade[binade], &cosine = worst.cos_by_binade[binade];
    if (sine.error < 0) continue;  // no argument fell in it
    const std::string from = binade == 0 ? std::string("0") : fmt::format("2^{}", binade - 1);
    fmt::print("  [{}, 2^{}) {:.6f} {:.6f}\n", from, binade, sine.error, cosine.error);
  }
  fmt::print("overall worst: sin {:.6f}, cos {:.6f} units of 2^-52; limit {}: {}\n", overall[0], overall[1], limit,
             within ? "within" : "EXCEEDED");
  return within ? 0 : 1;
}
