#include "platforms/fabric.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <limits>
#include <set>

namespace sluice {

fabric::fabric(const scenario& s) : scenario_(s) {
  check_topology();
  const topology_spec& t = scenario_.topology;
  for (uint32_t i = 0; i < t.nodes.size(); ++i) node_ids_[t.nodes[i].name] = i;

  // Ports are numbered in link order on each node.
  std::map<std::string, int> port_count;
  for (const link_spec& l : t.links) {
    ++port_count[l.a];
    ++port_count[l.b];
  }
  for (const node_spec& n : t.nodes) {
    if (n.is_switch) {
      switches.push_back(
          std::make_unique<switch_model>(n.name.c_str(), node_ids_[n.name], port_count[n.name], t.classes));
      switch_by_name_[n.name] = switches.back().get();
    } else {
      nics.push_back(std::make_unique<nic>(n.name.c_str(), node_ids_[n.name], flows, t.classes));
      nic_by_name_[n.name] = nics.back().get();
    }
  }

  std::map<std::string, int> next_port;
  auto attach = [&](const std::string& node) {
    port_ref r{node, next_port[node]++, nullptr, nullptr};
    if (auto it = switch_by_name_.find(node); it != switch_by_name_.end()) {
      r.mac = &it->second->ports[r.port]->mac;
      r.flow_control = &it->second->ports[r.port]->flow_control;
    } else {
      r.mac = &nic_by_name_.at(node)->port.mac;
      r.flow_control = &nic_by_name_.at(node)->port.flow_control;
    }
    return r;
  };
  for (const link_spec& l : t.links) {
    link_entry e;
    e.model = std::make_unique<link>((l.a + "-" + l.b).c_str(), l.rate, l.delay);
    e.a = attach(l.a);
    e.b = attach(l.b);
    e.a.mac->tx.bind(e.model->ab.in);
    e.model->ab.out.bind(e.b.mac->rx);
    e.b.mac->tx.bind(e.model->ba.in);
    e.model->ba.out.bind(e.a.mac->rx);
    e.a.mac->attach_wire(e.model.get());
    e.b.mac->attach_wire(e.model.get());
    e.model->ab.set_label(l.a + "->" + l.b);
    e.model->ba.set_label(l.b + "->" + l.a);
    peers_[{e.a.node, e.a.port}] = e.b.node;
    peers_[{e.b.node, e.b.port}] = e.a.node;
    links.push_back(std::move(e));
  }

  compute_routes();

  for (std::size_t i = 0; i < scenario_.flows.size(); ++i) {
    flow f;
    f.id = static_cast<uint32_t>(i);
    f.spec = scenario_.flows[i];
    f.spec.src = node_ids_.at(scenario_.flow_ends[i].first);
    f.spec.dst = node_ids_.at(scenario_.flow_ends[i].second);
    flows.push_back(f);
  }
  for (const flow& f : flows) nic_by_name_.at(scenario_.flow_ends[f.id].first)->add_flow(f.id);
}

void fabric::check_topology() const {
  const topology_spec& t = scenario_.topology;
  std::set<std::string> names;
  for (const node_spec& n : t.nodes) {
    if (n.name.empty() || n.name.find_first_of(". -") != std::string::npos)
      throw config_error("platform: node name '" + n.name + "' must be non-empty without '.', '-' or spaces");
    if (!names.insert(n.name).second) throw config_error("platform: node '" + n.name + "' is declared twice");
  }
  std::map<std::string, int> degree;
  std::set<std::string> link_names;
  for (const link_spec& l : t.links) {
    for (const std::string& end : {l.a, l.b})
      if (!names.count(end)) throw config_error("platform.links: '" + end + "' is not a declared node");
    if (l.a == l.b) throw config_error("platform.links: '" + l.a + "' is linked to itself");
    if (!link_names.insert(l.a + "-" + l.b).second || link_names.count(l.b + "-" + l.a))
      throw config_error("platform.links: '" + l.a + "-" + l.b + "' is declared twice");
    ++degree[l.a];
    ++degree[l.b];
  }
  for (const node_spec& n : t.nodes) {
    if (!n.is_switch && degree[n.name] != 1)
      throw config_error("platform: NIC '" + n.name + "' has " + std::to_string(degree[n.name]) +
                         " links; a NIC has exactly one port");
    if (n.is_switch && degree[n.name] == 0) throw config_error("platform: switch '" + n.name + "' has no links");
    if (n.is_switch && degree[n.name] > 4096)
      throw config_error("platform: switch '" + n.name + "' has more than 4096 ports");
  }
}

// Shortest paths by hop count, from every NIC; all equal-cost next hops form the ECMP set.
// NICs are endpoints, never transit.
void fabric::compute_routes() {
  const topology_spec& t = scenario_.topology;
  const std::size_t n = t.nodes.size();
  adjacency adj(n);
  std::map<std::string, int> port_no;
  for (const link_spec& l : t.links) {
    uint32_t a = node_ids_[l.a], b = node_ids_[l.b];
    adj[a].push_back({b, port_no[l.a]++});
    adj[b].push_back({a, port_no[l.b]++});
  }
  const uint32_t inf = std::numeric_limits<uint32_t>::max();
  for (uint32_t dst = 0; dst < n; ++dst) {
    if (t.nodes[dst].is_switch) continue;
    std::vector<uint32_t> dist(n, inf);
    std::deque<uint32_t> frontier{dst};
    dist[dst] = 0;
    while (!frontier.empty()) {
      uint32_t u = frontier.front();
      frontier.pop_front();
      if (u != dst && !t.nodes[u].is_switch) continue;
      for (auto [v, port] : adj[u])
        if (dist[v] == inf) {
          dist[v] = dist[u] + 1;
          frontier.push_back(v);
        }
    }
    for (auto& sw : switches) {
      uint32_t s = sw->node_id();
      if (dist[s] == inf) continue;
      std::vector<uint16_t> ports;
      for (auto [v, port] : adj[s])
        if (dist[v] + 1 == dist[s] && (v == dst || t.nodes[v].is_switch)) ports.push_back(static_cast<uint16_t>(port));
      sw->forwarding.table.set_route(dst, ports);
    }
  }
  apply_static_routes(adj);
  check_flow_paths(adj);
  for (auto& sw : switches) sw->forwarding.table.set_salt(mix64(random_streams::instance().seed() ^ fnv1a(sw->name())));
}

void fabric::apply_static_routes(const adjacency& adj) {
  const topology_spec& t = scenario_.topology;
  for (std::size_t i = 0; i < t.routes.size(); ++i) {
    const route_spec& r = t.routes[i];
    const std::string where = "platform.routes[" + std::to_string(i) + "]";
    auto sw = switch_by_name_.find(r.sw);
    if (sw == switch_by_name_.end()) throw config_error(where + ".switch: '" + r.sw + "' is not a switch");
    auto dst = node_ids_.find(r.dst);
    if (dst == node_ids_.end() || t.nodes[dst->second].is_switch)
      throw config_error(where + ".dst: '" + r.dst + "' is not a NIC");
    std::vector<uint16_t> ports;
    for (const std::string& v : r.via) {
      auto it = std::find_if(adj[sw->second->node_id()].begin(), adj[sw->second->node_id()].end(),
                             [&](const std::pair<uint32_t, int>& e) { return t.nodes[e.first].name == v; });
      if (it == adj[sw->second->node_id()].end())
        throw config_error(where + ".via: '" + v + "' is not a neighbour of '" + r.sw + "'");
      ports.push_back(static_cast<uint16_t>(it->second));
    }
    sw->second->forwarding.table.set_route(dst->second, ports);
  }
}

// Follows every flow's possible paths (all ECMP branches) through the forwarding tables, so a
// static route that loops, dead-ends or delivers to the wrong NIC fails before the run.
void fabric::check_flow_paths(const adjacency& adj) {
  const topology_spec& t = scenario_.topology;
  std::set<std::pair<uint32_t, uint32_t>> checked;  // (first switch, dst)
  for (std::size_t i = 0; i < scenario_.flows.size(); ++i) {
    const auto& [src_name, dst_name] = scenario_.flow_ends[i];
    const uint32_t src = node_ids_.at(src_name), dst = node_ids_.at(dst_name);
    const uint32_t first = adj[src].front().first;
    auto fail = [&](const std::string& why) {
      throw config_error("traffic: flow '" + scenario_.flows[i].name + "': " + why);
    };
    if (first == dst) continue;  // two NICs on one link
    if (!t.nodes[first].is_switch) fail("'" + dst_name + "' is unreachable from '" + src_name + "'");
    if (!checked.insert({first, dst}).second) continue;
    // Depth-first over switches; `on_path` detects loops, `done` skips switches already proven.
    std::vector<char> on_path(t.nodes.size(), 0), done(t.nodes.size(), 0);
    std::function<void(uint32_t)> walk = [&](uint32_t s) {
      if (done[s]) return;
      if (on_path[s]) fail("routing loop through '" + t.nodes[s].name + "' towards '" + dst_name + "'");
      const std::vector<uint16_t>& ports = switch_by_name_.at(t.nodes[s].name)->forwarding.table.ports(dst);
      if (ports.empty()) fail("'" + dst_name + "' is unreachable from '" + src_name + "'");
      on_path[s] = 1;
      for (uint16_t port : ports) {
        uint32_t next = adj[s][port].first;
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

void fabric::derive_defaults() {
  uint64_t max_frame = 64;
  for (const auto& n : nics)
    max_frame = std::max({max_frame, n->mtu().bytes + n->header_bytes().bytes, n->min_frame().bytes});
  for (const link_entry& e : links) {
    for (const port_ref* end : {&e.a, &e.b}) {
      auto sw = switch_by_name_.find(end->node);
      if (sw == switch_by_name_.end()) continue;
      const port_ref& peer = end == &e.a ? e.b : e.a;
      byte_count h =
          pfc::required_headroom(e.model->rate(), e.model->delay(), peer.flow_control->response(), max_frame);
      sw->second->mmu_block.ports[end->port]->headroom.set_default(h);
    }
  }
}

link& fabric::link_named(const std::string& name) {
  for (link_entry& e : links)
    if (name == e.model->name()) return *e.model;
  throw config_error("link '" + name + "' does not exist");
}

const switch_model* fabric::switch_named(const std::string& name) const {
  auto it = switch_by_name_.find(name);
  return it == switch_by_name_.end() ? nullptr : it->second;
}

const std::string& fabric::peer_of(const std::string& node, int port) const { return peers_.at({node, port}); }

void apply_overrides(const std::vector<std::pair<std::string, std::string>>& overrides, const std::string& origin) {
  for (const auto& [pattern, value] : overrides) {
    try {
      param_registry::instance().set(pattern, value);
    } catch (const config_error& e) {
      throw config_error(origin + ": " + e.what());
    }
  }
}

}  // namespace sluice
