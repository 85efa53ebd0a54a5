// Compiles Reference<FastReal> once, so that users of the reference do not each pay for it, and
// keeps the fast tier's memory of frequency tables.
#include <array>
#include <cstdint>
#include <cstring>
#include <utility>

#include "reference/reference_impl.hpp"
#include "support/bounded_memo.hpp"

namespace peconform {
template class Reference<FastReal>;

std::vector<FastReal> remembered_powers_of_base(const FastReal& base, int dims) {
  // Keyed by the base's bits (a NaN base is a key like any other).
  static BoundedMemo<std::pair<std::array<std::uint64_t, 2>, int>, std::vector<FastReal>> tables(4096);
  std::pair<std::array<std::uint64_t, 2>, int> key{{}, dims};
  const __float128 value = base.backend().value();
  static_assert(sizeof value == sizeof key.first);
  std::memcpy(key.first.data(), &value, sizeof value);
  return tables.get(key, [&] { return powers_of_base(base, dims); });
}

}  // namespace peconform
