#include "platforms/partition.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <unordered_map>

#include "models/protocol/ethernet.h"
#include "models/protocol/ib_frame.h"

#ifdef SLUICE_WITH_METIS
#include <metis.h>
#endif

namespace sluice {
namespace {

// The fabric seen by the partitioner: units (a switch and its NICs; a NIC linked to a NIC pairs
// with it) with their weights, and the unit graph's edges (summed link rates in Gb/s).
struct unit_graph {
  std::vector<uint32_t> unit_of;                    // by node id
  std::vector<uint64_t> weight;                     // by unit
  std::vector<int> tier;                            // by unit: its switch's tier (0 for a NIC pair)
  std::vector<std::map<uint32_t, uint64_t>> edges;  // by unit: neighbour unit -> weight
  std::vector<uint32_t> link_a, link_b;             // by link: its end nodes' ids
};

uint64_t rate_weight(data_rate r) { return std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(r.bps / 1e9))); }

unit_graph build_units(const topology_spec& t) {
  unit_graph g;
  std::unordered_map<std::string, uint32_t> id;
  id.reserve(t.nodes.size());
  for (uint32_t i = 0; i < t.nodes.size(); ++i) id.emplace(t.nodes[i].name, i);
  const uint32_t none = UINT32_MAX;
  std::vector<uint32_t> nic_peer(t.nodes.size(), none);
  g.link_a.reserve(t.links.size());
  g.link_b.reserve(t.links.size());
  for (const link_spec& l : t.links) {
    const auto a = id.find(l.a), b = id.find(l.b);
    if (a == id.end() || b == id.end())
      throw config_error("platform.links: '" + (a == id.end() ? l.a : l.b) + "' is not a declared node");
    g.link_a.push_back(a->second);
    g.link_b.push_back(b->second);
    for (auto [n, peer] : {std::pair{a->second, b->second}, std::pair{b->second, a->second}})
      if (!t.nodes[n].is_switch) {
        if (nic_peer[n] != none)
          throw config_error("platform: NIC '" + t.nodes[n].name +
                             "' has more than one link; a NIC has exactly one port");
        nic_peer[n] = peer;
      }
  }
  g.unit_of.assign(t.nodes.size(), none);
  auto add_unit = [&](uint32_t node, int tier) {
    g.unit_of[node] = static_cast<uint32_t>(g.weight.size());
    g.weight.push_back(1);
    g.tier.push_back(tier);
  };
  for (uint32_t n = 0; n < t.nodes.size(); ++n)
    if (t.nodes[n].is_switch) add_unit(n, t.nodes[n].tier);
  for (uint32_t n = 0; n < t.nodes.size(); ++n) {
    if (t.nodes[n].is_switch || g.unit_of[n] != none) continue;
    const uint32_t peer = nic_peer[n];
    if (peer == none) throw config_error("platform: NIC '" + t.nodes[n].name + "' has no link");
    if (t.nodes[peer].is_switch) {
      g.unit_of[n] = g.unit_of[peer];
    } else {  // two NICs linked to each other: a unit of their own
      add_unit(n, 0);
      g.unit_of[peer] = g.unit_of[n];
    }
    ++g.weight[g.unit_of[n]];
  }
  g.edges.resize(g.weight.size());
  for (std::size_t i = 0; i < t.links.size(); ++i) {
    const uint32_t ua = g.unit_of[g.link_a[i]], ub = g.unit_of[g.link_b[i]];
    if (ua == ub) continue;
    g.edges[ua][ub] += rate_weight(t.links[i].rate);
    g.edges[ub][ua] += rate_weight(t.links[i].rate);
  }
  return g;
}

uint64_t weight_of(const unit_graph& g, const std::vector<uint32_t>& members) {
  uint64_t w = 0;
  for (uint32_t u : members) w += g.weight[u];
  return w;
}

