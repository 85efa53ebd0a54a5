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
      EXPECT_NE(std::string(error.what()).find(R"(is not a peconform.cases/1 document (no "format": "peconform.cases/1"))"),
                std::string::npos) << error.what();
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

// `run --outputs` given a folder `cases export` did not write is told which folder to give.
TEST_F(Manifest, AFolderWithoutAManifestIsRefusedSayingWhichFolderToGive) {
  const std::filesystem::path folder = scratch_.path() / "empty";
  std::filesystem::create_directory(folder);
  try {
    files::read_manifest(folder);
    ADD_FAILURE() << "read a folder without manifest.json";
  } catch (const peconform::SpecError& error) {
    EXPECT_STREQ(error.what(),
                 ("'" + folder.string() + "' has no manifest.json: give the folder `peconform cases export --out` wrote").c_str());
  }
}

// A manifest.json cut short (an export that was interrupted, a hand edit) is refused as JSON,
// before anything is read from it.
TEST_F(Manifest, AManifestThatIsNotJsonIsRefusedAsSuch) {
  scratch_.write("manifest.json", "{");
  try {
    files::read_manifest(scratch_.path());
    ADD_FAILURE() << "read a manifest holding \"{\"";
  } catch (const peconform::SpecError& error) {
    EXPECT_STREQ(error.what(), ("manifest '" + (scratch_.path() / "manifest.json").string() + "': is not valid JSON").c_str());
  }
}

// A manifest written by hand may leave out the optional keys: without cases_requested it asks
// for no count, without replay it is no replay.
TEST_F(Manifest, AManifestWithoutItsOptionalKeysIsRead) {
  nlohmann::json document = handwritten_manifest();
  document.erase("cases_requested");
  document.erase("replay");
  const files::Manifest read = files::read_manifest(write(document));
  EXPECT_FALSE(read.cases.has_value());
  EXPECT_FALSE(read.replay.has_value());
  EXPECT_EQ(read.entries.size(), 1u);
}

// Shapes the reader must refuse rather than read as fewer cases or outputs: "cases" that is an
// object (whose values would otherwise be taken as entries, here none), and a case whose outputs
// are empty or not a list (a case with no output checks nothing, and would pass; an object's
// values would be taken as its outputs).
TEST_F(Manifest, CasesThatAreNotAListAndACaseWithoutOutputsAreRefused) {
  const auto expect_refused = [&](const nlohmann::json& document, const std::string& why) {
    const std::filesystem::path folder = write(document);
    try {
      files::read_manifest(folder);
      ADD_FAILURE() << why << ": read";
    } catch (const peconform::SpecError& error) {
      EXPECT_STREQ(error.what(), ("manifest '" + (folder / "manifest.json").string() + "': " + why).c_str());
    }
  };
  nlohmann::json document = handwritten_manifest();
  document["cases"] = nlohmann::json::object();
  expect_refused(document, "\"cases\" is not an array");
  // An object holding the output is not read as a list of its values.
  const nlohmann::json output = handwritten_manifest()["cases"][0]["outputs"][0];
  for (const nlohmann::json& outputs : {nlohmann::json::array(), nlohmann::json::object(), nlohmann::json{{"out", output}}}) {
    document = handwritten_manifest();
    document["cases"][0]["outputs"] = outputs;
    expect_refused(document, "case entry 1 names no output");
  }
}

// A manifest is input, and `run --outputs` reads and writes beside the files it names: a file
// that is empty, absolute, or climbs out of the folder with '..' (anywhere in the path) is
// refused, whether it is an input, the ids or an output.
TEST_F(Manifest, AnArrayFileOutsideTheManifestsFolderIsRefused) {
  for (const std::string& bad : {std::string(""), std::string("/etc/passwd"), std::string("../x.npy"), std::string("case1/../../x.npy")}) {
    for (const auto& [where, place] : {std::pair{"inputs", "case entry 1's input"}, {"ids", "case entry 1's ids"},
                                       {"outputs", "case entry 1's output"}}) {
      nlohmann::json document = handwritten_manifest();
      nlohmann::json& array = std::string(where) == "ids" ? document["cases"][0]["ids"] : document["cases"][0][where][0];
      array["file"] = bad;
      const std::filesystem::path folder = write(document);
      try {
        files::read_manifest(folder);
        ADD_FAILURE() << "read the " << where << " file '" << bad << "'";
      } catch (const peconform::SpecError& error) {
        EXPECT_STREQ(error.what(), ("manifest '" + (folder / "manifest.json").string() + "': " + place + " names the file '" + bad +
                                    "', which is not a path inside the manifest's folder")
                                       .c_str());
      }
    }
  }
  // A name that only starts with two dots is a file inside the folder.
  nlohmann::json document = handwritten_manifest();
  document["cases"][0]["outputs"][0]["file"] = "case1/..out.npy";
  EXPECT_EQ(files::read_manifest(write(document)).entries.at(0).outputs.at(0).file, "case1/..out.npy");
}

// What write_manifest writes, read_manifest reads back, each array's "holds" included; and the
// document opens with its "arrays" note, which tells a kernel's author how every array is laid
// out (manifest.cpp): the C-order shapes and bf16's storage as '<u2' bits.
TEST_F(Manifest, WhatIsWrittenIsReadBackWithEachArraysNoteAndTheLayoutNote) {
  files::Manifest written;
  written.spec = "rope(d=8)";
  written.profile = "smoke";
  written.seed = 7;
  written.cases = 4;
  files::ManifestCase c;
  c.index = 5;
  c.case_text = "rope(d=8) b=1 s=3 h=2";
  c.spec = "rope(d=8,base=10000,layout=half)";
  c.fingerprint = "0x1f";
  c.inputs = {{"q", "case5/q.npy", "<u2", {1, 3, 2, 8}, "bf16 bits as uint16"}};
  c.ids = files::ArrayFile{"ids", "case5/ids.npy", "<i8", {1, 1, 3}, "int64 ids"};
  c.outputs = {{"out", "case5/out.npy", "<u2", {1, 3, 2, 8}, "bf16 bits as uint16"}};
  written.entries = {c};
  files::write_manifest(scratch_.path(), written);
  const files::Manifest read = files::read_manifest(scratch_.path());
  ASSERT_EQ(read.entries.size(), 1u);
  EXPECT_EQ(read.entries[0].inputs.at(0).holds, "bf16 bits as uint16");
  EXPECT_EQ(read.entries[0].ids->holds, "int64 ids");
  EXPECT_EQ(read.entries[0].outputs.at(0).holds, "bf16 bits as uint16");
  EXPECT_EQ(read.cases, 4u);
  const nlohmann::json document = nlohmann::json::parse(scratch_.read("manifest.json"));
  ASSERT_TRUE(document.contains("arrays") && document["arrays"].is_string()) << document.dump(1);
  const std::string note = document["arrays"];
  EXPECT_NE(note.find("contiguous C-order .npy"), std::string::npos) << note;
  EXPECT_NE(note.find("rotary q and k [batch, seq, heads, d]"), std::string::npos) << note;
  EXPECT_NE(note.find("'<u2'"), std::string::npos) << note;
  // And every other family's arrays, whose shapes an author cannot guess from the file names.
  for (const char* shape : {"learned table [rows, d] and its output [batch, seq, d]", "sinusoidal and xl tables [rows, d]",
                            "ALiBi biases [heads, queries, keys]", "T5 and Shaw buckets [queries, keys] (int32)",
                            "ids [axes, batch, seq]"})
    EXPECT_NE(note.find(shape), std::string::npos) << shape << " is not in: " << note;
}

}  // namespace
