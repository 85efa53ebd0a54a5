#pragma once
// The two property profiles, chosen by PECONFORM_PROPERTY_PROFILE:
// - ci (the default): a fixed seed and a case budget that keeps the whole suite within about
//   five minutes on 2 cores;
// - deep: a million cases per property and a fresh seed, which RapidCheck prints.
// Anything in RC_PARAMS (seed=..., max_success=..., reproduce=...) is applied on top, so a
// printed reproduce string replays under either profile.

namespace peconform {

inline constexpr unsigned long long kCiSeed = 20261121;
inline constexpr int kCiCases = 4000;
// The exact tier (MPFR, about 50 times slower) runs a quarter of that in CI: it is the same
// Reference<Real> template as the fast tier, which runs every case; the deep profile runs both
// in full.
inline constexpr int kExactTierCiCases = 1000;
inline constexpr int kDeepCases = 1000000;

// Sets RC_PARAMS for this process before RapidCheck first reads it, prints the profile and
// initialises Google Test. Returns false, having named the bad value, for an unknown profile.
// `ci_cases` is the ci profile's budget for this process.
bool start_property_run(int& argc, char** argv, int ci_cases = kCiCases);

}  // namespace peconform
