// Position ids at the ends of their types through the campaign's kernel call: int32 and int64
// ids up to 2^31 - 1 in every position mode, and int64 ids past it, reach the kernel unchanged
// and verify against the reference; a case whose positions run past the limit is refused
// with an error naming the position, never wrapped into int32.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>

#include "backends/backend_registry.hpp"
#include "harness/case_call.hpp"
#include "harness/case_description.hpp"
#include "harness/verifier.hpp"
#include "spec/spec_error.hpp"

namespace peconform::harness {
namespace {

constexpr std::int64_t kInt32Max = 2147483647;

std::string case_text(const std::string& ids, const std::string& positions, std::int64_t offset, std::int64_t seq) {
  return "rope(d=16,layout=half,dtype=fp32) | batch=2 seq=" + std::to_string(seq) + " heads=2 ids=" + ids +
         " positions=" + positions + " offset=" + std::to_string(offset) + " inputs=activations seed=11";
}

void expect_verified(KernelCall& call, const std::string& text) {
  make_backend("cpu")->run(call);
  const CaseVerdict verdict = verify_call(call);
  EXPECT_FALSE(verdict.failed()) << text << ": " << (verdict.first_failure ? verdict.first_failure->kind : "");
  EXPECT_EQ(verdict.stats.elements, static_cast<std::uint64_t>(call.batch * call.seq * 2 * 16)) << text;
  EXPECT_EQ(verdict.stats.bounded_elements, verdict.stats.elements) << text << ": some elements went unchecked";
}

TEST(PositionIds, Int32AndInt64IdsUpToTheLimitReachTheKernelUnchangedInEveryMode) {
  for (const auto& [mode, offset, seq] : {std::tuple{"run", kInt32Max - 5, std::int64_t{6}},
                                          std::tuple{"cache", kInt32Max - 40, std::int64_t{8}},
                                          std::tuple{"scattered", std::int64_t{0}, std::int64_t{40}}}) {
    KernelCall wide = materialize(CaseDescription::parse(case_text("int64", mode, offset, seq)));
    const std::string text = case_text("int32", mode, offset, seq);
    KernelCall narrow = materialize(CaseDescription::parse(text));
    std::int64_t highest = 0;
    for (std::int64_t b = 0; b < narrow.batch; ++b)
      for (std::int64_t s = 0; s < narrow.seq; ++s) {
        ASSERT_EQ(narrow.id(0, b, s), wide.id(0, b, s)) << text << " token " << b << ", " << s;
        highest = std::max(highest, narrow.id(0, b, s));
      }
    if (std::string(mode) == "run") {
      EXPECT_EQ(highest, kInt32Max) << text;
    }
    expect_verified(narrow, text);
    expect_verified(wide, case_text("int64", mode, offset, seq));
  }
}

TEST(PositionIds, Int64IdsPastTheInt32RangeVerifyAgainstTheReference) {
  const std::string text = case_text("int64", "run", 0, 4);
  KernelCall call = materialize(CaseDescription::parse(text));
  call.ids64_data = {kInt32Max, kInt32Max + 1, std::int64_t{1} << 32, (std::int64_t{1} << 33) + 12345,
                     kInt32Max + 2, std::int64_t{3} << 31, std::int64_t{1} << 34, std::int64_t{1} << 36};
  ASSERT_EQ(call.ids64_data.size(), static_cast<std::size_t>(call.batch * call.seq));
  EXPECT_EQ(token_point(call, 1, 3).c[0], std::int64_t{1} << 36);
  expect_verified(call, text + " with ids past 2^31 - 1");
}

TEST(PositionIds, PositionsPastTheLimitAreRefusedNamingThem) {
  for (const char* ids : {"int32", "int64"})
    for (const char* mode : {"run", "cache"}) {
      const std::string text = case_text(ids, mode, kInt32Max - 2, 4);  // the last token at 2^31
      try {
        materialize(CaseDescription::parse(text));
        ADD_FAILURE() << text << " was accepted";
      } catch (const SpecError& error) {
        EXPECT_NE(std::string(error.what()).find("2147483648"), std::string::npos) << text << ": " << error.what();
      }
    }
}

}  // namespace
}  // namespace peconform::harness
