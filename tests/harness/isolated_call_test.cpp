// The isolated backend's words, refusals and descriptors, one call at a time through run_case
// (isolation_test.cpp runs whole campaigns). The workers are this binary, run with --worker.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <memory>
#include <string>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "backends/backend_registry.hpp"
#include "broken_backends.hpp"
#include "harness/case_run.hpp"
#include "harness/isolated_backend.hpp"

namespace peconform::harness {
namespace {

// A broken kernel isolated in a worker of this binary.
std::unique_ptr<TensorBackend> isolated(const std::string& bug, double timeout) {
  return make_isolated_backend(make_broken_backend(bug), {"/proc/self/exe", "--worker", bug}, timeout);
}

// "crash-on-bf16" runs our CPU kernel unchanged on every fp32 call: a worker that answers right.
const std::string kRightOnFp32 = "crash-on-bf16";
// A case parsed when a test runs (the spec grammar's tables are set up at static initialisation).
CaseDescription small_fp32() { return CaseDescription::parse("rope(d=8,base=10000,layout=half,dtype=fp32) | seq=3 seed=1"); }
// The same in bf16, which the "-on-bf16" bugs fail on.
CaseDescription small_bf16() { return CaseDescription::parse("rope(d=8,base=10000,layout=half,dtype=bf16) | seq=3 seed=1"); }

// The descriptors this process holds open now (the directory's own, while it is read, among them).
std::size_t open_descriptors() {
  std::size_t count = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) ++count;
  return count;
}

// Only the worker's copy of the inputs is written into, so only the worker can tell; its word
// must come back as that, not as a result nor as a throw.
TEST(Isolation, AnInputWrittenInTheWorkerComesBackAsInputModified) {
  const CaseOutcome outcome = run_case(small_fp32(), *isolated("writes-its-input", 60));
  EXPECT_EQ(outcome.error_kind, "input-modified");
  EXPECT_EQ(outcome.error, "the kernel wrote into its input buffers or its position ids");
  EXPECT_EQ(outcome.verdict.stats.failed_cases, 1u);
}

// A worker that ends before reading its call: the call's 2 MiB of queries outgrow any pipe's
// buffer (64 KiB, at most 1 MiB by fs.pipe-max-size), so the write meets the closed pipe. With
// SIGPIPE at its default that write would end this process; it must end only the case, a crash
// that gives the worker's exit code.
TEST(Isolation, AWorkerThatExitsBeforeReadingItsCallIsACrashWithItsExitCode) {
  const CaseDescription two_mib = CaseDescription::parse("rope(d=128,base=10000,layout=half,dtype=fp32) | seq=4096 seed=1");
  const std::unique_ptr<TensorBackend> backend = make_isolated_backend(make_broken_backend(kRightOnFp32), {"/bin/sh", "-c", "exit 3"}, 60);
  const CaseOutcome outcome = run_case(two_mib, *backend);
  EXPECT_EQ(outcome.error_kind, "crash");
  EXPECT_EQ(outcome.error, "the kernel's process ended: exit code 3");
}

// While it lives the backend holds its own ends of the two pipes and no more; dropped, it closes
// them (and so ends and reaps its worker).
TEST(Isolation, ADroppedBackendLeavesNoDescriptorOpen) {
  const std::size_t before = open_descriptors();
  {
    const std::unique_ptr<TensorBackend> backend = isolated(kRightOnFp32, 60);
    EXPECT_FALSE(run_case(small_fp32(), *backend).failed());
    EXPECT_EQ(open_descriptors(), before + 2) << "the write end of the call pipe and the read end of the reply pipe";
  }
  EXPECT_EQ(open_descriptors(), before);
}

// The campaign names the kernel and runs its properties in this process, through the inner backend.
TEST(Isolation, TheNameAndPointEvaluatorAreTheInnerBackends) {
  std::unique_ptr<TensorBackend> cpu = make_backend("cpu");
  const std::string name = cpu->name();
  const Implementation* points = cpu->points();
  ASSERT_NE(points, nullptr);
  const std::unique_ptr<TensorBackend> backend = make_isolated_backend(std::move(cpu), {"/nonexistent/worker"}, 60);
  EXPECT_EQ(backend->name(), name);
  EXPECT_EQ(backend->points(), points);
}

// A worker command that cannot be run fails the case naming it, and leaves no pipe open.
TEST(Isolation, AWorkerThatCannotStartIsAnErrorNamingIt) {
  const std::unique_ptr<TensorBackend> backend = make_isolated_backend(make_broken_backend(kRightOnFp32), {"/nonexistent/worker"}, 60);
  const std::size_t before = open_descriptors();
  const CaseOutcome outcome = run_case(small_fp32(), *backend);
  EXPECT_EQ(outcome.error_kind, "error");
  EXPECT_EQ(outcome.error, "cannot start the worker '/nonexistent/worker': No such file or directory");
  EXPECT_EQ(open_descriptors(), before);
}

// A hang is cut at its own timeout, not at the end of the poll's slice (up to 1 s) that holds
// it, and its message gives that timeout.
TEST(Isolation, AHangEndsAtItsTimeoutWithAMessageThatGivesIt) {
  constexpr double kTimeout = 0.25, kSlice = 1.0;
  const auto start = std::chrono::steady_clock::now();
  const CaseOutcome outcome =
      run_case(small_bf16(), *isolated("hang-on-bf16", kTimeout));
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(outcome.error_kind, "hang");
  EXPECT_EQ(outcome.error, "the kernel gave no result within 0.25 s; its process was killed");
  EXPECT_GE(took, kTimeout);
  EXPECT_LT(took, kSlice) << "the wait ran past its deadline to the end of a poll slice";
}

// A poll that fails is an error, not waited out as a hang. Here it fails with EINVAL: one
// descriptor watched under a soft limit of none.
TEST(Isolation, APollThatFailsIsAnErrorNotAHang) {
  const std::unique_ptr<TensorBackend> backend = isolated(kRightOnFp32, 1);
  ASSERT_FALSE(run_case(small_fp32(), *backend).failed()) << "the worker runs, so the next call makes no pipe";
  rlimit limit{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &limit), 0);
  rlimit none = limit;
  none.rlim_cur = 0;
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &none), 0);
  const CaseOutcome outcome = run_case(small_fp32(), *backend);
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &limit), 0);
  EXPECT_EQ(outcome.error_kind, "error");
  EXPECT_EQ(outcome.error, "poll: Invalid argument");
}

