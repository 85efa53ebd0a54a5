// The tensor-file route end to end: `peconform cases export`, a kernel that reads only the files
// (our CPU kernels behind tests/tools/file_kernel.hpp), `peconform run --outputs`. Exported cases
// verify exactly as `run --backend cpu` verifies the same spec and seed; a planted wrong element
// is caught naming its case and element; a missing or bad output file is an error naming it.
#include <gtest/gtest.h>

#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "backends/backend_registry.hpp"
#include "harness/regression_corpus.hpp"
#include "support/scratch_dir.hpp"
#include "tensorfiles/manifest.hpp"
#include "tensorfiles/npy_file.hpp"
#include "tools/file_kernel.hpp"

namespace {

namespace files = peconform::tensorfiles;

class TensorFilesCli : public testing::Test {
 protected:
  peconform::ToolRun peconform(const std::string& arguments) const {
    return peconform::run_tool(fmt::format("'{}' {}", PECONFORM_BINARY, arguments));
  }

  // Exports `cases` smoke cases of `spec` into `name` and runs our CPU kernels on the files.
  std::filesystem::path export_and_compute(const std::string& name, const std::string& spec, int cases) const {
    const std::filesystem::path folder = scratch_.path() / name;
    const peconform::ToolRun exported = peconform(fmt::format("cases export --spec {} --profile smoke --seed 7 --cases {} --out '{}' --quiet",
                                                              peconform::shell_quote(spec), cases, folder.string()));
    EXPECT_EQ(exported.exit_code, 0) << exported.output;
    peconform::testing::run_kernel_on_files(*peconform::make_backend("cpu"), folder);
    return folder;
  }

  peconform::ToolRun verify(const std::filesystem::path& folder, const std::string& report) const {
    return peconform(fmt::format("run --outputs '{}' --quiet --out '{}'", folder.string(), (scratch_.path() / report).string()));
  }

  nlohmann::json report(const std::string& name) const {
    std::ifstream in(scratch_.path() / name / "report.json");
    return nlohmann::json::parse(in);
  }