// Groups (lists of units, in order) split into `parts` contiguous runs, the heaviest as light as
// a contiguous split allows (the smallest capacity that greedy filling fits into `parts` runs,
// found by bisection), every part given at least one group. Returns each group's part.
std::vector<uint32_t> split_contiguous(const std::vector<uint64_t>& weight, int parts) {
  auto runs_needed = [&](uint64_t capacity) {
    int runs = 1;
    uint64_t filled = 0;
    for (uint64_t w : weight) {
      if (filled + w > capacity) {
        ++runs;
        filled = 0;
      }
      filled += w;
    }
    return runs;
  };
  uint64_t low = *std::max_element(weight.begin(), weight.end());
  uint64_t high = std::accumulate(weight.begin(), weight.end(), uint64_t{0});
  while (low < high) {
    const uint64_t mid = low + (high - low) / 2;
    if (runs_needed(mid) <= parts)
      high = mid;
    else
      low = mid + 1;
  }
  std::vector<uint32_t> part_of(weight.size(), 0);
  int part = 0;
  uint64_t filled = 0;
  for (std::size_t i = 0; i < weight.size(); ++i) {
    const std::size_t left = weight.size() - i;  // this group and those after it
    if (filled > 0 && part < parts - 1 &&
        (filled + weight[i] > low || left == static_cast<std::size_t>(parts - part - 1))) {
      ++part;
      filled = 0;
    }
    part_of[i] = static_cast<uint32_t>(part);
    filled += weight[i];
  }
  return part_of;
}

// Units in groups, the groups split into contiguous runs; then the units of `spread`, one by
// one, each to the lightest part so far (the lowest-numbered of equals).
std::vector<uint32_t> contiguous_parts(const unit_graph& g, const std::vector<std::vector<uint32_t>>& groups,
                                       const std::vector<uint32_t>& spread, int parts) {
  std::vector<uint64_t> group_weight;
  for (const auto& members : groups) group_weight.push_back(weight_of(g, members));
  const std::vector<uint32_t> group_part = split_contiguous(group_weight, parts);
  std::vector<uint32_t> unit_part(g.weight.size(), 0);
  std::vector<uint64_t> part_weight(parts, 0);
  for (std::size_t i = 0; i < groups.size(); ++i) {
    for (uint32_t u : groups[i]) unit_part[u] = group_part[i];
    part_weight[group_part[i]] += group_weight[i];
  }
  for (uint32_t u : spread) {
    const auto lightest = std::min_element(part_weight.begin(), part_weight.end()) - part_weight.begin();
    unit_part[u] = static_cast<uint32_t>(lightest);
    part_weight[lightest] += g.weight[u];
  }
  return unit_part;
}

std::vector<uint32_t> block_parts(const unit_graph& g, int parts) {
  std::vector<std::vector<uint32_t>> groups(g.weight.size());
  for (uint32_t u = 0; u < g.weight.size(); ++u) groups[u] = {u};
  return contiguous_parts(g, groups, {}, parts);
}

// The units below the top tier joined by their links (a fat tree's pods, each leaf of a
// leaf-spine) split into contiguous runs in node order, then the top-tier switches spread over
// the lightest parts. No tiers, or fewer pods than parts: blocks.
std::vector<uint32_t> pod_parts(const unit_graph& g, int parts) {
  const int top = *std::max_element(g.tier.begin(), g.tier.end());
  if (top == 0) return block_parts(g, parts);
  std::vector<uint32_t> root(g.weight.size());
  std::iota(root.begin(), root.end(), 0);
  auto find = [&](uint32_t u) {
    while (root[u] != u) u = root[u] = root[root[u]];
    return u;
  };
  for (uint32_t u = 0; u < g.weight.size(); ++u)
    for (const auto& [v, w] : g.edges[u])
      if (g.tier[u] < top && g.tier[v] < top) {
        const uint32_t a = find(u), b = find(v);
        root[std::max(a, b)] = std::min(a, b);
      }
  // Units are numbered in node order (switches first), so a pod's root is its first unit.
  std::map<uint32_t, std::vector<uint32_t>> pods;
  std::vector<uint32_t> tops;
  for (uint32_t u = 0; u < g.weight.size(); ++u)
    if (g.tier[u] == top)
      tops.push_back(u);
    else
      pods[find(u)].push_back(u);
  if (pods.size() < static_cast<std::size_t>(parts)) return block_parts(g, parts);
  std::vector<std::vector<uint32_t>> groups;
  for (auto& [first, members] : pods) groups.push_back(std::move(members));
  return contiguous_parts(g, groups, tops, parts);
}

