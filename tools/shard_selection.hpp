// Which shard of a campaign one `peconform run` runs: `--shard I/N`, else the variables a
// scheduler gives each task of an array of them. Read in this order, the first found wins:
//   GoogleTest's GTEST_SHARD_INDEX (from 0) and GTEST_TOTAL_SHARDS;
//   a Slurm job array's SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN, SLURM_ARRAY_TASK_STEP,
//     SLURM_ARRAY_TASK_COUNT (and SLURM_ARRAY_TASK_MAX, to refuse unevenly spaced ids);
//   a Kubernetes Indexed Job's JOB_COMPLETION_INDEX (from 0) with kKubernetesShardCount.
// A value that is not a whole number, or an index outside its count, is a SpecError naming the
// variable and its value: a task never runs another task's shard, nor the whole campaign.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace peconform {

// Kubernetes gives a pod its completion index but not the Job's .spec.completions, and the
// downward API cannot read a Job's fields: the manifest repeats the count in this variable, a
// name of our own so that it is never taken for one Kubernetes sets.
inline constexpr const char* kKubernetesShardCount = "PECONFORM_JOB_COMPLETIONS";

struct ShardSelection {
  int index = 1, count = 1;     // shard `index` of `count`, from 1
  std::string source;           // "--shard" or the variables it came from, for messages
  std::string status_file;      // GTEST_SHARD_STATUS_FILE, which GoogleTest's protocol has us create
};

// An environment variable's value; nullopt where it is unset or empty.
using EnvironmentLookup = std::function<std::optional<std::string>(const std::string& name)>;
std::optional<std::string> process_environment(const std::string& name);

// `option` is --shard's text, empty when not given.
ShardSelection select_shard(const std::string& option, const EnvironmentLookup& environment);

}  // namespace peconform
