// peconform devices: the accelerators this machine offers the device backends. OpenCL devices
// carry the global index that `run --backend opencl --device N` and PECONFORM_OPENCL_DEVICE
// take, CUDA devices the CUDA index `run --backend cuda --device N` takes. Exit 0 whatever is
// found, none included: listing is not a check.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#ifdef PECONFORM_HAVE_OPENCL
#include "backends/opencl/opencl_runtime.hpp"
#endif
#include "backends/cuda/cuda_devices.hpp"
#include "tools/commands.hpp"

namespace peconform {
namespace {

// The OpenCL devices, or why there are none: the build has no OpenCL, the ICD loader lists no
// platform, or a call failed (its error, so that the CUDA list still prints).
nlohmann::json opencl_json() {
  nlohmann::json devices = nlohmann::json::array();
  nlohmann::json opencl{{"built", false}, {"devices", devices}};
#ifdef PECONFORM_HAVE_OPENCL
  opencl["built"] = true;
  try {
    for (const opencl::DeviceInfo& d : opencl::list_devices())
      devices.push_back({{"index", d.index}, {"name", d.name}, {"platform", d.platform_name}, {"type", d.type},
                         {"version", d.version}, {"driver", d.driver_version}, {"fp64", d.fp64}, {"fp16", d.fp16},
                         {"global_memory_bytes", d.global_memory}, {"largest_allocation_bytes", d.largest_allocation},
                         {"compute_units", d.compute_units}});
    if (devices.empty())
      opencl["unavailable"] = "the ICD loader lists no OpenCL platform (Debian: pocl-opencl-icd for the CPU, or a GPU driver)";
  } catch (const std::exception& error) {
    opencl["unavailable"] = error.what();
  }
  opencl["devices"] = devices;
#else
  opencl["unavailable"] = "this build has no OpenCL (Debian: ocl-icd-opencl-dev opencl-c-headers, then rebuild)";
#endif
  return opencl;
}

// Every build has cuda_devices(): a build without CUDA says so in `unavailable`.
nlohmann::json cuda_json() {
  const cuda::CudaDevices found = cuda::cuda_devices();
  nlohmann::json devices = nlohmann::json::array();
  for (const cuda::CudaDevice& d : found.devices)
    devices.push_back({{"index", d.index}, {"name", d.name}, {"compute_capability", fmt::format("{}.{}", d.major, d.minor)},
                       {"global_memory_bytes", d.memory_bytes}});
  nlohmann::json cuda{{"devices", devices}};
  if (!found.unavailable.empty()) cuda["unavailable"] = found.unavailable;
  return cuda;
}

void print_devices(bool json) {
  const nlohmann::json opencl = opencl_json();
  const nlohmann::json cuda = cuda_json();
  if (json) {
    fmt::print("{}\n", nlohmann::json{{"opencl", opencl}, {"cuda", cuda}}.dump(2));
    return;
  }
  fmt::print("OpenCL devices (--backend opencl --device N, or PECONFORM_OPENCL_DEVICE=N):\n");
  if (opencl.contains("unavailable")) fmt::print("  none: {}\n", opencl["unavailable"].get<std::string>());
  for (const nlohmann::json& d : opencl["devices"])
    fmt::print("  {}: {} [{}, {}] on {}; {}; fp64 {}, fp16 {}; {:.1f} GiB global memory, {} compute units\n",
               d["index"].get<int>(), d["name"].get<std::string>(), d["type"].get<std::string>(),
               d["version"].get<std::string>(), d["platform"].get<std::string>(), d["driver"].get<std::string>(),
               d["fp64"].get<bool>() ? "yes" : "no (the backend needs it)", d["fp16"].get<bool>() ? "yes" : "no",
               static_cast<double>(d["global_memory_bytes"].get<std::uint64_t>()) / (1u << 30),
               d["compute_units"].get<std::uint32_t>());
  fmt::print("CUDA devices (--backend cuda --device N):\n");
  if (cuda.contains("unavailable")) fmt::print("  none: {}\n", cuda["unavailable"].get<std::string>());
  for (const nlohmann::json& d : cuda["devices"])
    fmt::print("  {}: {}, compute capability {}; {:.1f} GiB global memory\n", d["index"].get<int>(), d["name"].get<std::string>(),
               d["compute_capability"].get<std::string>(),
               static_cast<double>(d["global_memory_bytes"].get<std::int64_t>()) / (1u << 30));
}

}  // namespace

void add_devices_command(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  CLI::App* command = app.add_subcommand("devices", "List the OpenCL (and CUDA) devices the device backends can run on");
  command->add_flag("--json", *json, "Print the list as JSON");
  command->callback([json] { print_devices(*json); });
}

}  // namespace peconform