// With every descriptor the soft limit allows in use, the worker's pipes cannot be made: the
// case fails saying so.
TEST(Isolation, APipeThatCannotBeMadeIsAnErrorSayingSo) {
  const std::unique_ptr<TensorBackend> backend = isolated(kRightOnFp32, 60);
  rlimit limit{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &limit), 0);
  rlimit tight = limit;
  tight.rlim_cur = open_descriptors() + 64;  // a few more than are open; every free one below it is taken next
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &tight), 0);
  std::vector<int> filler;
  for (int fd; (fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;) filler.push_back(fd);
  const CaseOutcome outcome = run_case(small_fp32(), *backend);
  for (const int fd : filler) ::close(fd);
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &limit), 0);
  EXPECT_EQ(outcome.error_kind, "error");
  EXPECT_EQ(outcome.error, "cannot make a pipe for the worker: Too many open files");
}

// The worker ends with status 0 when the campaign closes its input (here: nothing to read at all).
TEST(Isolation, TheWorkerExitsZeroWhenItsInputCloses) {
  const std::string command = "'" + std::filesystem::read_symlink("/proc/self/exe").string() + "' --worker " + kRightOnFp32 + " < /dev/null";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status)) << command;
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// A kernel that hands back an array of its own (as a plugin may) rather than the harness's buffer.
class OwnArrayBackend final : public TensorBackend {
 public:
  std::string name() const override { return "own-array"; }
  BackendCapabilities capabilities() const override { return cpu_->capabilities(); }
  void run(KernelCall& call) const override {
    cpu_->run(call);
    for (Buffer& out : call.outputs) out.kernel_array = true;
  }

 private:
  std::unique_ptr<TensorBackend> cpu_ = make_backend("cpu");
};

TEST(Isolation, AnOutputFromTheKernelsOwnArrayIsMarked) {
  const CaseOutcome outcome = run_case(small_fp32(), OwnArrayBackend());
  EXPECT_TRUE(outcome.kernel_array);
  EXPECT_FALSE(outcome.failed()) << "its values are right";
}


// A signal that interrupts the wait (EINTR) is no error: the wait goes on. Here a timer's SIGALRM,
// caught by a handler that does nothing, lands 0.1 s into the wait for a worker that ends at
// 0.3 s without a word (its call fits in the pipe's buffer unread).
TEST(Isolation, ASignalDuringTheWaitIsNotAnError) {
  const std::unique_ptr<TensorBackend> backend =
      make_isolated_backend(make_broken_backend(kRightOnFp32), {"/bin/sh", "-c", "sleep 0.3; exit 3"}, 60);
  struct sigaction ignore {}, before {};
  ignore.sa_handler = [](int) {};
  ASSERT_EQ(sigaction(SIGALRM, &ignore, &before), 0);
  const itimerval once{{0, 0}, {0, 100000}};
  ASSERT_EQ(setitimer(ITIMER_REAL, &once, nullptr), 0);
  const CaseOutcome outcome = run_case(small_fp32(), *backend);
  ASSERT_EQ(sigaction(SIGALRM, &before, nullptr), 0);
  EXPECT_EQ(outcome.error, "the kernel's process ended: exit code 3");
}

}  // namespace
}  // namespace peconform::harness
