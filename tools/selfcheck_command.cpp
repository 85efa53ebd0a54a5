// peconform selfcheck: the reference against the independent golden vectors, and the fast
// tier against the exact tier under its error bound. Writes a JSON report whole or not at all.
#include <chrono>
#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>

#include "fixtures/golden_check.hpp"
#include "reference/tier_bounds.hpp"
#include "reports/atomic_file.hpp"
#include "tools/commands.hpp"
#include "tools/exit_codes.hpp"
#include "tools/sample_points.hpp"
#include "tools/value_lists.hpp"

namespace peconform {
namespace {

constexpr double kRequiredDigits = 40.0;

struct SelfcheckOptions {
  std::string report = "out/selfcheck-report.json";
  std::string fixtures = default_golden_path().string();
  std::uint64_t seed = 20261121;
  int samples = 16;
};

nlohmann::json golden_section(const GoldenCheck& check, const std::string& path) {
  nlohmann::json cases = nlohmann::json::array();
  for (const GoldenCaseResult& c : check.cases) {
    cases.push_back({{"name", c.name}, {"spec", c.spec}, {"family", family_name(c.family)},
                     {"digits", c.digits}, {"worst", c.worst}});
  }
  nlohmann::json known = nlohmann::json::array();
  for (const KnownValueResult& k : check.known) known.push_back({{"what", k.what}, {"passed", k.passed}, {"detail", k.detail}});
  return {{"file", path}, {"required_digits", check.required_digits}, {"fewest_digits", check.fewest_digits()},
          {"passed", check.passed()}, {"cases", std::move(cases)}, {"known_values", std::move(known)}};
}

// Compares the tiers on each golden case's spec and input, at the case's own points plus
// sample_points(); returns the report section and whether every ratio stayed <= 1.
std::pair<nlohmann::json, bool> fast_tier_section(const nlohmann::json& golden, const SelfcheckOptions& options) {
  nlohmann::json specs = nlohmann::json::array();
  double worst = 0.0;
  std::size_t index = 0;
  const std::size_t total = golden.at("cases").size();
  for (const nlohmann::json& entry : golden.at("cases")) {
    const Spec spec = Spec::parse(entry.at("spec").get<std::string>());
    std::vector<Point> points = sample_points(spec, options.seed + index, options.samples);
    for (const nlohmann::json& text : entry.at("points")) points.push_back(parse_point(spec.family, text.get<std::string>()));
    std::vector<double> input;
    for (const nlohmann::json& value : entry.at("input")) input.push_back(std::stod(value.get<std::string>()));
    const TierComparison comparison = compare_tiers(spec, points, input);
    worst = std::max(worst, comparison.worst_ratio);
    specs.push_back({{"case", entry.at("name")}, {"spec", spec.canonical()}, {"points", points.size()},
                     {"worst_ratio", comparison.worst_ratio}, {"worst", comparison.worst_detail}});
    fmt::print(stderr, "[fast tier {:>2}/{}] {:<40} worst error/bound {:.3g}\n", ++index, total,
               entry.at("name").get<std::string>(), comparison.worst_ratio);
  }
  const bool passed = worst <= 1.0;
  return {nlohmann::json{{"bound", "A r u (|phi| (|ln theta| + 16) + |ln a_xpos| + 16), u = 2^-113; see reference/tier_bounds.hpp"},
                         {"worst_ratio", worst}, {"passed", passed}, {"seed", options.seed},
                         {"random_points_per_spec", options.samples}, {"specs", std::move(specs)}},
          passed};
}

void run(const SelfcheckOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  const nlohmann::json golden = load_golden(options.fixtures);
  fmt::print(stderr, "checking the exact tier against {} golden cases ...\n", golden.at("cases").size());
  const GoldenCheck check = check_golden(golden, kRequiredDigits);
  for (const GoldenCaseResult& c : check.cases)
    if (c.digits < kRequiredDigits) fmt::print(stderr, "golden case '{}' agrees to {:.1f} digits: {}\n", c.name, c.digits, c.worst);
  for (const KnownValueResult& k : check.known)
    if (!k.passed) fmt::print(stderr, "known value '{}' differs: {}\n", k.what, k.detail);
  auto [fast_tier, fast_passed] = fast_tier_section(golden, options);
  const bool passed = check.passed() && fast_passed;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  nlohmann::json report{{"schema", "peconform.selfcheck/1"},
                        {"golden", golden_section(check, options.fixtures)},
                        {"fast_tier", fast_tier},
                        {"passed", passed},
                        {"seconds", seconds}};
  write_file_atomically(options.report, report.dump(1) + "\n");
  fmt::print("golden vectors: {} cases, fewest digits of agreement {:.1f} (need {}); known values: {} checked\n",
             check.cases.size(), check.fewest_digits(), kRequiredDigits, check.known.size());
  fmt::print("fast tier: worst error/bound {:.3g} over {} specs (seed {})\n", fast_tier["worst_ratio"].get<double>(),
             fast_tier["specs"].size(), options.seed);
  fmt::print("report: {} ({:.1f} s)\n", options.report, seconds);
  if (!passed) throw CheckFailed("selfcheck FAILED; see the report for each failing case");
  fmt::print("selfcheck passed\n");
}

}  // namespace

void add_selfcheck_command(CLI::App& app) {
  auto options = std::make_shared<SelfcheckOptions>();
  CLI::App* command = app.add_subcommand("selfcheck", "Check the reference against golden vectors and its two tiers against each other");
  command->add_option("--report", options->report, "Where to write the JSON report")->capture_default_str();
  command->add_option("--fixtures", options->fixtures, "Golden-vector file")->capture_default_str();
  command->add_option("--seed", options->seed, "Seed for the sampled positions")->capture_default_str();
  command->add_option("--samples", options->samples, "Random positions per spec")->capture_default_str()->check(CLI::Range(0, 100000));
  command->callback([options] { run(*options); });
}

}  // namespace peconform
