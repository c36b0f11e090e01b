#include "platforms/provenance.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <ctime>
#include <stdexcept>

#include "models/core/units.h"
#include "platforms/build_info.h"
#include "platforms/scenario.h"
#include "platforms/simulation.h"

namespace sluice {

// SHA-256 (FIPS 180-4), written out rather than taken from OpenSSL's libcrypto: linking and
// starting libcrypto for one hash per run kept 3.4 MiB of its pages resident in every process
// (docs/scale.md, the fixed cost).
namespace {
constexpr uint32_t sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

uint32_t rotr(uint32_t x, int n) { return x >> n | x << (32 - n); }

// One 64-byte block into the state.
void sha256_block(std::array<uint32_t, 8>& h, const unsigned char* block) {
  uint32_t w[64];
  for (int i = 0; i < 16; ++i)
    w[i] = uint32_t{block[4 * i]} << 24 | uint32_t{block[4 * i + 1]} << 16 | uint32_t{block[4 * i + 2]} << 8 |
           uint32_t{block[4 * i + 3]};
  for (int i = 16; i < 64; ++i) {
    const uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    const uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
  for (int i = 0; i < 64; ++i) {
    const uint32_t t1 = k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + sha256_k[i] + w[i];
    const uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    k = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  const uint32_t out[8] = {a, b, c, d, e, f, g, k};
  for (int i = 0; i < 8; ++i) h[i] += out[i];
}
}  // namespace

std::string sha256_hex(const std::string& text) {
  std::array<uint32_t, 8> h = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                               0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::size_t whole = n / 64 * 64;
  for (std::size_t at = 0; at < whole; at += 64) sha256_block(h, bytes + at);
  // The tail, the 0x80 marker and the length in bits (big-endian): one block or two.
  unsigned char last[128] = {};
  const std::size_t tail = n - whole;
  std::copy(bytes + whole, bytes + n, last);
  last[tail] = 0x80;
  const std::size_t blocks = tail + 9 > 64 ? 2 : 1;
  const uint64_t bits = static_cast<uint64_t>(n) * 8;
  for (int i = 0; i < 8; ++i) last[64 * blocks - 1 - i] = static_cast<unsigned char>(bits >> (8 * i));
  for (std::size_t b = 0; b < blocks; ++b) sha256_block(h, last + 64 * b);
  static const char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(64);
  for (uint32_t word : h)
    for (int shift = 28; shift >= 0; shift -= 4) out += hex[word >> shift & 15];
  return out;
}

namespace {

std::string host_name() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) return "unknown";
  return name.data();
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::array<char, 32> text{};
  std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text.data();
}

}  // namespace

nlohmann::json run_provenance(const scenario& s, const run_options& options, uint64_t seed, uint64_t until_ps,
                              uint64_t sample_period_ps, const std::string& profile) {
  nlohmann::json overrides = nlohmann::json::array();
  for (const auto& [pattern, value] : s.params)
    overrides.push_back({{"origin", "params"}, {"pattern", pattern}, {"value", value}});
  for (const auto& [pattern, value] : options.sets)
    overrides.push_back({{"origin", options.sets_origin}, {"pattern", pattern}, {"value", value}});
  const build_info& build = this_build();
  return {{"scenario_path", s.source},
          {"scenario_sha256", s.source_sha256},
          {"overrides", std::move(overrides)},
          {"cc", options.cc},
          {"profile", profile},
          {"seed", seed},
          {"until", format_time(from_ps(until_ps))},
          {"sample_period", format_time(from_ps(sample_period_ps))},
          {"allow_inert", options.allow_inert || s.allow_inert},
          {"sluice_version", build.version},
          {"git_commit", build.git_commit},
          {"git_dirty", build.git_dirty},
          {"host", host_name()},
          {"date", utc_now()}};
}

}  // namespace sluice
