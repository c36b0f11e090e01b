// A platform as data: nodes and links. Builders (incast, dumbbell, ...) and custom scenario
// topologies both produce this; the fabric instantiates it.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "models/core/units.h"

namespace sluice {

struct node_spec {
  std::string name;
  bool is_switch = false;
};

struct link_spec {
  std::string a, b;
  data_rate rate{40e9};
  sc_core::sc_time delay = sc_core::sc_time(1, sc_core::SC_US);
};

// A static forwarding entry that replaces the computed one: at switch `sw`, frames for NIC
// `dst` leave towards the neighbours `via` (ECMP among them if several).
struct route_spec {
  std::string sw, dst;
  std::vector<std::string> via;
};

struct topology_spec {
  int classes = 8;  // traffic classes of every port: the 8 PFC priorities of a CEE fabric
  std::vector<node_spec> nodes;
  std::vector<link_spec> links;
  std::vector<route_spec> routes;
  void add_switch(const std::string& n) { nodes.push_back({n, true}); }
  void add_nic(const std::string& n) { nodes.push_back({n, false}); }
  void connect(const std::string& a, const std::string& b, data_rate r, sc_core::sc_time d) {
    links.push_back({a, b, r, d});
  }
};

}  // namespace sluice
