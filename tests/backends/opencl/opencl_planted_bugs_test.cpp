// GPU bugs planted in the OpenCL backend's own kernels (by editing the program source before it
// is built, so the kernels themselves carry none), each caught by a campaign on the device,
// shrunk, saved and replayed to the same verdict, while the CPU kernels pass the replayed case:
// a float32 angle under a spec that claims exact-angle, native_sin/native_cos under fp32-angle,
// a work-group scheme that skips the tokens past the last whole group of 64, and a kernel that
// takes the batch stride to be seq times the token stride.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "backends/backend_registry.hpp"
#include "backends/opencl/opencl_runtime.hpp"
#include "backends/opencl/opencl_tensor_backend.hpp"
#include "harness/campaign.hpp"
#include "support/scratch_dir.hpp"

namespace peconform::harness {
namespace {

struct PlantedBug {
  std::string name;
  std::string spec;  // the campaign draws every case from it
  std::vector<std::pair<std::string, std::string>> edits;  // each `from` occurs once in the program
  // The verdicts its first failing element may get: a skipped token is "unwritten" out of
  // place and "numeric" in place (it still holds its input); float32 sin/cos show first in the
  // pair's norm or in an element.
  std::vector<std::string> kinds;
  friend void PrintTo(const PlantedBug& bug, std::ostream* os) { *os << bug.name; }
};

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  if (at == std::string::npos || text.find(from, at + 1) != std::string::npos)
    throw std::logic_error("the planted edit does not match the program source exactly once: " + from);
  return text.replace(at, from.size(), to);
}

const PlantedBug kPlantedBugs[] = {
    {"float32-angle-claimed-exact",
     "rope(d=64,base=10000,layout=half,dtype=fp32,precision=exact-angle)",
     {{"  return pec_exact_angle((double)position, frequency);", "  return pec_float32_angle((float)position, (float)frequency.hi);"}},
     {"numeric"}},
    {"native-sin-cos",
     "rope(d=64,base=10000,layout=half,dtype=fp32,precision=fp32-angle,theta=hf)",
     {{"  const pec_sin_cos_pair value = pec_sin_cos(angle);",
       "  pec_sin_cos_pair value;\n  value.sin = native_sin((float)angle.head);\n  value.cos = native_cos((float)angle.head);"}},
     {"norm", "numeric"}},
    {"work-group-skips-the-tail",
     "rope(d=16,base=10000,layout=interleaved,dtype=bf16)",
     {{"  const long token = b * seq + s;\n", "  const long token = b * seq + s;\n  if (s >= seq / 64 * 64) return;\n"}},
     {"unwritten", "numeric"}},
    {"ignores-the-batch-stride",
     "rope(d=16,base=10000,layout=half,dtype=fp32)",
     {{"operand[PEC_OPERAND_IN_ORIGIN] + b * in_stride[0] + s * in_stride[1] + h * in_stride[2];",
       "operand[PEC_OPERAND_IN_ORIGIN] + b * seq * in_stride[1] + s * in_stride[1] + h * in_stride[2];"},
      {"operand[PEC_OPERAND_OUT_ORIGIN] + b * out_stride[0] + s * out_stride[1] + h * out_stride[2];",
       "operand[PEC_OPERAND_OUT_ORIGIN] + b * seq * out_stride[1] + s * out_stride[1] + h * out_stride[2];"}},
     {"numeric", "unwritten", "out-of-bounds"}},
};

class PlantedGpuBug : public testing::TestWithParam<PlantedBug> {
 protected:
  void SetUp() override {
    if (opencl::list_devices().empty()) GTEST_SKIP() << "no OpenCL device: the ICD loader lists none (Debian: pocl-opencl-icd)";
  }
  CampaignOptions options() const {
    CampaignOptions o;
    o.profile = profile_named("smoke");
    o.seed = 7;
    o.cases = 12;
    o.filters.spec = Spec::parse(GetParam().spec);
    o.regressions = scratch_.path();
    o.run_properties = false;
    return o;
  }
  ScratchDir scratch_;
};

TEST_P(PlantedGpuBug, IsCaughtShrunkSavedAndReplayedOnTheDevice) {
  const PlantedBug& bug = GetParam();
  const std::unique_ptr<TensorBackend> planted = opencl::make_edited_opencl_tensor_backend("opencl-" + bug.name, [&](std::string source) {
    for (const auto& [from, to] : bug.edits) source = replace_once(std::move(source), from, to);
    return source;
  });
  const std::atomic<bool> stop{false};
  const CampaignResult found = run_campaign(options(), *planted, {}, stop);
  ASSERT_FALSE(found.failures.empty()) << bug.name << " was not caught";
  const FailureRecord& failure = found.failures.front();
  EXPECT_NE(std::find(bug.kinds.begin(), bug.kinds.end(), failure.first.kind), bug.kinds.end())
      << failure.first.kind << " in " << failure.case_text;
  EXPECT_FALSE(failure.first.position.empty()) << "the report names the position";
  EXPECT_FALSE(failure.flaky) << "a deterministic bug fails every replay: " << failure.shrink_note;
  EXPECT_NE(failure.case_text, failure.original_case) << "shrunk";

  std::ifstream saved(failure.regression_file);
  ASSERT_TRUE(saved) << "saved to the corpus: " << failure.regression_file;
  EXPECT_EQ(nlohmann::json::parse(saved).at("case"), failure.case_text);

  CampaignOptions replay = options();
  replay.replay = failure.case_text;
  const CampaignResult again = run_campaign(replay, *planted, {}, stop);
  ASSERT_EQ(again.failures.size(), 1u);
  EXPECT_EQ(again.failures.front().first.kind, failure.first.kind);
  EXPECT_EQ(again.failures.front().first.element, failure.first.element);
  EXPECT_EQ(again.failures.front().first.actual, failure.first.actual);

  EXPECT_TRUE(run_campaign(replay, *make_backend("opencl"), {}, stop).conformant()) << "the unedited kernels pass the case";
  EXPECT_TRUE(run_campaign(replay, *make_backend("cpu"), {}, stop).conformant()) << "and so do the CPU kernels";
}

INSTANTIATE_TEST_SUITE_P(OnPocl, PlantedGpuBug, testing::ValuesIn(kPlantedBugs),
                         [](const testing::TestParamInfo<PlantedBug>& info) {
                           std::string name = info.param.name;
                           for (char& c : name) c = c == '-' ? '_' : c;
                           return name;
                         });

}  // namespace
}  // namespace peconform::harness
