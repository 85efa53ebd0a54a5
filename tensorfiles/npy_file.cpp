#include "tensorfiles/npy_file.hpp"

#include <array>
#include <bit>
#include <cstring>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <limits>
#include <optional>
#include <string_view>
#include <system_error>

#include "spec/spec_error.hpp"

namespace peconform::tensorfiles {
namespace {

// Elements are read and written as the host holds them, which must be the files' byte order.
static_assert(std::endian::native == std::endian::little, "the .npy reader and writer assume a little-endian host");

constexpr std::string_view kMagic = "\x93NUMPY";
// The magic, the two version bytes and the header length (2 bytes in 1.0, 4 in 2.0).
constexpr std::size_t kPreludeV1 = 10, kPreludeV2 = 12;
// NumPy pads the prelude and header to a multiple of 64 bytes (numpy.lib.format.ARRAY_ALIGN).
constexpr std::size_t kAlignment = 64;
// A header longer than this is no header NumPy writes for a plain array (it caps them too).
constexpr std::size_t kLongestHeader = 1 << 16;

[[noreturn]] void refuse(const std::filesystem::path& file, const std::string& why) {
  throw SpecError(fmt::format("'{}' {}", file.string(), why));
}

// The header dictionary, a Python literal: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::filesystem::path& file) : text_(text), file_(file) {}

  NpyHeader parse() {
    NpyHeader header;
    std::optional<bool> fortran;
    bool has_descr = false, has_shape = false;
    expect('{');
    while (peek() != '}') {
      const std::string key = string();
      expect(':');
      if (key == "descr") {
        if (has_descr) fail("names 'descr' twice");
        if (peek() == '[') fail("holds a structured dtype (a list of fields); only plain numeric arrays are read");
        header.descr = string();
        has_descr = true;
      } else if (key == "fortran_order") {
        if (fortran) fail("names 'fortran_order' twice");
        fortran = boolean();
      } else if (key == "shape") {
        if (has_shape) fail("names 'shape' twice");
        header.shape = tuple();
        has_shape = true;
      } else {
        fail(fmt::format("has the key '{}'; a .npy header holds only 'descr', 'fortran_order' and 'shape'", key));
      }
      if (peek() != ',') break;
      expect(',');
    }
    expect('}');
    skip_spaces();
    if (at_ != text_.size()) fail("has text after the header dictionary");
    if (!has_descr || !fortran || !has_shape) fail("lacks one of 'descr', 'fortran_order' and 'shape'");
    if (*fortran)
      throw SpecError(fmt::format("'{}' is in Fortran order (fortran_order: True); save it in C order "
                                  "(numpy.ascontiguousarray) and try again",
                                  file_.string()));
    return header;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    refuse(file_, fmt::format("has a malformed .npy header ({}): {}", why, std::string(text_)));
  }
  void skip_spaces() {
    while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t')) ++at_;
  }
  char peek() {
    skip_spaces();
    return at_ < text_.size() ? text_[at_] : '\0';
  }
  void expect(char c) {
    if (peek() != c) fail(fmt::format("expected '{}' at character {}", c, at_));
    ++at_;
  }
  std::string string() {
    const char quote = peek();
    if (quote != '\'' && quote != '"') fail(fmt::format("expected a quoted string at character {}", at_));
    const std::size_t end = text_.find(quote, at_ + 1);
    if (end == std::string_view::npos) fail("has an unterminated string");
    std::string out(text_.substr(at_ + 1, end - at_ - 1));
    if (out.find('\\') != std::string::npos) fail("has an escape in a string");
    at_ = end + 1;
    return out;
  }
  bool boolean() {
    skip_spaces();
    for (const auto& [word, value] : {std::pair{std::string_view("True"), true}, std::pair{std::string_view("False"), false}})
      if (text_.substr(at_, word.size()) == word) {
        at_ += word.size();
        return value;
      }
    fail(fmt::format("expected True or False at character {}", at_));
  }
  std::vector<std::int64_t> tuple() {
    std::vector<std::int64_t> out;
    expect('(');
    while (peek() != ')') {
      std::int64_t value = 0;
      const std::size_t start = at_;
      while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') {
        if (value > (std::numeric_limits<std::int64_t>::max() - 9) / 10) fail("has a dimension too large to hold");
        value = value * 10 + (text_[at_++] - '0');
      }
      if (at_ == start) fail(fmt::format("expected a non-negative integer dimension at character {}", at_));
      out.push_back(value);
      if (peek() != ',') break;
      expect(',');
    }
    expect(')');
    return out;
  }

