#pragma once
// What a report says about where it ran: the commit of the checkout, the machine, the compiler.
#include <string>

namespace peconform::harness {

std::string source_commit();   // `git rev-parse HEAD` of the source tree, or "unknown"
std::string machine_summary(); // CPU model and logical core count, from /proc/cpuinfo
std::string compiler_summary();

}  // namespace peconform::harness
