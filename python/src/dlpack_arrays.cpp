#include "python/src/dlpack_arrays.hpp"

#include <array>
#include <cstring>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <memory>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <vector>

namespace py = pybind11;

namespace peconform::python {
namespace {

constexpr const char* kCapsuleName = "dltensor";
constexpr const char* kUsedCapsuleName = "used_dltensor";  // the name a consumer gives a capsule it took

// A DLManagedTensor that owns its shape and strides and a reference to the memory's owner.
struct Exported {
  DLManagedTensor managed{};
  std::vector<std::int64_t> shape, strides;
  py::object owner;
};

DLManagedTensor* export_tensor(const DLTensor& tensor, const py::object& owner) {
  auto exported = std::make_unique<Exported>();
  exported->owner = owner;
  const auto ndim = static_cast<std::size_t>(tensor.ndim);
  exported->shape.assign(tensor.shape, tensor.shape + ndim);
  exported->strides.assign(tensor.strides, tensor.strides + ndim);
  exported->managed.dl_tensor = tensor;
  exported->managed.dl_tensor.shape = exported->shape.data();
  exported->managed.dl_tensor.strides = exported->strides.data();
  exported->managed.manager_ctx = exported.get();
  // A consumer may free the tensor from any thread: the owner's reference goes with the GIL.
  exported->managed.deleter = [](DLManagedTensor* self) {
    const py::gil_scoped_acquire gil;
    delete static_cast<Exported*>(self->manager_ctx);
  };
  return &exported.release()->managed;
}

// A capsule nobody consumed still owns its tensor.
void delete_unconsumed(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, kUsedCapsuleName)) return;
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kCapsuleName));
  if (managed == nullptr) {
    PyErr_Clear();
    return;
  }
  if (managed->deleter != nullptr) managed->deleter(managed);
}

// What the producers' from_dlpack functions take: an object with __dlpack__ and __dlpack_device__.
class DLPackView {
 public:
  DLPackView(const DLTensor& tensor, py::object owner)
      : tensor_(tensor), shape_(tensor.shape, tensor.shape + tensor.ndim), strides_(tensor.strides, tensor.strides + tensor.ndim),
        owner_(std::move(owner)) {
    tensor_.shape = shape_.data();
    tensor_.strides = strides_.data();
  }
  py::capsule dlpack(const py::object&) const { return py::capsule(export_tensor(tensor_, owner_), kCapsuleName, delete_unconsumed); }
  py::tuple device() const { return py::make_tuple(static_cast<int>(tensor_.device.device_type), tensor_.device.device_id); }

 private:
  DLTensor tensor_;
  std::vector<std::int64_t> shape_, strides_;
  py::object owner_;
};

py::object from_dlpack(ArrayKind kind) {
  return kind == ArrayKind::torch ? py::module_::import("torch").attr("from_dlpack") : py::module_::import("numpy").attr("from_dlpack");
}

std::string shape_text(const std::int64_t* shape, int ndim) {
  // As Python writes a tuple.
  return ndim == 1 ? fmt::format("({},)", shape[0]) : fmt::format("({})", fmt::join(shape, shape + ndim, ", "));
}

// Consumes a producer's capsule: the tensor is deleted when this goes, the capsule renamed so
// that its own destructor leaves it alone.
class Consumed {
 public:
  explicit Consumed(py::capsule capsule) : capsule_(std::move(capsule)) {
    managed_ = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule_.ptr(), kCapsuleName));
    if (managed_ == nullptr) throw py::error_already_set();
    PyCapsule_SetName(capsule_.ptr(), kUsedCapsuleName);
  }
  ~Consumed() {
    if (managed_->deleter != nullptr) managed_->deleter(managed_);
  }
  Consumed(const Consumed&) = delete;
  Consumed& operator=(const Consumed&) = delete;
  const DLTensor& tensor() const { return managed_->dl_tensor; }

 private:
  py::capsule capsule_;
  DLManagedTensor* managed_ = nullptr;
};

}  // namespace

ArrayKind array_kind_named(const std::string& text) {
  if (text == "numpy") return ArrayKind::numpy;
  if (text == "torch") return ArrayKind::torch;
  throw py::value_error(fmt::format("array is '{}'; expected 'numpy' or 'torch'", text));
}

std::string dtype_text(DLDataType dtype) {
  const char* code = dtype.code == kDLFloat ? "float" : dtype.code == kDLBfloat ? "bfloat" : dtype.code == kDLInt ? "int" : dtype.code == kDLUInt ? "uint" : "dlpack-code-";
  const std::string text = dtype.code == kDLFloat || dtype.code == kDLBfloat || dtype.code == kDLInt || dtype.code == kDLUInt
                               ? fmt::format("{}{}", code, dtype.bits)
                               : fmt::format("{}{}-bits{}", code, static_cast<int>(dtype.code), dtype.bits);
  return dtype.lanes == 1 ? text : fmt::format("{}x{}", text, dtype.lanes);
}

void register_dlpack_view(py::module_& module) {
  py::class_<DLPackView>(module, "_DLPackView", "A kernel call's buffer, handed to NumPy or torch through DLPack")
      .def("__dlpack__", &DLPackView::dlpack, py::arg("stream") = py::none())
      .def("__dlpack_device__", &DLPackView::device);
}

StagedMemory::StagedMemory(void* data, std::size_t size) : data_(static_cast<std::byte*>(data)), size_(size) {
  py::array_t<std::uint8_t> staged(static_cast<py::ssize_t>(size));
  staged_data_ = reinterpret_cast<std::byte*>(staged.mutable_data());
  std::memcpy(staged_data_, data_, size_);
  staged_ = std::move(staged);
}

