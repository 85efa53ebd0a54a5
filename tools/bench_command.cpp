// peconform bench [--json] [--repeats N] [--only TEXT]: each kernel benchmark timed together
// with the bandwidth triad, repeat by repeat in the same process, so that fraction_of_triad
// compares two medians taken under the same conditions.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "spec/spec_error.hpp"
#include "tools/bandwidth_triad.hpp"
#include "tools/commands.hpp"
#include "tools/kernel_benchmarks.hpp"

namespace peconform {
namespace {

// 3 x 128 MiB: far past any last-level cache.
constexpr std::int64_t kTriadElements = std::int64_t{1} << 24;

struct BenchOptions {
  bool json = false;
  int repeats = 9;
  std::string only;
};

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t middle = values.size() / 2;
  return values.size() % 2 == 1 ? values[middle] : 0.5 * (values[middle - 1] + values[middle]);
}

struct BenchRecord {
  const KernelBenchmark* benchmark;
  double milliseconds, gigabytes_per_second, triad_gigabytes_per_second;
};

BenchRecord measure(const KernelBenchmark& benchmark, BandwidthTriad& triad, int repeats) {
  const std::function<void()> run = benchmark.prepare();
  run();  // first touch of the output and warm caches of the plan
  std::vector<double> kernel_seconds, triad_seconds;
  for (int r = 0; r < repeats; ++r) {
    triad_seconds.push_back(triad.run());
    const auto start = std::chrono::steady_clock::now();
    run();
    kernel_seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  const double seconds = median(kernel_seconds);
  return {&benchmark, seconds * 1e3, benchmark.bytes / seconds / 1e9, triad.bytes() / median(triad_seconds) / 1e9};
}

void run_bench(const BenchOptions& options) {
  std::vector<KernelBenchmark> benchmarks = kernel_benchmarks();
  std::erase_if(benchmarks, [&](const KernelBenchmark& b) { return b.name.find(options.only) == std::string::npos; });
  if (benchmarks.empty()) throw SpecError(fmt::format("--only '{}' matches no benchmark; see 'peconform bench'", options.only));
  BandwidthTriad triad(kTriadElements);
  triad.run();
  std::vector<BenchRecord> records;
  for (std::size_t i = 0; i < benchmarks.size(); ++i) {
    fmt::print(stderr, "bench: [{}/{}] {} {} ...\n", i + 1, benchmarks.size(), benchmarks[i].name, benchmarks[i].shape);
    records.push_back(measure(benchmarks[i], triad, options.repeats));
  }
  if (options.json) {
    nlohmann::json out{{"schema", "peconform-bench/1"}, {"threads", omp_get_max_threads()}, {"repeats", options.repeats},
                       {"triad_bytes", triad.bytes()}, {"records", nlohmann::json::array()}};
    for (const BenchRecord& record : records)
      out["records"].push_back({{"name", record.benchmark->name},
                                {"shape", record.benchmark->shape},
                                {"dtype", record.benchmark->dtype},
                                {"milliseconds", record.milliseconds},
                                {"bytes", record.benchmark->bytes},
                                {"gb_per_s", record.gigabytes_per_second},
                                {"triad_gb_per_s", record.triad_gigabytes_per_second},
                                {"fraction_of_triad", record.gigabytes_per_second / record.triad_gigabytes_per_second}});
    fmt::print("{}\n", out.dump(2));
    return;
  }
  fmt::print("{} threads, median of {} repeats; triad: a = b + s c over 3 x {} MiB\n", omp_get_max_threads(), options.repeats,
             kTriadElements * 8 >> 20);
  fmt::print("{:<40} {:<22} {:<5} {:>9} {:>8} {:>8} {:>9}\n", "name", "shape", "dtype", "ms", "GB/s", "triad", "fraction");
  for (const BenchRecord& record : records)
    fmt::print("{:<40} {:<22} {:<5} {:>9.3f} {:>8.2f} {:>8.2f} {:>9.3f}\n", record.benchmark->name, record.benchmark->shape,
               record.benchmark->dtype, record.milliseconds, record.gigabytes_per_second, record.triad_gigabytes_per_second,
               record.gigabytes_per_second / record.triad_gigabytes_per_second);
}

}  // namespace

void add_bench_command(CLI::App& app) {
  auto options = std::make_shared<BenchOptions>();
  CLI::App* command = app.add_subcommand("bench", "Time the CPU kernels against a bandwidth triad run alongside them");
  command->add_flag("--json", options->json, "Print the records as JSON");
  command->add_option("--repeats", options->repeats, "Timed runs per benchmark (the median is reported)")
      ->check(CLI::Range(1, 1000));
  command->add_option("--only", options->only, "Run only the benchmarks whose name contains this text");
  command->callback([options] { run_bench(*options); });
}

}  // namespace peconform
