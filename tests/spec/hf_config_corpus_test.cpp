// Every config shape in fixtures/hf-configs/ (NAME/config.json, with the model in _name_or_path
// and the transformers release whose shape it follows in transformers_version) gives the spec in
// NAME/expected.json. Those were derived by hand from transformers' source ("derivation" says
// how), never by running from_hf_config.
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "spec/hf_config.hpp"
#include "spec/spec_error.hpp"

namespace peconform {
namespace {

namespace fs = std::filesystem;

const fs::path corpus = fs::path(PECONFORM_SOURCE_DIR) / "fixtures" / "hf-configs";

std::vector<fs::path> corpus_shapes() {
  std::vector<fs::path> shapes;
  for (const auto& entry : fs::directory_iterator(corpus))
    if (entry.is_directory()) shapes.push_back(entry.path());
  std::sort(shapes.begin(), shapes.end());
  return shapes;
}

std::string text_of(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The spec a config gives under `options`, or "error: ..." with the refusal's message.
std::string reading_of(const std::string& config, const HfConfigOptions& options) {
  try {
    return Spec::from_hf_config(config, options).canonical();
  } catch (const SpecError& error) {
    return std::string("error: ") + error.what();
  }
}

TEST(HfConfigCorpus, HoldsAtLeastFortyShapes) { EXPECT_GE(corpus_shapes().size(), 40u); }

TEST(HfConfigCorpus, EveryConfigGivesItsExpectedSpec) {
  for (const fs::path& shape : corpus_shapes()) {
    SCOPED_TRACE(shape.filename().string());
    const std::string config = text_of(shape / "config.json");
    const nlohmann::json named = nlohmann::json::parse(config);
    EXPECT_TRUE(named.contains("_name_or_path") && named.contains("transformers_version"));
    const nlohmann::json expected = nlohmann::json::parse(text_of(shape / "expected.json")).at("expected");
    if (expected.is_string()) {
      EXPECT_EQ(reading_of(config, {}), expected.get<std::string>());
    } else if (expected.contains("error")) {
      const std::string got = reading_of(config, {});
      EXPECT_NE(got.find(expected.at("error").get<std::string>()), std::string::npos) << got;
      EXPECT_EQ(got.rfind("error: ", 0), 0u) << got;
    } else {
      // One spec per layer type, and none without --layer-type.
      EXPECT_EQ(reading_of(config, {}).rfind("error: ", 0), 0u);
      for (const auto& [layer_type, spec] : expected.items())
        EXPECT_EQ(reading_of(config, {.layer_type = layer_type}), spec.get<std::string>()) << layer_type;
    }
  }
}

}  // namespace
}  // namespace peconform