  peconform::ScratchDir scratch_;
};

// The cells with the backend's name left out, which is all that differs between the two routes.
nlohmann::json cells_without_backend(const nlohmann::json& report) {
  nlohmann::json cells = report.at("cells");
  for (nlohmann::json& cell : cells) cell.erase("backend");
  return cells;
}

TEST_F(TensorFilesCli, ExportedCasesVerifyAsTheInProcessRunOfTheSameSpecAndSeed) {
  ASSERT_TRUE(peconform::tool_installed(PECONFORM_SYSTEM_PYTHON, "python3-numpy"));
  for (const std::string spec : {"rope(d=64,layout=interleaved,dtype=bf16)", "alibi(heads=6,dtype=fp16)"}) {
    SCOPED_TRACE(spec);
    const std::filesystem::path folder = export_and_compute("cases", spec, 12);
    // The outputs as NumPy writes them (its own header padding; bf16 as the uint16 bits it
    // reads), so that the check reads files a Python kernel would write.
    const std::string resave = fmt::format(
        "import json, numpy as np\n"
        "m = json.load(open('{0}/manifest.json'))\n"
        "for c in m['cases']:\n"
        "    for o in c['outputs']:\n"
        "        a = np.load('{0}/' + o['file'])\n"
        "        np.save('{0}/' + o['file'], np.ascontiguousarray(a))\n",
        folder.string());
    const peconform::ToolRun python = peconform::run_tool(fmt::format("{} -c {}", PECONFORM_SYSTEM_PYTHON, peconform::shell_quote(resave)));
    ASSERT_EQ(python.exit_code, 0) << python.output;
    const peconform::ToolRun checked = verify(folder, "files");
    ASSERT_EQ(checked.exit_code, 0) << checked.output;
    const std::filesystem::path corpus = scratch_.path() / "corpus";
    const peconform::ToolRun in_process =
        peconform(fmt::format("run --backend cpu --spec {} --profile smoke --seed 7 --cases 12 --no-properties --no-save --quiet "
                              "--regressions '{}' --out '{}'",
                              peconform::shell_quote(spec), corpus.string(), (scratch_.path() / "cpu").string()));
    ASSERT_EQ(in_process.exit_code, 0) << in_process.output;
    const nlohmann::json by_files = report("files"), by_cpu = report("cpu");
    EXPECT_EQ(by_files.at("run").at("cases_run"), 12);
    EXPECT_EQ(by_files.at("run").at("backend"), "tensor-files");
    EXPECT_TRUE(by_files.at("failures").empty());
    EXPECT_EQ(cells_without_backend(by_files), cells_without_backend(by_cpu)) << "the routes drew or verified different cases";
    std::filesystem::remove_all(folder);
  }
}

TEST_F(TensorFilesCli, PatternsAndEveryKindOfCallConform) {
  // Tables, int32 buckets, a learned table as an input, three id axes, and a pattern's choices.
  for (const std::string spec : {"sinusoidal(*)", "t5(*)", "learned(*)", "mrope(*)", "rope(d=32|64,layout=*,dtype=*)"}) {
    SCOPED_TRACE(spec);
    const std::filesystem::path folder = export_and_compute(std::string(spec.substr(0, spec.find('('))), spec, 6);
    const peconform::ToolRun checked = verify(folder, "report-" + folder.filename().string());
    EXPECT_EQ(checked.exit_code, 0) << checked.output;
    EXPECT_NE(checked.output.find("conformant"), std::string::npos) << checked.output;
  }
}

TEST_F(TensorFilesCli, APlantedWrongElementIsCaughtNamingItsCaseAndElement) {
  const std::filesystem::path folder = export_and_compute("planted", "rope(d=16,dtype=fp32)", 4);
  const files::Manifest manifest = files::read_manifest(folder);
  const files::ManifestCase& second = manifest.entries.at(1);
  const std::filesystem::path output = folder / second.outputs.at(0).file;
  files::NpyArray array = files::read_npy(output);
  constexpr std::size_t kPlanted = 5;
  float value = 0;
  std::memcpy(&value, array.data.data() + kPlanted * sizeof(float), sizeof value);
  value += 0.25f;
  std::memcpy(array.data.data() + kPlanted * sizeof(float), &value, sizeof value);
  files::write_npy(output, array.header.descr, array.header.shape, array.data);

  const peconform::ToolRun checked = verify(folder, "planted-report");
  ASSERT_EQ(checked.exit_code, 1) << checked.output;
  EXPECT_NE(checked.output.find(second.case_text), std::string::npos) << checked.output;
  const nlohmann::json failures = report("planted-report").at("failures");
  ASSERT_EQ(failures.size(), 1u) << failures.dump(1);
  const nlohmann::json& failure = failures.at(0);
  EXPECT_EQ(failure.at("case"), second.case_text);
  EXPECT_EQ(failure.at("case_index"), 2);
  EXPECT_EQ(failure.at("first_failure").at("element"), kPlanted);
  EXPECT_EQ(failure.at("failing_elements"), 1);
  EXPECT_EQ(failure.at("first_failure").at("operand"), "q");
  EXPECT_NE(failure.at("replay").get<std::string>().find("peconform cases export --replay"), std::string::npos) << failure.dump(1);
  EXPECT_NE(failure.at("shrink_note").get<std::string>().find("not shrunk"), std::string::npos) << failure.dump(1);
  // The console shows the same replay command as the report, as the failure is found.
  EXPECT_NE(checked.output.find("  replay: " + failure.at("replay").get<std::string>() + "\n"), std::string::npos) << checked.output;
  // No failure is saved to a corpus: the kernel's outputs exist for the exported cases alone, so
  // a saved case could never be replayed (no tensor-files/ corpus appears in the folder).
  EXPECT_EQ(failure.at("regression_file").get<std::string>(), "") << failure.dump(1);
  EXPECT_FALSE(std::filesystem::exists(folder / "tensor-files"));

  // The replay exports that case alone; computed right, it conforms.
  const std::filesystem::path replay = scratch_.path() / "replay";
  const peconform::ToolRun exported =
      peconform(fmt::format("cases export --replay {} --out '{}' --quiet", peconform::shell_quote(second.case_text), replay.string()));
  ASSERT_EQ(exported.exit_code, 0) << exported.output;
  peconform::testing::run_kernel_on_files(*peconform::make_backend("cpu"), replay);
  const peconform::ToolRun replayed = verify(replay, "replay-report");
  EXPECT_EQ(replayed.exit_code, 0) << replayed.output;
  EXPECT_EQ(report("replay-report").at("run").at("cases_run"), 1);
}

TEST_F(TensorFilesCli, AMissingOrBadOutputFileIsAnErrorNamingItAndWhatItShouldBe) {
  const std::filesystem::path folder = export_and_compute("bad", "rope(d=16,dtype=fp32)", 3);
  const files::Manifest manifest = files::read_manifest(folder);
  const files::ManifestCase& first = manifest.entries.at(0);
  const std::filesystem::path output = folder / first.outputs.at(0).file;
  const std::string shape = files::shape_text(first.outputs.at(0).shape);
  const files::NpyArray good = files::read_npy(output);
  const auto expect_error = [&](const std::string& what, const std::string& expected) {
    SCOPED_TRACE(what);
    const peconform::ToolRun checked = verify(folder, "bad-report");
    EXPECT_EQ(checked.exit_code, 2) << checked.output;
    EXPECT_NE(checked.output.find(output.string()), std::string::npos) << checked.output;
    EXPECT_NE(checked.output.find(expected), std::string::npos) << checked.output;
  };
  std::filesystem::remove(output);
  expect_error("missing", fmt::format("is missing: the kernel's output q of case 1 ('{}') goes there, a C-order .npy of dtype '<f4' "
                                      "and shape {}", first.case_text, shape));
  files::write_npy(output, "<f8", good.header.shape, std::vector<std::byte>(good.data.size() * 2));
  expect_error("wrong dtype", "has dtype '<f8', but the kernel's output q of case 1");
  std::vector<std::int64_t> transposed = good.header.shape;
  std::swap(transposed[1], transposed[2]);
  if (transposed == good.header.shape) transposed.push_back(1);
  files::write_npy(output, "<f4", transposed, good.data);
  expect_error("wrong shape", fmt::format("must have shape {}", shape));
  files::write_npy(output, "<f4", good.header.shape, std::span(good.data).first(good.data.size() - 1));
  expect_error("truncated", "is truncated");
  scratch_.write("bad/" + first.outputs.at(0).file, "not an array\n");
  expect_error("not .npy", "is not a .npy file");
  // Every bad file is counted, the first named: one run tells the author how much is wrong.
  std::filesystem::remove(folder / manifest.entries.at(1).outputs.at(0).file);
  expect_error("two bad", "is not a .npy file: it does not start with NumPy's magic \\x93NUMPY (and 1 more output files are "
                          "missing or bad)");
}

// The campaign draws the manifest's cases again before it reads an output: a manifest edited by
// hand (a case's text, its index, or a case fewer) no longer matches its spec, profile and seed,
// and is refused naming what it lists and what they draw.
TEST_F(TensorFilesCli, AnEditedManifestIsRefusedNamingWhatItListsAndWhatIsDrawn) {
  const std::filesystem::path folder = export_and_compute("edited", "rope(d=16,dtype=fp32)", 2);
  const std::filesystem::path manifest_file = folder / "manifest.json";
  std::ifstream in(manifest_file);
  const nlohmann::json manifest = nlohmann::json::parse(in);
  const std::string listed = manifest.at("cases").at(1).at("case");
  const auto refused_with = [&](const char* what, const std::function<void(nlohmann::json&)>& edit, const std::string& expected) {
    SCOPED_TRACE(what);
    nlohmann::json edited = manifest;
    edit(edited);
    std::ofstream(manifest_file) << edited.dump(2);
    const peconform::ToolRun checked = verify(folder, "edited-report");
    EXPECT_EQ(checked.exit_code, 2) << checked.output;
    EXPECT_NE(checked.output.find(expected), std::string::npos) << checked.output;
  };
  refused_with("a case's text", [](nlohmann::json& m) { m["cases"][1]["case"] = "rope(d=16) | seq=1 seed=1"; },
               fmt::format("lists case {} as 'rope(d=16) | seq=1 seed=1', but its spec, profile and seed draw '{}'",
                           manifest.at("cases").at(1).at("index").get<std::uint64_t>(), listed));
  refused_with("a case's index", [](nlohmann::json& m) { m["cases"][1]["index"] = m["cases"][1]["index"].get<std::uint64_t>() + 5; },
               "but its spec, profile and seed draw '" + listed + "'");
  refused_with("a case fewer", [](nlohmann::json& m) { m["cases"].erase(1); }, "lists 1 cases, but its spec, profile and seed draw 2");
  std::ofstream(manifest_file) << manifest.dump(2);
  EXPECT_EQ(verify(folder, "restored-report").exit_code, 0);
}

TEST_F(TensorFilesCli, WhatTheManifestDecidesCannotBeGivenAgain) {
  const std::filesystem::path folder = export_and_compute("decided", "rope(d=16,dtype=fp32)", 2);
  const peconform::ToolRun respec = peconform(fmt::format("run --outputs '{}' --spec 'rope(d=32)'", folder.string()));
  EXPECT_EQ(respec.exit_code, 2) << respec.output;
  EXPECT_NE(respec.output.find("--spec"), std::string::npos) << respec.output;
  const peconform::ToolRun nothing = peconform(fmt::format("run --outputs '{}'", (scratch_.path() / "nowhere").string()));
  EXPECT_EQ(nothing.exit_code, 2) << nothing.output;
  EXPECT_NE(nothing.output.find("manifest.json"), std::string::npos) << nothing.output;
  const peconform::ToolRun again =
      peconform(fmt::format("cases export --spec 'rope(d=16)' --profile smoke --cases 1 --out '{}'", folder.string()));
  EXPECT_EQ(again.exit_code, 2) << again.output;
  EXPECT_NE(again.output.find("is not an empty folder"), std::string::npos) << again.output;
}

// `run --outputs` replays no saved case: the kernel's outputs exist for the exported cases alone,
// so its corpus is the export folder (which holds none), never the working directory's
// fixtures/regressions, where a saved tensor-files case would otherwise be run first.
TEST_F(TensorFilesCli, NoSavedCaseOfTheWorkingDirectoryIsReplayed) {
  const std::filesystem::path folder = export_and_compute("corpus", "rope(d=16,dtype=fp32)", 3);
  const files::Manifest manifest = files::read_manifest(folder);
  const std::filesystem::path work = scratch_.path() / "work";
  peconform::harness::FailureRecord saved;
  saved.case_text = manifest.entries.at(1).case_text;
  saved.cell_backend = "tensor-files";
  saved.cell_family = "rope";
  peconform::harness::save_regression(work / "fixtures" / "regressions", "tensor-files", saved);
  const peconform::ToolRun checked = peconform::run_tool(fmt::format("cd '{}' && '{}' run --outputs '{}' --quiet --out '{}'", work.string(),
                                                                     PECONFORM_BINARY, folder.string(),
                                                                     (scratch_.path() / "corpus-report").string()));
  ASSERT_EQ(checked.exit_code, 0) << checked.output;
  EXPECT_EQ(report("corpus-report").at("run").at("regressions_replayed"), 0);
  EXPECT_EQ(report("corpus-report").at("run").at("cases_run"), 3);
}

}  // namespace
