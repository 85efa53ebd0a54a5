#pragma once
// Numbers as report.html shows them to people: counts with thousands separators, ratios to three
// significant digits, and counts in two digits and a power of ten where a cell has little room.
// tools/upstream/matrix.py writes the same forms, so that the two pages read alike.
#include <cstdint>
#include <string>

namespace peconform {

// 485632469 -> "485,632,469", whatever the process's locale.
std::string grouped(std::uint64_t count);

// At most three significant digits, trailing zeros dropped: 0.99609 -> "0.996", 3.5 -> "3.5",
// 0.0001234 -> "1.23e-4", 290000000000000 -> "2.9e14"; decimals from 0.001 up to 1000, a power
// of ten outside, as "e-4" or "e14" (no plus sign, no leading zero); "0", "inf", "nan".
std::string significant(double value);

// Below 10,000 the count as `grouped` writes it; from there two significant digits and a power
// of ten: 485632469 -> "4.9e8", 10000 -> "1.0e4", 99999 -> "1.0e5".
std::string short_count(std::uint64_t count);

}  // namespace peconform
