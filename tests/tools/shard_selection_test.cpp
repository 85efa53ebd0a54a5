// Which shard `peconform run` runs, from --shard or the variables GoogleTest, a Slurm job array
// and a Kubernetes Indexed Job set: each read into the same shard I of N, and every bad value
// refused with a message naming the variable and its value (never clamped into range).
#include <gtest/gtest.h>

#include <map>

#include "spec/spec_error.hpp"
#include "tools/shard_selection.hpp"

namespace peconform {
namespace {

using Variables = std::map<std::string, std::string>;

ShardSelection selected(const Variables& variables, const std::string& option = "") {
  return select_shard(option, [&variables](const std::string& name) -> std::optional<std::string> {
    const auto found = variables.find(name);
    return found == variables.end() ? std::nullopt : std::optional<std::string>(found->second);
  });
}

// The message select_shard refuses the variables with; empty if it accepts them.
std::string refusal(const Variables& variables, const std::string& option = "") {
  try {
    selected(variables, option);
  } catch (const SpecError& error) {
    return error.what();
  }
  return "";
}

void expect_shard(const ShardSelection& selection, int index, int count) {
  EXPECT_EQ(selection.index, index) << selection.source;
  EXPECT_EQ(selection.count, count) << selection.source;
}

TEST(ShardSelection, TheLastOfFourTasksIsShardFourOfFourFromEveryScheduler) {
  expect_shard(selected({}, "4/4"), 4, 4);
  expect_shard(selected({{"GTEST_TOTAL_SHARDS", "4"}, {"GTEST_SHARD_INDEX", "3"}}), 4, 4);
  expect_shard(selected({{"SLURM_ARRAY_TASK_ID", "3"}, {"SLURM_ARRAY_TASK_COUNT", "4"}, {"SLURM_ARRAY_TASK_MIN", "0"},
                         {"SLURM_ARRAY_TASK_MAX", "3"}, {"SLURM_ARRAY_TASK_STEP", "1"}}),
               4, 4);
  // --array=1-4, as docs/campaign.md's Slurm example submits it: the folder's number is the shard's.
  expect_shard(selected({{"SLURM_ARRAY_TASK_ID", "4"}, {"SLURM_ARRAY_TASK_COUNT", "4"}, {"SLURM_ARRAY_TASK_MIN", "1"}}), 4, 4);
  expect_shard(selected({{"JOB_COMPLETION_INDEX", "3"}, {kKubernetesShardCount, "4"}}), 4, 4);
}

TEST(ShardSelection, AKubernetesIndexedJobsFirstPodIsShardOne) {
  const ShardSelection first = selected({{"JOB_COMPLETION_INDEX", "0"}, {kKubernetesShardCount, "64"}});
  expect_shard(first, 1, 64);
  EXPECT_EQ(first.source, std::string("JOB_COMPLETION_INDEX/") + kKubernetesShardCount);
}

TEST(ShardSelection, ASlurmArrayWithAStepCountsItsTasksNotItsIds) {
  // --array=0-30:10: ids 0, 10, 20, 30 are shards 1 to 4.
  const Variables array{{"SLURM_ARRAY_TASK_COUNT", "4"}, {"SLURM_ARRAY_TASK_MIN", "0"}, {"SLURM_ARRAY_TASK_MAX", "30"},
                        {"SLURM_ARRAY_TASK_STEP", "10"}};
  for (int shard = 1; shard <= 4; ++shard) {
    Variables task = array;
    task["SLURM_ARRAY_TASK_ID"] = std::to_string((shard - 1) * 10);
    expect_shard(selected(task), shard, 4);
  }
}

TEST(ShardSelection, TheOptionComesFirstThenGoogleTestThenSlurmThenKubernetes) {
  const Variables every{{"GTEST_TOTAL_SHARDS", "2"},    {"GTEST_SHARD_INDEX", "1"},      {"SLURM_ARRAY_TASK_ID", "0"},
                        {"SLURM_ARRAY_TASK_COUNT", "3"}, {"JOB_COMPLETION_INDEX", "4"}, {kKubernetesShardCount, "5"}};
  expect_shard(selected(every, "1/7"), 1, 7);
  expect_shard(selected(every), 2, 2);
  Variables no_gtest = every;
  no_gtest.erase("GTEST_TOTAL_SHARDS");
  expect_shard(selected(no_gtest), 1, 3);
  expect_shard(selected({{"JOB_COMPLETION_INDEX", "4"}, {kKubernetesShardCount, "5"}}), 5, 5);
  expect_shard(selected({}), 1, 1);
}

TEST(ShardSelection, GoogleTestsStatusFileIsPassedOn) {
  EXPECT_EQ(selected({{"GTEST_TOTAL_SHARDS", "2"}, {"GTEST_SHARD_STATUS_FILE", "/tmp/status"}}).status_file, "/tmp/status");
  EXPECT_EQ(selected({{"SLURM_ARRAY_TASK_ID", "0"}, {"SLURM_ARRAY_TASK_COUNT", "1"}, {"GTEST_SHARD_STATUS_FILE", "/tmp/s"}})
                .status_file,
            "");
}

TEST(ShardSelection, BadValuesAreRefusedNamingTheVariableAndItsValue) {
  const std::string count = kKubernetesShardCount;
  for (const auto& [variables, named] : std::vector<std::pair<Variables, std::vector<std::string>>>{
           {{{"JOB_COMPLETION_INDEX", "4"}, {count, "4"}}, {"JOB_COMPLETION_INDEX is 4", count + " is 4"}},
           {{{"JOB_COMPLETION_INDEX", "two"}, {count, "4"}}, {"JOB_COMPLETION_INDEX is 'two'"}},
           {{{"JOB_COMPLETION_INDEX", "-1"}, {count, "4"}}, {"JOB_COMPLETION_INDEX is '-1'"}},
           {{{"JOB_COMPLETION_INDEX", "1"}, {count, "0"}}, {count + " is '0'", "at least 1"}},
           {{{"JOB_COMPLETION_INDEX", "1"}, {count, "4 "}}, {count + " is '4 '"}},
           {{{"JOB_COMPLETION_INDEX", "1"}}, {"JOB_COMPLETION_INDEX is 1", count + " is not set", ".spec.completions"}},
           {{{"GTEST_TOTAL_SHARDS", "4"}, {"GTEST_SHARD_INDEX", "4"}}, {"GTEST_SHARD_INDEX is 4", "GTEST_TOTAL_SHARDS is 4"}},
           {{{"GTEST_TOTAL_SHARDS", "+4"}}, {"GTEST_TOTAL_SHARDS is '+4'"}},
           {{{"SLURM_ARRAY_TASK_ID", "1.5"}, {"SLURM_ARRAY_TASK_COUNT", "4"}}, {"SLURM_ARRAY_TASK_ID is '1.5'"}},
           {{{"SLURM_ARRAY_TASK_ID", "4"}, {"SLURM_ARRAY_TASK_COUNT", "4"}, {"SLURM_ARRAY_TASK_MIN", "0"}},
            {"SLURM_ARRAY_TASK_ID is 4", "SLURM_ARRAY_TASK_COUNT 4"}},
           {{{"SLURM_ARRAY_TASK_ID", "0"}, {"SLURM_ARRAY_TASK_COUNT", "4"}, {"SLURM_ARRAY_TASK_MIN", "1"}},
            {"SLURM_ARRAY_TASK_ID is 0", "SLURM_ARRAY_TASK_MIN 1"}},
           {{{"SLURM_ARRAY_TASK_ID", "5"}, {"SLURM_ARRAY_TASK_COUNT", "4"}, {"SLURM_ARRAY_TASK_STEP", "10"}},
            {"SLURM_ARRAY_TASK_ID is 5", "SLURM_ARRAY_TASK_STEP 10"}},
           {{{"SLURM_ARRAY_TASK_ID", "5"}, {"SLURM_ARRAY_TASK_COUNT", "3"}, {"SLURM_ARRAY_TASK_MIN", "1"},
             {"SLURM_ARRAY_TASK_MAX", "6"}},
            {"SLURM_ARRAY_TASK_MAX is 6", "not evenly spaced"}},
           {{{"SLURM_ARRAY_TASK_ID", "3"}}, {"SLURM_ARRAY_TASK_COUNT is not"}},
       }) {
    const std::string message = refusal(variables);
    ASSERT_FALSE(message.empty()) << named.front() << ": accepted";
    for (const std::string& part : named) EXPECT_NE(message.find(part), std::string::npos) << message;
  }
  for (const char* option : {"5/4", "0/4", "1/0", "a/4", "1-4", "1/4x"})
    EXPECT_NE(refusal({}, option).find(option), std::string::npos) << option << ": " << refusal({}, option);
}

}  // namespace
}  // namespace peconform
