// The manifest reader (tensorfiles/manifest.cpp) on a manifest written by hand, not by our writer:
// each field read from its own key, and each required key, taken out, refused with a message
// that names the file, the place and the key. Issue 38: a mutant that dropped "the manifest"
// from the message survived; no test read a manifest other than the one our exporter writes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "spec/spec_error.hpp"
#include "support/scratch_dir.hpp"
#include "tensorfiles/manifest.hpp"

namespace {

namespace files = peconform::tensorfiles;

// Every value distinct, so a field read from another key shows.
nlohmann::json handwritten_manifest() {
  const nlohmann::json array = {{"name", "q"}, {"file", "case1/q.npy"}, {"dtype", "<f4"}, {"shape", {1, 3, 2, 8}}};
  nlohmann::json ids = {{"name", "ids"}, {"file", "case1/ids.npy"}, {"dtype", "<i8"}, {"shape", {3}}, {"holds", "int64 ids"}};
  nlohmann::json out = {{"name", "out"}, {"file", "case1/out.npy"}, {"dtype", "<f4"}, {"shape", {1, 3, 2, 8}}};
  return {{"format", files::kManifestFormat},
          {"spec", "rope(d=8)"},
          {"profile", "smoke"},
          {"seed", 7},
          {"cases_requested", 4},
          {"replay", nullptr},
          {"cases",
           {{{"index", 5},
             {"case", "rope(d=8) b=1 s=3 h=2"},
             {"spec", "rope(d=8,base=10000,layout=half)"},
             {"fingerprint", "0x1f"},
             {"call",
              {{"in_place", true}, {"sequence_length", 11}, {"id_offset", 13}, {"first", 17}, {"rows", 19},
               {"key_first", 23}, {"keys", 29}}},
             {"inputs", {array}},
             {"ids", ids},
             {"outputs", {out}}}}}};
}

class Manifest : public testing::Test {
 protected:
  std::filesystem::path write(const nlohmann::json& document) const {
    scratch_.write("manifest.json", document.dump());
    return scratch_.path();
  }

  peconform::ScratchDir scratch_;
};

TEST_F(Manifest, EachFieldIsReadFromItsOwnKey) {
  const files::Manifest read = files::read_manifest(write(handwritten_manifest()));
  EXPECT_EQ(read.spec, "rope(d=8)");
  EXPECT_EQ(read.profile, "smoke");
  EXPECT_EQ(read.seed, 7u);
  EXPECT_EQ(read.cases, 4u);
  EXPECT_FALSE(read.replay.has_value());
  ASSERT_EQ(read.entries.size(), 1u);
  const files::ManifestCase& c = read.entries[0];
  EXPECT_EQ(c.index, 5u);
  EXPECT_EQ(c.case_text, "rope(d=8) b=1 s=3 h=2");
  EXPECT_EQ(c.spec, "rope(d=8,base=10000,layout=half)");
  EXPECT_EQ(c.fingerprint, "0x1f");
  EXPECT_TRUE(c.in_place);
  EXPECT_EQ((std::vector<std::int64_t>{c.sequence_length, c.id_offset, c.first, c.rows, c.key_first, c.keys}),
            (std::vector<std::int64_t>{11, 13, 17, 19, 23, 29}));
  ASSERT_EQ(c.inputs.size(), 1u);
  EXPECT_EQ(c.inputs[0].name, "q");
  EXPECT_EQ(c.inputs[0].file, "case1/q.npy");
  EXPECT_EQ(c.inputs[0].descr, "<f4");
  EXPECT_EQ(c.inputs[0].shape, (std::vector<std::int64_t>{1, 3, 2, 8}));
  ASSERT_TRUE(c.ids.has_value());
  EXPECT_EQ(c.ids->holds, "int64 ids");
  ASSERT_EQ(c.outputs.size(), 1u);
  EXPECT_EQ(c.outputs[0].file, "case1/out.npy");
}

// A manifest of another format, older or newer, or none, is not read as this one.
TEST_F(Manifest, AnotherFormatIsRefusedNamingTheOneItReads) {
  for (const nlohmann::json& format : {nlohmann::json("peconform.cases/0"), nlohmann::json("peconform.cases/2"),
                                       nlohmann::json("zzz"), nlohmann::json(1), nlohmann::json(nullptr)}) {
    nlohmann::json document = handwritten_manifest();
    document["format"] = format;
    const std::filesystem::path folder = write(document);
    try {
      files::read_manifest(folder);
      ADD_FAILURE() << "read a manifest of format " << format.dump();
    } catch (const peconform::SpecError& error) {
      EXPECT_NE(std::string(error.what()).find("is not a peconform.cases/1 document"), std::string::npos) << error.what();
    }
  }
  nlohmann::json formatless = handwritten_manifest();
  formatless.erase("format");
  EXPECT_THROW(files::read_manifest(write(formatless)), peconform::SpecError);
}

TEST_F(Manifest, EachRequiredKeyMissingIsNamedWithItsPlace) {
  struct Missing {
    std::vector<std::string> path;  // the object's keys down to the one removed (a number: an array's element)
    std::string message;
  };
  const std::vector<Missing> missing = {
      {{"spec"}, "the manifest has no \"spec\""},
      {{"profile"}, "the manifest has no \"profile\""},
      {{"seed"}, "the manifest has no \"seed\""},
      {{"cases"}, "the manifest has no \"cases\""},
      {{"cases", "0", "index"}, "case entry 1 has no \"index\""},
      {{"cases", "0", "case"}, "case entry 1 has no \"case\""},
      {{"cases", "0", "spec"}, "case entry 1 has no \"spec\""},
      {{"cases", "0", "fingerprint"}, "case entry 1 has no \"fingerprint\""},
      {{"cases", "0", "call", "keys"}, "case entry 1's call has no \"keys\""},
      {{"cases", "0", "inputs", "0", "dtype"}, "case entry 1's input has no \"dtype\""},
      {{"cases", "0", "ids", "shape"}, "case entry 1's ids has no \"shape\""},
      {{"cases", "0", "outputs", "0", "file"}, "case entry 1's output has no \"file\""},
  };
  for (const Missing& m : missing) {
    nlohmann::json document = handwritten_manifest();
    nlohmann::json* object = &document;
    for (std::size_t k = 0; k + 1 < m.path.size(); ++k)
      object = object->is_array() ? &(*object)[std::stoul(m.path[k])] : &(*object)[m.path[k]];
    object->erase(m.path.back());
    const std::filesystem::path folder = write(document);
    try {
      files::read_manifest(folder);
      ADD_FAILURE() << m.message << ": read";
    } catch (const peconform::SpecError& error) {
      EXPECT_STREQ(error.what(), ("manifest '" + (folder / "manifest.json").string() + "': " + m.message).c_str());
    }
  }
}

TEST_F(Manifest, AFieldOfTheWrongTypeIsNamedWithWhatItHolds) {
  nlohmann::json document = handwritten_manifest();
  document["seed"] = "seven";
  const std::filesystem::path folder = write(document);
  try {
    files::read_manifest(folder);
    ADD_FAILURE() << "a string seed was read";
  } catch (const peconform::SpecError& error) {
    EXPECT_STREQ(error.what(), ("manifest '" + (folder / "manifest.json").string() +
                                "': the manifest's \"seed\" is \"seven\", which is not of the expected type").c_str());
  }
}

}  // namespace
