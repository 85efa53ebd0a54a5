#pragma once
// Shared by the libFuzzer targets (fuzz/*_fuzz.cpp). A parser may reject bad input only with
// peconform::SpecError; any other exception escapes LLVMFuzzerTestOneInput and aborts, which
// libFuzzer reports as a crash. A broken documented invariant aborts through require().
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unistd.h>

#include "spec/spec.hpp"
#include "spec/spec_error.hpp"

namespace peconform::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Aborts with both texts when an invariant does not hold: a finding.
[[noreturn]] inline void broken(std::string_view invariant, std::string_view detail) {
  std::fprintf(stderr, "\nINVARIANT BROKEN: %.*s\n  %.*s\n", static_cast<int>(invariant.size()), invariant.data(),
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

inline void require(bool holds, std::string_view invariant, std::string_view detail) {
  if (!holds) broken(invariant, detail);
}

// Runs `check`; any exception from it (SpecError included: the input was valid, so what is
// derived from it must be too) is a broken invariant.
template <class Check>
void must_not_throw(std::string_view invariant, std::string_view detail, Check&& check) {
  try {
    check();
  } catch (const std::exception& error) {
    broken(invariant, std::string(detail) + " threw: " + error.what());
  }
}

// docs/specs.md: canonical text round-trips text -> Spec -> text unchanged and gives the same
// spec back; the JSON form round-trips too.
inline void check_spec_round_trips(const Spec& spec) {
  const std::string canonical = spec.canonical();
  must_not_throw("Spec::parse(s.canonical()) == s", canonical, [&] {
    const Spec again = Spec::parse(canonical);
    require(again.canonical() == canonical, "Spec::parse(s.canonical()).canonical() == s.canonical()",
            canonical + " became " + again.canonical());
    require(again == spec, "Spec::parse(s.canonical()) == s", canonical);
  });
  must_not_throw("Spec::from_json(s.to_json()) == s", canonical, [&] {
    const nlohmann::json json = spec.to_json();
    const Spec from_json = Spec::from_json(json);
    require(from_json == spec, "Spec::from_json(s.to_json()) == s", canonical + " as " + json.dump());
    // The JSON text a user would store, read back.
    const Spec from_text = Spec::from_json(nlohmann::json::parse(json.dump()));
    require(from_text == spec, "Spec::from_json(parse(s.to_json().dump())) == s", canonical + " as " + json.dump());
  });
}

// A folder of this process's own for targets that read their input from a file: in $TMPDIR,
// else in /dev/shm where there is one (a file written to disk costs milliseconds, a hundred
// times a parse). Its name is made once; the folder exists only while an InputFile holds it.
inline const std::filesystem::path& scratch_folder() {
  static const std::filesystem::path root = [] {
    std::error_code error;
    const bool shm = std::getenv("TMPDIR") == nullptr && std::filesystem::is_directory("/dev/shm", error) &&
                     ::access("/dev/shm", W_OK) == 0;
    std::string name =
        ((shm ? std::filesystem::path("/dev/shm") : std::filesystem::temp_directory_path()) / "peconform-fuzz-XXXXXX").string();
    if (::mkdtemp(name.data()) == nullptr) {
      std::perror("mkdtemp");
      std::abort();
    }
    return std::filesystem::path(name);
  }();
  return root;
}

// The input's bytes as the file scratch_folder() / relative (its folders made); the whole
// scratch folder is removed when this goes out of scope, so no input sees another's files.
class InputFile {
 public:
  InputFile(const std::filesystem::path& relative, const std::uint8_t* data, std::size_t size) : path_(scratch_folder() / relative) {
    std::filesystem::create_directories(path_.parent_path());
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) {
      std::perror("writing the fuzz input's file");
      std::abort();
    }
  }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile() {
    std::error_code ignored;
    std::filesystem::remove_all(scratch_folder(), ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace peconform::fuzz
