// How a run was made, for summary.json's `provenance` object and Python's Result.provenance:
// the scenario (its path and the SHA-256 of its text), every override in the order applied, the
// run options, and the build (version, git commit). The host and the date are kept too, and
// are the only fields that differ between two runs of the same inputs on the same build
// (the determinism check leaves them out).
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace sluice {

struct run_options;
struct scenario;

// SHA-256 of `text`, as 64 lowercase hex digits (Nettle's).
std::string sha256_hex(const std::string& text);

// The provenance object of a run of `s` with `options`, the seed, end and sample period it
// resolved to (picoseconds), and the profile it used.
nlohmann::json run_provenance(const scenario& s, const run_options& options, uint64_t seed, uint64_t until_ps,
                              uint64_t sample_period_ps, const std::string& profile);

}  // namespace sluice
