#include "platforms/provenance.h"

#include <nettle/sha2.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <ctime>
#include <stdexcept>

#include "models/core/units.h"
#include "platforms/build_info.h"
#include "platforms/scenario.h"
#include "platforms/simulation.h"

namespace sluice {

std::string sha256_hex(const std::string& text) {
  // Nettle, not OpenSSL's libcrypto: the same hash from a small library with no start-up of its own
  // (libcrypto kept 3.4 MiB resident in every run for this one hash; docs/scale.md).
  sha256_ctx ctx;
  sha256_init(&ctx);
  sha256_update(&ctx, text.size(), reinterpret_cast<const uint8_t*>(text.data()));
  std::array<uint8_t, SHA256_DIGEST_SIZE> digest{};
  sha256_digest(&ctx, digest.size(), digest.data());
  static const char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * digest.size());
  for (uint8_t byte : digest) {
    out += hex[byte >> 4];
    out += hex[byte & 15];
  }
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
