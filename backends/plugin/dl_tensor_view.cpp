#include "backends/plugin/dl_tensor_view.hpp"

#include "backends/plugin/dl_dtype.hpp"

namespace peconform::plugin {

std::vector<int> shown_axes(Family family, bool learned_table) {
  if (is_rotary(family)) return {0, 1, 2, 3};
  switch (family) {
    case Family::learned: return learned_table ? std::vector<int>{2, 3} : std::vector<int>{0, 1, 3};
    case Family::sinusoidal:
    case Family::xl: return {1, 3};
    case Family::alibi: return {1, 2, 3};
    default: return {2, 3};
  }
}

void view_of(TensorView& view, Buffer& buffer, Dtype dtype, const std::vector<int>& axes) {
  for (std::size_t a = 0; a < axes.size(); ++a) {
    view.shape[a] = buffer.shape[static_cast<std::size_t>(axes[a])];
    view.strides[a] = buffer.stride[static_cast<std::size_t>(axes[a])];
  }
  view.tensor.data = buffer.data();
  view.tensor.device = {kDLCPU, 0};
  view.tensor.ndim = static_cast<int>(axes.size());
  view.tensor.dtype = buffer.type == ElementType::int32 ? DLDataType{kDLInt, 32, 1} : dl_dtype(dtype);
  view.tensor.shape = view.shape.data();
  view.tensor.strides = view.strides.data();
  view.tensor.byte_offset = 0;
}

}  // namespace peconform::plugin
