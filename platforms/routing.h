// Routing: the fabric's wiring by node id, shortest-path destination tables with ECMP (or
// d-mod-k on tiered Clos fabrics), static-route overrides, and the check that every flow's
// paths reach its NIC. Everything is indexed by node id (the position in topology_spec::nodes);
// names are used only to read static routes and to word errors.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "models/nic/source_routing.h"
#include "models/switch/forwarding_table.h"
#include "platforms/topology.h"

namespace sluice {

using name_index = std::unordered_map<std::string, uint32_t>;  // node name -> node id

// peer[n][p]: the node that port p of node n faces (ports are numbered in link order).
struct port_graph {
  port_graph(const topology_spec& t, const name_index& ids);
  std::vector<std::vector<uint32_t>> peer;
};

// One forwarding table per node id; nullptr for NICs.
using table_set = std::vector<forwarding_table*>;

// Every switch sends towards each NIC over all shortest paths (hop count; NICs are never
// transit). With path_selection::d_mod_k, a switch with a tier keeps one of its w equal-cost
// next hops: number (NIC index / w^(tier-1)) mod w, where NIC index counts NICs in node order.
void compute_routes(const topology_spec& t, const port_graph& g, const table_set& tables);

// Replaces computed entries with the topology's static routes; errors name platform.routes[i].
void apply_static_routes(const topology_spec& t, const name_index& ids, const port_graph& g, const table_set& tables);

// The path ids a source may tag frames with (R3C2): one per combination of the equal-cost choices
// up the tiers (the product over tiers of the widest choice; on a fabric without tiers, the widest
// choice), at most 255; and each destination's first path, its NIC index mod the count, the path
// d-mod-k would give it.
path_plan plan_paths(const topology_spec& t, const table_set& tables);

// Follows every flow's paths (all ECMP branches) through the tables: a loop, a dead end or a
// delivery to another NIC is a config_error naming the flow.
struct flow_ends {
  uint32_t src, dst;
  const std::string* name;
};
void check_flow_paths(const topology_spec& t, const port_graph& g, const table_set& tables,
                      const std::vector<flow_ends>& flows);

}  // namespace sluice
