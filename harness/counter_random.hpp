#pragma once
// Counter-based random numbers: every value is a pure function of (seed, stream, index), so a
// case draws the same data whichever thread fills which element, and a shrunk case reads the
// values of the original case's elements without drawing the rest. SplitMix64's finaliser
// (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014) mixes
// the counter; its constants are theirs.
#include <algorithm>
#include <cstdint>

namespace peconform::harness {

inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// counter_hash(seed, stream, index) with the half that depends on (seed, stream) alone formed
// once, for loops over the index.
class CounterKey {
 public:
  CounterKey(std::uint64_t seed, std::uint64_t stream) : mixed_(mix64(seed + 0x9e3779b97f4a7c15ull * (stream + 1))), stream_(stream) {}
  std::uint64_t operator()(std::uint64_t index) const { return mix64(mixed_ ^ (index * 0xd1b54a32d192ed03ull + stream_)); }
  // Its two halves, for the vector form of operator() (activation_draw.cpp).
  std::uint64_t mixed() const { return mixed_; }
  std::uint64_t stream() const { return stream_; }

 private:
  std::uint64_t mixed_, stream_;
};

inline std::uint64_t counter_hash(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  return CounterKey(seed, stream)(index);
}

// A uniform double in [0, 1) from the top 53 bits.
inline double unit_interval(std::uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1p-53; }

// An integer in [0, n) (n > 0); the modulo bias is below 2^-32 for n < 2^32, immaterial here.
inline std::uint64_t below(std::uint64_t bits, std::uint64_t n) { return bits % n; }

// A sequential stream for the case generator, on the same mixer: draw k is counter_hash(seed, stream, k).
class CounterStream {
 public:
  CounterStream(std::uint64_t seed, std::uint64_t stream) : seed_(seed), stream_(stream) {}
  std::uint64_t next() { return counter_hash(seed_, stream_, count_++); }
  std::uint64_t below(std::uint64_t n) { return harness::below(next(), n); }
  double uniform() { return unit_interval(next()); }
  bool chance(double p) { return uniform() < p; }
  // Log-uniform in [lo, hi] (lo >= 1): every binade equally likely.
  std::int64_t log_uniform(std::int64_t lo, std::int64_t hi);

 private:
  std::uint64_t seed_, stream_, count_ = 0;
};

inline std::int64_t CounterStream::log_uniform(std::int64_t lo, std::int64_t hi) {
  if (hi <= lo) return lo;
  int lo_bits = 0, hi_bits = 0;
  while ((std::int64_t{1} << (lo_bits + 1)) <= lo) ++lo_bits;
  while (hi_bits < 62 && (std::int64_t{1} << (hi_bits + 1)) <= hi) ++hi_bits;
  const int bits = lo_bits + static_cast<int>(below(static_cast<std::uint64_t>(hi_bits - lo_bits + 1)));
  const std::int64_t start = std::max(lo, std::int64_t{1} << bits);
  const std::int64_t end = std::min(hi, (std::int64_t{1} << (bits + 1)) - 1);
  return start + static_cast<std::int64_t>(below(static_cast<std::uint64_t>(end - start + 1)));
}

}  // namespace peconform::harness
