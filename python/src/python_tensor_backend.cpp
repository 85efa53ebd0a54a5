#include "python/src/python_tensor_backend.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <numeric>

#include "spec/spec_error.hpp"

namespace py = pybind11;

namespace peconform::python {
namespace {

std::vector<std::int64_t> counting(std::int64_t first, std::int64_t count) {
  std::vector<std::int64_t> values(static_cast<std::size_t>(count));
  std::iota(values.begin(), values.end(), first);
  return values;
}

// The traceback as Python prints it, for the failure's message.
std::string traceback_text(const py::error_already_set& error) {
  try {
    // An error raised inside C code (NumPy's __dlpack__ refusing a read-only array) has no traceback.
    const py::object trace = error.trace() ? py::reinterpret_borrow<py::object>(error.trace()) : py::none();
    const py::object lines = py::module_::import("traceback").attr("format_exception")(error.type(), error.value(), trace);
    return py::str("").attr("join")(lines).cast<std::string>();
  } catch (const std::exception&) {
    return error.what();
  }
}

class PythonTensorBackend final : public TensorBackend {
 public:
  PythonTensorBackend(py::object callable, std::string name, std::vector<SpecPattern> patterns, CallsTaken takes, ArrayKind arrays,
                      OutputPassing output, std::atomic<bool>& stop)
      : callable_(std::move(callable)), name_(std::move(name)), patterns_(std::move(patterns)), takes_(takes), arrays_(arrays),
        output_(output), stop_(stop) {}

  // The callable goes with the GIL held: the campaign may drop the backend with it released.
  ~PythonTensorBackend() override {
    py::gil_scoped_acquire gil;
    callable_ = py::object();
  }

  std::string name() const override { return name_; }

  BackendCapabilities capabilities() const override {
    BackendCapabilities capabilities;
    if (patterns_.empty()) capabilities.families = all_families();
    for (const SpecPattern& pattern : patterns_)
      if (std::find(capabilities.families.begin(), capabilities.families.end(), pattern.family()) == capabilities.families.end())
        capabilities.families.push_back(pattern.family());
    // NumPy has no bfloat16: its bf16 cells are not drawn (check() refuses a bf16 asked for by name).
    capabilities.dtypes = {Dtype::fp64, Dtype::fp32, Dtype::fp16};
    if (arrays_ == ArrayKind::torch) capabilities.dtypes.push_back(Dtype::bf16);
    capabilities.precisions = {PrecisionClass::exact_angle, PrecisionClass::fp32_angle, PrecisionClass::lowp_cache,
                              PrecisionClass::fp64_angle};
    capabilities.calling_thread_only = true;  // the GIL
    capabilities.patterns = patterns_;
    capabilities.takes = takes_;
    return capabilities;
  }

  void run(KernelCall& call) const override {
    if (!patterns_.empty() &&
        std::none_of(patterns_.begin(), patterns_.end(), [&](const SpecPattern& p) { return p.admits(call.spec); }))
      throw SpecError(fmt::format("'{}' does not serve {}: check() was given the pattern {}", name_, call.spec.canonical(),
                                  patterns_.front().text()));
    if (call.spec.dtype == Dtype::bf16 && arrays_ == ArrayKind::numpy)
      throw SpecError(fmt::format("{} is bf16, which NumPy cannot hold: check it with array=\"torch\"", call.spec.canonical()));
    const Family family = call.spec.family;
    // A rotary call with queries and keys (GQA) calls fn once for each, q first, with the same
    // positions, as a model applies one rotation to both.
    if (!is_rotary(family) && call.outputs.size() != 1)
      throw SpecError(fmt::format("'{}' takes one operand per call; the call has {}", name_, call.outputs.size()));
    py::gil_scoped_acquire gil;
    const py::object spec = py::cast(call.spec);
    for (std::size_t operand = 0; operand < call.outputs.size(); ++operand) run_operand(call, operand, spec);
  }

