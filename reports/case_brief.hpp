#pragma once
// A case string short enough to read in a table cell or a card's heading: its spec (the text
// before " | ", where the drawing's shape and seed follow) with each list of 40 or more
// characters (LongRoPE's and custom plans' per-pair factors) cut to its count, as
// tools/upstream/matrix.py's brief() does. report.html folds the whole case beneath it.
#include <string>
#include <string_view>

namespace peconform {

// "rope(d=8,scaling=longrope(short=[1.05,...],long=[2,4]),dtype=bf16) | batch=1 ..." ->
// "rope(d=8,scaling=longrope(short=[64 values],long=[2,4]),dtype=bf16)"
std::string case_spec_brief(std::string_view case_text);

}  // namespace peconform
