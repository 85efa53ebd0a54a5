#include "sample_result.hpp"

#include <cmath>

namespace peconform {
namespace {

harness::CellStats cell(std::uint64_t cases, std::uint64_t bounded, double worst_ratio, const char* worst_case) {
  harness::CellStats s;
  s.cases = cases;
  s.bounded_elements = bounded;
  s.elements = bounded;
  s.max_ulp = worst_ratio * 4;
  s.worst_ratio = worst_ratio;
  s.worst_case = worst_case;
  s.worst_case_index = cases / 2;
  // Errors grow with position, as float32 angles make them, up to the worst ratio at 2^17.
  for (int b = 0; b <= 18; ++b) s.worst_ratio_by_position[b] = b == 0 ? 0 : std::ldexp(worst_ratio, b - 18);
  // One element at the worst ratio, half the rest one bin lower, a quarter two bins lower...
  s.ratio_histogram[harness::ratio_bin(worst_ratio)] = 1;
  for (int b = 1; b <= 18; ++b)
    s.ratio_histogram[harness::ratio_bin(std::ldexp(worst_ratio, -b))] += (bounded - 1) >> b;
  return s;
}

}  // namespace

harness::CampaignResult sample_result() {
  harness::CampaignResult r;
  harness::RunInfo& i = r.info;
  i.tool_version = "0.1.0";
  i.commit = "b6d69c0";
  i.machine = "ci-runner-7";
  i.compiler = "GNU 12.2.0";
  i.backend = "cpu";
  i.profile = "ci";
  i.seed = 20261121;
  i.cases_planned = i.cases_run = 1200;
  i.regressions_replayed = 3;
  i.threads = 2;
  i.wall_seconds = 12.5;
  i.elements_per_second = 4.2e7;
  i.draw_seconds = 2.25;
  i.kernel_seconds = 6;
  i.verify_seconds = 15.5;
  i.verified_elements_per_second = 3.4e7;

  harness::CellStats failing = cell(400, 400000, 3.5, kFailingCase);
  failing.failed_cases = 2;
  failing.failed_elements = 5;
  failing.unconstrained_elements = 9600;
  failing.unconstrained_horizon = 0x1.5p22;
  failing.norm_checked_pairs = 4800;
  failing.elements += 9600;
  failing.escalations = 12;
  r.cells[{"cpu", "rope", "float32", "fp32-angle"}] = failing;
  r.cells[{"cpu", "rope", "bfloat16", "lowp-cache"}] =
      cell(300, 5000, 0.02, "rope(d=64,base=500000) | batch=2 seq=16 heads=4 kv_heads=4 order=bshd seed=0x11");
  r.cells[{"cpu", "sinusoidal", "float32", "exact-angle"}] =
      cell(250, 80000, 0.45, "sinusoidal(d=32) | batch=1 seq=64 order=bsd seed=0x2f");
  r.cells[{"cpu", "alibi", "float16", "fp32-angle"}] =
      cell(150, 60000, 0.3, "alibi(heads=8) | batch=1 seq=12 heads=8 keys=12 key_offset=0 seed=0x5");
  harness::CellStats buckets;
  buckets.cases = 100;
  buckets.elements = buckets.identical_elements = 25600;
  buckets.boundary_elements = 6;
  r.cells[{"cpu", "t5", "int32", "exact"}] = buckets;

  harness::FailureRecord numeric;
  numeric.case_text = kFailingCase;
  numeric.original_case = std::string(kFailingCase) + " (before shrinking: seq=40)";
  numeric.seed = i.seed;
  numeric.case_index = 17;
  numeric.cell_backend = "cpu";
  numeric.cell_family = "rope";
  numeric.cell_dtype = "float32";
  numeric.cell_precision = "fp32-angle";
  numeric.first = {"numeric",
                   "out",
                   21,
                   {0, 2, 0, 5},
                   "131072",
                   "0x1p-1 (0.5)",
                   "0x1.2p-2 (0.28125)",
                   "0x1.3p-2 (0.296875)",
                   4.0,
                   3.5,
                   "2.4e-7 (fp32-angle)"};
  numeric.failing_elements = 4;
  numeric.replay_command = std::string("peconform run --backend cpu --replay '") + kFailingCase + "'";
  numeric.regression_file = "fixtures/regressions/cpu-rope-17.json";
  r.failures.push_back(numeric);

  harness::FailureRecord nan = numeric;
  nan.case_text = nan.original_case = "rope(d=8,base=10000) | batch=1 seq=1 heads=1 kv_heads=1 seed=0x00000000000000b1";
  nan.case_index = 42;
  nan.first = {"nan", "q", 3, {0, 0, 0, 3}, "7", "0x1p+0 (1)", "0x1p+0 (1)", "nan", INFINITY, INFINITY, "1.2e-7"};
  nan.failing_elements = 1;
  nan.replay_command = std::string("peconform run --backend cpu --replay '") + nan.case_text + "'";
  nan.regression_file.clear();
  nan.flaky = true;
  nan.shrink_note = std::string("flaky: replay 2 of 5 of the smaller case '") + nan.case_text +
                    " select=b0,s0,h0,k' passed; this case failed all 5";
  r.failures.push_back(nan);

  r.properties = {{"rope_preserves_pair_norm", "rope xpos", true, 4000, ""},
                  {"alibi_bias_is_linear_in_distance", "alibi", true, 4000, ""},
                  {"sinusoid_matches_shifted_angle", "sinusoidal", false, 211,
                   "Falsifiable after 211 tests\n\x01 counterexample: position=16777217 d=32\nreproduce: BAAAAAEq"}};
  return r;
}

}  // namespace peconform
