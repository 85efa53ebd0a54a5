// The campaign's property thread (harness/property_thread.hpp): the verdicts it gathers are
// those of the same runs made one after another, in job order, and a halt stops the property
// under way, dropping its verdict, and starts no other.
#include "harness/property_thread.hpp"

#include <gtest/gtest.h>
#include <thread>

#include "backends/cpu/cpu_backend.hpp"
#include "harness/property_runs.hpp"

namespace peconform::harness {
namespace {

constexpr int kPropertyCases = 5;

TEST(PropertyThread, GathersTheVerdictsOfTheSameRunsInJobOrder) {
  std::vector<PropertyJob> jobs;
  const std::span<const Property> catalog = all_properties();
  for (std::size_t p = 0; p < 8 && p < catalog.size(); ++p) jobs.push_back({&catalog[p], &cpu_backend(), 1000 + p});
  std::reverse(jobs.begin(), jobs.end());  // not the catalog's order, which the verdicts must not fall back to

  PropertyThread thread(jobs, kPropertyCases);
  const std::vector<PropertyVerdict> verdicts = thread.take_verdicts();
  ASSERT_EQ(verdicts.size(), jobs.size());
  EXPECT_EQ(thread.done(), jobs.size());
  EXPECT_GT(thread.seconds(), 0);
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const std::atomic<bool> never{false};
    const PropertyVerdict alone = *run_property(*jobs[j].property, *jobs[j].points, jobs[j].seed, kPropertyCases, never);
    EXPECT_EQ(verdicts[j].name, alone.name);
    EXPECT_EQ(verdicts[j].passed, alone.passed) << alone.name;
    EXPECT_EQ(verdicts[j].cases, alone.cases) << alone.name;
    EXPECT_EQ(verdicts[j].message, alone.message) << alone.name;
  }
}

void quick_check(const Implementation&) {}
// Each case sleeps: 500 cases take 5 s, long enough to be halted while they run.
void slow_check(const Implementation&) { std::this_thread::sleep_for(std::chrono::milliseconds(10)); }
constexpr int kManyCases = 500;

TEST(PropertyThread, AHaltStopsThePropertyUnderWayAndKeepsTheVerdictsBefore) {
  const Property quick{"a quick property", "rope", &quick_check}, slow{"a slow property", "rope", &slow_check};
  const std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  PropertyThread thread({{&quick, &cpu_backend(), 1}, {&slow, &cpu_backend(), 2}, {&quick, &cpu_backend(), 3}}, kManyCases);
  while (thread.done() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  thread.halt();
  const std::vector<PropertyVerdict> verdicts = thread.take_verdicts();
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_EQ(verdicts[0].name, "a quick property");
  EXPECT_TRUE(verdicts[0].passed);
  EXPECT_EQ(verdicts[0].cases, kManyCases);
  EXPECT_EQ(thread.done(), 1u);
  // The slow property's 500 cases would take 5 s; the halt stops it after the case under way.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
}

TEST(PropertyThread, ItsDestructorHaltsAndWaits) {
  const Property slow{"a slow property", "rope", &slow_check};
  const std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  {
    const PropertyThread thread(std::vector<PropertyJob>(10, PropertyJob{&slow, &cpu_backend(), 1}), kManyCases);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  // Ten properties of 5 s each; the halt stops the first after the case under way.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
}

}  // namespace
}  // namespace peconform::harness
