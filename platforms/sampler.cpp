#include "platforms/sampler.h"

#include <set>
#include <unordered_map>

namespace sluice {

namespace {
// A count (bytes, picoseconds) as a double. Counts here stay below 2^63 (2^63 ps is 106 days):
// a signed conversion is one instruction, an unsigned one tests the sign first (x86-64 without
// AVX-512), and both give the same double.
double as_double(uint64_t count) { return static_cast<double>(static_cast<int64_t>(count)); }
}  // namespace

std::vector<uint32_t> series_order::topology_link_index(const fabric& f) {
  // Ports are numbered in link order on each node: a link is known by its first end's port.
  const topology_spec& t = f.spec().topology;
  std::vector<int> next_port(t.nodes.size(), 0);
  std::unordered_map<uint64_t, uint32_t> by_end;
  for (uint32_t i = 0; i < t.links.size(); ++i) {
    const uint32_t a = f.node_id(t.links[i].a), b = f.node_id(t.links[i].b);
    by_end.emplace((uint64_t{a} << 32) | static_cast<uint32_t>(next_port[a]++), i);
    ++next_port[b];
  }
  std::vector<uint32_t> index;
  index.reserve(f.links.size());
  for (const link_entry& e : f.links)
    index.push_back(by_end.at((uint64_t{e.a.node} << 32) | static_cast<uint32_t>(e.a.port)));
  return index;
}

sampler::sampler(sc_core::sc_module_name name, fabric& f, sc_core::sc_time period)
    : sc_module(name), fabric_(f), period_(period) {
  std::set<int> used;
  for (const flow& fl : f.flows) used.insert(fl.spec.priority);
  for (auto& sw : f.switches)
    for (auto& port : sw->ports)
      for (int prio : used) {
        queues_.push_back({port.get(), prio});
        queue_depth.add_column(std::string(port->name()) + ".p" + std::to_string(prio), sw->node_id(),
                               series_order::port(false, sw->node_id(), port->index(), prio));
      }
  const std::vector<uint32_t> link_index = series_order::topology_link_index(f);
  for (std::size_t i = 0; i < f.links.size(); ++i) {
    const link_entry& e = f.links[i];
    for (const link_channel* c : {&e.model->ab, &e.model->ba}) {
      channels_.push_back(c);
      const bool ba = c == &e.model->ba;  // a direction is measured by its transmitting node
      link_throughput.add_column(c->label(), ba ? e.b.node : e.a.node, series_order::link(link_index[i], ba));
    }
  }
  // One column per listed flow; flows drawn by workloads (thousands) share one column.
  for (const flow& fl : f.flows) {
    if (fl.spec.from_workload) {
      workload_column_ = true;
      continue;
    }
    flow_columns_.push_back(fl.id);
    flow_throughput.add_column(fl.spec.name, fl.spec.dst, series_order::flow(fl.id, false));
  }
  if (workload_column_)  // made of every receiver's bytes: platforms/partial_summary.* rebuilds it
    flow_throughput.add_column("all workload flows", UINT32_MAX, UINT64_MAX);
  auto watch_pauses = [&](const pfc& fc, const std::string& label, uint32_t node, bool nic, int port) {
    for (int prio : used) {
      pauses_.push_back({&fc, prio, 0});
      paused_fraction.add_column(label + ".p" + std::to_string(prio), node, series_order::port(nic, node, port, prio));
    }
  };
  auto watch_credits = [&](const credit_flow_control& fc, const std::string& label, uint32_t node, bool nic, int port) {
    for (int vl : used) {
      blocked_.push_back({&fc, vl, 0});
      credit_blocked_fraction.add_column(label + ".p" + std::to_string(vl), node,
                                         series_order::port(nic, node, port, vl));
    }
  };
  for (auto& sw : f.switches)
    for (auto& port : sw->ports)
      port->credits ? watch_credits(*port->credits, port->name(), sw->node_id(), false, port->index())
                    : watch_pauses(port->flow_control, port->name(), sw->node_id(), false, port->index());
  for (auto& n : f.nics)
    n->port.credits ? watch_credits(*n->port.credits, n->port.name(), n->node_id(), true, 0)
                    : watch_pauses(n->port.flow_control, n->port.name(), n->node_id(), true, 0);
  for (auto& sw : f.switches)
    buffer_occupancy.add_column(sw->name(), sw->node_id(), series_order::port(false, sw->node_id(), 0, 0));
  last_link_bytes_.assign(channels_.size(), 0);
  last_flow_bytes_.assign(f.flows.size(), 0);
  SC_METHOD(sample);
  dont_initialize();
  sensitive << tick_;
}

std::vector<std::pair<std::string, const series*>> sampler::all_series() const {
  return {{"queue_depth", &queue_depth},
          {"link_throughput", &link_throughput},
          {"flow_throughput", &flow_throughput},
          {"paused_fraction", &paused_fraction},
          {"credit_blocked_fraction", &credit_blocked_fraction},
          {"flow_rate", &flow_rate},
          {"cp_state", &cp_state},
          {"buffer_occupancy", &buffer_occupancy}};
}

double sampler::estimated_bytes(double samples) const {
  // Per sample: each series' values and its time (series_rows keeps rows with nothing beside
  // them), and the sample's time in picoseconds.
  std::size_t values = 1;
  for (const series* s : {&queue_depth, &link_throughput, &flow_throughput, &paused_fraction, &credit_blocked_fraction,
                          &buffer_occupancy})
    values += s->columns.size() + 1;
  values += 2 * flow_columns_.size() + 1;  // flow_rate: its columns are chosen at the start of the run
  return samples * static_cast<double>(values) * sizeof(double);
}

void sampler::start_of_simulation() {
  // The reaction points exist now (made after the overrides' first pass).
  // A flow's rate is its sender's: a partition that does not hold the sender has no column to fill.
  for (uint32_t id : flow_columns_) {
    const flow& fl = fabric_.flows[id];
    flow_rate.add_column(fl.spec.name, fl.spec.src, series_order::flow(id, false));
    const nic* sender = fabric_.owns(fl.spec.src) ? &fabric_.nic_at(fl.spec.src) : nullptr;
    const bool target = sender && sender->reaction_point(id);
    if (target) flow_rate.add_column(fl.spec.name + " target", fl.spec.src, series_order::flow(id, true));
    rates_.push_back({sender, fl.spec.rate.bps, id, target});
  }
  for (std::size_t i = 0; i < queues_.size(); ++i)  // the congestion points exist now too
    if (const congestion_point_if* cp = queues_[i].port->congestion_point(queues_[i].priority);
        cp && cp->state() >= 0) {
      states_.push_back(cp);
      cp_state.add_column(queue_depth.columns[i], queue_depth.column_nodes[i], queue_depth.column_keys[i]);
    }
  if (expected_samples_) {  // every column is known now
    for (series* s :
         {&queue_depth, &link_throughput, &flow_throughput, &paused_fraction, &flow_rate, &buffer_occupancy})
      s->reserve(expected_samples_);
    if (!blocked_.empty()) credit_blocked_fraction.reserve(expected_samples_);
    if (!states_.empty()) cp_state.reserve(expected_samples_);
    sample_ps_.reserve(expected_samples_);
    if (workload_column_) workload_rx_bytes_.reserve(expected_samples_);
  }
  tick_.notify(period_);
}

double sampler::rate_now(const rate_ref& f) const {
  double pace = f.sender->port.mac.wire().current_rate().bps;
  if (f.own_pace_bps > 0 && f.own_pace_bps < pace) pace = f.own_pace_bps;
  const double limit = f.sender->limiter(f.id).rate().bps;
  return limit > 0 && limit < pace ? limit : pace;
}

void sampler::finish() {
  if (to_ps(sc_core::sc_time_stamp()) > last_sample_ps_) sample();
}

void sampler::sample() {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const double t_us = now.to_seconds() * 1e6;
  const uint64_t elapsed_ps = to_ps(now) - last_sample_ps_;
  last_sample_ps_ = to_ps(now);
  sample_ps_.push_back(last_sample_ps_);
  const double gbps_per_byte = sluice::gbps_per_byte(elapsed_ps);

  // Each row is filled by index where its series keeps it (series_rows: no vector per row, and
  // a push_back would test the capacity per value).
  double* depth = queue_depth.add_sample(t_us);
  for (std::size_t i = 0; i < queues_.size(); ++i)
    depth[i] = as_double(queues_[i].port->queue(queues_[i].priority).bytes);

  double* links = link_throughput.add_sample(t_us);
  for (std::size_t i = 0; i < channels_.size(); ++i) {
    uint64_t b = channels_[i]->bytes();
    links[i] = as_double(b - last_link_bytes_[i]) * gbps_per_byte;
    last_link_bytes_[i] = b;
  }

  double* flows = flow_throughput.add_sample(t_us);
  for (std::size_t k = 0; k < flow_columns_.size(); ++k) {
    const uint32_t id = flow_columns_[k];
    uint64_t b = fabric_.flows[id].stats.rx_bytes;
    flows[k] = as_double(b - last_flow_bytes_[id]) * gbps_per_byte;
    last_flow_bytes_[id] = b;
  }
  if (workload_column_) {  // the last column
    uint64_t b = 0;
    if (by_receiver_) workload_by_receiver_.emplace_back(fabric_.spec().topology.nodes.size(), 0);
    for (const flow& fl : fabric_.flows)
      if (fl.spec.from_workload && fabric_.owns(fl.spec.dst)) {
        b += fl.stats.rx_bytes;
        if (by_receiver_) workload_by_receiver_.back()[fl.spec.dst] += fl.stats.rx_bytes;
      }
    flows[flow_columns_.size()] = as_double(b - last_workload_bytes_) * gbps_per_byte;
    last_workload_bytes_ = b;
    workload_rx_bytes_.push_back(b);
  }

  double* rates = flow_rate.add_sample(t_us);
  for (const rate_ref& f : rates_) {
    const double rate = f.sender ? rate_now(f) : 0;  // no sender here: another partition's column
    *rates++ = rate;
    if (f.target) {
      const double target = f.sender->reaction_point(f.id)->target_rate().bps;
      *rates++ = target > 0 ? target : rate;
    }
  }

  // Share of the period each (port, class) was held (paused, or starved for credit), and the
  // most held at once: the extent of the congestion tree.
  auto held = [&](auto& refs, auto total_of, series& out, std::size_t& most, double& most_at_us) {
    double* row = out.add_sample(t_us);
    const double elapsed = as_double(elapsed_ps);
    std::size_t ports = 0;
    for (auto& r : refs) {
      const uint64_t total = total_of(r);
      *row++ = as_double(total - r.last_ps) / elapsed;
      ports += total > r.last_ps;
      r.last_ps = total;
    }
    if (ports > most) {
      most = ports;
      most_at_us = t_us;
    }
  };
  held(
      pauses_, [&](const pause_ref& r) { return r.fc->paused_ps(r.priority, to_ps(now)); }, paused_fraction,
      max_ports_paused_, max_ports_paused_at_us_);
  if (!blocked_.empty())
    held(
        blocked_, [&](const blocked_ref& r) { return r.fc->blocked_ps(r.vl, to_ps(now)); }, credit_blocked_fraction,
        max_ports_blocked_, max_ports_blocked_at_us_);

  double* buffers = buffer_occupancy.add_sample(t_us);
  for (std::size_t i = 0; i < fabric_.switches.size(); ++i)
    buffers[i] = as_double(fabric_.switches[i]->mmu_block.in_use_bytes());

  if (!states_.empty()) {
    double* states = cp_state.add_sample(t_us);
    for (std::size_t i = 0; i < states_.size(); ++i) states[i] = states_[i]->state();
  }

  if (on_sample_) on_sample_(to_ps(now));
  tick_.notify(period_);
}

}  // namespace sluice
