// read_npy on a file holding any bytes (the kernel's outputs `run --outputs` reads), in a folder
// of this process's own (fuzz::scratch_folder(), removed after every input). A file it reads is
// written back with write_npy and read again: the same dtype, shape and data, the data starting
// on a 64-byte boundary.
// fuzz-sources: tensorfiles/npy_file.cpp
#include <filesystem>

#include "fuzz/fuzz_support.hpp"
#include "tensorfiles/npy_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace peconform;
  const fuzz::InputFile input("x.npy", data, size);
  const std::filesystem::path& file = input.path();
  const std::filesystem::path again = fuzz::scratch_folder() / "again.npy";
  tensorfiles::NpyArray array;
  try {
    array = tensorfiles::read_npy(file);
  } catch (const SpecError&) {
    return 0;
  }
  fuzz::must_not_throw("a file read_npy reads is written back", file.string(), [&] {
    tensorfiles::write_npy(again, array.header.descr, array.header.shape, array.data);
  });
  tensorfiles::NpyArray back;
  fuzz::must_not_throw("what write_npy wrote is read", again.string(), [&] { back = tensorfiles::read_npy(again); });
  fuzz::require(back.header.descr == array.header.descr && back.header.shape == array.header.shape && back.data == array.data,
                "write_npy then read_npy gives back the dtype, shape and data", tensorfiles::shape_text(array.header.shape));
  fuzz::require(back.header.data_offset % 64 == 0, "write_npy starts the data on a 64-byte boundary", again.string());
  return 0;
}
