#include "harness/isolated_backend.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/call_wire.hpp"
#include "spec/spec_error.hpp"

extern char** environ;

namespace peconform::harness {
namespace {

// kInputModified: the kernel wrote into its inputs or ids, which only the worker's copy shows.
enum Reply : std::uint64_t { kDone = 0, kRefused = 1, kThrew = 2, kInputModified = 3 };

class IsolatedBackend final : public TensorBackend {
 public:
  IsolatedBackend(std::unique_ptr<TensorBackend> inner, std::vector<std::string> worker, double timeout)
      : inner_(std::move(inner)), worker_(std::move(worker)), timeout_(timeout) {
    std::signal(SIGPIPE, SIG_IGN);  // a dead child shows as a failed write, not a dead parent
  }
  ~IsolatedBackend() override { stop(false); }

  std::string name() const override { return inner_->name(); }
  BackendCapabilities capabilities() const override { return inner_->capabilities(); }
  const Implementation* points() const override { return inner_->points(); }

  void run(KernelCall& call) const override {
    if (pid_ <= 0) start();
    std::uint64_t reply = kDone;
    std::string message;
    try {
      write_call(to_child_, call);
      wait_for_reply();
      reply = read_word(from_child_);
      if (reply == kDone)
        read_outputs(from_child_, call);
      else
        message = read_text(from_child_);
    } catch (const PipeClosed&) {
      // The worker holds its pipes open for as long as it lives: a closed one means it died.
      throw KernelFailure("crash", fmt::format("the kernel's process ended: {}", stop(false)));
    }
    if (reply == kRefused) throw SpecError(message);
    if (reply == kInputModified) throw KernelFailure("input-modified", message);
    if (reply != kDone) throw std::runtime_error(message);
  }

 private:
  void start() const {
    int down[2], up[2];
    if (pipe2(down, O_CLOEXEC) != 0 || pipe2(up, O_CLOEXEC) != 0)
      throw std::runtime_error(fmt::format("cannot make a pipe for the worker: {}", std::strerror(errno)));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, down[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, up[1], STDOUT_FILENO);
    std::vector<char*> argv;
    for (const std::string& part : worker_) argv.push_back(const_cast<char*>(part.c_str()));
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int failed = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(down[0]);
    ::close(up[1]);
    if (failed != 0) {
      ::close(down[1]);
      ::close(up[0]);
      throw std::runtime_error(fmt::format("cannot start the worker '{}': {}", worker_.front(), std::strerror(failed)));
    }
    pid_ = pid;
    to_child_ = down[1];
    from_child_ = up[0];
  }

  void wait_for_reply() const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_);
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        ::kill(pid_, SIGKILL);
        stop(true);
        throw KernelFailure("hang", fmt::format("the kernel gave no result within {} s; its process was killed", timeout_));
      }
      pollfd watch{from_child_, POLLIN, 0};
      const int ready = ::poll(&watch, 1, static_cast<int>(std::min<std::int64_t>(left.count(), 1000)));
      if (ready > 0) return;  // data, or the end of a dead child: the read tells which
      if (ready < 0 && errno != EINTR) throw std::runtime_error(fmt::format("poll: {}", std::strerror(errno)));
    }
  }

  // Closes the pipes and reaps the child; returns how it ended.
  std::string stop(bool killed) const {
    if (pid_ <= 0) return "not running";
    ::close(to_child_);
    ::close(from_child_);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    if (killed) return "killed";
    if (WIFSIGNALED(status)) return fmt::format("signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
    if (WIFEXITED(status)) return fmt::format("exit code {}", WEXITSTATUS(status));
    return "unknown";
  }

  std::unique_ptr<TensorBackend> inner_;
  std::vector<std::string> worker_;
  double timeout_;
  mutable pid_t pid_ = -1;
  mutable int to_child_ = -1, from_child_ = -1;
};

}  // namespace

std::unique_ptr<TensorBackend> make_isolated_backend(std::unique_ptr<TensorBackend> inner, std::vector<std::string> worker,
                                                     double case_timeout_seconds) {
  return std::make_unique<IsolatedBackend>(std::move(inner), std::move(worker), case_timeout_seconds);
}

int serve_worker(const TensorBackend& backend) {
  for (;;) {
    KernelCall call;
    try {
      call = read_call(STDIN_FILENO);
    } catch (const PipeClosed&) {
      return 0;  // the campaign closed the pipe: done
    }
    const std::uint64_t before = input_fingerprint(call);
    try {
      backend.run(call);
    } catch (const SpecError& refused) {
      write_word(STDOUT_FILENO, kRefused);
      write_text(STDOUT_FILENO, refused.what());
      continue;
    } catch (const std::exception& error) {
      write_word(STDOUT_FILENO, kThrew);
      write_text(STDOUT_FILENO, error.what());
      continue;
    }
    if (input_fingerprint(call) != before) {
      write_word(STDOUT_FILENO, kInputModified);
      write_text(STDOUT_FILENO, "the kernel wrote into its input buffers or its position ids");
      continue;
    }
    write_word(STDOUT_FILENO, kDone);
    write_outputs(STDOUT_FILENO, call);
  }
}

}  // namespace peconform::harness
