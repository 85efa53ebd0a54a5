#include "tools/kernel_benchmarks.hpp"

#include <fmt/format.h>
#include <memory>
#include <random>

#include "backends/cpu/rotary_kernels.hpp"
#include "backends/cpu/table_kernels.hpp"

namespace peconform {
namespace {

using cpu::BFloat16;

template <class T> std::vector<T> random_tensor(std::size_t count) {
  std::mt19937_64 engine(20261121);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<T> out(count);
  for (T& element : out) element = cpu::store<T>(value(engine));
  return out;
}

enum class CosSin { table, on_the_fly };
enum class Placement { in_place, out_of_place };

struct RotaryShape {
  std::int64_t seq, heads, dim;
};

// Half-split or interleaved RoPE on a [1, seq, heads, dim] tensor at positions 0 .. seq - 1.
template <class T>
KernelBenchmark rotary_benchmark(const std::string& name, const char* spec_text, RotaryShape shape, CosSin cos_sin,
                                 Placement placement, const char* dtype) {
  const double elements = static_cast<double>(shape.seq * shape.heads * shape.dim);
  const double cache_bytes = cos_sin == CosSin::table ? 2.0 * static_cast<double>(shape.seq * shape.dim / 2) *
                                                            sizeof(cpu::Compute<T>)
                                                      : 0.0;
  const double bytes = 2.0 * elements * sizeof(T) + static_cast<double>(shape.seq) * sizeof(std::int64_t) + cache_bytes;
  auto prepare = [=]() -> std::function<void()> {
    struct State {
      cpu::RotaryPlan plan;
      std::vector<T> input, output;
      std::vector<std::int64_t> ids;
      cpu::CosSinCache<T> cache;
    };
    auto state = std::make_shared<State>();
    state->plan = cpu::make_rotary_plan(Spec::parse(spec_text), shape.seq);
    state->input = random_tensor<T>(static_cast<std::size_t>(elements));
    if (placement == Placement::out_of_place) state->output.resize(state->input.size());
    for (std::int64_t p = 0; p < shape.seq; ++p) state->ids.push_back(p);
    if (cos_sin == CosSin::table) state->cache = cpu::build_cos_sin_cache<T>(state->plan, 0, shape.seq);
    return [state, shape, cos_sin, placement] {
      T* out = placement == Placement::in_place ? state->input.data() : state->output.data();
      const cpu::RotaryOperand<T> operand{cpu::bshd<const T>(state->input.data(), 1, shape.seq, shape.heads, shape.dim),
                                          cpu::bshd(out, 1, shape.seq, shape.heads, shape.dim)};
      cpu::apply_rotary<T>(state->plan, {&operand, 1}, cpu::position_ids(state->ids.data(), 1, 1, shape.seq),
                           cos_sin == CosSin::table ? &state->cache : nullptr);
    };
  };
  return {name, fmt::format("[1, {}, {}, {}]", shape.seq, shape.heads, shape.dim), dtype, bytes, prepare};
}

KernelBenchmark sinusoidal_benchmark() {
  constexpr std::int64_t kRows = 65536, kDim = 256;
  auto prepare = []() -> std::function<void()> {
    auto plan = std::make_shared<cpu::SinusoidPlan>(cpu::make_sinusoid_plan(Spec::parse("sinusoidal(d=256,dtype=fp32)")));
    auto table = std::make_shared<std::vector<float>>(static_cast<std::size_t>(kRows * kDim));
    return [plan, table] { cpu::sinusoid_rows<float>(*plan, 0, kRows, table->data(), kDim); };
  };
  return {"sinusoidal-table-fp32", fmt::format("[{}, {}]", kRows, kDim), "fp32", 4.0 * kRows * kDim, prepare};
}

KernelBenchmark alibi_benchmark() {
  constexpr std::int64_t kHeads = 32, kQueries = 2048, kKeys = 2048;
  auto prepare = []() -> std::function<void()> {
    auto plan = std::make_shared<cpu::AlibiPlan>(cpu::make_alibi_plan(Spec::parse("alibi(heads=32,mode=causal,dtype=fp32)")));
    auto bias = std::make_shared<std::vector<float>>(static_cast<std::size_t>(kHeads * kQueries * kKeys));
    return [plan, bias] { cpu::alibi_bias<float>(*plan, 0, kQueries, 0, kKeys, bias->data()); };
  };
  return {"alibi-bias-causal-fp32", fmt::format("[{}, {}, {}]", kHeads, kQueries, kKeys), "fp32",
          4.0 * kHeads * kQueries * kKeys, prepare};
}

}  // namespace

std::vector<KernelBenchmark> kernel_benchmarks() {
  const RotaryShape llama{4096, 32, 128};
  const RotaryShape long_context{131072, 8, 128};
  const char* half_fp32 = "rope(d=128,base=10000,layout=half,dtype=fp32)";
  const char* half_bf16 = "rope(d=128,base=10000,layout=half,dtype=bf16)";
  const char* interleaved_fp32 = "rope(d=128,base=10000,layout=interleaved,dtype=fp32)";
  return {
      rotary_benchmark<float>("rope-half-fp32-table", half_fp32, llama, CosSin::table, Placement::in_place, "fp32"),
      rotary_benchmark<float>("rope-half-fp32-on-the-fly", half_fp32, llama, CosSin::on_the_fly, Placement::in_place, "fp32"),
      rotary_benchmark<float>("rope-half-fp32-table-out-of-place", half_fp32, llama, CosSin::table, Placement::out_of_place, "fp32"),
      rotary_benchmark<BFloat16>("rope-half-bf16-table", half_bf16, llama, CosSin::table, Placement::in_place, "bf16"),
      rotary_benchmark<BFloat16>("rope-half-bf16-table-out-of-place", half_bf16, llama, CosSin::table, Placement::out_of_place,
                                 "bf16"),
      rotary_benchmark<BFloat16>("rope-half-bf16-on-the-fly", half_bf16, llama, CosSin::on_the_fly, Placement::in_place, "bf16"),
      rotary_benchmark<float>("rope-interleaved-fp32-table", interleaved_fp32, llama, CosSin::table, Placement::in_place, "fp32"),
      rotary_benchmark<float>("rope-half-fp32-on-the-fly-long-context", half_fp32, long_context, CosSin::on_the_fly,
                              Placement::in_place, "fp32"),
      sinusoidal_benchmark(),
      alibi_benchmark(),
  };
}

}  // namespace peconform
