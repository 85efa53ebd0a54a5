#pragma once
// Runs a check once on every Highway target this CPU runs, not only its best: the runtime
// dispatch picks another on another CPU. `dispatched` names the target the code under test
// dispatched to, which must be the one forced; the forcing is undone afterwards.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cstdint>
#include <iostream>
#include <vector>

namespace peconform {

template <class Check> void on_every_highway_target(const char* what, const char* (*dispatched)(), Check check) {
  const std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
  ASSERT_FALSE(targets.empty());
  for (const std::int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    std::cout << what << " target: " << dispatched() << "\n";
    EXPECT_STREQ(dispatched(), hwy::TargetName(target));
    check();
  }
  hwy::SetSupportedTargetsForTest(0);
}

}  // namespace peconform
