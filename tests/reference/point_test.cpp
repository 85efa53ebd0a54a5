// Positions as text (reference/point.hpp): each family's form parses to its coordinates and
// prints back, and every malformed position is refused with a SpecError naming the family, the
// form it expects and the text found, never an exception from the standard library.
#include <gtest/gtest.h>

#include "reference/point.hpp"
#include "spec/spec.hpp"
#include "spec/spec_error.hpp"

namespace peconform {
namespace {

TEST(PointText, EachFamilyParsesItsFormAndPrintsItBack) {
  EXPECT_EQ(parse_point(Family::rope, "-7").c, (std::array<std::int64_t, 3>{-7, 0, 0}));
  EXPECT_EQ(parse_point(Family::rope2d, "3:9").c, (std::array<std::int64_t, 3>{3, 9, 0}));
  EXPECT_EQ(parse_point(Family::alibi, "12:5").c, (std::array<std::int64_t, 3>{12, 5, 0}));
  EXPECT_EQ(parse_point(Family::mrope, "1:2:9223372036854775807").c,
            (std::array<std::int64_t, 3>{1, 2, 9223372036854775807}));
  EXPECT_EQ(format_point(Family::mrope, parse_point(Family::mrope, "4:-5:6")), "4:-5:6");
  EXPECT_EQ(format_point(Family::rope2d, parse_point(Family::rope2d, "0:17")), "0:17");
  EXPECT_EQ(format_point(Family::rope, parse_point(Family::rope, "42")), "42");
}

void expect_refused(Family family, const std::string& text, const std::string& form) {
  try {
    parse_point(family, text);
    ADD_FAILURE() << "'" << text << "' was accepted";
  } catch (const SpecError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(std::string(family_name(family))), std::string::npos) << message;
    EXPECT_NE(message.find(form), std::string::npos) << message;
    EXPECT_NE(message.find("found '" + text + "'"), std::string::npos) << message;
  }
}

TEST(PointText, MalformedPositionsAreRefusedNamingTheForm) {
  // Too few parts: once reached past the text's end and threw std::out_of_range.
  expect_refused(Family::alibi, "5", "i:j");
  expect_refused(Family::mrope, "1:2", "t:h:w");
  expect_refused(Family::mrope, "1", "t:h:w");
  expect_refused(Family::rope2d, "4", "x:y");
  // Empty, non-integer, out of int64, trailing text, too many parts.
  expect_refused(Family::rope, "", "an integer");
  expect_refused(Family::rope2d, "3:", "x:y");
  expect_refused(Family::rope2d, ":3", "x:y");
  expect_refused(Family::rope, "1.5", "an integer");
  expect_refused(Family::rope, "9223372036854775808", "an integer");
  expect_refused(Family::rope, "12abc", "an integer");
  expect_refused(Family::rope2d, "1:2:3", "x:y");
  expect_refused(Family::mrope, "1:2:3:4", "t:h:w");
}

}  // namespace
}  // namespace peconform
