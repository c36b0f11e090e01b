// Deterministic seeds: one per named user, derived from the run's seed, so adding a model never
// shifts another model's draws (same seed, same results, byte for byte).
#pragma once
#include <cstdint>
#include <string>

namespace sluice {

inline uint64_t fnv1a(const std::string& s, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

inline uint64_t mix64(uint64_t x) {  // splitmix64 finaliser: a good, cheap hash for ECMP keys
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The seed of one named user (a switch's ECMP salt, a workload source's stream): the run's seed
// mixed with a hash of the name. The one place this derivation is written.
inline uint64_t derive_seed(uint64_t seed, const std::string& name) { return mix64(seed ^ fnv1a(name)); }

// One user's stream of draws (splitmix64): seeded with derive_seed(run seed, user's name), so
// the same run draws the same values, and users never share or shift each other's draws.
class random_stream {
 public:
  explicit random_stream(uint64_t seed = 0) : state_(seed) {}
  uint64_t next() {
    state_ += 0x9e3779b97f4a7c15ull;
    uint64_t x = state_;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  }
  // Uniform in [0, 1), 53 bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t state_;
};

class random_streams {
 public:
  static random_streams& instance() {
    static random_streams r;
    return r;
  }
  void seed(uint64_t s) { seed_ = s; }
  uint64_t seed() const { return seed_; }
  // The seed of the stream of the model user `name` (e.g. "sw0.port2.prio3.cp") in this run.
  uint64_t seed_for(const std::string& name) const { return derive_seed(seed_, name); }

 private:
  uint64_t seed_ = 1;
};

}  // namespace sluice
