// Compiles Reference<FastReal> once, so that users of the reference do not each pay for it, and
// keeps the fast tier's memory of frequency tables.
#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>

#include "reference/reference_impl.hpp"

namespace peconform {
template class Reference<FastReal>;

std::vector<FastReal> remembered_powers_of_base(const FastReal& base, int dims) {
  // Keyed by the base's bits (a NaN base is a key like any other); forgotten all at once past a
  // few thousand tables, so that a long campaign's memory stays bounded.
  constexpr std::size_t kTables = 4096;
  static std::mutex mutex;
  static std::map<std::pair<std::array<std::uint64_t, 2>, int>, std::vector<FastReal>> tables;
  std::pair<std::array<std::uint64_t, 2>, int> key{{}, dims};
  const __float128 value = base.backend().value();
  static_assert(sizeof value == sizeof key.first);
  std::memcpy(key.first.data(), &value, sizeof value);
  {
    const std::lock_guard lock(mutex);
    if (const auto found = tables.find(key); found != tables.end()) return found->second;
  }
  std::vector<FastReal> powers = powers_of_base(base, dims);
  const std::lock_guard lock(mutex);
  if (tables.size() >= kTables) tables.clear();
  tables.emplace(key, powers);
  return powers;
}

}  // namespace peconform
