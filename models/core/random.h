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

class random_streams {
 public:
  static random_streams& instance() {
    static random_streams r;
    return r;
  }
  void seed(uint64_t s) { seed_ = s; }
  uint64_t seed() const { return seed_; }

 private:
  uint64_t seed_ = 1;
};

}  // namespace sluice
