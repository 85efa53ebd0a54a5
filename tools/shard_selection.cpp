#include "tools/shard_selection.hpp"

#include <charconv>
#include <cstdlib>
#include <fmt/format.h>

#include "spec/spec_error.hpp"

namespace peconform {
namespace {

// Digits only: a sign, a space or a fraction is refused, not read up to where it stops.
long long whole_number(const std::string& text, const std::string& what) {
  long long value = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || value < 0 || value > 1'000'000'000)
    throw SpecError(fmt::format("{} is '{}'; expected a whole number from 0", what, text));
  return value;
}

long long count_of(const std::string& text, const std::string& what) {
  const long long count = whole_number(text, what);
  if (count < 1) throw SpecError(fmt::format("{} is '{}'; expected at least 1", what, text));
  return count;
}

ShardSelection from_option(const std::string& option) {
  const std::size_t slash = option.find('/');
  if (slash == std::string::npos) throw SpecError(fmt::format("--shard is '{}'; expected I/N, such as 1/4", option));
  const long long index = whole_number(option.substr(0, slash), fmt::format("--shard {}'s I", option));
  const long long count = count_of(option.substr(slash + 1), fmt::format("--shard {}'s N", option));
  if (index < 1 || index > count)
    throw SpecError(fmt::format("--shard is '{}'; expected 1 <= I <= N", option));
  return {static_cast<int>(index), static_cast<int>(count), "--shard", ""};
}

// An index counted from 0 and the count beside it, as GoogleTest and Kubernetes give them.
ShardSelection from_zero_based(const std::string& index_name, const std::string& index_text, const std::string& count_name,
                               const std::string& count_text) {
  const long long index = whole_number(index_text, index_name);
  const long long count = count_of(count_text, count_name);
  if (index >= count)
    throw SpecError(fmt::format("{} is {} but {} is {}: the index counts from 0 and must be below the count", index_name,
                                index, count_name, count));
  return {static_cast<int>(index + 1), static_cast<int>(count), index_name + "/" + count_name, ""};
}

// Slurm numbers an array's tasks by the ids --array gave (0-63, 1-4, 0-30:2); the shard is the
// task's place among them, which only evenly spaced ids give.
ShardSelection from_slurm_array(const std::string& id_text, const EnvironmentLookup& environment) {
  const auto count_text = environment("SLURM_ARRAY_TASK_COUNT");
  if (!count_text) throw SpecError("SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not");
  const long long id = whole_number(id_text, "SLURM_ARRAY_TASK_ID");
  const long long count = count_of(*count_text, "SLURM_ARRAY_TASK_COUNT");
  const long long min = whole_number(environment("SLURM_ARRAY_TASK_MIN").value_or("0"), "SLURM_ARRAY_TASK_MIN");
  const long long step = count_of(environment("SLURM_ARRAY_TASK_STEP").value_or("1"), "SLURM_ARRAY_TASK_STEP");
  const std::string array = fmt::format("SLURM_ARRAY_TASK_MIN {}, SLURM_ARRAY_TASK_STEP {}, SLURM_ARRAY_TASK_COUNT {}",
                                        min, step, count);
  if (const auto max_text = environment("SLURM_ARRAY_TASK_MAX")) {
    const long long max = whole_number(*max_text, "SLURM_ARRAY_TASK_MAX");
    if (max != min + (count - 1) * step)
      throw SpecError(fmt::format("SLURM_ARRAY_TASK_MAX is {} but an array of {} ends at {}: its ids are not evenly "
                                  "spaced (such as --array=1,5,6), so a task's id does not say its shard; give --shard I/N",
                                  max, array, min + (count - 1) * step));
  }
  if (id < min || (id - min) % step != 0 || (id - min) / step >= count)
    throw SpecError(fmt::format("SLURM_ARRAY_TASK_ID is {}, not one of the ids of an array of {}", id, array));
  return {static_cast<int>((id - min) / step + 1), static_cast<int>(count), "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT", ""};
}

}  // namespace

std::optional<std::string> process_environment(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  return value != nullptr && *value != '\0' ? std::optional<std::string>(value) : std::nullopt;
}

ShardSelection select_shard(const std::string& option, const EnvironmentLookup& environment) {
  if (!option.empty()) return from_option(option);
  if (const auto total = environment("GTEST_TOTAL_SHARDS")) {
    ShardSelection selection =
        from_zero_based("GTEST_SHARD_INDEX", environment("GTEST_SHARD_INDEX").value_or("0"), "GTEST_TOTAL_SHARDS", *total);
    selection.status_file = environment("GTEST_SHARD_STATUS_FILE").value_or("");
    return selection;
  }
  if (const auto task = environment("SLURM_ARRAY_TASK_ID")) return from_slurm_array(*task, environment);
  if (const auto index = environment("JOB_COMPLETION_INDEX")) {
    const auto count = environment(kKubernetesShardCount);
    if (!count)
      throw SpecError(fmt::format("JOB_COMPLETION_INDEX is {} (a Kubernetes Indexed Job) but {} is not set: give it the "
                                  "Job's .spec.completions in the pod's env (docs/campaign.md, Sharding)",
                                  *index, kKubernetesShardCount));
    return from_zero_based("JOB_COMPLETION_INDEX", *index, kKubernetesShardCount, *count);
  }
  return {1, 1, "no shard given", ""};
}

}  // namespace peconform