#ifdef SLUICE_WITH_METIS
std::vector<uint32_t> metis_parts(const unit_graph& g, int parts) {
  idx_t vertices = static_cast<idx_t>(g.weight.size()), constraints = 1, nparts = parts, cut = 0;
  std::vector<idx_t> xadj{0}, adjncy, vwgt, adjwgt, part(g.weight.size(), 0);
  for (uint32_t u = 0; u < g.weight.size(); ++u) {
    vwgt.push_back(static_cast<idx_t>(g.weight[u]));
    for (const auto& [v, w] : g.edges[u]) {
      adjncy.push_back(static_cast<idx_t>(v));
      adjwgt.push_back(static_cast<idx_t>(std::min<uint64_t>(w, 1u << 30)));
    }
    xadj.push_back(static_cast<idx_t>(adjncy.size()));
  }
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = 1;  // the same cut on every run and every rank
  options[METIS_OPTION_NUMBERING] = 0;
  auto has_empty_part = [&] {
    std::vector<bool> used(parts, false);
    for (idx_t p : part) used[p] = true;
    return std::find(used.begin(), used.end(), false) != used.end();
  };
  // k-way is METIS's choice for many parts; recursive bisection fills every part of small graphs.
  int status = METIS_PartGraphKway(&vertices, &constraints, xadj.data(), adjncy.data(), vwgt.data(), nullptr,
                                   adjwgt.data(), &nparts, nullptr, nullptr, options, &cut, part.data());
  if (status != METIS_OK || has_empty_part())
    status = METIS_PartGraphRecursive(&vertices, &constraints, xadj.data(), adjncy.data(), vwgt.data(), nullptr,
                                      adjwgt.data(), &nparts, nullptr, nullptr, options, &cut, part.data());
  if (status != METIS_OK)
    throw config_error("--partitions " + std::to_string(parts) + ": METIS failed (status " + std::to_string(status) +
                       "); try --partition-method pod");
  if (has_empty_part())
    throw config_error("--partitions " + std::to_string(parts) +
                       ": METIS left a partition empty; try fewer partitions or --partition-method pod");
  return {part.begin(), part.end()};
}
#endif

// Parts renumbered in order of their first node: part 0 holds node 0, whatever the method's labels.
void renumber_by_first_node(std::vector<uint32_t>& owner, int parts) {
  std::vector<uint32_t> label(parts, UINT32_MAX);
  uint32_t next = 0;
  for (uint32_t& o : owner) {
    if (label[o] == UINT32_MAX) label[o] = next++;
    o = label[o];
  }
}

uint64_t smallest_frame_bytes(link_layer layer) {
  return layer == link_layer::ib ? ib::credit_packet_bytes : eth::min_frame;
}

std::string ratio_text(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", x);
  return text;
}

}  // namespace

const std::vector<std::string>& partition_methods() {
  static const std::vector<std::string> methods{"auto", "metis", "pod", "blocks"};
  return methods;
}

bool have_metis() {
#ifdef SLUICE_WITH_METIS
  return true;
#else
  return false;
#endif
}

