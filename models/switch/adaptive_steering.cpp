#include "models/switch/adaptive_steering.h"

namespace sluice {

int steering_selector::choose(const std::vector<uint16_t>& ports, const frame_fields& f, int in_port, uint64_t now,
                              uint64_t salt) {
  if (f.flow_id >= flows_.size()) flows_.resize(f.flow_id + 1);
  pinned& r = flows_[f.flow_id];
  if (r.port != none && (r.dst != f.dst || r.port == in_port)) r = pinned{};  // not this route: start afresh
  r.in_port = static_cast<uint16_t>(in_port < 0 ? none : in_port);
  if (r.port == none) {
    r.dst = f.dst;
    r.src = f.src;
    r.salt = salt;
    place(r, cheapest(ports, f, in_port, now, salt), now);
  } else if (cfg_.granularity == ar_config::unit::packet) {
    const int best = cheapest(ports, f, in_port, now, salt);
    if (cost(best, f, now) < cost(r.port, f, now)) place(r, best, now);
  } else if (cfg_.granularity == ar_config::unit::flowlet && now - r.last_ps >= cfg_.flowlet_gap_ps) {
    const int best = cheapest(ports, f, in_port, now, salt);
    if (best != r.port && cost(best, f, now) <= cost(r.port, f, now)) place(r, best, now);
  } else if (!holding(r.port, now) && should_leave(r.port, f, r.placed_ps, now)) {
    const int to = better_port(r, f.flow_id, now);
    if (to >= 0) place(r, to, now);
  }
  r.last_ps = now;
  return r.port;
}

// The cheapest candidate, in the preference order that starts at the flow's ECMP port.
int steering_selector::cheapest(const std::vector<uint16_t>& ports, const frame_fields& f, int in_port, uint64_t now,
                                uint64_t salt) const {
  const std::size_t n = ports.size();
  const std::size_t start = ecmp_index(n, f.dst, f.src, f.flow_id, salt);
  int best = ports[start];  // only the ingress port: the route the tables gave, kept
  uint64_t best_cost = std::numeric_limits<uint64_t>::max();
  for (std::size_t k = 0; k < n; ++k) {
    const int p = ports[(start + k) % n];
    if (p == in_port) continue;  // never back where it came from
    const uint64_t c = cost(p, f, now);
    if (c < best_cost) {
      best = p;
      best_cost = c;
    }
  }
  return best;
}

// Where a pinned flow should go from a port it has reason to leave: the cheapest other candidate,
// if it costs less. When the congestion is the switch's own (a local notification, or the local
// queue), the move must also even out the flows pinned here: a port with one flow more than it
// can carry is not helped by trading that flow for another (its queue stands because the flow
// alone fills the link, and only its source's rate can drain it).
int steering_selector::better_port(const pinned& r, uint32_t flow_id, uint64_t now) const {
  const std::vector<uint16_t>& ports = routes_->ports(r.dst);
  if (ports.size() < 2) return -1;
  frame_fields f;
  f.kind = frame_kind::data;
  f.dst = r.dst;
  f.src = r.src;
  f.flow_id = flow_id;
  const int in_port = r.in_port == none ? -1 : r.in_port;
  const std::size_t n = ports.size();
  const std::size_t start = ecmp_index(n, r.dst, r.src, flow_id, r.salt);
  const uint64_t here = cost(r.port, f, now);
  const bool balance = local_congestion(r.port, f, now);
  int best = -1;
  uint64_t best_cost = here;
  for (std::size_t k = 0; k < n; ++k) {
    const int p = ports[(start + k) % n];
    if (p == r.port || p == in_port) continue;
    if (balance && active_on(p, now) + 1 >= active_on(r.port, now)) continue;
    const uint64_t c = cost(p, f, now);
    if (c < best_cost) {
      best = p;
      best_cost = c;
    }
  }
  return best;
}

void steering_selector::place(pinned& r, int port, uint64_t now) {
  if (r.port != none) {
    ++reroutes_;
    left_ps_[r.port] = now;
    r.moved = true;
  }
  r.port = static_cast<uint16_t>(port);
  r.placed_ps = now;
}

// Flows on `port` that sent a frame within ar.aging: a scan, made per notification, never per frame.
uint32_t steering_selector::active_on(int port, uint64_t now) const {
  uint32_t n = 0;
  for (const pinned& r : flows_) n += r.port == port && now - r.last_ps < cfg_.aging_ps;
  return n;
}

bool steering_selector::steer_away(uint32_t flow_id, uint64_t now) {
  pinned& r = flows_[flow_id];
  if (r.moved && now - r.placed_ps < cfg_.hold_ps) return true;  // about the path it has left
  if (cfg_.granularity == ar_config::unit::packet || holding(r.port, now)) return false;
  const int to = better_port(r, flow_id, now);
  if (to >= 0) {
    place(r, to, now);
    return true;
  }
  // No move helps, but a port without any congestion remains: the fabric is not full, the
  // switch keeps the flow where it is (its queue stands) and the source keeps its rate.
  for (uint16_t p : routes_->ports(r.dst)) {
    if (p == r.port || p == r.in_port) continue;
    frame_fields f;
    f.kind = frame_kind::data;
    f.dst = r.dst;
    f.flow_id = flow_id;
    if (quiet_port(p, f, now)) return true;
  }
  return false;  // congestion on every way: the source's rate control takes it
}

}  // namespace sluice
