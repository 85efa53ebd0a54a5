#include <gtest/gtest.h>

#include "reports/xml_escape.hpp"

namespace peconform {
namespace {

TEST(XmlEscape, EscapesMarkupInTextAndAttributes) {
  EXPECT_EQ(xml_text("a<b && c>'d' \"e\""), "a&lt;b &amp;&amp; c&gt;'d' \"e\"");
  EXPECT_EQ(xml_attribute("a<b && c>'d' \"e\""), "a&lt;b &amp;&amp; c&gt;&#39;d&#39; &quot;e&quot;");
  EXPECT_EQ(xml_text("line\nnext\ttab"), "line\nnext\ttab");
  EXPECT_EQ(xml_attribute("line\nnext\ttab\r"), "line&#10;next&#9;tab&#13;");
}

TEST(XmlEscape, ReplacesWhatXml10ForbidsAndKeepsValidUtf8) {
  const std::string replacement = "\xEF\xBF\xBD";
  EXPECT_EQ(xml_text("a\x01z\x1Fz"), "a" + replacement + "z" + replacement + "z");
  EXPECT_EQ(xml_text(std::string("nul\0end", 7)), "nul" + replacement + "end");
  EXPECT_EQ(xml_text("\xEF\xBF\xBF"), replacement);            // U+FFFF
  EXPECT_EQ(xml_text("\xED\xA0\x80"), replacement);            // an encoded surrogate, U+D800
  EXPECT_EQ(xml_text("\xC0\xAF"), replacement + replacement);  // overlong '/'
  EXPECT_EQ(xml_text("cut \xE2\x82"), "cut " + replacement + replacement);
  EXPECT_EQ(xml_text("caf\xC3\xA9 \xDF\xBF"), "caf\xC3\xA9 \xDF\xBF");  // two-byte leads with their low bits set
  EXPECT_EQ(xml_text("\xCE\xB8 \xE2\x89\xA4 2\xE2\x81\xBB\xC2\xB2\xE2\x81\xB4 \xF0\x9F\x94\xA5"),
            "\xCE\xB8 \xE2\x89\xA4 2\xE2\x81\xBB\xC2\xB2\xE2\x81\xB4 \xF0\x9F\x94\xA5");
}

}  // namespace
}  // namespace peconform
