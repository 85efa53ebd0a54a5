#pragma once
// The interface every implementation under test presents one point at a time (whole calls go
// through tensor_backend.hpp): the two reference tiers now, our CPU and CUDA kernels, plugins
// and tensor files later. Properties and the harness are written once against it, and each
// implementation states its own error bound (its precision class).
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "reference/point.hpp"
#include "reference/real_types.hpp"
#include "spec/spec.hpp"

namespace peconform {

// Values cross the interface as IEEE binary128: it holds every kernel dtype exactly and the
// exact tier to within 2^-113, so no implementation is judged on a rounding the interface added.
using Wide = FastReal;

// One spec prepared by an implementation (a reference with its frequencies, a kernel plan).
class Evaluator {
 public:
  virtual ~Evaluator() = default;
  // The values at `point` for `input`, as Reference::evaluate defines them. Throws SpecError
  // for a point the scheme does not define.
  virtual std::vector<Wide> evaluate(const Point& point, std::span<const Wide> input) const = 0;
  // How far each element of evaluate(point, input) may stray from the exact value; 0 where the
  // result must be bit-identical (gathers, pass-through dims, indices, masks).
  virtual std::vector<Wide> error_bounds(const Point& point, std::span<const Wide> input) const = 0;
};

class Implementation {
 public:
  virtual ~Implementation() = default;
  virtual std::string name() const = 0;
  // `sequence_length` is what dynamic NTK and LongRoPE key on; see plan_sequence_length().
  virtual std::unique_ptr<Evaluator> prepare(const Spec& spec, std::int64_t sequence_length) const = 0;
};

}  // namespace peconform
