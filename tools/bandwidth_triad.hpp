#pragma once
// A STREAM-style triad, a[i] = b[i] + s c[i] over doubles on every OpenMP thread: the memory
// bandwidth this machine sustains right now, which each kernel benchmark is measured against.
#include <cstdint>
#include <vector>

namespace peconform {

class BandwidthTriad {
 public:
  // Three arrays of `elements` doubles; size them well past the last-level cache.
  explicit BandwidthTriad(std::int64_t elements);
  // One pass; returns the seconds it took.
  double run();
  // Bytes one pass reads and writes (24 per element; the write-allocate read is not counted,
  // as STREAM does not count it).
  double bytes() const { return 24.0 * static_cast<double>(elements_); }

 private:
  std::int64_t elements_;
  std::vector<double> a_, b_, c_;
};

}  // namespace peconform
