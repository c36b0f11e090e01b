#include "platforms/routing.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <limits>
#include <unordered_set>

#include "models/core/units.h"

namespace sluice {

port_graph::port_graph(const topology_spec& t, const name_index& ids) : peer(t.nodes.size()) {
  for (const link_spec& l : t.links) {
    const uint32_t a = ids.at(l.a), b = ids.at(l.b);
    peer[a].push_back(b);
    peer[b].push_back(a);
  }
}

namespace {
// Breadth-first hop counts from `from` over switches (NICs other than `from` are never transit).
void hop_counts(const topology_spec& t, const port_graph& g, uint32_t from, std::vector<uint32_t>& dist,
                std::vector<uint32_t>& frontier) {
  std::fill(dist.begin(), dist.end(), std::numeric_limits<uint32_t>::max());
  frontier.assign(1, from);
  dist[from] = 0;
  for (std::size_t head = 0; head < frontier.size(); ++head) {
    const uint32_t u = frontier[head];
    if (u != from && !t.nodes[u].is_switch) continue;
    for (uint32_t v : g.peer[u])
      if (dist[v] == std::numeric_limits<uint32_t>::max()) {
        dist[v] = dist[u] + 1;
        frontier.push_back(v);
      }
  }
}

// Switch s's ports one hop nearer (by dist) to `dst`: to dst itself or to a switch.
void nearer_ports(const topology_spec& t, const port_graph& g, const std::vector<uint32_t>& dist, uint32_t s,
                  uint32_t dst, std::vector<uint16_t>& ports) {
  ports.clear();
  const std::vector<uint32_t>& peers = g.peer[s];
  for (uint16_t p = 0; p < peers.size(); ++p) {
    const uint32_t v = peers[p];
    if (dist[v] + 1 == dist[s] && (v == dst || t.nodes[v].is_switch)) ports.push_back(p);
  }
}

// Switch s's route to dst; the table's own errors (its limit of distinct port sets) know no
// names, so the switch's is put in front.
void set_route_of(const topology_spec& t, const table_set& tables, uint32_t s, uint32_t dst,
                  const std::vector<uint16_t>& ports) {
  try {
    tables[s]->set_route(dst, ports);
  } catch (const config_error& e) {
    throw config_error(t.nodes[s].name + ": " + e.what());
  }
}
}  // namespace

// A NIC on one link to switch e is, from every other node, one hop further than e: every switch
// but e has the same next hops towards all of e's NICs. So one search per such switch (an edge
// switch or leaf) serves its NICs, not one per NIC (a search over the whole fabric per host made
// a k = 34 fat tree's build quadratic: 8-9.6 s, now 4.9-5.1); the tables are the same.
void compute_routes(const topology_spec& t, const port_graph& g, const table_set& tables) {
  const std::size_t n = t.nodes.size();
  const uint32_t inf = std::numeric_limits<uint32_t>::max();
  std::vector<uint32_t> dist(n), frontier;
  std::vector<uint16_t> ports;
  uint32_t searched = inf;                    // the switch whose search `dist` and `toward` hold
  std::vector<std::vector<uint16_t>> toward;  // by node: each switch's next hops towards `searched`
  uint32_t nic_index = 0;
  uint32_t destinations = 0;  // the last NIC's id + 1: each table's routes, reserved at once
  for (uint32_t dst = 0; dst < n; ++dst)
    if (!t.nodes[dst].is_switch) destinations = dst + 1;
  for (uint32_t s = 0; s < n; ++s)
    if (tables[s]) tables[s]->reserve(destinations);
  for (uint32_t dst = 0; dst < n; ++dst) {
    if (t.nodes[dst].is_switch) continue;
    const bool single = g.peer[dst].size() == 1 && t.nodes[g.peer[dst][0]].is_switch;
    const uint32_t edge = single ? g.peer[dst][0] : inf;
    if (!single) {
      hop_counts(t, g, dst, dist, frontier);
      searched = inf;
    } else if (edge != searched) {
      hop_counts(t, g, edge, dist, frontier);
      toward.resize(n);
      for (uint32_t s = 0; s < n; ++s)
        if (tables[s] && dist[s] != inf) nearer_ports(t, g, dist, s, edge, toward[s]);
      searched = edge;
    }
    for (uint32_t s = 0; s < n; ++s) {
      if (!tables[s] || dist[s] == inf) continue;
      if (!single) {
        nearer_ports(t, g, dist, s, dst, ports);
      } else if (s != edge) {
        ports = toward[s];
      } else {  // the NIC's own switch: its port to the NIC
        ports.clear();
        for (uint16_t p = 0; p < g.peer[s].size(); ++p)
          if (g.peer[s][p] == dst) ports.push_back(p);
      }
      if (t.selection == path_selection::d_mod_k && ports.size() > 1 && t.nodes[s].tier > 0) {
        uint64_t divisor = 1;
        for (int k = 1; k < t.nodes[s].tier; ++k) divisor *= ports.size();
        const uint16_t pick = ports[(nic_index / divisor) % ports.size()];
        ports.assign(1, pick);
      }
      set_route_of(t, tables, s, dst, ports);
    }
    ++nic_index;
  }
}

path_plan plan_paths(const topology_spec& t, const table_set& tables) {
  std::vector<uint64_t> widest(4, 1);  // by tier, 0: untiered
  for (uint32_t s = 0; s < t.nodes.size(); ++s) {
    if (!tables[s]) continue;
    const std::size_t tier = std::min<std::size_t>(static_cast<std::size_t>(t.nodes[s].tier), 3);
    for (uint32_t dst = 0; dst < t.nodes.size(); ++dst)
      if (!t.nodes[dst].is_switch) widest[tier] = std::max<uint64_t>(widest[tier], tables[s]->ports(dst).size());
  }
  const uint64_t count = std::max(widest[0], widest[1] * widest[2] * widest[3]);
  path_plan plan;
  plan.count = static_cast<uint32_t>(std::min<uint64_t>(count, 255));
  plan.first_by_node.assign(t.nodes.size(), 0);
  uint32_t nic_index = 0;
  for (uint32_t n = 0; n < t.nodes.size(); ++n)
    if (!t.nodes[n].is_switch) plan.first_by_node[n] = static_cast<uint8_t>(nic_index++ % plan.count);
  return plan;
}

void apply_static_routes(const topology_spec& t, const name_index& ids, const port_graph& g, const table_set& tables) {
  for (std::size_t i = 0; i < t.routes.size(); ++i) {
    const route_spec& r = t.routes[i];
    const std::string where = "platform.routes[" + std::to_string(i) + "]";
    auto sw = ids.find(r.sw);
    if (sw == ids.end() || !tables[sw->second]) throw config_error(where + ".switch: '" + r.sw + "' is not a switch");
    auto dst = ids.find(r.dst);
    if (dst == ids.end() || t.nodes[dst->second].is_switch)
      throw config_error(where + ".dst: '" + r.dst + "' is not a NIC");
    const std::vector<uint32_t>& peers = g.peer[sw->second];
    std::vector<uint16_t> ports;
    for (const std::string& v : r.via) {
      auto id = ids.find(v);
      auto it = id == ids.end() ? peers.end() : std::find(peers.begin(), peers.end(), id->second);
      if (it == peers.end()) throw config_error(where + ".via: '" + v + "' is not a neighbour of '" + r.sw + "'");
      ports.push_back(static_cast<uint16_t>(it - peers.begin()));
    }
    set_route_of(t, tables, sw->second, dst->second, ports);
  }
}

void check_flow_paths(const topology_spec& t, const port_graph& g, const table_set& tables,
                      const std::vector<flow_ends>& flows) {
  const std::size_t n = t.nodes.size();
  std::unordered_set<uint64_t> checked;  // (first switch, dst)
  // Per destination, the switches already proven to deliver to it (reset when dst changes).
  std::vector<char> on_path(n, 0), done(n, 0);
  uint32_t done_for = std::numeric_limits<uint32_t>::max();
  for (const flow_ends& f : flows) {
    const uint32_t src = f.src, dst = f.dst;
    const std::string& src_name = t.nodes[src].name;
    const std::string& dst_name = t.nodes[dst].name;
    const uint32_t first = g.peer[src].front();
    auto fail = [&](const std::string& why) { throw config_error("traffic: flow '" + *f.name + "': " + why); };
    if (first == dst) continue;  // two NICs on one link
    if (!t.nodes[first].is_switch) fail("'" + dst_name + "' is unreachable from '" + src_name + "'");
    if (!checked.insert(static_cast<uint64_t>(first) << 32 | dst).second) continue;
    if (done_for != dst) {
      std::fill(done.begin(), done.end(), 0);
      done_for = dst;
    }
    // Depth-first over switches; `on_path` detects loops, `done` skips switches already proven.
    std::function<void(uint32_t)> walk = [&](uint32_t s) {
      if (done[s]) return;
      if (on_path[s]) fail("routing loop through '" + t.nodes[s].name + "' towards '" + dst_name + "'");
      const std::vector<uint16_t>& ports = tables[s]->ports(dst);
      if (ports.empty()) fail("'" + dst_name + "' is unreachable from '" + src_name + "'");
      on_path[s] = 1;
      for (uint16_t port : ports) {
        const uint32_t next = g.peer[s][port];
        if (next == dst) continue;
        if (!t.nodes[next].is_switch)
          fail("'" + t.nodes[s].name + "' forwards it to '" + t.nodes[next].name + "' instead of '" + dst_name + "'");
        walk(next);
      }
      on_path[s] = 0;
      done[s] = 1;
    };
    walk(first);
  }
}

}  // namespace sluice
