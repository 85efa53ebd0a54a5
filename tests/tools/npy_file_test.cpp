// The .npy reader and writer (tensorfiles/npy_file.hpp): a round trip at every dtype the route
// uses, NumPy reading what we write and us reading what NumPy writes, and every malformed file
// class refused with a message naming the file.
#include <gtest/gtest.h>

#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <numeric>

#include "spec/spec_error.hpp"
#include "support/scratch_dir.hpp"
#include "tensorfiles/npy_file.hpp"

namespace {

using peconform::tensorfiles::NpyArray;
using peconform::tensorfiles::read_npy;
using peconform::tensorfiles::write_npy;

// A .npy file's bytes with `header` (the dictionary, padded and ended with a newline here) in
// format version major.minor, then `data_bytes` bytes of data.
std::string npy_bytes(int major, int minor, std::string header, std::size_t data_bytes) {
  const std::size_t prelude = major == 1 ? 10 : 12;
  while ((prelude + header.size() + 1) % 64 != 0) header.push_back(' ');
  header.push_back('\n');
  std::string out = "\x93NUMPY";
  out.push_back(static_cast<char>(major));
  out.push_back(static_cast<char>(minor));
  for (std::size_t b = 0; b < prelude - 8; ++b) out.push_back(static_cast<char>((header.size() >> (8 * b)) & 0xff));
  return out + header + std::string(data_bytes, '\x01');
}

class NpyFile : public testing::Test {
 protected:
  std::filesystem::path file(const std::string& name, const std::string& bytes) const { return scratch_.write(name, bytes); }

  // read_npy refuses a file holding `bytes` with a message naming it and holding `expected`.
  void expect_refused(const std::string& name, const std::string& bytes, const std::string& expected) const {
    expect_refused(file(name, bytes), expected);
  }
  void expect_refused(const std::filesystem::path& path, const std::string& expected) const {
    try {
      read_npy(path);
      ADD_FAILURE() << path << " was read";
    } catch (const peconform::SpecError& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find(path.string()), std::string::npos) << message;
      EXPECT_NE(message.find(expected), std::string::npos) << message;
    }
  }

  peconform::ScratchDir scratch_;
};

TEST_F(NpyFile, RoundTripsEveryDtypeAndShapeTheRouteWrites) {
  for (const auto& [descr, size] : {std::pair{"<f8", 8}, {"<f4", 4}, {"<f2", 2}, {"<u2", 2}, {"<i4", 4}, {"<i8", 8}}) {
    for (const std::vector<std::int64_t>& shape : {std::vector<std::int64_t>{}, {0}, {5}, {2, 3, 4}, {1, 3, 1, 7}}) {
      std::int64_t elements = 1;
      for (const std::int64_t extent : shape) elements *= extent;
      std::vector<std::byte> data(static_cast<std::size_t>(elements * size));
      for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::byte>(i * 37 + 11);
      const std::filesystem::path path = scratch_.path() / "round.npy";
      write_npy(path, descr, shape, data);
      const NpyArray back = read_npy(path);
      EXPECT_EQ(back.header.descr, descr);
      EXPECT_EQ(back.header.shape, shape);
      EXPECT_EQ(back.data, data) << descr;
      EXPECT_EQ(back.header.data_offset % 64, 0u) << "NumPy aligns the data to 64 bytes";
    }
  }
}

TEST_F(NpyFile, ReadsVersion2Headers) {
  const NpyArray array = read_npy(file("v2.npy", npy_bytes(2, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 12)));
  EXPECT_EQ(array.header.shape, std::vector<std::int64_t>{3});
  EXPECT_EQ(array.data.size(), 12u);
}

// A header is a Python literal: spaces and tabs may sit between its tokens (NumPy's own parser,
// ast.literal_eval, takes both), and a header written by hand may use them.
TEST_F(NpyFile, ReadsAHeaderWithTabsAndSpacesBetweenItsTokens) {
  const NpyArray array = read_npy(
      file("tabs.npy", npy_bytes(1, 0, "{\t'descr':\t'<f4',  'fortran_order' :\tFalse,\t'shape':\t( 2 ,\t3 ) ,\t}", 24)));
  EXPECT_EQ(array.header.descr, "<f4");
  EXPECT_EQ(array.header.shape, (std::vector<std::int64_t>{2, 3}));
}

