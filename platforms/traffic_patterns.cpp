#include "platforms/traffic_patterns.h"

#include <cmath>
#include <numeric>

#include "models/core/random.h"
#include "platforms/workload.h"

namespace sluice {
namespace {

// An index uniform in [0, n).
std::size_t below(random_stream& rng, std::size_t n) {
  return std::min(n - 1, static_cast<std::size_t>(rng.uniform() * static_cast<double>(n)));
}

sc_core::sc_time at_seconds(double t) { return from_ps(static_cast<uint64_t>(std::llround(t * 1e12))); }

std::string suffix(uint64_t a, uint64_t b) { return std::to_string(a) + "." + std::to_string(b); }

}  // namespace

std::vector<drawn_flow> draw_incast(const workload_spec& w, const size_cdf* cdf,
                                    const std::vector<data_rate>& dst_rates, uint64_t seed) {
  std::vector<drawn_flow> out;
  const double mean_size = cdf ? cdf->mean_bytes() : static_cast<double>(w.size);
  const double mean_fan_in = static_cast<double>(w.fan_in_min + w.fan_in_max) / 2;
  const uint64_t fan_in_choices = w.fan_in_max - w.fan_in_min + 1;
  for (std::size_t d = 0; d < w.dsts.size(); ++d) {
    const std::string& dst = w.dsts[d];
    // The receiver's link carries `load`: events x mean fan-in x mean size = load x rate.
    const double mean_gap_s = mean_size * 8 * mean_fan_in / (w.load * dst_rates[d].bps);
    std::vector<std::string> senders;
    for (const std::string& s : w.srcs)
      if (s != dst) senders.push_back(s);
    random_stream rng(derive_seed(seed, w.key + "/" + dst));
    double t = w.start.to_seconds();
    for (uint64_t event = 0;; ++event) {
      t += -std::log(1 - rng.uniform()) * mean_gap_s;
      if (t >= w.stop.to_seconds()) break;
      const std::size_t k = w.fan_in_min + below(rng, fan_in_choices);
      // A partial Fisher-Yates shuffle: the first k of `senders` are a uniform k-subset.
      for (std::size_t i = 0; i < k; ++i) {
        std::swap(senders[i], senders[i + below(rng, senders.size() - i)]);
        const uint64_t size = cdf ? cdf->sample(rng.uniform()) : w.size;
        out.push_back({senders[i], dst, suffix(d, event), size, at_seconds(t)});
      }
      if (out.size() > max_drawn_flows)
        throw config_error(w.key + ": more than " + std::to_string(max_drawn_flows) + " flows in the scenario");
    }
  }
  return out;
}

std::vector<std::size_t> random_derangement(std::size_t n, uint64_t seed) {
  random_stream rng(seed);
  std::vector<std::size_t> p(n);
  for (;;) {  // a uniform permutation, kept if it has no fixed point: about e tries
    std::iota(p.begin(), p.end(), 0);
    for (std::size_t i = n - 1; i > 0; --i) std::swap(p[i], p[below(rng, i + 1)]);
    bool fixed = false;
    for (std::size_t i = 0; i < n && !fixed; ++i) fixed = p[i] == i;
    if (!fixed) return p;
  }
}

std::vector<drawn_flow> draw_permutation(const workload_spec& w, uint64_t seed) {
  const std::vector<std::size_t> to = random_derangement(w.srcs.size(), derive_seed(seed, w.key));
  std::vector<drawn_flow> out;
  for (std::size_t i = 0; i < to.size(); ++i) out.push_back({w.srcs[i], w.srcs[to[i]], "", w.size, w.start});
  return out;
}

std::vector<drawn_flow> draw_all_to_all(const workload_spec& w) {
  std::vector<drawn_flow> out;
  for (const std::string& s : w.srcs)
    for (const std::string& d : w.srcs)
      if (s != d) out.push_back({s, d, "", w.size, w.start});
  return out;
}

std::vector<drawn_flow> draw_ring_allreduce(const workload_spec& w, uint64_t seed) {
  std::vector<std::string> ring = w.srcs;
  if (w.shuffled) {
    random_stream rng(derive_seed(seed, w.key));
    for (std::size_t i = ring.size() - 1; i > 0; --i) std::swap(ring[i], ring[below(rng, i + 1)]);
  }
  const uint64_t n = ring.size(), chunk = (w.size + n - 1) / n, steps = 2 * (n - 1);
  std::vector<drawn_flow> out;
  for (uint64_t it = 0; it < w.iterations; ++it)
    for (uint64_t step = 0; step < steps; ++step) {
      const sc_core::sc_time at = from_ps(to_ps(w.start) + it * to_ps(w.period) + step * to_ps(w.interval));
      for (uint64_t m = 0; m < n; ++m) out.push_back({ring[m], ring[(m + 1) % n], suffix(it, step), chunk, at});
    }
  return out;
}

}  // namespace sluice
