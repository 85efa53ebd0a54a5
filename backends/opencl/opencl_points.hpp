#pragma once
// The OpenCL backend one point at a time (implementation.hpp), so that the property catalog
// runs on the device kernels: each evaluation is one kernel call of one token, row or
// (query, key) through the backend's run(), with the bounds of precision/error_model.hpp as
// the CPU backend states them.
#include "backends/implementation.hpp"
#include "backends/tensor_backend.hpp"

namespace peconform::opencl {

class OpenClPoints final : public Implementation {
 public:
  explicit OpenClPoints(const TensorBackend& backend) : backend_(backend) {}
  std::string name() const override { return "opencl"; }
  std::unique_ptr<Evaluator> prepare(const Spec& spec, std::int64_t sequence_length) const override;

 private:
  const TensorBackend& backend_;
};

}  // namespace peconform::opencl
