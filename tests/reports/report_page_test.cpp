// report.html as a reader's browser lays it out (label chromium): the reports of two small
// campaigns, a conformant one (our CPU kernels) and a failing one (planted bugs of
// tests/plugins/mutant_plugins.cpp), opened in Debian's headless Chromium and checked on the
// rendered page (report_page_probe.js), not in the HTML source: it does not scroll sideways at
// 1,400 pixels, nor at the width of an A4 page under its print rules; every link of the overview
// grid lands on the row of its own cell, and every cell of report.json has one; the cells that
// failed, and only they, have the failure colour; every failure card's replay line is the one
// report.json holds. Skipped, saying so, where Chromium is not installed.
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "support/scratch_dir.hpp"

namespace peconform {
namespace {

const std::filesystem::path kChromium = "/usr/bin/chromium";
const std::filesystem::path kProbe = PECONFORM_SOURCE_DIR "/tests/reports/report_page_probe.js";

// An A4 page in landscape (reports/report.css sets it) less its 10 mm margins, at 96 CSS pixels
// to the inch, as Chromium prints: 277 mm.
constexpr int kA4PrintableWidth = 1047;

#define SKIP_WITHOUT_CHROMIUM()                                                                                    \
  if (!std::filesystem::exists(kChromium))                                                                         \
  GTEST_SKIP() << kChromium << " is missing, so report.html was not rendered: install the Debian package chromium " \
               << "(scripts/install-deps.sh lists it)"

// encodeURIComponent's output back to the text it encoded.
std::string percent_decoded(const std::string& text) {
  std::string decoded;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      decoded += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      decoded += text[i];
    }
  }
  return decoded;
}

// The probe's findings on `folder`/report.html in a window `width` pixels wide, with the page's
// print rules applied on screen or not. The probe runs in a copy beside the report.
nlohmann::json rendered(const std::filesystem::path& folder, int width, bool print) {
  std::ifstream page_file(folder / "report.html"), probe_file(kProbe);
  std::stringstream page, probe;
  page << page_file.rdbuf();
  probe << probe_file.rdbuf();
  std::string html = page.str();
  const std::size_t body_end = html.rfind("</body>");
  if (body_end == std::string::npos) throw std::runtime_error("report.html has no </body>");
  html.insert(body_end, fmt::format("<script>const probePrint = {};</script>\n<script>\n{}</script>\n", print, probe.str()));
  const std::filesystem::path copy = folder / "probed.html";
  std::ofstream(copy) << html;
  // --no-sandbox: the sandbox cannot start as root or in most CI containers, and the page is our
  // own. A profile of its own keeps parallel runs apart; timeout bounds a hung browser.
  const ToolRun dom = run_tool(fmt::format("timeout 60 {} --headless --no-sandbox --disable-gpu --user-data-dir={} "
                                           "--window-size={},900 --dump-dom file://{}",
                                           kChromium.string(), shell_quote((folder / "profile").string()), width,
                                           shell_quote(copy.string())));
  std::smatch found;
  if (dom.exit_code != 0 || !std::regex_search(dom.output, found, std::regex("<pre id=\"probe\">([^<]*)</pre>")))
    throw std::runtime_error(fmt::format("Chromium gave no findings (exit {}):\n{}", dom.exit_code, dom.output));
  return nlohmann::json::parse(percent_decoded(found[1].str()));
}

std::string cell_key(const nlohmann::json& cell) {
  return fmt::format("{}/{}/{}/{}", cell.at("backend").get<std::string>(), cell.at("family").get<std::string>(),
                     cell.at("dtype").get<std::string>(), cell.at("precision").get<std::string>());
}

void expect_no_sideways_scroll(const nlohmann::json& page, const std::string& where) {
  EXPECT_LE(page.at("scrollWidth").get<int>(), page.at("clientWidth").get<int>())
      << where << ": the page scrolls sideways";
}

// Everything but the widths is the same at any width; it is checked on the 1,400-pixel page.
void expect_the_report_of(const std::filesystem::path& folder) {
  std::ifstream json_file(folder / "report.json");
  const nlohmann::json report = nlohmann::json::parse(json_file);
  const nlohmann::json page = rendered(folder, 1400, false);
  expect_no_sideways_scroll(page, "at 1,400 pixels");
  expect_no_sideways_scroll(rendered(folder, kA4PrintableWidth, true), "printed on A4");

  std::set<std::string> failed, drawn;
  for (const nlohmann::json& cell : report.at("cells")) {
    drawn.insert(cell_key(cell));
    if (cell.at("failed_cases").get<std::uint64_t>() > 0) failed.insert(cell_key(cell));
  }
  std::set<std::string> linked;
  for (const nlohmann::json& link : page.at("gridLinks")) {
    EXPECT_EQ(link.at("targetTag"), std::string("TR")) << "a grid cell links to no row: " << link.dump();
    if (!link.at("targetKey").is_string()) continue;
    const std::string key = link.at("targetKey");
    EXPECT_TRUE(linked.insert(key).second) << "two grid cells link to the row of " << key;
    EXPECT_EQ(link.at("background") == page.at("failedBackground"), failed.contains(key))
        << key << " is drawn " << link.at("background") << " (failure colour " << page.at("failedBackground") << ")";
  }
  EXPECT_EQ(linked, drawn) << "the grid's links and report.json's cells differ";

  const nlohmann::json& cards = page.at("cards");
  const nlohmann::json& failures = report.at("failures");
  ASSERT_EQ(cards.size(), failures.size());
  for (std::size_t i = 0; i < cards.size(); ++i)
    EXPECT_EQ(cards[i].at("replay"), failures[i].at("replay")) << "card " << cards[i].at("heading");
}

TEST(ReportPage, AConformantReportFitsAndLinksEveryCell) {
  SKIP_WITHOUT_CHROMIUM();
  const ScratchDir dir;
  // 30 cases of the ci profile draw 30 cells of ten families, and worst cases with LongRoPE
  // factor lists thousands of characters long without a space.
  const ToolRun run = run_tool(fmt::format("{} run --backend cpu --profile ci --cases 30 --no-properties --no-save --quiet "
                                           "--regressions {}/corpus --out {}/report",
                                           PECONFORM_BINARY, dir.path().string(), dir.path().string()));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  expect_the_report_of(dir.path() / "report");
}

TEST(ReportPage, AFailingReportFitsLinksEveryCellAndCardsEachFailure) {
  SKIP_WITHOUT_CHROMIUM();
  const ScratchDir dir;
  // Three kernels, so that the grid has a row per kernel and family: one correct, two with a
  // planted bug, stopped after four failing cases.
  const ToolRun run = run_tool(fmt::format(
      "{} run --plugin {} --kernel rotation-sign-flipped.correct --kernel alibi-slopes-2pow-8i-over-n "
      "--kernel t5-distance-sign-reversed --profile ci --cases 36 --max-failures 4 --no-properties --no-save --quiet "
      "--regressions {}/corpus --out {}/report",
      PECONFORM_BINARY, MUTANT_PLUGINS, dir.path().string(), dir.path().string()));
  ASSERT_EQ(run.exit_code, 1) << run.output;
  expect_the_report_of(dir.path() / "report");
}

}  // namespace
}  // namespace peconform