TEST_F(NpyFile, NumPyReadsWhatWeWriteAndWeReadWhatNumPyWrites) {
  ASSERT_TRUE(peconform::tool_installed(PECONFORM_SYSTEM_PYTHON, "python3-numpy"));
  std::vector<float> values(24);
  std::iota(values.begin(), values.end(), -3.5f);
  write_npy(scratch_.path() / "ours.npy", "<f4", {2, 3, 4}, std::as_bytes(std::span(values)));
  const std::string script = fmt::format(
      "import numpy as np\n"
      "a = np.load('{0}/ours.npy')\n"
      "assert a.dtype == np.float32 and a.shape == (2, 3, 4), (a.dtype, a.shape)\n"
      "assert (a.ravel() == np.arange(24, dtype=np.float32) - 3.5).all()\n"
      "np.save('{0}/theirs.npy', (np.arange(30, dtype=np.int64) * 7).reshape(5, 6))\n"
      "np.save('{0}/bits.npy', np.arange(6, dtype=np.uint16).reshape(2, 3))\n",
      scratch_.path().string());
  const peconform::ToolRun python = peconform::run_tool(fmt::format("{} -c {}", PECONFORM_SYSTEM_PYTHON, peconform::shell_quote(script)));
  ASSERT_EQ(python.exit_code, 0) << python.output;
  const NpyArray theirs = read_npy(scratch_.path() / "theirs.npy");
  EXPECT_EQ(theirs.header.descr, "<i8");
  EXPECT_EQ(theirs.header.shape, (std::vector<std::int64_t>{5, 6}));
  std::int64_t last = 0;
  std::memcpy(&last, theirs.data.data() + 29 * sizeof(std::int64_t), sizeof last);
  EXPECT_EQ(last, 29 * 7);
  EXPECT_EQ(read_npy(scratch_.path() / "bits.npy").header.descr, "<u2");
}

