#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "spec/spec.hpp"
#include "spec/call_syntax.hpp"
#include "spec/spec_error.hpp"

namespace peconform {
namespace {

// Parsing `text` fails with a message that contains every one of `needles`.
void expect_rejected(const std::string& text, std::initializer_list<std::string> needles) {
  try {
    const Spec spec = Spec::parse(text);
    ADD_FAILURE() << "accepted " << text << " as " << spec.canonical();
  } catch (const SpecError& error) {
    for (const std::string& needle : needles)
      EXPECT_NE(std::string(error.what()).find(needle), std::string::npos) << "message: " << error.what() << "\nmissing: " << needle;
  }
}

TEST(SpecErrors, SyntaxErrorsNameTheColumnTokenAndExpectation) {
  expect_rejected("rope(d=4,,base=1)", {"column 10", "expected a key", "found ','"});
  expect_rejected("rope(d=4", {"expected ')'", "the end of the text"});
  expect_rejected("rope d=4", {"expected '(' after 'rope'", "found 'd'"});
  expect_rejected("rope(d 4)", {"expected '=' after key 'd'", "found '4'"});
  expect_rejected("rope(d=4)x", {"expected the end of the spec", "found 'x'"});
  expect_rejected("mrope(d=16,sections=[2,3", {"in the list for 'sections'"});
}

TEST(SpecErrors, NonAsciiTextIsQuotedWholeAndCountedInCharacters) {
  // 'é' is two bytes; the column counts it as one character, and the message quotes it whole.
  expect_rejected("rope(d=4,layout=hé)", {"column 18", "found 'é'"});
  expect_rejected("rope(d=4,layout=h€x)", {"column 18", "found '€'"});
  expect_rejected("rope(d=4,é=1)", {"column 10", "found 'é'"});
  // Bytes that are no UTF-8 character are escaped, so stderr stays valid UTF-8.
  expect_rejected("rope(d=4,layout=h\xff\xc3)", {"column 18", "found '\\xff'", "layout=h\\xff\\xc3)"});
  expect_rejected("rope(d=4,layout=h\xe9t)", {"found '\\xe9'"});  // Latin-1 é, a lone lead byte
  // Four-byte characters, from U+10000 (lead F0) to U+10FFFF (lead F4), are characters too; past
  // them (F5) and below them (F0 80, an overlong form) are bytes.
  expect_rejected("rope(d=4,layout=h\xf0\x9f\x94\xa5)", {"column 18", "found '\xf0\x9f\x94\xa5'"});
  expect_rejected("rope(d=4,layout=h\xf3\xa0\x80\x81)", {"column 18", "found '\xf3\xa0\x80\x81'"});
  expect_rejected("rope(d=4,layout=h\xf4\x8f\xbf\xbf)", {"column 18", "found '\xf4\x8f\xbf\xbf'"});
  expect_rejected("rope(d=4,layout=h\xf5\x80\x80\x80)", {"found '\\xf5'"});
  expect_rejected("rope(d=4,layout=h\xf0\x80\x80\x80)", {"found '\\xf0'"});
}

TEST(SpecErrors, UnknownNamesListWhatIsAccepted) {
  expect_rejected("rotary(d=4)", {"unknown family 'rotary'", "sinusoidal|learned|rope"});
  expect_rejected("rope(d=4,rope_theta=5)", {"unknown key 'rope_theta' for rope", "base"});
  expect_rejected("rope(d=4,precision=fp32-angle,theta=5)", {"key 'theta' expects one of exact|hf|meta|ggml|mlx|exp-log, found '5'"});
  expect_rejected("alibi(heads=8,d=4)", {"unknown key 'd' for alibi"});
  expect_rejected("rope(d=4,layout=neox)", {"key 'layout' expects one of interleaved|half|interleaved-to-half, found 'neox'"});
  expect_rejected("rope(d=4,scaling=ntk(factor=2))", {"key 'scaling' expects one of", "found 'ntk'"});
  expect_rejected("rope(d=4,d=8)", {"key 'd' is given twice"});
}

TEST(SpecErrors, BadValuesAreNamed) {
  expect_rejected("rope(d=5,layout=half)", {"rotary dims 5 are odd", "layout=half"});
  expect_rejected("sinusoidal(d=5,layout=interleaved,freq=geometric)", {"d=5 is odd", "freq=power (DistilBERT) only"});
  expect_rejected("rope(d=8,rot=10)", {"rot=10 exceeds d=8"});
  expect_rejected("rope(d=8,base=0)", {"base=0 must be positive"});
  expect_rejected("rope(d=8,base=-5)", {"base=-5 must be positive"});
  expect_rejected("rope(d=8,scaling=linear(factor=-2))", {"factor=-2 must be positive"});
  expect_rejected("rope(d=8,scaling=linear(factor=inf))", {"key 'factor'", "'inf' is not a finite decimal"});
  expect_rejected("rope(d=8,scaling=linear(factor=nan))", {"'nan' is not a finite decimal"});
  expect_rejected("rope(d=8,scaling=yarn(factor=4))", {"yarn needs orig="});
  expect_rejected("rope(d=8,scaling=llama3(low=4,high=1))", {"high=1 must exceed low=4"});
  expect_rejected("rope(d=8,scaling=longrope(factor=4,orig=16,short=[1,2],long=[1,2,3,4]))", {"'short' has 2 entries", "4 pairs"});
  expect_rejected("rope(d=8,scaling=custom(freqs=[1,2,3,4],factors=[1,2,3,4]))", {"exactly one of freqs"});
  expect_rejected("rope(d=8,sign=2)", {"key 'sign' expects an integer in [-1, 1], found '2'"});
  expect_rejected("rope(d=8,sign=0)", {"sign must be 1 or -1"});
  expect_rejected("rope(d=x)", {"key 'd' expects an integer", "found 'x'"});
  expect_rejected("rope(base=10)", {"key 'd' is required"});
  expect_rejected("mrope(d=16,sections=[2,3,4])", {"sections cover 18 dims", "rotary dims are 16"});
  expect_rejected("mrope(d=16)", {"key 'sections' is required, e.g. sections=[16,24,24]"});
  expect_rejected("rope2d(d=6)", {"d=6 must be a multiple of 4"});
  expect_rejected("rope2d(d=8,layout=interleaved-to-half)", {"layout=interleaved-to-half", "rope, xpos and mrope only"});
  expect_rejected("sinusoidal(d=8,layout=interleaved-to-half)", {"layout=interleaved-to-half", "rope, xpos and mrope only"});
  expect_rejected("learned(d=4)", {"key 'rows'"});
  // A geometric table's base is its largest timescale: 1 gives no frequencies, a base below 1
  // frequencies that grow, which is still a table (a mutant that refused every base <= 1 survived
  // session 39's draw).
  expect_rejected("sinusoidal(d=8,freq=geometric,base=1)", {"freq=geometric needs base != 1"});
  EXPECT_NO_THROW(Spec::parse("sinusoidal(d=8,freq=geometric,base=0.5)"));
  expect_rejected("t5(buckets=2)", {"buckets=2 leaves no exact buckets"});
  expect_rejected("rope(d=8,scaling=dynamic(factor=2,orig=0))", {"key 'orig' expects an integer in [1,", "found '0'"});
  expect_rejected("alibi(heads=0)", {"key 'heads'", "found '0'"});
  // Required keys left out: these once parsed, to a canonical form (alibi(heads=0), shaw(k=0))
  // that did not parse back (fuzz/spec_text_fuzz.cpp).
  expect_rejected("alibi()", {"alibi: key 'heads'", "is required"});
  expect_rejected("alibi(mode=causal)", {"alibi: key 'heads'", "is required"});
  expect_rejected("shaw()", {"shaw: key 'k'", "is required"});
  expect_rejected("shaw(right=8)", {"shaw: key 'k'", "is required"});
  expect_rejected("shaw(k=4,right=-1)", {"key 'right' expects an integer in [0,", "found '-1'"});
  expect_rejected("t5(right=2)", {"unknown key 'right' for t5"});
  // math=bf16 is ALiBi's bf16 arithmetic in a model of another dtype (Falcon), spelled one way.
  expect_rejected("rope(d=8,math=bf16)", {"math=bf16 rounds ALiBi's", "rope takes math=compute or math=storage"});
  expect_rejected("alibi(heads=8,cache=bf16)", {"unknown key 'cache' for alibi"});
  expect_rejected("rope(d=8,cache=bf16)", {"cache=bf16 is not a place", "compute or storage"});
  expect_rejected("alibi(heads=8,dtype=bf16,math=bf16)", {"math=bf16 with dtype=bf16", "write math=storage"});
  EXPECT_NO_THROW(Spec::parse("alibi(heads=8,dtype=fp16,math=bf16)"));
  // amp scales rotary pairs and sinusoidal and learned tables; positive wherever it applies.
  expect_rejected("learned(d=4,rows=8,amp=0)", {"amp=0 must be positive"});
  expect_rejected("sinusoidal(d=4,amp=-1)", {"amp=-1 must be positive"});
  expect_rejected("xl(d=8,amp=2)", {"unknown key 'amp' for xl"});
  expect_rejected("rope(d=8,theta=hf)", {"theta=hf", "needs precision=fp32-angle, found exact-angle"});
  // Dynamic NTK's base exponent is d/(d - 2): two rotary dims have none (issue 38: a mutant that
  // never refused survived).
  expect_rejected("rope(d=2,scaling=dynamic(factor=2,orig=16))", {"dynamic scaling needs rotary dims > 2"});
  expect_rejected("rope(d=8,rot=2,scaling=dynamic(factor=2,orig=16))", {"dynamic scaling needs rotary dims > 2"});
  EXPECT_NO_THROW(Spec::parse("rope(d=4,scaling=dynamic(factor=2,orig=16))"));
  expect_rejected("rope2d(d=8,position=fp32-sum)", {"position=fp32-sum", "needs precision=fp32-angle, found exact-angle"});
  expect_rejected("xpos(d=8,precision=fp32-angle,position=fp32-sum)", {"unknown key 'position' for xpos"});
  expect_rejected("rope(d=8,precision=fp32-angle,position=twice)", {"key 'position' expects one of fp32|fp32-sum, found 'twice'"});
  expect_rejected("rope(d=8,precision=fp32-angle,theta=ggml,scaling=llama3(factor=4,orig=16))",
                  {"theta=ggml is not defined for scaling llama3", "ggml none, linear, yarn and custom(factors=...)"});
  expect_rejected("rope(d=8,precision=fp32-angle,theta=meta,scaling=dynamic(factor=4,orig=16))",
                  {"theta=meta is not defined for scaling dynamic", "meta the same but dynamic"});
  expect_rejected("rope(d=64,precision=fp32-angle,theta=mlx,scaling=linear(factor=2))",
                  {"theta=mlx is not defined for scaling linear", "mlx none (rope only)"});
  expect_rejected("xpos(d=64,precision=fp32-angle,theta=mlx)", {"theta=mlx is not defined for scaling none"});
  expect_rejected("rope(d=64,base=1e30,precision=fp32-angle,theta=mlx)", {"|ln(base)| < 64", "base=1e+30"});
  expect_rejected("rope(d=8,precision=fp32-angle,theta=ggml,scaling=yarn(factor=4,orig=4096,truncate=false))",
                  {"theta=ggml floors and ceils", "drop truncate=false"});
  expect_rejected("rope(d=8,precision=fp32-angle,theta=ggml,scaling=yarn(factor=4,orig=4096,mscale=1,mscale_all_dim=0.5))",
                  {"1 + 0.1 ln(factor)", "drop attention=, mscale= and mscale_all_dim="});
  expect_rejected("rope(d=8,precision=fp32-angle,theta=ggml,scaling=yarn(factor=0.5,orig=4096))", {"factor=0.5", "factor of 1 or more"});
  expect_rejected("rope(d=2,base=10,precision=fp32-angle,theta=ggml,scaling=yarn(factor=2,orig=32768,beta_fast=8))",
                  {"max(0.001, high - low)", "ends cross"});
  expect_rejected("rope(d=4,precision=fp32-angle,theta=ggml,scaling=custom(freqs=[1,0.5]))",
                  {"theta=ggml forms no explicit frequency list", "custom(factors=...)"});
  expect_rejected("rope(d=8,scaling=proportional(factor=1))", {"scaling proportional needs pairs="});
  expect_rejected("rope(d=8,scaling=proportional(factor=1,pairs=5))", {"pairs=5 but the rotary dims have 4 pairs"});
  expect_rejected("rope(d=8,scaling=proportional(factor=0,pairs=2))", {"factor=0 must be positive"});
  expect_rejected("rope(d=8,precision=fp32-angle,theta=ggml,scaling=proportional(factor=1,pairs=2))",
                  {"theta=ggml", "no zero frequency"});
  expect_rejected("sinusoidal(d=8,precision=fp32-angle,theta=ggml)",
                  {"theta=ggml is not a table recipe", "sinusoidal takes theta=exact, hf, exp-log or mlx"});
  expect_rejected("xl(d=8,precision=fp32-angle,theta=mlx)",
                  {"theta=mlx is not a table recipe", "xl takes theta=exact, hf or exp-log"});
  // mlx.nn.SinusoidalPositionalEncoding's table: geometric frequencies in halves, an even d.
  EXPECT_NO_THROW(Spec::parse("sinusoidal(d=320,base=10000,layout=half,freq=geometric,precision=fp32-angle,theta=mlx)"));
  expect_rejected("sinusoidal(d=8,layout=half,precision=fp32-angle,theta=mlx)",
                  {"theta=mlx forms a sinusoid table as mlx.nn.SinusoidalPositionalEncoding does", "freq=power"});
  expect_rejected("sinusoidal(d=8,layout=interleaved,freq=geometric,precision=fp32-angle,theta=mlx)", {"layout=interleaved"});
  expect_rejected("sinusoidal(d=9,layout=half,freq=geometric,precision=fp32-angle,theta=mlx)", {"d=9"});
  expect_rejected("rope(d=8,precision=fp32-angle,theta=exp-log)",
                  {"theta=exp-log is not a rotary recipe", "rope takes theta=exact, hf, meta, ggml or mlx"});
  expect_rejected("xl(d=7)", {"d=7 is odd but xl concatenates d/2 sines and d/2 cosines"});
  expect_rejected("xl(d=8,theta=exp-log)", {"theta=exp-log", "needs precision=fp32-angle, found exact-angle"});
  expect_rejected("alibi(heads=8,slopes=bloom)", {"slopes=bloom", "needs precision=fp32-angle, found exact-angle"});
  // fp64-angle is the class of float64 tables (NumPy's): a rotary or bias family has no such recipe.
  expect_rejected("rope(d=8,precision=fp64-angle)", {"precision=fp64-angle describes sinusoid tables", "rope takes exact-angle"});
  expect_rejected("alibi(heads=8,precision=fp64-angle)", {"precision=fp64-angle", "alibi takes exact-angle"});
  expect_rejected("sinusoidal(d=8,precision=fp64-angle,theta=hf)", {"theta=hf", "needs precision=fp32-angle, found fp64-angle"});
  expect_rejected("alibi(heads=8,precision=fp32-angle,slopes=pow)", {"key 'slopes'", "pow"});
}

// The depth is counted as arrays and objects inside each other: `limit` of them is the most
// accepted, one more is refused, and a scalar is no depth at all.
TEST(SpecErrors, NestingIsCountedLevelByLevelUpToTheLimit) {
  const auto nested = [](int levels) { return nlohmann::json::parse(std::string(levels, '[') + "1" + std::string(levels, ']')); };
  EXPECT_FALSE(nests_deeper_than(nlohmann::json(1), 0));
  EXPECT_TRUE(nests_deeper_than(nested(1), 0));
  for (const std::size_t limit : {std::size_t{1}, std::size_t{3}, std::size_t{64}}) {
    EXPECT_FALSE(nests_deeper_than(nested(static_cast<int>(limit)), limit)) << limit;
    EXPECT_TRUE(nests_deeper_than(nested(static_cast<int>(limit) + 1), limit)) << limit;
  }
  EXPECT_FALSE(nests_deeper_than(nlohmann::json::parse(R"({"a": [1, {"b": 2}], "c": [3]})"), 3));
  EXPECT_TRUE(nests_deeper_than(nlohmann::json::parse(R"({"a": [1, {"b": [2]}], "c": [3]})"), 3));
}

TEST(SpecErrors, DeepNestingIsRefusedNotAStackOverflow) {
  // 100,000 nested calls or arrays once overflowed the stack of the recursive parser and of
  // nlohmann's dump() in the error message (fuzz/spec_text, fuzz/spec_json).
  const int levels = 100000;
  std::string text = "rope(d=8,scaling=";
  for (int k = 0; k < levels; ++k) text += "a(b=";
  text += "1" + std::string(levels + 1, ')');
  expect_rejected(text, {"expected at most 64 nested calls"});
  const std::string json = R"({"family": "rope", "d": )" + std::string(levels, '[') + std::string(levels, ']') + "}";
  try {
    Spec::from_json(nlohmann::json::parse(json));
    ADD_FAILURE() << "accepted arrays nested " << levels << " deep";
  } catch (const SpecError& error) {
    EXPECT_NE(std::string(error.what()).find("arrays and objects nest deeper than 64"), std::string::npos) << error.what();
  }
  // A plan inside a spec is as deep as specs go.
  EXPECT_EQ(Spec::from_json(nlohmann::json::parse(R"({"family": "rope", "d": 8, "scaling": {"type": "linear", "factor": 2}})"))
                .canonical(),
            "rope(d=8,base=10000,layout=half,scaling=linear(factor=2))");
}

TEST(SpecErrors, JsonErrorsNameTheProblem) {
  EXPECT_THROW(Spec::from_json(nlohmann::json::parse(R"({"d": 4})")), SpecError);
  try {
    Spec::from_json(nlohmann::json::parse(R"({"family": "rope", "d": [1, {"x": 2}]})"));
    ADD_FAILURE();
  } catch (const SpecError& error) {
    EXPECT_NE(std::string(error.what()).find("key 'd'"), std::string::npos) << error.what();
  }
}

// Issue 51: refusals the tests above were not written for. Each message must name the key and
// the value the user wrote, so that a bad spec string is fixed where it is wrong.

TEST(SpecErrors, AListOrACallWhereOneValueBelongsIsRefusedNamingTheKey) {
  expect_rejected("rope(d=[4])", {"key 'd' expects a single value, found a list"});
  expect_rejected("rope(d=a(b=1))", {"key 'd' expects a single value, found a nested call"});
  expect_rejected("rope(d=8,layout=[half])", {"key 'layout' expects a single value, found a list"});
}

TEST(SpecErrors, AnIntegerFollowedByOtherCharactersIsNotAnInteger) {
  // from_chars reads the 8 of "8.5" and of "8x"; the rest of the text must not be dropped.
  expect_rejected("rope(d=8.5)", {"key 'd' expects an integer in [1, 1048576], found '8.5'"});
  expect_rejected("rope(d=8x)", {"key 'd' expects an integer in [1, 1048576], found '8x'"});
  expect_rejected("alibi(heads=8e0)", {"key 'heads' expects an integer", "found '8e0'"});
}

TEST(SpecErrors, BoolKeysTakeTrueOrFalseOnly) {
  expect_rejected("t5(bidirectional=yes)", {"key 'bidirectional' expects true|false, found 'yes'"});
  expect_rejected("t5(bidirectional=1)", {"key 'bidirectional' expects true|false, found '1'"});
  expect_rejected("rope(d=8,scaling=yarn(factor=4,orig=16,truncate=False))", {"key 'truncate' expects true|false, found 'False'"});
}

TEST(SpecErrors, ListKeysRefuseASingleValueAndElementsThatAreNotNumbers) {
  expect_rejected("rope(d=8,scaling=custom(freqs=1))", {"key 'freqs' expects a list such as [1,1.5], found '1'"});
  expect_rejected("rope(d=8,scaling=longrope(factor=4,orig=16,short=2,long=[1,1,1,1]))",
                  {"key 'short' expects a list such as [1,1.5], found '2'"});
  expect_rejected("rope(d=4,scaling=custom(freqs=[inf,1]))", {"key 'freqs'", "'inf' is not a finite decimal number"});
  expect_rejected("rope(d=4,scaling=custom(factors=[1,x]))", {"key 'factors'", "'x' is not a finite decimal number"});
  expect_rejected("mrope(d=16,sections=8)", {"key 'sections' expects a list such as [16,24,24], found '8'"});
}

// Each integer key's range as its table gives it: the message names the key, the range and the
// value written; the ends of the range are accepted.
TEST(SpecErrors, EachIntegerKeyRefusesValuesOutsideItsRangeNamingIt) {
  expect_rejected("rope(d=8,scaling=proportional(factor=1,pairs=524289))",
                  {"key 'pairs' expects an integer in [1, 524288], found '524289'"});
  expect_rejected("rope(d=8,scaling=proportional(factor=1,pairs=0))", {"key 'pairs' expects an integer in [1, 524288], found '0'"});
  EXPECT_NO_THROW(Spec::parse("rope(d=1048576,scaling=proportional(factor=1,pairs=524288))"));
  expect_rejected("rope(d=8,scaling=dynamic(factor=2,orig=1099511627777))",
                  {"key 'orig' expects an integer in [1, 1099511627776], found '1099511627777'"});
  EXPECT_NO_THROW(Spec::parse("rope(d=8,scaling=dynamic(factor=2,orig=1099511627776))"));
  expect_rejected("rope(d=8,scaling=dynamic(factor=2,orig=16,len=0))", {"key 'len' expects an integer in [1, 1099511627776], found '0'"});
  expect_rejected("rope(d=8,scaling=dynamic(factor=2,orig=16,len=1099511627777))",
                  {"key 'len' expects an integer in [1, 1099511627776], found '1099511627777'"});
  EXPECT_NO_THROW(Spec::parse("rope(d=8,scaling=dynamic(factor=2,orig=16,len=1099511627776))"));
  expect_rejected("learned(d=4,rows=0)", {"key 'rows' expects an integer in [1, 1099511627776], found '0'"});
  expect_rejected("learned(d=4,rows=1099511627777)", {"key 'rows' expects an integer in [1, 1099511627776], found '1099511627777'"});
  EXPECT_NO_THROW(Spec::parse("learned(d=4,rows=1099511627776)"));
  expect_rejected("alibi(heads=65537)", {"key 'heads' expects an integer in [1, 65536], found '65537'"});
  EXPECT_NO_THROW(Spec::parse("alibi(heads=65536)"));
  expect_rejected("t5(buckets=0)", {"key 'buckets' expects an integer in [1, 1048576], found '0'"});
  expect_rejected("t5(buckets=1048577)", {"key 'buckets' expects an integer in [1, 1048576], found '1048577'"});
  expect_rejected("t5(max_distance=0)", {"key 'max_distance' expects an integer in [1, 1073741824], found '0'"});
  expect_rejected("t5(max_distance=1073741825)", {"key 'max_distance' expects an integer in [1, 1073741824], found '1073741825'"});
  EXPECT_NO_THROW(Spec::parse("t5(buckets=1048576,max_distance=1073741824)"));
  expect_rejected("shaw(k=0)", {"key 'k' expects an integer in [1, 1073741824], found '0'"});
  expect_rejected("shaw(k=1073741825)", {"key 'k' expects an integer in [1, 1073741824], found '1073741825'"});
  EXPECT_NO_THROW(Spec::parse("shaw(k=1073741824)"));
  expect_rejected("shaw(k=4,right=1073741825)", {"key 'right' expects an integer in [0, 1073741824], found '1073741825'"});
  EXPECT_NO_THROW(Spec::parse("shaw(k=4,right=1073741824)"));
  expect_rejected("mrope(d=16,sections=[0,4,4])", {"key 'sections' expects an integer in [1, 1048576], found '0'"});
  expect_rejected("mrope(d=16,sections=[1048577,4,4])", {"key 'sections' expects an integer in [1, 1048576], found '1048577'"});
  expect_rejected("rope(d=8,rot=-2)", {"key 'rot' expects an integer in [0, 1048576], found '-2'"});
  expect_rejected("rope(d=8,rot=1048577)", {"key 'rot' expects an integer in [0, 1048576], found '1048577'"});
  expect_rejected("sinusoidal(d=4,offset=-1)", {"key 'offset' expects an integer in [0, 1099511627776], found '-1'"});
  expect_rejected("sinusoidal(d=4,offset=1099511627777)", {"key 'offset' expects an integer in [0, 1099511627776], found '1099511627777'"});
  EXPECT_NO_THROW(Spec::parse("sinusoidal(d=4,offset=1099511627776)"));
  expect_rejected("xl(d=8,clamp_len=-1)", {"key 'clamp_len' expects an integer in [0, 1099511627776], found '-1'"});
  expect_rejected("xl(d=8,clamp_len=1099511627777)", {"key 'clamp_len' expects an integer in [0, 1099511627776], found '1099511627777'"});
  EXPECT_NO_THROW(Spec::parse("xl(d=8,clamp_len=1099511627776)"));
}

TEST(SpecErrors, ScalingTakesNoneOrAPlanAndNothingElse) {
  expect_rejected("rope(d=8,scaling=[1])", {"key 'scaling' expects a plan such as linear(factor=2), found a list"});
  expect_rejected("rope(d=8,scaling=foo)", {"key 'scaling' expects none or a plan such as linear(factor=2), found 'foo'"});
  expect_rejected("rope(d=8,scaling=none(factor=2))", {"scaling none(...) takes no keys"});
  EXPECT_EQ(Spec::parse("rope(d=8,scaling=none())").canonical(), "rope(d=8,base=10000,layout=half)");
  // A plan's unknown key names the plan it was given to.
  expect_rejected("rope(d=8,scaling=linear(foo=1))", {"unknown key 'foo' for scaling plan 'linear'; expected one of factor"});
}

// validate_plan's rules, one plan at a time: each names the key and the value that break it.
TEST(SpecErrors, EachPlanRefusesWhatItCannotScaleNamingTheValue) {
  expect_rejected("rope(d=8,scaling=dynamic(factor=2))", {"rope: scaling dynamic needs orig=<original context length>"});
  expect_rejected("rope(d=8,scaling=longrope(factor=4,short=[1,1,1,1],long=[1,1,1,1]))",
                  {"rope: scaling longrope needs orig=<original context length>"});
  expect_rejected("rope(d=8,scaling=longrope(factor=4,orig=16,short=[1,1,1,1],long=[1,2]))",
                  {"scaling key 'long' has 2 entries but the rotary dims have 4 pairs"});
  expect_rejected("rope(d=8,scaling=custom(freqs=[1,2,3]))", {"scaling key 'freqs' has 3 entries but the rotary dims have 4 pairs"});
  expect_rejected("rope(d=8,scaling=custom(factors=[1,2,3,4,5]))", {"scaling key 'factors' has 5 entries but the rotary dims have 4 pairs"});
  expect_rejected("rope(d=8,scaling=custom(factors=[1,0,1,1]))", {"factors=0 must be positive"});
  expect_rejected("rope(d=8,scaling=custom(freqs=[0.1,-0.5,1,1]))", {"freqs=-0.5 must be positive"});
  expect_rejected("rope(d=8,scaling=longrope(factor=4,orig=16,short=[1,1,0,1],long=[1,1,1,1]))", {"short=0 must be positive"});
  expect_rejected("rope(d=8,scaling=longrope(factor=4,orig=16,short=[1,1,1,1],long=[1,-2,1,1]))", {"long=-2 must be positive"});
  expect_rejected("rope(d=8,scaling=dynamic(factor=0,orig=16))", {"rope: factor=0 must be positive"});
  expect_rejected("rope(d=8,scaling=yarn(factor=0,orig=16))", {"rope: factor=0 must be positive"});
  expect_rejected("rope(d=8,scaling=yarn(factor=4,orig=16,beta_slow=0))", {"rope: beta_slow=0 must be positive"});
  expect_rejected("rope(d=8,scaling=yarn(factor=4,orig=16,attention=0))", {"rope: attention=0 must be positive"});
  expect_rejected("rope(d=8,scaling=yarn(factor=4,orig=16,beta_fast=1,beta_slow=2))", {"beta_fast=1 must exceed beta_slow=2"});
  expect_rejected("rope(d=8,scaling=yarn(factor=4,orig=16,beta_fast=2,beta_slow=2))", {"beta_fast=2 must exceed beta_slow=2"});
  expect_rejected("rope(d=8,scaling=llama3(factor=0))", {"rope: factor=0 must be positive"});
  expect_rejected("rope(d=8,scaling=llama3(low=0))", {"rope: low=0 must be positive"});
  expect_rejected("rope(d=8,scaling=llama3(low=2,high=2))", {"llama3 high=2 must exceed low=2"});
  expect_rejected("rope(d=8,scaling=longrope(factor=0,orig=16,short=[1,1,1,1],long=[1,1,1,1]))", {"rope: factor=0 must be positive"});
  expect_rejected("rope(d=8,scaling=longrope(factor=4,orig=16,attention=0,short=[1,1,1,1],long=[1,1,1,1]))",
                  {"rope: attention=0 must be positive"});
}

TEST(SpecErrors, FamilyShapesThatCannotBeBuiltAreRefused) {
  expect_rejected("learned(rows=4)", {"learned: key 'd' is required"});
  expect_rejected("xpos(d=8,scale_base=0)", {"xpos: scale_base=0 must be positive"});
  // Twice the sum of four sections is the rotary dims here: only their count is wrong.
  expect_rejected("mrope(d=16,sections=[2,2,2,2])", {"sections has 4 entries; at most 3 (t, h, w)"});
  expect_rejected("rope2d(d=8,sign=0)", {"rope2d: sign must be 1 or -1, found 0"});
  // 32 bidirectional buckets: 16 each way, 8 of them exact; max_distance must pass them.
  expect_rejected("t5(buckets=32,max_distance=8)", {"max_distance=8 must exceed the 8 exact buckets"});
  expect_rejected("t5(buckets=32,max_distance=3)", {"max_distance=3 must exceed the 8 exact buckets"});
  EXPECT_NO_THROW(Spec::parse("t5(buckets=32,max_distance=9)"));
}

TEST(SpecErrors, GgmlYarnRefusesAnAttentionFactorGivenAlone) {
  // d=64, base 10000, orig 4096: the ramp ends (10 and 23) do not cross, so only attention= is wrong.
  expect_rejected("rope(d=64,precision=fp32-angle,theta=ggml,scaling=yarn(factor=4,orig=4096,attention=1.2))",
                  {"drop attention=, mscale= and mscale_all_dim="});
  EXPECT_EQ(Spec::parse("rope(d=64,precision=fp32-angle,theta=ggml,scaling=yarn(factor=4,orig=4096))").canonical(),
            "rope(d=64,base=10000,layout=half,scaling=yarn(factor=4,orig=4096),precision=fp32-angle,theta=ggml)");
}

// Issue 51: the call syntax's remaining branches.
TEST(SpecErrors, APlusSignIsPartOfAWord) {
  EXPECT_EQ(Spec::parse("rope(d=8,base=+10000)").canonical(), "rope(d=8,base=10000,layout=half)");
  EXPECT_EQ(Spec::parse("rope(d=8,base=1e+4)").canonical(), "rope(d=8,base=10000,layout=half)");
}

// A spec may be a view into longer text: a UTF-8 sequence cut by the view's end is bytes, even
// where the text past the view would complete it.
TEST(SpecErrors, ACharacterCutByTheEndOfTheTextIsBytes) {
  const std::string buffer = "rope(d=4,layout=h\xc3\xa9)";
  const std::string euro = "rope(d=4,layout=h\xe2\x82\xac)";
  for (const std::string_view text : {std::string_view(buffer.data(), 18), std::string_view(euro.data(), 19)}) {
    std::string message = "accepted";
    try {
      Spec::parse(text);
    } catch (const SpecError& error) {
      message = error.what();
    }
    EXPECT_NE(message.find("layout=h\\x"), std::string::npos) << message;
    EXPECT_EQ(message.find("\xc3\xa9"), std::string::npos) << message;
    EXPECT_EQ(message.find("\xe2\x82\xac"), std::string::npos) << message;
  }
}

// RFC 3629's lead ranges and second-byte limits: characters at each end are quoted whole, and
// overlong forms, surrogates and code points past U+10FFFF print as bytes.
TEST(SpecErrors, Utf8LeadRangesAndSecondByteLimitsFollowRfc3629) {
  for (const char* character : {"\xc2\xa9", "\xdf\xbf", "\xe0\xa0\x80", "\xef\xbf\xbd", "\xed\x9f\xbf", "\xe1\x80\x80"})
    expect_rejected(std::string("rope(d=4,layout=h") + character + ")", {"column 18", std::string("found '") + character + "'"});
  const std::pair<const char*, const char*> bytes[] = {
      {"\xc0\x80", "found '\\xc0'"},         {"\xc1\xbf", "found '\\xc1'"},         {"\xe0\x80\x80", "found '\\xe0'"},
      {"\xe0\x9f\xbf", "found '\\xe0'"},     {"\xed\xa0\x80", "found '\\xed'"},     {"\xf4\x90\x80\x80", "found '\\xf4'"}};
  for (const auto& [sequence, needle] : bytes) expect_rejected(std::string("rope(d=4,layout=h") + sequence + ")", {"column 18", needle});
}

// The nesting limit counts calls open at once: siblings each under it pass together.
TEST(SpecErrors, NestingDepthIsLeftWhenACallCloses) {
  std::string branch;
  for (int k = 0; k < 40; ++k) branch += "g(b=";
  branch += "1" + std::string(40, ')');
  const Call call = parse_call("f(a=" + branch + ",c=" + branch + ")");
  ASSERT_EQ(call.arguments.size(), 2u);
  EXPECT_EQ(call.arguments[1].kind, Argument::Kind::call);
}

TEST(SpecErrors, AnEmptyListIsAListOfNothing) {
  const Call call = parse_call("f(a=[])");
  ASSERT_EQ(call.arguments.size(), 1u);
  EXPECT_EQ(call.arguments[0].kind, Argument::Kind::list);
  EXPECT_TRUE(call.arguments[0].list.empty());
  expect_rejected("rope(d=8,scaling=custom(freqs=[]))", {"scaling custom needs exactly one of freqs=[...] or factors=[...]"});
}

TEST(SpecErrors, AJsonSpecMustBeAnObject) {
  for (const char* text : {"[1]", "\"rope\"", "8"}) {
    try {
      Spec::from_json(nlohmann::json::parse(text));
      ADD_FAILURE() << "accepted " << text;
    } catch (const SpecError& error) {
      EXPECT_NE(std::string(error.what()).find(std::string("spec JSON: expected an object, found ") + text), std::string::npos)
          << error.what();
    }
  }
}

// A value written positive, or two written apart, may be one double where kernels compute; the
// refusal says that, not that the value is negative or equal as written.
TEST(SpecErrors, AValueBinary64CannotHoldIsRefusedForThatReason) {
  for (const char* text : {"rope(d=8,amp=1e-400)", "rope(d=8,base=1e-400)", "rope(d=8,scaling=dynamic(factor=1e-400,orig=16))"})
    expect_rejected(text, {"=1e-400 is below binary64's smallest positive value"});
  for (const char* text : {"rope(d=8,amp=-1)", "rope(d=8,amp=0)"}) expect_rejected(text, {"must be positive"});
  expect_rejected("sinusoidal(d=4,freq=geometric,base=1.00000000000000000001)",
                  {"needs base != 1", "the same in binary64"});
  expect_rejected("rope(d=8,scaling=llama3(factor=8,orig=8192,low=1,high=1.00000000000000000001))",
                  {"high=1.00000000000000000001 must exceed low=1", "the same in binary64"});
  expect_rejected("rope(d=8,scaling=llama3(factor=8,orig=8192,low=4,high=1))", {"high=1 must exceed low=4"});
}

}  // namespace
}  // namespace peconform