namespace {

// auto: every method's plan; those within auto_slack of the best balance compete on the largest
// lookahead, then the fewest cut links, then the order pod, metis, blocks.
constexpr double auto_slack = 0.05;

partition_plan best_plan(const topology_spec& t, int parts, const std::string& option) {
  std::vector<partition_plan> plans;
  std::string first_error;
  for (const char* method : {"pod", "metis", "blocks"}) {
    if (std::string(method) == "metis" && !have_metis()) continue;
    try {
      plans.push_back(plan_partitions(t, parts, method, option));
    } catch (const config_error& e) {  // e.g. this method cuts a zero-delay link; another may not
      if (first_error.empty()) first_error = e.what();
    }
  }
  if (plans.empty()) throw config_error(first_error);
  double best = plans.front().imbalance;
  for (const partition_plan& p : plans) best = std::min(best, p.imbalance);
  const partition_plan* chosen = nullptr;
  for (const partition_plan& p : plans) {
    if (p.imbalance > best + auto_slack) continue;
    if (!chosen || p.lookahead_ps > chosen->lookahead_ps ||
        (p.lookahead_ps == chosen->lookahead_ps && p.cut.size() < chosen->cut.size()))
      chosen = &p;
  }
  return *chosen;
}

}  // namespace

partition_plan plan_partitions(const topology_spec& t, int parts, const std::string& method,
                               const std::string& option) {
  const std::string key = option + " " + std::to_string(parts);
  if (std::find(partition_methods().begin(), partition_methods().end(), method) == partition_methods().end())
    throw config_error("--partition-method: '" + method + "' is not one of auto, metis, pod, blocks");
  if (method == "auto" && parts >= 1) return best_plan(t, parts, option);
  const std::size_t switches =
      std::count_if(t.nodes.begin(), t.nodes.end(), [](const node_spec& n) { return n.is_switch; });
  if (parts < 1) throw config_error(key + ": at least 1");
  const unit_graph g = build_units(t);
  if (static_cast<std::size_t>(parts) > g.weight.size())
    throw config_error(key + ": more partitions than the fabric's " + std::to_string(switches) +
                       " switches (a partition holds at least one switch with its NICs)");
  std::vector<uint32_t> unit_part(g.weight.size(), 0);
  if (parts > 1) {
    if (method == "metis") {
#ifdef SLUICE_WITH_METIS
      unit_part = metis_parts(g, parts);
#else
      throw config_error(
          "--partition-method: 'metis' needs METIS, and this build has none (SLUICE_WITH_METIS=OFF); "
          "use pod or blocks");
#endif
    } else {
      unit_part = method == "pod" ? pod_parts(g, parts) : block_parts(g, parts);
    }
  }
  partition_plan plan;
  plan.parts = parts;
  plan.method = method;
  plan.owner.resize(t.nodes.size());
  for (uint32_t n = 0; n < t.nodes.size(); ++n) plan.owner[n] = unit_part[g.unit_of[n]];
  renumber_by_first_node(plan.owner, parts);
  plan.weights.assign(parts, 0);
  for (uint32_t o : plan.owner) ++plan.weights[o];
  const uint64_t heaviest = *std::max_element(plan.weights.begin(), plan.weights.end());
  const double mean = static_cast<double>(t.nodes.size()) / parts;
  plan.imbalance = static_cast<double>(heaviest) / mean;
  if (plan.imbalance > unbalanced_above) {
    const auto part = std::max_element(plan.weights.begin(), plan.weights.end()) - plan.weights.begin();
    plan.warning = "unbalanced partition: part " + std::to_string(part) + " holds " + std::to_string(heaviest) +
                   " nodes against a mean of " + ratio_text(mean) + " (" + ratio_text(plan.imbalance) +
                   "x; warned above " + ratio_text(unbalanced_above) + "x)";
  }
  const uint64_t frame = smallest_frame_bytes(t.layer);
  for (uint32_t i = 0; i < t.links.size(); ++i) {
    if (plan.owner[g.link_a[i]] == plan.owner[g.link_b[i]]) continue;
    const link_spec& l = t.links[i];
    if (to_ps(l.delay) == 0)
      throw config_error(key + ": link '" + l.a + "-" + l.b +
                         "' crosses partitions with zero delay and leaves no lookahead (give it a delay, or "
                         "partition elsewhere)");
    plan.cut.push_back(i);
    const uint64_t window = to_ps(l.delay) + l.rate.serialization_ps(frame);
    if (window < plan.lookahead_ps) {
      plan.lookahead_ps = window;
      plan.lookahead_link = i;
    }
  }
  return plan;
}

}  // namespace sluice