TEST_F(NpyFile, RefusesWhatItDoesNotUnderstandNamingTheFile) {
  const std::string plain = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  expect_refused(scratch_.path() / "missing.npy", "cannot be read");
  expect_refused("text.npy", "x,y\n1,2\n", "is not a .npy file");
  expect_refused("empty.npy", "", "is not a .npy file");
  expect_refused("v3.npy", npy_bytes(3, 0, plain, 24), "version 3.0");
  expect_refused("v9.npy", npy_bytes(9, 9, plain, 24), "version 9.9");
  expect_refused("fortran.npy", npy_bytes(1, 0, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", 24), "Fortran order");
  expect_refused("object.npy", npy_bytes(1, 0, "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", 16), "pickle");
  expect_refused("big.npy", npy_bytes(1, 0, "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }", 24),
                 "is big-endian (dtype '>f4'); save it as little-endian ('<f4')");
  expect_refused("structured.npy", npy_bytes(1, 0, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", 8),
                 "structured dtype");
  expect_refused("strings.npy", npy_bytes(1, 0, "{'descr': '<U3', 'fortran_order': False, 'shape': (2,), }", 24), "'<U3'");
  expect_refused("truncated.npy", npy_bytes(1, 0, plain, 23), "is truncated");
  expect_refused("long.npy", npy_bytes(1, 0, plain, 25), "bytes past its data");
  expect_refused("key.npy", npy_bytes(1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'x': 1, }", 24), "'x'");
  expect_refused("twice.npy", npy_bytes(1, 0, "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 24),
                 "twice");
  expect_refused("lacking.npy", npy_bytes(1, 0, "{'descr': '<f4', 'shape': (2, 3), }", 24), "lacks");
  expect_refused("shape.npy", npy_bytes(1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }", 24), "dimension");
  std::string unterminated = npy_bytes(1, 0, plain, 24);
  unterminated[unterminated.find('\n')] = ' ';
  expect_refused("newline.npy", unterminated, "newline");
  expect_refused("short.npy", std::string("\x93NUMPY\x01\x00\xff\x00{'descr'", 17), "header of 255 bytes");
}

// The cap on a header's length (64 KiB, prelude included, in a version 2.0 file whose 4-byte
// length could say far more): the longest aligned header under it is read, the next aligned
// one, 64 bytes longer, is refused before it is read. Issue 38: no test's header came near it.
TEST_F(NpyFile, HeadersPast64KiBAreRefused) {
  const std::string plain = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  const auto padded_to = [&](std::size_t length) { return plain + std::string(length - 1 - plain.size(), ' '); };
  const std::filesystem::path longest = file("longest.npy", npy_bytes(2, 0, padded_to(65536 - 12), 24));
  EXPECT_EQ(read_npy(longest).header.shape, (std::vector<std::int64_t>{2, 3}));
  expect_refused("past.npy", npy_bytes(2, 0, padded_to(65536 - 12 + 64), 24), "announces a .npy header of 65588 bytes");
}

TEST_F(NpyFile, ExpectNamesTheFileWhatItIsForAndWhatItShouldBe) {
  const std::filesystem::path path = scratch_.path() / "out_q.npy";
  write_npy(path, "<f4", {2, 3}, std::vector<std::byte>(24));
  const auto header = peconform::tensorfiles::read_npy_header(path);
  EXPECT_NO_THROW(peconform::tensorfiles::expect_npy(path, header, "<f4", {2, 3}, "output q"));
  try {
    peconform::tensorfiles::expect_npy(path, header, "<u2", {2, 3}, "output q");
    ADD_FAILURE() << "a wrong dtype passed";
  } catch (const peconform::SpecError& error) {
    EXPECT_STREQ(error.what(), fmt::format("'{}' has dtype '<f4', but output q must have dtype '<u2'", path.string()).c_str());
  }
  try {
    peconform::tensorfiles::expect_npy(path, header, "<f4", {3, 2}, "output q");
    ADD_FAILURE() << "a wrong shape passed";
  } catch (const peconform::SpecError& error) {
    EXPECT_STREQ(error.what(), fmt::format("'{}' has shape (2, 3), but output q must have shape (3, 2)", path.string()).c_str());
  }
}

// A prelude cut short is refused as such, not read as another version or another header
// length: 7 bytes (the magic and one version byte) and a 2.0 file of 11 bytes, one short of
// its 4-byte header length.
TEST_F(NpyFile, AFileEndingInsideItsPreludeIsRefusedAsEndingInsideItsHeader) {
  expect_refused("seven.npy", std::string("\x93NUMPY\x01", 7), "ends inside its .npy header");
  expect_refused("eleven.npy", std::string("\x93NUMPY\x02\x00\x40\x00\x00", 11), "ends inside its .npy header");
}

// Only versions 1.0 and 2.0 are read: a minor version other than 0 is a format this reader does
// not know, refused naming it rather than read as its major version.
TEST_F(NpyFile, AMinorVersionOtherThanZeroIsRefusedNamingIt) {
  const std::string plain = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  expect_refused("v11.npy", npy_bytes(1, 1, plain, 24), "version 1.1");
  expect_refused("v25.npy", npy_bytes(2, 5, plain, 24), "version 2.5");
}

// A 1.0 header's length is two bytes, low byte first; a header of 256 bytes or more needs the
// high one (NumPy pads a long shape or a descr of many fields past it).
TEST_F(NpyFile, ReadsAVersion1HeaderLongerThan255Bytes) {
  const std::string plain = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  const std::string bytes = npy_bytes(1, 0, plain + std::string(300 - plain.size(), ' '), 24);
  ASSERT_GE(static_cast<unsigned char>(bytes[9]), 1) << "the header's length must need its high byte";
  const NpyArray array = read_npy(file("long_header.npy", bytes));
  EXPECT_EQ(array.header.shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(array.header.data_offset, bytes.size() - 24) << "the data starts right after the 300-odd byte header";
}

// A header is a Python literal: NumPy's ast.literal_eval reads double quotes as single ones and
// a dictionary whose last entry has no comma after it, so a header written by hand may have them.
TEST_F(NpyFile, ReadsADictionaryInDoubleQuotesWithoutATrailingComma) {
  const NpyArray array =
      read_npy(file("double.npy", npy_bytes(1, 0, "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (2, 3)}", 24)));
  EXPECT_EQ(array.header.descr, "<f4");
  EXPECT_EQ(array.header.shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(array.data.size(), 24u);
}

// Each way a header dictionary can be malformed is refused naming the file and the reason, with
// the place in the header where it was met, and then the header itself, so that whoever wrote
// the file sees what was read. A key given twice is refused rather than the second value winning:
// "shape" twice here would otherwise read (2, 3) from a file that also claims (3, 2).
TEST_F(NpyFile, EachMalformedHeaderIsRefusedWithItsReasonAndTheHeaderItself) {
  struct Malformed {
    std::string header, reason;
  };
  const std::vector<Malformed> malformed = {
      {"['descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", "expected '{' at character 0"},
      {"{'descr': '<f4', 'fortran_order': True, 'fortran_order': False, 'shape': (2, 3), }", "names 'fortran_order' twice"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), 'shape': (2, 3), }", "names 'shape' twice"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } x", "has text after the header dictionary"},
      {"{'fortran_order': False, 'shape': (2, 3), }", "lacks one of 'descr', 'fortran_order' and 'shape'"},
      {"{'descr': '<f4', 'fortran_order': False, }", "lacks one of 'descr', 'fortran_order' and 'shape'"},
      {"{'descr' '<f4', 'fortran_order': False, 'shape': (2, 3), }", "expected ':' at character 9"},
      {"{'descr': '<f4' 'fortran_order': False, 'shape': (2, 3), }", "expected '}' at character 16"},
      {"{'descr': 4, 'fortran_order': False, 'shape': (2, 3), }", "expected a quoted string at character 10"},
      {"{'descr': '<f4}", "has an unterminated string"},
      {"{'descr': '<f\\x34', 'fortran_order': False, 'shape': (2, 3), }", "has an escape in a string"},
      {"{'descr': '<f4', 'fortran_order': maybe, 'shape': (2, 3), }", "expected True or False at character 34"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", "has a dimension too large to hold"},
  };
  for (const Malformed& m : malformed) {
    const std::filesystem::path path = file("malformed.npy", npy_bytes(1, 0, m.header, 24));
    try {
      read_npy(path);
      ADD_FAILURE() << m.header << " was read";
    } catch (const peconform::SpecError& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find("'" + path.string() + "' has a malformed .npy header"), std::string::npos) << message;
      // The reason in parentheses, then the header as it was read (its padding follows).
      EXPECT_NE(message.find("(" + m.reason + "): " + m.header), std::string::npos) << message;
    }
  }
}

// The dtypes NumPy writes for booleans, every integer and complex numbers, which the route does
// not write but a kernel's author may save, are read back as written, with their sizes.
TEST_F(NpyFile, RoundTripsEveryOtherDtypeItReads) {
  for (const auto& [descr, size] : {std::pair{"|u1", 1}, {"|i1", 1}, {"<i2", 2}, {"<u4", 4}, {"<u8", 8}, {"|b1", 1},
                                    {"<c8", 8}, {"<c16", 16}}) {
    std::vector<std::byte> data(static_cast<std::size_t>(6 * size));
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::byte>(i * 29 + 3);
    const std::filesystem::path path = scratch_.path() / "other.npy";
    write_npy(path, descr, {2, 3}, data);
    const NpyArray back = read_npy(path);
    EXPECT_EQ(back.header.descr, descr);
    EXPECT_EQ(back.data, data) << descr;
    EXPECT_EQ(peconform::tensorfiles::descr_size(descr), static_cast<std::size_t>(size)) << descr;
  }
}

// A dtype this reader does not read is refused saying why: a descr it cannot parse (too short,
// a size that is not digits, or past 64, where a long one would wrap around to a size it
// knows), a kind or size it does not read (strings, float16 x8, 2-byte booleans, complex of 4),
// or a byte order that is neither little-endian nor none ('=' is the writer's native order).
TEST_F(NpyFile, RefusesEachDtypeItDoesNotReadSayingWhy) {
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"<f", "has the dtype '<f', which this reader does not know"},
      {"<fx4", "has the dtype '<fx4', which this reader does not know"},
      {"<f4x", "has the dtype '<f4x', which this reader does not know"},
      {"<f999", "has the dtype '<f999', which this reader does not know"},
      {"<f18446744073709551620", "has the dtype '<f18446744073709551620', which this reader does not know"},
      {"<U3", "has the dtype '<U3'; only booleans, integers, floats and complex numbers are read"},
      {"<f16", "has the dtype '<f16'; only booleans, integers, floats and complex numbers are read"},
      {"|b2", "has the dtype '|b2'; only booleans, integers, floats and complex numbers are read"},
      {"<c4", "has the dtype '<c4'; only booleans, integers, floats and complex numbers are read"},
      {"=f4", "has the dtype '=f4' whose byte order '=' is neither '<' nor '|'"},
      {"xf4", "has the dtype 'xf4' whose byte order 'x' is neither '<' nor '|'"},
  };
  for (const auto& [descr, reason] : refused) {
    expect_refused("dtype.npy", npy_bytes(1, 0, "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (2, 3), }", 24),
                   reason);
    // descr_size, which callers use on a descr of their own, refuses it with the same reason.
    try {
      peconform::tensorfiles::descr_size(descr);
      ADD_FAILURE() << "descr_size took " << descr;
    } catch (const peconform::SpecError& error) {
      EXPECT_NE(std::string(error.what()).find(reason), std::string::npos) << error.what();
    }
  }
}

// Counts that do not fit 64 bits are refused, never wrapped: 2^32 x 2^32 elements (which wraps
// to 0, so an empty data section would match it), and 2^62 elements of 8 bytes (2^65 bytes,
// which wraps to 0 too).
TEST_F(NpyFile, AShapeWhoseElementsOrBytesOverflowIsRefused) {
  expect_refused("elements.npy",
                 npy_bytes(1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", 0),
                 "is refused: the shape (4294967296, 4294967296) has more elements than can be held");
  // 2^62 elements of 8 bytes: 2^65 bytes, which wraps to 0 in a 64-bit count and must not be
  // reported as the 0 bytes needed.
  for (const int held : {0, 8})
    expect_refused("bytes.npy",
                   npy_bytes(1, 0, "{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904,), }", held),
                   fmt::format("is refused: shape (4611686018427387904,) of '<f8' needs more than 2^64 bytes (it holds {})", held));
}

// The size refusal states what the file holds and what its header asks for, in that order, so
// that a reader can tell a truncated file from a wrong header.
TEST_F(NpyFile, TheSizeRefusalStatesTheBytesHeldAndTheBytesNeeded) {
  const std::string plain = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  expect_refused("short_data.npy", npy_bytes(1, 0, plain, 23),
                 "is truncated: it holds 23 bytes of data, but shape (2, 3) of '<f4' needs 24");
  expect_refused("long_data.npy", npy_bytes(1, 0, plain, 25),
                 "has bytes past its data: it holds 25 bytes of data, but shape (2, 3) of '<f4' needs 24");
}

// Shapes are written as NumPy prints them: a one-extent tuple keeps its comma, without which
// NumPy's literal_eval would read "(5)" as the integer 5.
TEST_F(NpyFile, ShapesAreWrittenAsNumPyPrintsThem) {
  using peconform::tensorfiles::shape_text;
  EXPECT_EQ(shape_text({5}), "(5,)");
  EXPECT_EQ(shape_text({}), "()");
  EXPECT_EQ(shape_text({2, 3}), "(2, 3)");
  write_npy(scratch_.path() / "one.npy", "<f4", {5}, std::vector<std::byte>(20));
  EXPECT_NE(scratch_.read("one.npy").find("'shape': (5,), }"), std::string::npos);
}

// A file is written as version 1.0 unless its header does not fit 1.0's 2-byte length (here a
// shape of 22,000 extents; NumPy itself allows 64), then as 2.0 with a 4-byte length; either way the data starts on a
// multiple of 64 bytes, right after the header's newline.
TEST_F(NpyFile, WritesVersion2OnlyWhenTheHeaderNeedsIt) {
  const auto prelude_of = [&](const std::string& name) {
    const std::string bytes = scratch_.read(name);
    const int major = static_cast<unsigned char>(bytes[6]);
    std::size_t length = 0;
    for (int b = major == 1 ? 1 : 3; b >= 0; --b) length = length << 8 | static_cast<unsigned char>(bytes[8 + static_cast<std::size_t>(b)]);
    const std::size_t data_offset = (major == 1 ? 10 : 12) + length;
    EXPECT_EQ(bytes[7], '\0') << name;
    EXPECT_EQ(data_offset % 64, 0u) << name;
    EXPECT_EQ(bytes[data_offset - 1], '\n') << name;
    EXPECT_EQ(bytes.size(), data_offset + 4) << name;
    return major;
  };
  write_npy(scratch_.path() / "small.npy", "<f4", {1, 1}, std::vector<std::byte>(4));
  EXPECT_EQ(prelude_of("small.npy"), 1);
  // A header of some 350 bytes, past one byte of length but far within two.
  write_npy(scratch_.path() / "medium.npy", "<f4", std::vector<std::int64_t>(100, 1), std::vector<std::byte>(4));
  EXPECT_EQ(prelude_of("medium.npy"), 1);
  write_npy(scratch_.path() / "wide.npy", "<f4", std::vector<std::int64_t>(22000, 1), std::vector<std::byte>(4));
  EXPECT_EQ(prelude_of("wide.npy"), 2);
}

TEST_F(NpyFile, AFileThatCannotBeWrittenThrowsNamingIt) {
  const std::filesystem::path path = scratch_.path() / "no such folder" / "x.npy";
  try {
    write_npy(path, "<f4", {2}, std::vector<std::byte>(8));
    ADD_FAILURE() << "wrote into a folder that does not exist";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), fmt::format("cannot write '{}'", path.string()).c_str());
  }
}

}  // namespace
