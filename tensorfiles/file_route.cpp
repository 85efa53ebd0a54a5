#include "tensorfiles/file_route.hpp"

#include <fmt/format.h>

#include "harness/profile.hpp"
#include "spec/spec_error.hpp"

namespace peconform::tensorfiles {

BackendCapabilities file_route_capabilities() {
  BackendCapabilities capabilities;
  capabilities.families = all_families();
  capabilities.dtypes = {Dtype::fp64, Dtype::fp32, Dtype::fp16, Dtype::bf16};
  capabilities.precisions = {PrecisionClass::exact_angle, PrecisionClass::fp32_angle, PrecisionClass::lowp_cache,
                              PrecisionClass::fp64_angle};
  // The huge call must pass 2^31 elements (harness/case_generator.cpp): this keeps it out.
  capabilities.largest_call_elements = std::int64_t{1} << 31;
  return capabilities;
}

Drawing file_route_drawing(const std::string& spec_text) {
  Drawing drawing;
  drawing.capabilities = file_route_capabilities();
  drawing.filters_text = "--spec " + spec_text;
  if (spec_text.find_first_of("*|") == std::string::npos) {
    drawing.filters.spec = Spec::parse(spec_text);
    return drawing;
  }
  const SpecPattern pattern = SpecPattern::parse(spec_text);
  drawing.capabilities.families = {pattern.family()};
  drawing.capabilities.patterns = {pattern};
  if (const std::string problem = harness::pattern_problem(pattern, drawing.capabilities); !problem.empty())
    throw SpecError(fmt::format("--spec '{}': {}", spec_text, problem));
  return drawing;
}

std::vector<DrawnCase> file_route_cases(const std::string& spec_text, const std::string& profile_name, std::uint64_t seed,
                                        std::optional<std::uint64_t> cases, const std::optional<std::string>& replay) {
  if (replay) return {{0, harness::CaseDescription::parse(*replay)}};
  const harness::Profile profile = harness::profile_named(profile_name);
  const Drawing drawing = file_route_drawing(spec_text);
  const std::vector<harness::CaseCell> cells = harness::campaign_cells(drawing.capabilities, drawing.filters);
  std::vector<DrawnCase> out;
  const std::uint64_t total = cases.value_or(profile.cases);
  for (std::uint64_t k = 0; k < total; ++k) {
    try {
      out.push_back({k + 1, harness::draw_case(seed, k, cells, drawing.filters, profile, drawing.capabilities)});
    } catch (const SpecError& error) {
      throw SpecError(fmt::format("case {} cannot be drawn: {}", k + 1, error.what()));
    }
  }
  return out;
}

std::string file_route_replay_command(const std::string& case_text) {
  return fmt::format("peconform cases export --replay '{}' --out DIR, then the kernel, then peconform run --outputs DIR", case_text);
}

}  // namespace peconform::tensorfiles
