#include "platforms/deadlock_detector.h"

#include <algorithm>
#include <iostream>
#include <unordered_map>

#include "models/core/event_queue.h"

namespace sluice {
namespace {
const param_spec<sc_core::sc_time> interval_spec{
    "interval", "how often the deadlock detector looks for a cycle of held ports (0: never)",
    sc_core::sc_time(50, sc_core::SC_US), sc_core::SC_ZERO_TIME, sc_core::sc_time(1, sc_core::SC_SEC)};
const param_spec<sc_core::sc_time> persist_spec{
    "persist", "how long every port of a cycle must have been held (paused or credit-starved) to be a deadlock",
    sc_core::sc_time(500, sc_core::SC_US), sc_core::sc_time(1, sc_core::SC_NS), sc_core::sc_time(1, sc_core::SC_SEC)};
const param_spec<bool> stop_spec{"stop", "end the run when a deadlock is found", false, false, true};

double us(uint64_t ps) { return static_cast<double>(ps) / 1e6; }
}  // namespace

std::string deadlock_report::text() const {
  std::string s = std::string(credit ? "credit" : "PFC") + " deadlock found at " + format_number(us(detected_ps)) +
                  " us, held since " + format_number(us(start_ps)) + " us: ";
  for (const deadlock_member& m : cycle) s += m.port + " prio " + std::to_string(m.cls) + " -> ";
  return s + cycle.front().port;
}

deadlock_detector::deadlock_detector(sc_core::sc_module_name name, fabric& f)
    : sc_module(name), interval(this, interval_spec), persist(this, persist_spec), stop(this, stop_spec), fabric_(f) {
  std::unordered_map<uint32_t, int> sw_of_node;
  for (std::size_t i = 0; i < f.switches.size(); ++i) sw_of_node[f.switches[i]->node_id()] = static_cast<int>(i);
  for (const link_entry& l : f.links) {
    auto a = sw_of_node.find(l.a.node), b = sw_of_node.find(l.b.node);
    if (a == sw_of_node.end() || b == sw_of_node.end()) continue;  // a NIC never forwards: no cycle through it
    ports_.push_back({a->second, l.a.port, b->second, l.b.port});
    ports_.push_back({b->second, l.b.port, a->second, l.a.port});
  }
  credit_ = f.spec().topology.layer == link_layer::ib;
  SC_METHOD(tick);
  dont_initialize();
  sensitive << tick_;
}

void deadlock_detector::start_of_simulation() {
  if (interval() > sc_core::SC_ZERO_TIME) tick_.notify(interval());
}

void deadlock_detector::tick() {
  check(to_ps(sc_core::sc_time_stamp()));
  tick_.notify(interval());
}

void deadlock_detector::check(uint64_t now_ps) {
  const uint64_t hold = to_ps(persist());
  if (now_ps < hold) return;
  // Nodes: the port classes held without a break since at least `hold` ago, with frames waiting.
  nodes_.clear();
  for (std::size_t i = 0; i < ports_.size(); ++i) {
    const switch_port& p = *fabric_.switches[ports_[i].sw]->ports[ports_[i].port];
    for (int c = 0; c < p.classes(); ++c) {
      if (!p.queue(c).frames) continue;
      const uint64_t since = p.credits ? p.credits->starved_since_ps(c) : p.flow_control.paused_since_ps(c, now_ps);
      if (since <= now_ps - hold) nodes_.push_back({ports_[i].sw, ports_[i].port, c, since, i});
    }
  }
  if (nodes_.size() < 2) return;
  // Edges: a held (port, class) waits on every held queue of the switch downstream that holds a
  // frame which came in over this link in this class.
  edges_.assign(nodes_.size(), {});
  for (std::size_t n = 0; n < nodes_.size(); ++n) {
    const node& from = nodes_[n];
    const edge_port* ep = &ports_[from.link];
    const switch_model& down = *fabric_.switches[ep->peer_sw];
    for (std::size_t m = 0; m < nodes_.size(); ++m) {
      const node& to = nodes_[m];
      if (to.sw != ep->peer_sw || to.port == ep->peer_port) continue;
      if (down.ports[to.port]->egress.holds_from(to.cls, ep->peer_port, from.cls)) edges_[n].push_back(m);
    }
  }
  std::vector<int> color(nodes_.size(), 0);
  std::vector<std::size_t> stack;
  for (std::size_t n = 0; n < nodes_.size(); ++n)
    if (!color[n] && find_cycle(n, color, stack)) report(stack, now_ps);
}

// Depth-first search from n; on a back edge, `stack` is left holding the cycle (from the node
// the edge returns to). Grey (1) nodes are on the current path, black (2) are done.
bool deadlock_detector::find_cycle(std::size_t n, std::vector<int>& color, std::vector<std::size_t>& stack) {
  color[n] = 1;
  stack.push_back(n);
  for (std::size_t m : edges_[n]) {
    if (color[m] == 1) {
      stack.erase(stack.begin(), std::find(stack.begin(), stack.end(), m));
      return true;
    }
    if (!color[m] && find_cycle(m, color, stack)) return true;
  }
  color[n] = 2;
  stack.pop_back();
  return false;
}

void deadlock_detector::report(const std::vector<std::size_t>& cycle, uint64_t now_ps) {
  std::vector<uint64_t> key;
  for (std::size_t n : cycle)
    key.push_back((uint64_t(nodes_[n].sw) << 32) | (uint64_t(nodes_[n].port) << 8) | uint64_t(nodes_[n].cls));
  std::rotate(key.begin(), std::min_element(key.begin(), key.end()), key.end());
  if (!reported_.insert(key).second) return;
  deadlock_report r;
  r.detected_ps = now_ps;
  r.credit = credit_;
  for (std::size_t n : cycle) {
    const node& x = nodes_[n];
    const switch_model& sw = *fabric_.switches[x.sw];
    r.cycle.push_back({sw.ports[x.port]->name(), fabric_.peer_of(sw.name(), x.port), x.cls, x.since_ps});
    r.start_ps = std::max(r.start_ps, x.since_ps);
  }
  std::cerr << "sluice: " << r.text() << '\n';
  found_.push_back(std::move(r));
  if (stop()) event_queue::instance().request_stop();
}

}  // namespace sluice
