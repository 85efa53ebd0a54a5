#pragma once
// The overview under report.html's verdict: a grid with a row per family (per backend and
// family where the report holds several backends, as a plugin's kernels do) and a column per
// dtype and precision class, so that a column block answers "is every bf16 cell near its
// bound?" at a glance. Each cell is shaded by its worst error / bound, holds its case count and
// links to its row in the table of every cell; a cell no case was drawn for is hatched; a
// legend gives the scale.
#include <string>
#include <string_view>

#include "harness/campaign_result.hpp"

namespace peconform {

// How close a drawn cell came to failing: failed where any case failed; else, over the
// elements held to a bound, the band of the worst error / bound: [0.5, 1] within_2x,
// [0.25, 0.5) within_4x, [0.1, 0.25) within_10x, below 0.1 (harness::kLooseRatio) loose; where
// no element was held to a bound, bit_exact if elements were compared bit for bit, unbounded if
// none was (every element past its class's horizon).
enum class Shade { failed, within_2x, within_4x, within_10x, loose, bit_exact, unbounded };

Shade shade_of(const harness::CellStats& stats);
// The shade's CSS class in reports/report.css ("within-2x").
std::string_view shade_class(Shade shade);

// A precision class as HTML with a break opportunity after each comma, so that a composed class
// ("fp32-angle,cache=storage,math=storage") wraps in a narrow column.
std::string class_label(std::string_view precision);

// The legend and the grid, as HTML.
std::string overview_grid(const harness::CampaignResult& result);

}  // namespace peconform