  std::string_view text_;
  const std::filesystem::path& file_;
  std::size_t at_ = 0;
};

std::optional<std::size_t> known_descr_size(const std::string& descr, std::string& why) {
  if (descr.size() >= 2 && descr[1] == 'O') {
    why = fmt::format("holds Python objects (dtype '{}'), which NumPy stores as a pickle; pickles are never read", descr);
    return std::nullopt;
  }
  if (descr.size() < 3) {
    why = fmt::format("has the dtype '{}', which this reader does not know", descr);
    return std::nullopt;
  }
  const char order = descr[0], kind = descr[1];
  const std::string digits = descr.substr(2);
  std::size_t size = 0;
  for (const char c : digits) {
    if (c < '0' || c > '9' || size > 64) {
      why = fmt::format("has the dtype '{}', which this reader does not know", descr);
      return std::nullopt;
    }
    size = size * 10 + static_cast<std::size_t>(c - '0');
  }
  const bool sized = (kind == 'f' && (size == 2 || size == 4 || size == 8)) ||
                     ((kind == 'i' || kind == 'u') && (size == 1 || size == 2 || size == 4 || size == 8)) ||
                     (kind == 'b' && size == 1) || (kind == 'c' && (size == 8 || size == 16));
  if (!sized) {
    why = fmt::format("has the dtype '{}'; only booleans, integers, floats and complex numbers are read", descr);
    return std::nullopt;
  }
  if (order == '>' && size > 1) {
    why = fmt::format("is big-endian (dtype '{}'); save it as little-endian ('<{}{}') and try again", descr, kind, size);
    return std::nullopt;
  }
  if (order != '<' && order != '|' && !(order == '>' && size == 1)) {
    why = fmt::format("has the dtype '{}' whose byte order '{}' is neither '<' nor '|'", descr, order);
    return std::nullopt;
  }
  return size;
}

}  // namespace

std::int64_t NpyHeader::elements() const {
  std::int64_t count = 1;
  for (const std::int64_t extent : shape) {
    if (extent != 0 && count > std::numeric_limits<std::int64_t>::max() / extent)
      throw SpecError(fmt::format("the shape {} has more elements than can be held", shape_text(shape)));
    count *= extent;
  }
  return count;
}

std::size_t descr_size(const std::string& descr) {
  std::string why;
  const std::optional<std::size_t> size = known_descr_size(descr, why);
  if (!size) throw SpecError(why);
  return *size;
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  if (shape.size() == 1) return fmt::format("({},)", shape[0]);
  return fmt::format("({})", fmt::join(shape, ", "));
}

