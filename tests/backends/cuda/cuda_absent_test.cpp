// The CUDA backend of a build without CUDA (backends/cuda/cuda_absent.cpp), linked here alone so
// that every build, this one with nvcc included, checks what such a build says.
#include <gtest/gtest.h>

#include "backends/cuda/cuda_devices.hpp"
#include "backends/cuda/cuda_tensor_backend.hpp"
#include "spec/spec_error.hpp"

namespace peconform::cuda {
namespace {

TEST(CudaAbsent, ListsNoDeviceAndSaysTheBuildHasNoCuda) {
  const CudaDevices found = cuda_devices();
  EXPECT_TRUE(found.devices.empty());
  EXPECT_NE(found.unavailable.find("this build of peconform has no CUDA backend"), std::string::npos) << found.unavailable;
}

TEST(CudaAbsent, TheBackendIsABadInputNamingTheMissingBuild) {
  try {
    make_cuda_tensor_backend();
    FAIL() << "a build without CUDA made a CUDA backend";
  } catch (const SpecError& error) {
    EXPECT_NE(std::string(error.what()).find("--backend cuda: this build of peconform has no CUDA backend"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace peconform::cuda
