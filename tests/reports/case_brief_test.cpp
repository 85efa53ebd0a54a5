#include <gtest/gtest.h>
#include <string>

#include "reports/case_brief.hpp"

namespace peconform {
namespace {

// n values "1.25,1.25,..." : 5 characters each and a comma between, 5n + n - 1 characters.
std::string factors(int n) {
  std::string list;
  for (int i = 0; i < n; ++i) list += i == 0 ? "1.25" : ",1.25";
  return list;
}

TEST(CaseBrief, KeepsTheSpecAndDropsTheDrawing) {
  EXPECT_EQ(case_spec_brief("rope(d=8,base=10000) | batch=1 seq=3 heads=1 seed=0xa7"), "rope(d=8,base=10000)");
  EXPECT_EQ(case_spec_brief("alibi(heads=8)"), "alibi(heads=8)");
}

TEST(CaseBrief, CutsListsOfFortyCharactersOrMoreToTheirCount) {
  ASSERT_EQ(factors(8).size(), 39u);
  ASSERT_EQ(factors(9).size(), 44u);
  const std::string spec = "rope(d=128,scaling=longrope(factor=4,orig=16,short=[" + factors(64) + "],long=[" + factors(8) +
                           "]),dtype=bf16)";
  EXPECT_EQ(case_spec_brief(spec + " | batch=4 seq=1"),
            "rope(d=128,scaling=longrope(factor=4,orig=16,short=[64 values],long=[" + factors(8) + "]),dtype=bf16)");
  EXPECT_EQ(case_spec_brief("mrope(sections=[16,24,24]) | x=[" + factors(9) + "]"), "mrope(sections=[16,24,24])");
}

TEST(CaseBrief, AListOfExactlyFortyCharactersIsCut) {
  const std::string forty = "1.25,1.25,1.25,1.25,1.25,1.25,1.25,1.250";
  ASSERT_EQ(forty.size(), 40u);
  EXPECT_EQ(case_spec_brief("rope(f=[" + forty + "])"), "rope(f=[8 values])");
}

}  // namespace
}  // namespace peconform
