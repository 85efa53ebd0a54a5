// read_npy on a file holding any bytes (the kernel's outputs `run --outputs` reads), in a folder
// of this process's own in /dev/shm or $TMPDIR (removed after every input). A file it reads is written back with write_npy
// and read again: the same dtype, shape and data, the data starting on a 64-byte boundary.
// fuzz-sources: tensorfiles/npy_file.cpp
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "fuzz/fuzz_support.hpp"
#include "tensorfiles/npy_file.hpp"

namespace {

const std::filesystem::path& scratch() {
  static const std::filesystem::path root = [] {
    std::error_code error;
    const bool shm = std::getenv("TMPDIR") == nullptr && std::filesystem::is_directory("/dev/shm", error) &&
                     ::access("/dev/shm", W_OK) == 0;
    std::string name =
        ((shm ? std::filesystem::path("/dev/shm") : std::filesystem::temp_directory_path()) / "peconform-npy-fuzz-XXXXXX").string();
    if (::mkdtemp(name.data()) == nullptr) {
      std::perror("mkdtemp");
      std::abort();
    }
    return std::filesystem::path(name);
  }();
  return root;
}

struct RemovedAfterwards {
  ~RemovedAfterwards() {
    std::error_code ignored;
    std::filesystem::remove_all(scratch(), ignored);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace peconform;
  const RemovedAfterwards cleanup;
  const std::filesystem::path file = scratch() / "x.npy", again = scratch() / "again.npy";
  std::filesystem::create_directories(scratch());
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) {
      std::perror("writing the .npy file");
      std::abort();
    }
  }
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