NpyHeader read_npy_header(const std::filesystem::path& file) {
  std::error_code error;
  const std::uintmax_t file_size = std::filesystem::file_size(file, error);
  if (error) refuse(file, fmt::format("cannot be read: {}", error.message()));
  std::ifstream in(file, std::ios::binary);
  if (!in) refuse(file, "cannot be opened");
  std::array<char, kPreludeV2> prelude{};
  in.read(prelude.data(), kPreludeV1);
  if (in.gcount() < static_cast<std::streamsize>(kMagic.size()) || std::string_view(prelude.data(), kMagic.size()) != kMagic)
    refuse(file, "is not a .npy file: it does not start with NumPy's magic \\x93NUMPY");
  if (in.gcount() < static_cast<std::streamsize>(kPreludeV1)) refuse(file, "ends inside its .npy header");
  const int major = static_cast<unsigned char>(prelude[6]), minor = static_cast<unsigned char>(prelude[7]);
  std::size_t header_length = 0, prelude_size = kPreludeV1;
  if (major == 1 && minor == 0) {
    header_length = static_cast<unsigned char>(prelude[8]) | static_cast<std::size_t>(static_cast<unsigned char>(prelude[9])) << 8;
  } else if (major == 2 && minor == 0) {
    in.read(prelude.data() + kPreludeV1, kPreludeV2 - kPreludeV1);
    if (in.gcount() < static_cast<std::streamsize>(kPreludeV2 - kPreludeV1)) refuse(file, "ends inside its .npy header");
    for (int b = 3; b >= 0; --b) header_length = header_length << 8 | static_cast<unsigned char>(prelude[8 + static_cast<std::size_t>(b)]);
    prelude_size = kPreludeV2;
  } else {
    refuse(file, fmt::format("is .npy format version {}.{}; this reader reads versions 1.0 and 2.0 (NumPy writes 3.0 only "
                             "for structured dtypes, which it does not read either)",
                             major, minor));
  }
  if (header_length > kLongestHeader || prelude_size + header_length > file_size)
    refuse(file, fmt::format("announces a .npy header of {} bytes in a file of {} bytes", header_length, file_size));
  std::string text(header_length, '\0');
  in.read(text.data(), static_cast<std::streamsize>(header_length));
  if (in.gcount() != static_cast<std::streamsize>(header_length)) refuse(file, "ends inside its .npy header");
  if (text.empty() || text.back() != '\n') refuse(file, "has a .npy header that does not end with a newline");
  text.pop_back();

  NpyHeader header = HeaderParser(text, file).parse();
  header.data_offset = prelude_size + header_length;
  std::string why;
  const std::optional<std::size_t> size = known_descr_size(header.descr, why);
  if (!size) refuse(file, why);
  std::int64_t elements = 0;
  try {
    elements = header.elements();
  } catch (const SpecError& error) {
    refuse(file, fmt::format("is refused: {}", error.what()));
  }
  const std::uintmax_t data_bytes = file_size - header.data_offset;
  const auto expected = static_cast<std::uintmax_t>(elements);
  if (expected > std::numeric_limits<std::uintmax_t>::max() / *size)
    refuse(file, fmt::format("is refused: shape {} of '{}' needs more than 2^64 bytes (it holds {})", shape_text(header.shape),
                             header.descr, data_bytes));
  if (data_bytes != expected * *size)
    refuse(file, fmt::format("{}: it holds {} bytes of data, but shape {} of '{}' needs {}",
                             data_bytes < expected * *size ? "is truncated" : "has bytes past its data", data_bytes,
                             shape_text(header.shape), header.descr, expected * *size));
  return header;
}

NpyArray read_npy(const std::filesystem::path& file) {
  NpyArray array{read_npy_header(file), {}};
  array.data.resize(static_cast<std::size_t>(array.header.elements()) * descr_size(array.header.descr));
  std::ifstream in(file, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(array.header.data_offset));
  in.read(reinterpret_cast<char*>(array.data.data()), static_cast<std::streamsize>(array.data.size()));
  if (!in || in.gcount() != static_cast<std::streamsize>(array.data.size())) refuse(file, "could not be read to its end");
  return array;
}

void expect_npy(const std::filesystem::path& file, const NpyHeader& header, const std::string& descr,
                const std::vector<std::int64_t>& shape, const std::string& what) {
  if (header.descr != descr)
    refuse(file, fmt::format("has dtype '{}', but {} must have dtype '{}'", header.descr, what, descr));
  if (header.shape != shape)
    refuse(file, fmt::format("has shape {}, but {} must have shape {}", shape_text(header.shape), what, shape_text(shape)));
}

void write_npy(const std::filesystem::path& file, const std::string& descr, const std::vector<std::int64_t>& shape,
               std::span<const std::byte> data) {
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", descr, shape_text(shape));
  const bool version2 = kPreludeV1 + header.size() + 1 > 0xffff;
  const std::size_t prelude = version2 ? kPreludeV2 : kPreludeV1;
  const std::size_t padded = (prelude + header.size() + 1 + kAlignment - 1) / kAlignment * kAlignment;
  header.append(padded - prelude - header.size() - 1, ' ');
  header.push_back('\n');
  std::string bytes(kMagic);
  bytes.push_back(static_cast<char>(version2 ? 2 : 1));
  bytes.push_back('\0');
  const std::size_t length = header.size();
  for (std::size_t b = 0; b < (version2 ? 4u : 2u); ++b) bytes.push_back(static_cast<char>((length >> (8 * b)) & 0xff));
  bytes += header;
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  out.close();
  if (!out) throw std::runtime_error(fmt::format("cannot write '{}'", file.string()));
}

}  // namespace peconform::tensorfiles
