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
  expect_refused("big.npy", npy_bytes(1, 0, "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }", 24), "big-endian");
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

}  // namespace
