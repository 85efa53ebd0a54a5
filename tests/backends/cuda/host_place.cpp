#include "host_place.hpp"

#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "backends/cuda/cuda_threads.hpp"

namespace peconform::cuda {
namespace {

template <class Body> void for_every_thread(pec_i64 threads, Body body) {
  for (pec_i64 thread = 0; thread < threads; ++thread) body(thread);
}

template <class Body> void with_storage(Storage storage, Body body) {
  switch (storage) {
    case Storage::fp64: return body(Fp64{});
    case Storage::fp32: return body(Fp32{});
    case Storage::fp16: return body(Fp16{});
    case Storage::bf16: return body(Bf16{});
  }
}

class HostPlace final : public KernelPlace {
 public:
  void* allocate(std::size_t bytes) const override {
    void* data = std::malloc(bytes);
    if (data == nullptr) throw std::runtime_error("host place: out of memory");
    return data;
  }
  void release(void* data) const noexcept override { std::free(data); }
  void upload(void* to, const void* from, std::size_t bytes) const override { std::memcpy(to, from, bytes); }
  void download(void* to, const void* from, std::size_t bytes) const override { std::memcpy(to, from, bytes); }
  void rotary(Storage storage, const DeviceRotaryPlan& plan, const RotaryOperands& operands, const DeviceIds& ids) const override {
    with_storage(storage, [&](auto tag) {
      for_every_thread(rotary_threads(plan, ids), [&](pec_i64 t) { rotary_thread<decltype(tag)>(t, plan, operands, ids); });
    });
  }
  void sinusoid(Storage storage, const DeviceSinusoidPlan& plan, void* out, std::int64_t row_stride,
                std::int64_t element_stride) const override {
    with_storage(storage, [&](auto tag) {
      for_every_thread(sinusoid_threads(plan), [&](pec_i64 t) { sinusoid_thread<decltype(tag)>(t, plan, out, row_stride, element_stride); });
    });
  }
  void alibi(Storage storage, const DeviceAlibiPlan& plan, void* out, const BiasStrides& stride) const override {
    with_storage(storage, [&](auto tag) {
      for_every_thread(alibi_threads(plan), [&](pec_i64 t) { alibi_thread<decltype(tag)>(t, plan, out, stride); });
    });
  }
  void relative_index(const DeviceRelativeIndexPlan& plan, std::int32_t* out, const BiasStrides& stride) const override {
    for_every_thread(relative_index_threads(plan), [&](pec_i64 t) { relative_index_thread(t, plan, out, stride); });
  }
  void gather(const DeviceGather& gather, const DeviceIds& ids) const override {
    const pec_i64 threads = gather_threads(gather, ids);
    if (gather.amplitude != 1) {
      with_storage(gather.storage, [&](auto tag) {
        for_every_thread(threads, [&](pec_i64 t) { scaled_gather_thread<decltype(tag)>(t, gather, ids); });
      });
      return;
    }
    if (gather.element_size == 8) for_every_thread(threads, [&](pec_i64 t) { gather_thread<pec_u64>(t, gather, ids); });
    else if (gather.element_size == 4) for_every_thread(threads, [&](pec_i64 t) { gather_thread<pec_u32>(t, gather, ids); });
    else for_every_thread(threads, [&](pec_i64 t) { gather_thread<pec_u16>(t, gather, ids); });
  }
};

}  // namespace

std::unique_ptr<KernelPlace> make_host_place() { return std::make_unique<HostPlace>(); }

}  // namespace peconform::cuda
