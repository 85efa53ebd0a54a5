#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/resource.h>

#include <csignal>
#include <fmt/format.h>
#include <unistd.h>

#include "reports/atomic_file.hpp"
#include "reports/campaign_reports.hpp"
#include "reports/junit_xml.hpp"
#include "reports/report_html.hpp"
#include "reports/summary_markdown.hpp"
#include "sample_result.hpp"
#include "support/scratch_dir.hpp"

namespace peconform {
namespace {

TEST(CampaignReports, WritesAllFourReportsIntoANewDirectory) {
  const ScratchDir dir;
  const harness::CampaignResult result = sample_result();
  write_campaign_reports(result, dir.path() / "out" / "run-1");
  const std::string json = dir.read("out/run-1/report.json");
  EXPECT_EQ(nlohmann::json::parse(json), harness::to_json(result));
  EXPECT_EQ(json, harness::to_json(result).dump(2) + "\n");
  EXPECT_EQ(dir.read("out/run-1/junit.xml"), junit_xml(result));
  EXPECT_EQ(dir.read("out/run-1/summary.md"), summary_markdown(result));
  EXPECT_EQ(dir.read("out/run-1/report.html"), report_html(result));
  // Nothing but the four reports: no temporary file is left behind.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path() / "out" / "run-1"),
                          std::filesystem::directory_iterator()),
            4);
}

TEST(CampaignReports, ThrowsWhenTheDirectoryCannotBeCreated) {
  const ScratchDir dir;
  dir.write("occupied", "a file where the directory should go");
  EXPECT_THROW(write_campaign_reports(sample_result(), dir.path() / "occupied"), std::runtime_error);
}

// A write that fails part-way (here the file-size limit, as a full disk would) throws naming the
// file, leaves nothing behind, and never replaces the report that was there.
TEST(CampaignReports, AWriteThatFailsThrowsAndKeepsTheOldFile) {
  const ScratchDir dir;
  dir.write("report.json", "the old report");
  const auto previous_handler = std::signal(SIGXFSZ, SIG_IGN);  // EFBIG from write(), not the signal
  rlimit limit{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &limit), 0);
  rlimit small = limit;
  small.rlim_cur = 4096;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string said;
  try {
    write_file_atomically(dir.path() / "report.json", std::string(1 << 20, 'x'));
  } catch (const std::runtime_error& error) {
    said = error.what();
  }
  setrlimit(RLIMIT_FSIZE, &limit);
  EXPECT_EQ(said, "cannot write '" + (dir.path() / "report.json").string() + "'");
  std::signal(SIGXFSZ, previous_handler);
  EXPECT_EQ(dir.read("report.json"), "the old report");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), std::filesystem::directory_iterator()), 1);
}

// The temporary sits beside the target as ".<name>.<pid>.partial" (a hidden file no reader
// globs for), in "." for a bare file name. A directory already at that name makes the write
// fail naming the temporary, which shows where it is written: beside a path with a folder, and
// in the working directory for a bare name (where the report lands).
TEST(CampaignReports, TheTemporaryIsAHiddenPartialFileBesideTheTarget) {
  const ScratchDir dir;
  const std::filesystem::path previous = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  write_file_atomically("bare.txt", "hello");
  std::filesystem::create_directory(fmt::format(".blocked.txt.{}.partial", getpid()));
  std::string said;
  try {
    write_file_atomically("blocked.txt", "hello");
  } catch (const std::runtime_error& error) {
    said = error.what();
  }
  std::filesystem::current_path(previous);
  EXPECT_EQ(dir.read("bare.txt"), "hello");
  EXPECT_EQ(said, fmt::format("cannot write './.blocked.txt.{}.partial'", getpid()));
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "blocked.txt"));
  std::filesystem::create_directories(dir.path() / "out" / fmt::format(".report.json.{}.partial", getpid()));
  EXPECT_THROW(write_file_atomically(dir.path() / "out" / "report.json", "{}"), std::runtime_error);
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "out" / "report.json"));
}

// A write whose fsync fails (here the temporary's name is taken by a link to /dev/null, which
// takes the bytes and flushes them but cannot be synced: EINVAL) is refused like a short write:
// it throws naming the file, removes the temporary and keeps the old file, never renaming over
// it what may not be on the disk.
TEST(CampaignReports, AWriteThatCannotBeSyncedThrowsAndKeepsTheOldFile) {
  const ScratchDir dir;
  dir.write("report.json", "the old report");
  const std::filesystem::path temporary = dir.path() / fmt::format(".report.json.{}.partial", getpid());
  std::filesystem::create_symlink("/dev/null", temporary);
  std::string said;
  try {
    write_file_atomically(dir.path() / "report.json", "the new report");
  } catch (const std::runtime_error& error) {
    said = error.what();
  }
  EXPECT_EQ(said, "cannot write '" + (dir.path() / "report.json").string() + "'");
  EXPECT_FALSE(std::filesystem::is_symlink(dir.path() / "report.json"));
  EXPECT_EQ(dir.read("report.json"), "the old report");
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::symlink_status(temporary)));
}

}  // namespace
}  // namespace peconform
