// Traffic patterns beyond the per-source Poisson `workload`: incast events with a random fan-in,
// permutation and all-to-all matrices, and ring all-reduce steps. Each draws from streams seeded
// by the run's seed and the group's key, so the same seed gives the same flows, byte for byte.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "models/core/units.h"

namespace sluice {

struct workload_spec;
class size_cdf;

// A scenario holds at most this many flows (a typo in a load or a size must not exhaust memory).
constexpr std::size_t max_drawn_flows = 1000000;

// One flow a pattern drew, before it becomes a flow_spec.
struct drawn_flow {
  std::string src, dst, tag;  // tag: the name's suffix after "#t<group>", unique in the group
  uint64_t size = 0;          // payload bytes; 0: a constant flow at the group's rate
  sc_core::sc_time start;
};

// kind: incast — per receiver in w.dsts, a Poisson process of incast events at w.load of its
// link rate; each event picks a fan-in k uniformly in [fan_in_min, fan_in_max] and k distinct
// senders of w.srcs (not the receiver), each sending one flow sized by `cdf` (or w.size).
std::vector<drawn_flow> draw_incast(const workload_spec& w, const size_cdf* cdf,
                                    const std::vector<data_rate>& dst_rates, uint64_t seed);

// A uniformly random derangement of 0..n-1 (no i maps to itself), n >= 2.
std::vector<std::size_t> random_derangement(std::size_t n, uint64_t seed);

// kind: permutation — each host sends to one other and receives from one (a derangement).
std::vector<drawn_flow> draw_permutation(const workload_spec& w, uint64_t seed);

// kind: all-to-all — every ordered pair of distinct hosts.
std::vector<drawn_flow> draw_all_to_all(const workload_spec& w);

// kind: ring-allreduce — the hosts form a ring (in order, or shuffled); each all-reduce is
// 2 (N - 1) synchronized steps (reduce-scatter, then all-gather), in each of which every host
// sends size / N bytes (rounded up) to its successor.
std::vector<drawn_flow> draw_ring_allreduce(const workload_spec& w, uint64_t seed);

}  // namespace sluice
