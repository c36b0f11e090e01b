// A platform as data: nodes and links. Builders (incast, dumbbell, ...) and custom scenario
// topologies both produce this; the fabric instantiates it.
#pragma once
#include <string>
#include <vector>

#include "models/core/units.h"
#include "models/link/flow_control.h"

namespace sluice {

// The one default link rate and delay of every platform kind (a kind may override the delay,
// e.g. pcn-basic's 5 us). Builders read `link_rate`/`link_delay` with these as fallbacks.
inline const data_rate default_link_rate{40e9};
inline const sc_core::sc_time default_link_delay(1, sc_core::SC_US);

struct node_spec {
  std::string name;
  bool is_switch = false;
  int tier = 0;  // switches of a tiered Clos: 1 = edge/leaf, 2 = aggregation/spine, 3 = core (d-mod-k)
};

struct link_spec {
  std::string a, b;
  data_rate rate = default_link_rate;
  sc_core::sc_time delay = default_link_delay;
};

// A static forwarding entry that replaces the computed one: at switch `sw`, frames for NIC
// `dst` leave towards the neighbours `via` (ECMP among them if several).
struct route_spec {
  std::string sw, dst;
  std::vector<std::string> via;
};

// How a switch picks among equal-cost next hops.
enum class path_selection {
  ecmp,     // per-flow hash over every shortest-path next hop
  d_mod_k,  // one next hop per destination: (NIC index / width^(tier-1)) mod width (fat trees)
};

struct topology_spec {
  int classes = 8;                     // traffic classes of every port: the 8 PFC priorities of a CEE fabric
  link_layer layer = link_layer::cee;  // `link_layer: ib`: credits on every port, 16 VLs
  path_selection selection = path_selection::ecmp;
  std::vector<node_spec> nodes;
  std::vector<link_spec> links;
  std::vector<route_spec> routes;
  void add_switch(const std::string& n, int tier = 0) { nodes.push_back({n, true, tier}); }
  void add_nic(const std::string& n) { nodes.push_back({n, false, 0}); }
  void connect(const std::string& a, const std::string& b, data_rate r, sc_core::sc_time d) {
    links.push_back({a, b, r, d});
  }
};

}  // namespace sluice