 private:
  void run_operand(KernelCall& call, std::size_t operand, const py::object& spec) const {
    const Family family = call.spec.family;
    Buffer& output_buffer = call.outputs[operand];
    plugin::TensorView output;
    plugin::view_of(output, output_buffer, call.spec.dtype, plugin::shown_axes(family, false));
    const bool in_place = call.in_place && is_rotary(family);
    py::object returned, out;  // out: the output handed to fn (OutputPassing::argument)
    std::vector<StagedMemory> staged;  // what the callable may write, copied back however it ends
    staged.reserve(3);                 // x, the ids, the output: none moves once arrays view it
    try {
      py::list arguments;
      if (is_rotary(family) || family == Family::learned) {
        plugin::TensorView input;
        Buffer& x = in_place ? output_buffer : call.inputs[operand];
        plugin::view_of(input, x, call.spec.dtype, plugin::shown_axes(family, true));
        const StagedMemory& staged_x = staged.emplace_back(x.bytes.data(), x.bytes.size());
        py::object x_array = array_over(staged_x.over(input.tensor), arrays_, staged_x.owner());
        arguments.append(x_array);
        arguments.append(positions(call, staged));
        if (in_place) out = x_array;
      } else {
        arguments.append(int64_array(counting(call.first, call.rows), {call.rows}, arrays_));
        if (family != Family::sinusoidal && family != Family::xl)
          arguments.append(int64_array(counting(call.key_first, call.keys), {call.keys}, arrays_));
      }
      arguments.append(spec);
      if (output_ == OutputPassing::argument) {
        if (!out) {
          const StagedMemory& staged_out = staged.emplace_back(output_buffer.bytes.data(), output_buffer.bytes.size());
          out = array_over(staged_out.over(output.tensor), arrays_, staged_out.owner());
        }
        arguments.append(out);
      }
      returned = callable_(*py::tuple(arguments));
    } catch (py::error_already_set& error) {
      for (const StagedMemory& memory : staged) memory.write_back();
      if (error.matches(PyExc_KeyboardInterrupt)) stop_.store(true);
      throw KernelFailure("exception", traceback_text(error));
    }
    for (const StagedMemory& memory : staged) memory.write_back();
    if (returned.is_none()) return;  // written in place, or left unwritten: the verifier tells which
    if (output_ == OutputPassing::argument) {
      if (returned.is(out)) return;
      throw KernelFailure("wrong-return", fmt::format("with output=\"argument\" fn writes into out and returns None or out itself; it "
                                                      "returned a {}", py::str(py::type::of(returned).attr("__name__")).cast<std::string>()));
    }
    try {
      const void* source = copy_returned(returned, output.tensor);
      // An array of the callable's own: no sentinel of peconform's is in it, whatever its bits.
      output_buffer.kernel_array =
          std::none_of(staged.begin(), staged.end(), [&](const StagedMemory& memory) { return memory.holds(source); });
    } catch (const WrongReturn& wrong) {
      throw KernelFailure("wrong-return", wrong.what());
    } catch (py::error_already_set& error) {
      throw KernelFailure("wrong-return", "reading what the callable returned raised:\n" + traceback_text(error));
    }
  }

  // The ids as the callable's positions: the call's own ids (staged) when they need no offset.
  py::object positions(KernelCall& call, std::vector<StagedMemory>& staged) const {
    std::vector<std::int64_t> shape{call.batch, call.seq};
    if (call.axes > 1) shape.insert(shape.begin(), call.axes);
    if (call.id_offset == 0) {
      std::vector<std::int64_t> strides(shape.size());
      std::int64_t stride = 1;
      for (std::size_t a = shape.size(); a-- > 0;) {
        strides[a] = stride;
        stride *= shape[a];
      }
      DLTensor ids{};
      ids.data = call.ids64 ? static_cast<void*>(call.ids64_data.data()) : static_cast<void*>(call.ids32_data.data());
      const StagedMemory& staged_ids =
          staged.emplace_back(ids.data, call.ids64 ? call.ids64_data.size() * sizeof(std::int64_t) : call.ids32_data.size() * sizeof(std::int32_t));
      ids.device = {kDLCPU, 0};
      ids.ndim = static_cast<int>(shape.size());
      ids.dtype = call.ids64 ? DLDataType{kDLInt, 64, 1} : DLDataType{kDLInt, 32, 1};
      ids.shape = shape.data();
      ids.strides = strides.data();
      return array_over(staged_ids.over(ids), arrays_, staged_ids.owner());
    }
    std::vector<std::int64_t> values;
    for (int a = 0; a < call.axes; ++a)
      for (std::int64_t b = 0; b < call.batch; ++b)
        for (std::int64_t s = 0; s < call.seq; ++s) values.push_back(call.id(a, b, s));
    return int64_array(values, shape, arrays_);
  }

  py::object callable_;
  std::string name_;
  std::vector<SpecPattern> patterns_;
  CallsTaken takes_;
  ArrayKind arrays_;
  OutputPassing output_;
  std::atomic<bool>& stop_;
};

}  // namespace

OutputPassing output_passing_named(const std::string& text) {
  if (text == "return") return OutputPassing::returned;
  if (text == "argument") return OutputPassing::argument;
  throw py::value_error(fmt::format("output is '{}'; expected 'return' (fn returns its result) or 'argument' (fn writes out)", text));
}

std::unique_ptr<TensorBackend> make_python_tensor_backend(py::object callable, std::string name, std::vector<SpecPattern> patterns,
                                                          CallsTaken takes, ArrayKind arrays, OutputPassing output,
                                                          std::atomic<bool>& stop) {
  return std::make_unique<PythonTensorBackend>(std::move(callable), std::move(name), std::move(patterns), takes, arrays, output, stop);
}

}  // namespace peconform::python
