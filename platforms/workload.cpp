#include "platforms/workload.h"

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

#include "models/core/random.h"
#include "platforms/scenario.h"
#include "platforms/traffic_patterns.h"

namespace sluice {
namespace {

// Uniform in [0, 1) from 53 random bits: the same on every standard library, unlike the
// <random> distributions.
double uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

}  // namespace

size_cdf size_cdf::from_file(const std::string& path, const std::string& key) {
  return from_text(read_input_file(path, key, max_file_bytes), key + " ('" + path + "')");
}

size_cdf size_cdf::from_text(const std::string& text, const std::string& key) {
  size_cdf c;
  std::istringstream lines(text);
  std::string line;
  std::size_t number = 0;
  while (std::getline(lines, line)) {
    if (++number > max_lines) throw config_error(key + ": more than " + std::to_string(max_lines) + " lines");
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::istringstream fields(line);
    std::string size_text, percent_text, rest;
    if (!(fields >> size_text >> percent_text) || (fields >> rest))
      throw config_error(key + ": line " + std::to_string(number) + " is not 'size cumulative_percent'");
    const std::string where = key + ": line " + std::to_string(number);
    const double bytes = parse_number(size_text, where), percent = parse_number(percent_text, where);
    double p = percent / 100.0;
    if (bytes < 0 || p < 0 || p > 1 ||
        (!c.points_.empty() && (bytes < c.points_.back().first || p < c.points_.back().second)))
      throw config_error(key + ": line " + std::to_string(number) + " must not decrease and must stay within 0..100 %");
    c.points_.emplace_back(bytes, p);
  }
  if (c.points_.size() < 2 || c.points_.back().second != 1.0)
    throw config_error(key + ": a CDF needs at least two points and must end at 100 %");
  return c;
}

double size_cdf::mean_bytes() const {
  // Sizes are uniform within each segment: its mean is the midpoint.
  double mean = points_.front().first * points_.front().second;
  for (std::size_t i = 1; i < points_.size(); ++i)
    mean += (points_[i].second - points_[i - 1].second) * (points_[i].first + points_[i - 1].first) / 2;
  return mean;
}

uint64_t size_cdf::sample(double u) const {
  double size = points_.front().first;
  for (std::size_t i = 1; i < points_.size(); ++i) {
    auto [b1, p1] = points_[i];
    auto [b0, p0] = points_[i - 1];
    if (u < p1) {
      size = p1 > p0 ? b0 + (b1 - b0) * (u - p0) / (p1 - p0) : b1;
      break;
    }
    size = b1;
  }
  return std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(size)));
}

namespace {

constexpr std::size_t max_flows = max_drawn_flows;

// Appends a pattern's flows to the scenario, each a finite flow (or constant at w.rate when it
// has no size) named src->dst#t<group>[.<tag>].
void append(scenario& s, const workload_spec& w, const std::vector<drawn_flow>& drawn) {
  if (s.flows.size() + drawn.size() > max_flows)
    throw config_error(w.key + ": more than " + std::to_string(max_flows) + " flows in the scenario");
  for (const drawn_flow& d : drawn) {
    flow_spec f;
    f.kind = d.size ? flow_kind::finite : flow_kind::constant;
    f.name = d.src + "->" + d.dst + "#t" + std::to_string(w.group) + (d.tag.empty() ? "" : "." + d.tag);
    f.size = d.size;
    f.rate = w.rate;
    f.start = d.start;
    f.priority = w.priority;
    f.cc = w.cc;
    f.from_workload = true;
    s.flows.push_back(f);
    s.flow_ends.emplace_back(d.src, d.dst);
  }
}

std::vector<drawn_flow> draw_pattern(const scenario& s, const workload_spec& w, uint64_t seed) {
  switch (w.pattern) {
    case workload_pattern::incast: {
      std::vector<data_rate> rates;
      for (const std::string& d : w.dsts) rates.push_back(nic_link_rate(s.topology, d));
      if (w.cdf_path.empty()) return draw_incast(w, nullptr, rates, seed);
      const size_cdf cdf = size_cdf::from_file(w.cdf_path, w.key + ".cdf");
      return draw_incast(w, &cdf, rates, seed);
    }
    case workload_pattern::permutation:
      return draw_permutation(w, seed);
    case workload_pattern::all_to_all:
      return draw_all_to_all(w);
    case workload_pattern::ring_allreduce:
      return draw_ring_allreduce(w, seed);
    case workload_pattern::poisson:
      break;
  }
  return {};
}

}  // namespace

data_rate nic_link_rate(const topology_spec& t, const std::string& nic) {
  data_rate rate{0};
  for (const link_spec& l : t.links)
    if (l.a == nic || l.b == nic) rate = l.rate;
  return rate;
}

void expand_workloads(scenario& s, uint64_t seed) {
  for (const workload_spec& w : s.workloads) {
    if (w.pattern != workload_pattern::poisson) {
      append(s, w, draw_pattern(s, w, seed));
      continue;
    }
    size_cdf cdf = size_cdf::from_file(w.cdf_path, w.key + ".cdf");
    const double mean_bytes = cdf.mean_bytes();
    for (const std::string& src : w.srcs) {
      // The source's link rate sets the arrival rate: load x rate / mean size flows per second.
      const data_rate rate = nic_link_rate(s.topology, src);
      const double mean_gap_s = mean_bytes * 8 / (w.load * rate.bps);
      std::vector<std::string> dsts;
      for (const std::string& d : w.dsts)
        if (d != src) dsts.push_back(d);
      if (dsts.empty()) throw config_error(w.key + ".dst: no destination other than the source '" + src + "'");
      std::mt19937_64 rng(derive_seed(seed, w.key + "/" + src));
      double t = w.start.to_seconds();
      for (uint64_t k = 0;; ++k) {
        t += -std::log(1 - uniform(rng)) * mean_gap_s;
        if (t >= w.stop.to_seconds()) break;
        if (s.flows.size() >= max_flows)
          throw config_error(w.key + ": more than " + std::to_string(max_flows) + " flows in the scenario");
        const std::string& dst = dsts[static_cast<std::size_t>(uniform(rng) * static_cast<double>(dsts.size()))];
        flow_spec f;
        f.kind = flow_kind::finite;
        f.name = src + "->" + dst + "#t" + std::to_string(w.group) + "." + std::to_string(k);
        f.size = cdf.sample(uniform(rng));
        f.start = from_ps(static_cast<uint64_t>(std::llround(t * 1e12)));
        f.priority = w.priority;
        f.cc = w.cc;
        f.from_workload = true;
        s.flows.push_back(f);
        s.flow_ends.emplace_back(src, dst);
      }
    }
  }
}

}  // namespace sluice
