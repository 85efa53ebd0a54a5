#pragma once
// The ids report.html's links land on: a cell's row in the table of every cell (the overview
// grid and the failure cards link to it) and a family's plots (the grid's row headers link
// there). Names are any text (a plugin's kernel names its cells' backend), so each part is
// encoded one to one: letters, digits and - . , = as they are, every other byte as _ and two hex
// digits, parts joined by /. Nothing in an id needs escaping in HTML or in a URL fragment.
#include <string>
#include <string_view>

#include "harness/campaign_result.hpp"

namespace peconform {

// "cell/cpu/rope/bf16/fp32-angle,cache=storage,math=storage"
std::string cell_anchor(const harness::CellKey& key);
// "plots/rope"
std::string family_anchor(std::string_view family);

}  // namespace peconform
