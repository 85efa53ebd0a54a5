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

// The edges of what XML 1.0 allows (Char, section 2.2) and of well-formed UTF-8 (RFC 3629): the
// last code point before the surrogates and the first after them pass; past U+10FFFF, a lead
// byte followed by anything but a continuation byte, and the overlong 3- and 4-byte forms are
// replaced, each bad byte by one U+FFFD, the byte after a cut sequence kept.
TEST(XmlEscape, TheEdgesOfXmlCharactersAndOfUtf8) {
  const std::string replacement = "\xEF\xBF\xBD";
  EXPECT_EQ(xml_text("\xED\x9F\xBF"), "\xED\x9F\xBF");  // U+D7FF
  EXPECT_EQ(xml_text("\xEE\x80\x80"), "\xEE\x80\x80");  // U+E000
  EXPECT_EQ(xml_text("\xF4\x8F\xBF\xBF"), "\xF4\x8F\xBF\xBF");  // U+10FFFF
  EXPECT_EQ(xml_text("\xF4\x90\x80\x80"), replacement);  // U+110000
  EXPECT_EQ(xml_text("\xC3("), replacement + "(");
  EXPECT_EQ(xml_text("\xE0\x80\xAF"), replacement + replacement + replacement);  // overlong '/' in 3 bytes
  EXPECT_EQ(xml_text("\xF0\x80\x80\xAF"), replacement + replacement + replacement + replacement);  // and in 4
  // Overlong forms of code points that a shorter form would allow: U+07FF in 3 bytes, U+0800 in 4.
  EXPECT_EQ(xml_text("\xE0\x9F\xBF"), replacement + replacement + replacement);
  EXPECT_EQ(xml_text("\xF0\x80\xA0\x80"), replacement + replacement + replacement + replacement);
}

// A carriage return is written as a reference in text too: a bare one would be read back as a
// line feed (XML 1.0 section 2.11, end-of-line handling).
TEST(XmlEscape, ACarriageReturnIsAReferenceInTextToo) { EXPECT_EQ(xml_text("a\rb"), "a&#13;b"); }

}  // namespace
}  // namespace peconform
