#pragma once
// NumPy's .npy format (numpy.lib.format, "NEP 1"), strictly: versions 1.0 and 2.0, a header
// dictionary with exactly 'descr', 'fortran_order' and 'shape', little-endian (or one-byte)
// numbers in C order. Everything else a .npy may hold (Fortran order, big-endian data, object
// arrays, which NumPy stores as pickles, structured dtypes, version 3.0's UTF-8 field names) is
// refused with a message naming the file, as is data shorter or longer than the header says.
// Debian has no maintained C++ .npy library (no cnpy, no libnpy), hence this one.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace peconform::tensorfiles {

struct NpyHeader {
  std::string descr;                // as NumPy writes it: '<f4', '<u2', '<i8', '|u1' ...
  std::vector<std::int64_t> shape;  // () for a scalar
  std::uint64_t data_offset = 0;    // where the data starts in the file
  std::int64_t elements() const;
};

struct NpyArray {
  NpyHeader header;
  std::vector<std::byte> data;  // elements() * descr_size(header.descr) bytes, C order
};

// The bytes of one element of `descr`; throws SpecError for a descr this reader refuses.
std::size_t descr_size(const std::string& descr);

// Reads and checks the header, and that the file holds exactly the data it announces. Throws
// SpecError naming `file` and what is wrong with it.
NpyHeader read_npy_header(const std::filesystem::path& file);
NpyArray read_npy(const std::filesystem::path& file);

// Throws SpecError naming `file` when its dtype or shape is not the expected one; `what` says
// what the file is for ("the kernel's output q of case 3").
void expect_npy(const std::filesystem::path& file, const NpyHeader& header, const std::string& descr,
                const std::vector<std::int64_t>& shape, const std::string& what);

// Writes a version 1.0 file (2.0 if the header needs it), its header padded to 64 bytes as
// NumPy pads it. Throws std::runtime_error naming `file` when it cannot be written.
void write_npy(const std::filesystem::path& file, const std::string& descr, const std::vector<std::int64_t>& shape,
               std::span<const std::byte> data);

// A shape as NumPy prints it: (2, 3), (5,), ().
std::string shape_text(const std::vector<std::int64_t>& shape);

}  // namespace peconform::tensorfiles