DLTensor StagedMemory::over(const DLTensor& tensor) const {
  DLTensor staged = tensor;
  const auto offset = static_cast<std::byte*>(tensor.data) - data_;
  staged.data = staged_data_ + offset;
  return staged;
}

bool StagedMemory::holds(const void* address) const {
  const auto* at = static_cast<const std::byte*>(address);
  return at >= staged_data_ && at < staged_data_ + size_;
}

void StagedMemory::write_back() const {
  std::memcpy(data_, staged_data_, size_);
}

py::object array_over(const DLTensor& tensor, ArrayKind kind, const py::object& owner) {
  if (kind == ArrayKind::torch) return from_dlpack(kind)(py::cast(DLPackView(tensor, owner)));
  // NumPy 1.24 makes every array it takes from DLPack read-only, which would refuse a callable's
  // in-place writes: a NumPy view is made over the same bytes directly (NumPy has no bfloat16,
  // which check() refuses before any call).
  const auto size = static_cast<py::ssize_t>(tensor.dtype.bits / 8);
  std::vector<py::ssize_t> shape(tensor.shape, tensor.shape + tensor.ndim), strides;
  for (int a = 0; a < tensor.ndim; ++a) strides.push_back(static_cast<py::ssize_t>(tensor.strides[a]) * size);
  const char* format = tensor.dtype.code == kDLInt ? (tensor.dtype.bits == 64 ? "<i8" : "<i4")
                                                   : (tensor.dtype.bits == 64 ? "<f8" : tensor.dtype.bits == 32 ? "<f4" : "<f2");
  return py::array(py::dtype(format), shape, strides, static_cast<std::byte*>(tensor.data) + tensor.byte_offset, owner);
}

py::object int64_array(const std::vector<std::int64_t>& values, const std::vector<std::int64_t>& shape, ArrayKind kind) {
  py::array_t<std::int64_t> array(shape);
  std::copy(values.begin(), values.end(), array.mutable_data());
  if (kind == ArrayKind::torch) return py::module_::import("torch").attr("from_numpy")(array);
  return array;
}

const void* copy_returned(const py::handle& returned, const DLTensor& into) {
  const std::string expected = fmt::format("a {} array of shape {} on the host", dtype_text(into.dtype), shape_text(into.shape, into.ndim));
  py::object producer = py::reinterpret_borrow<py::object>(returned);
  if (!py::hasattr(producer, "__dlpack__"))
    throw WrongReturn(fmt::format("the callable returned a {}, which has no __dlpack__; expected {}",
                                  py::str(py::type::of(producer).attr("__name__")).cast<std::string>(), expected));
  // torch refuses to export a tensor that requires grad; its values are what is checked.
  if (py::hasattr(producer, "detach")) producer = producer.attr("detach")();
  const Consumed consumed(producer.attr("__dlpack__")().cast<py::capsule>());
  const DLTensor& from = consumed.tensor();
  if (from.device.device_type != kDLCPU && from.device.device_type != kDLCUDAHost)
    throw WrongReturn(fmt::format("the callable returned an array on DLPack device type {}; expected {}",
                                  static_cast<int>(from.device.device_type), expected));
  if (from.dtype.code != into.dtype.code || from.dtype.bits != into.dtype.bits || from.dtype.lanes != into.dtype.lanes)
    throw WrongReturn(fmt::format("the callable returned {} of shape {}; expected {}", dtype_text(from.dtype),
                                  shape_text(from.shape, from.ndim), expected));
  if (from.ndim != into.ndim || !std::equal(from.shape, from.shape + from.ndim, into.shape))
    throw WrongReturn(fmt::format("the callable returned shape {}; expected {}", shape_text(from.shape, from.ndim), expected));

  const auto size = static_cast<std::int64_t>(into.dtype.bits / 8);
  const auto* source = static_cast<const std::byte*>(from.data) + from.byte_offset;
  auto* target = static_cast<std::byte*>(into.data) + into.byte_offset;
  // DLPack allows NULL strides for a compact row-major tensor.
  std::array<std::int64_t, 4> source_strides{}, extent{1, 1, 1, 1}, target_strides{};
  std::int64_t compact = 1;
  for (int a = into.ndim - 1; a >= 0; --a) {
    const auto i = static_cast<std::size_t>(a) + 4 - static_cast<std::size_t>(into.ndim);  // right-aligned in 4 axes
    extent[i] = into.shape[a];
    source_strides[i] = from.strides != nullptr ? from.strides[a] : compact;
    target_strides[i] = into.strides[a];
    compact *= from.shape[a];
  }
  if (source == target && source_strides == target_strides) return source;  // the callable returned the output it wrote in place
  for (std::int64_t i0 = 0; i0 < extent[0]; ++i0)
    for (std::int64_t i1 = 0; i1 < extent[1]; ++i1)
      for (std::int64_t i2 = 0; i2 < extent[2]; ++i2)
        for (std::int64_t i3 = 0; i3 < extent[3]; ++i3) {
          const std::int64_t s = i0 * source_strides[0] + i1 * source_strides[1] + i2 * source_strides[2] + i3 * source_strides[3];
          const std::int64_t t = i0 * target_strides[0] + i1 * target_strides[1] + i2 * target_strides[2] + i3 * target_strides[3];
          std::memmove(target + t * size, source + s * size, static_cast<std::size_t>(size));
        }
  return source;
}

}  // namespace peconform::python
