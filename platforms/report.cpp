// The run's outputs: summary.json (schema in docs/outputs.md), the text table, the CSVs.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>

#include "models/core/event_queue.h"
#include "models/core/frame_kinds.h"
#include "models/core/stats.h"
#include "platforms/partial_summary.h"
#include "platforms/simulation.h"
#include "platforms/summary_sink.h"

namespace sluice {
namespace {

const char* kind_name(flow_kind k) {
  switch (k) {
    case flow_kind::constant:
      return "constant";
    case flow_kind::finite:
      return "finite";
    case flow_kind::onoff:
      return "onoff";
  }
  return "?";
}

double ns(uint64_t ps) { return static_cast<double>(ps) / 1e3; }
double us(uint64_t ps) { return static_cast<double>(ps) / 1e6; }

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

class document_sink final : public summary_sink {
 public:
  nlohmann::json doc = nlohmann::json::object();
  void member(const char* key, nlohmann::json value) override { doc[key] = std::move(value); }
  void open(const char* key, bool array) override {
    key_ = key;
    open_ = array ? nlohmann::json::array() : nlohmann::json::object();
  }
  void element(nlohmann::json value) override { open_.push_back(std::move(value)); }
  void element(const std::string& key, nlohmann::json value) override { open_[key] = std::move(value); }
  void close() override { doc[key_] = std::move(open_); }

 private:
  std::string key_;
  nlohmann::json open_;
};

// Writes what `std::setw(2) << document` would: two spaces per level.
class stream_sink final : public summary_sink {
 public:
  explicit stream_sink(std::ostream& out) : out_(out) { out_ << '{'; }
  void member(const char* key, nlohmann::json value) override {
    next_member(key);
    write(value, 2);
  }
  void open(const char* key, bool array) override {
    next_member(key);
    array_ = array;
    elements_ = 0;
    out_ << (array ? '[' : '{');
  }
  void element(nlohmann::json value) override {
    out_ << (elements_++ ? ",\n    " : "\n    ");
    write(value, 4);
  }
  void element(const std::string& key, nlohmann::json value) override {
    out_ << (elements_++ ? ",\n    " : "\n    ") << nlohmann::json(key).dump() << ": ";
    write(value, 4);
  }
  void close() override {
    if (elements_) out_ << "\n  ";
    out_ << (array_ ? ']' : '}');
  }
  void finish() { out_ << (members_ ? "\n}" : "}"); }

 private:
  void next_member(const char* key) { out_ << (members_++ ? ",\n  " : "\n  ") << nlohmann::json(key).dump() << ": "; }
  void write(const nlohmann::json& value, std::size_t depth) {
    const std::string text = value.dump(2);
    std::size_t from = 0;
    for (std::size_t nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', from)) {
      out_.write(text.data() + from, static_cast<std::streamsize>(nl + 1 - from));
      out_ << std::string(depth, ' ');
      from = nl + 1;
    }
    out_.write(text.data() + from, static_cast<std::streamsize>(text.size() - from));
  }
  std::ostream& out_;
  std::size_t members_ = 0, elements_ = 0;
  bool array_ = true;
};

}  // namespace

nlohmann::json summary_document(const std::function<void(summary_sink&)>& emit) {
  document_sink doc;
  emit(doc);
  return std::move(doc.doc);
}

void emit_document(const nlohmann::json& doc, summary_sink& out) {
  for (const auto& member : doc.items()) {
    const nlohmann::json& value = member.value();
    if (value.empty() || !(value.is_array() || value.is_object())) {
      out.member(member.key().c_str(), value);
      continue;
    }
    out.open(member.key().c_str(), value.is_array());
    for (const auto& element : value.items())
      value.is_array() ? out.element(element.value()) : out.element(element.key(), element.value());
    out.close();
  }
}

nlohmann::json simulation::summary() const {
  return summary_document([this](summary_sink& out) { emit_summary(out); });
}

void simulation::emit_summary(summary_sink& out) const { emit(out, false, true); }

void simulation::emit_partial_summary(summary_sink& out, bool process_level) const { emit(out, true, process_level); }

namespace {
// The node whose measurement a counter is ("<node>.…"; a link direction's, "<a>-<b>.ab.…", its
// transmitting node's), or none for a process-level counter ("sluice.*").
class counter_owners {
 public:
  explicit counter_owners(const fabric& f) {
    const topology_spec& t = f.spec().topology;
    for (uint32_t i = 0; i < t.nodes.size(); ++i) nodes_.emplace(t.nodes[i].name, i);
    for (const link_entry& e : f.links) links_.emplace(e.model->name(), std::make_pair(e.a.node, e.b.node));
  }
  std::optional<uint32_t> of(std::string_view name) const {
    const std::size_t dot = name.find('.');
    const std::string top(name.substr(0, dot));
    if (auto n = nodes_.find(top); n != nodes_.end()) return n->second;
    auto l = links_.find(top);
    if (l == links_.end()) return std::nullopt;
    return name.substr(dot + 1, 3) == "ba." ? l->second.second : l->second.first;
  }

 private:
  std::unordered_map<std::string, uint32_t> nodes_;
  std::unordered_map<std::string, std::pair<uint32_t, uint32_t>> links_;
};
}  // namespace

// partial: only what the owned nodes measured, and the raw material of the global members.
void simulation::emit(summary_sink& out, bool partial, bool process_level) const {
  using nlohmann::json;
  const fabric& f = *fabric_;
  auto owned = [&](uint32_t node) { return !partial || f.owns(node); };
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const uint64_t now_ps = to_ps(now);
  summary_raw raw;
  raw.now_ps = now_ps;
  raw.flows = f.flows.size();
  raw.wall_s = wall_s_;
  raw.elaboration_s = elab_s_;
  json warnings = json::array();
  for (const std::string& w : f.warnings()) warnings.push_back(w);
  for (const std::string& w : build_warnings_) warnings.push_back(w);  // inert settings, allowed
  const json global_warnings = warnings;
  json port_warnings = json::array();  // [order key, text]: a partial's own, merged in port order

  for (const auto& sw : f.switches)
    if (owned(sw->node_id()))
      for (const auto& port : sw->ports)
        for (int prio = 0; prio < sw->classes(); ++prio)
          raw.paused_port_ps += to_ps(port->flow_control.paused_time(prio, now));
  for (const auto& n : f.nics)
    if (owned(n->node_id()))
      for (int prio = 0; prio < n->port.flow_control.classes(); ++prio)
        raw.paused_port_ps += to_ps(n->port.flow_control.paused_time(prio, now));
  const bool ib = raw.ib = f.spec().topology.layer == link_layer::ib;
  json partial_tree;  // a partial's per-sample counts of the (port, class) pairs held
  if (partial) {
    partial_tree = held_per_sample(*sampler_, f);
    out.member("congestion_tree", congestion_tree(partial_tree, raw));
  } else {
    json tree = {{"max_ports_paused", sampler_->max_ports_paused()},
                 {"max_ports_paused_at_us", sampler_->max_ports_paused_at_us()},
                 {"paused_port_time_ns", ns(raw.paused_port_ps)}};
    if (ib) {
      tree["max_ports_credit_blocked"] = sampler_->max_ports_credit_blocked();
      tree["max_ports_credit_blocked_at_us"] = sampler_->max_ports_credit_blocked_at_us();
    }
    out.member("congestion_tree", std::move(tree));
  }

  out.open("counters", false);
  const counter_owners owners(f);
  stat_registry::instance().for_each_sorted(true, [&](std::string_view name, double value) {
    if (partial) {
      const std::optional<uint32_t> node = owners.of(name);
      if (node ? !f.owns(*node) : !process_level) return;
    }
    out.element(std::string(name), value);
    constexpr std::string_view fecn = ".cca.fecn_marks";
    if (ib && name.size() > fecn.size() && name.substr(name.size() - fecn.size()) == fecn) raw.fecn_marks += value;
  });
  out.close();

  // A partition's detector sees only its own ports: it reports the cycles wholly inside it.
  auto cycle_owned = [&](const deadlock_report& d) {
    if (!partial) return true;
    for (const deadlock_member& m : d.cycle)
      if (!owned(f.node_id(m.port.substr(0, m.port.find('.'))))) return false;
    return true;
  };
  out.open("deadlocks", true);
  for (const deadlock_report& d : deadlocks_->found()) {
    if (!cycle_owned(d)) continue;
    json cycle = json::array();
    for (const deadlock_member& m : d.cycle)
      cycle.push_back({{"port", m.port}, {"peer", m.peer}, {"priority", m.cls}, {"since_us", us(m.since_ps)}});
    out.element({{"kind", d.credit ? "credit" : "pfc"},
                 {"start_us", us(d.start_ps)},
                 {"detected_us", us(d.detected_ps)},
                 {"cycle", std::move(cycle)}});
  }
  out.close();

  // A flow's sender measures what it sent and the feedback that reached it; its receiver what
  // arrived. A partial holds the halves of its own NICs; the merge joins them by id.
  out.open("flows", true);
  std::vector<double> fcts;
  uint64_t completed = 0;
  std::vector<const frame_kind_info*> feedback_kinds;
  for (const frame_kind_info* k : frame_kind_registry::instance().kinds())
    if (k->role == frame_role::feedback && k->kind != frame_kind::cnp && k->kind != frame_kind::cnm)
      feedback_kinds.push_back(k);
  for (const flow& fl : f.flows) {
    const flow_spec& s = fl.spec;
    const bool sender = owned(s.src), receiver = owned(s.dst);
    if (!sender && !receiver) continue;
    uint64_t start = to_ps(s.start);
    json j = {{"id", fl.id},
              {"name", s.name},
              {"src", f.spec().flow_ends[fl.id].first},
              {"dst", f.spec().flow_ends[fl.id].second},
              {"priority", s.priority},
              {"kind", kind_name(s.kind)},
              {"start_ns", ns(start)}};
    j["size_bytes"] = s.kind == flow_kind::finite ? json(s.size) : json(nullptr);
    if (sender) {
      j["tx_bytes"] = fl.stats.tx_bytes;
      j["cnp_frames"] = fl.stats.feedback(frame_kind::cnp);
      j["cnm_frames"] = fl.stats.feedback(frame_kind::cnm);
      // Every other feedback kind (a scheme's own, TIMELY's ACKs) where some arrived.
      for (const frame_kind_info* k : feedback_kinds)
        if (const uint32_t n = fl.stats.feedback(k->kind)) j[k->name + "_frames"] = n;
    }
    if (receiver) {
      j["rx_frames"] = fl.stats.rx_frames;
      j["rx_bytes"] = fl.stats.rx_bytes;
      j["completed"] = fl.stats.completed();
      j["first_rx_ns"] = fl.stats.rx_frames ? json(ns(fl.stats.first_rx_ps)) : json(nullptr);
      j["last_rx_ns"] = fl.stats.rx_frames ? json(ns(fl.stats.last_rx_ps)) : json(nullptr);
      uint64_t end = fl.stats.completed() ? fl.stats.completed_ps : now_ps;
      if (fl.stats.completed()) {
        ++completed;
        j["fct_ns"] = ns(fl.stats.completed_ps - start);
        fcts.push_back(ns(fl.stats.completed_ps - start));
      } else {
        j["fct_ns"] = nullptr;
      }
      j["throughput_bps"] =
          end > start ? static_cast<double>(fl.stats.rx_bytes) * 8e12 / static_cast<double>(end - start) : 0.0;
    }
    out.element(std::move(j));
  }
  out.close();

  // A link direction is measured by its transmitting node (a partition's copy of a direction
  // it receives saw nothing).
  json link_keys = json::array();
  const std::vector<uint32_t> link_index = partial ? series_order::topology_link_index(f) : std::vector<uint32_t>{};
  out.open("links", true);
  for (std::size_t i = 0; i < f.links.size(); ++i) {
    const link_entry& e = f.links[i];
    for (const link_channel* c : {&e.model->ab, &e.model->ba}) {
      const bool ba = c == &e.model->ba;
      if (!owned(ba ? e.b.node : e.a.node)) continue;
      if (partial) link_keys.push_back(series_order::link(link_index[i], ba));
      out.element({{"name", c->label()},
                   {"link", e.model->name()},
                   {"rate_bps", e.model->current_rate().bps},
                   {"frames", c->frames()},
                   {"bytes", c->bytes()},
                   {"utilization", now_ps ? c->busy_time(now).to_seconds() / now.to_seconds() : 0.0}});
    }
  }
  out.close();

  std::set<int> used;
  for (const flow& fl : f.flows) used.insert(fl.spec.priority);
  json port_keys = json::array();
  out.open("ports", true);
  // InfiniBand ports add their credit view of a VL (nothing on CEE ports, whose summary keeps its shape).
  auto with_credit = [&](json port, const credit_flow_control* c, int vl) {
    if (c)
      port.update({{"credit_blocked_ns", ns(c->blocked_ps(vl, now_ps))},
                   {"credit_blocked_periods", c->blocked_periods(vl)},
                   {"credit_peak_bytes", uint64_t{c->peak_blocks(vl)} * 64}});
    return port;
  };
  for (const auto& sw : f.switches)
    if (owned(sw->node_id()))
      for (const auto& port : sw->ports)
        if (port->credits) raw.credit_packets += port->credits->packets_sent();
  for (const auto& n : f.nics)
    if (owned(n->node_id()) && n->port.credits) raw.credit_packets += n->port.credits->packets_sent();
  auto port_warning = [&](uint64_t key, std::string text) {
    if (partial) port_warnings.push_back({key, text});
    warnings.push_back(std::move(text));
  };
  for (const auto& sw : f.switches) {
    if (!owned(sw->node_id())) continue;
    for (const auto& port : sw->ports) {
      raw.pause_frames += port->flow_control.frames_sent();
      for (int prio = 0; prio < sw->classes(); ++prio) {
        const uint64_t key = series_order::port(false, sw->node_id(), port->index(), prio);
        const queue_stats& q = port->queue(prio);
        uint64_t d = port->drops(prio);
        raw.drops += d;
        bool lossless = sw->active_mmu().is_lossless(prio);
        if (lossless) raw.lossless_drops += d;
        if (d && lossless)
          port_warning(key, std::string(port->name()) + " priority " + std::to_string(prio) + ": " + std::to_string(d) +
                                " frames dropped on a lossless priority (headroom " +
                                format_bytes(byte_count{sw->active_mmu().headroom_bytes(port->index(), prio)}) +
                                " too small?)");
        if (const pfc& fc = port->flow_control; fc.watchdog_storms(prio))
          port_warning(key, std::string(port->name()) + " priority " + std::to_string(prio) + ": PFC watchdog (" +
                                (*fc.watchdog_action)() + "): " + std::to_string(fc.watchdog_storms(prio)) +
                                " pause storms, " + std::to_string(fc.watchdog_restores(prio)) + " restored, " +
                                std::to_string(port->egress.dropped(prio).frames) + " frames dropped, " +
                                std::to_string(fc.watchdog_ignored(prio)) + " pause frames ignored");
        bool active =
            used.count(prio) || d || port->flow_control.xoff_sent(prio) || port->flow_control.pause_received(prio);
        if (!active) continue;
        if (partial) port_keys.push_back(key);
        out.element(with_credit(
            {{"node", sw->name()},
             {"port", port->index()},
             {"peer", f.peer_of(sw->name(), port->index())},
             {"priority", prio},
             {"lossless", lossless},
             {"pause_sent", port->flow_control.xoff_sent(prio)},
             {"refresh_sent", port->flow_control.refresh_sent(prio)},
             {"resume_sent", port->flow_control.xon_sent(prio)},
             {"pause_received", port->flow_control.pause_received(prio)},
             {"resume_received", port->flow_control.resume_received(prio)},
             {"paused_time_ns", ns(to_ps(port->flow_control.paused_time(prio, now)))},
             {"max_queue_bytes", q.max_bytes},
             {"mean_queue_bytes", q.mean_bytes(now_ps)},
             {"max_ingress_bytes", sw->mmu_port->usage(port->index(), prio).peak_total},
             {"max_headroom_bytes", sw->mmu_port->usage(port->index(), prio).peak_headroom},
             {"headroom_bytes", lossless ? json(sw->active_mmu().headroom_bytes(port->index(), prio)) : json(0)},
             {"frames_out", q.frames_out},
             {"bytes_out", q.bytes_out},
             {"drops", d},
             {"ecn_marked", port->egress.marks(prio).ecn},
             {"fecn_marked", port->egress.marks(prio).fecn},
             {"cnm_sent", port->cnm_sent(prio)},
             {"cnp_sent", 0},
             {"cnp_received", 0},
             {"cnm_received", 0}},
            port->credits.get(), prio));
      }
    }
  }
  // A NIC's congestion feedback per priority, from its flows: CNPs it sent about the flows it
  // receives, CNPs and CNMs that reached it about the flows it sends (both measured by the NIC).
  struct nic_feedback {
    uint64_t cnp_sent = 0, cnp_received = 0, cnm_received = 0;
  };
  std::unordered_map<std::string, std::array<nic_feedback, max_classes>> feedback;
  for (const flow& fl : f.flows) {
    const auto& [src, dst] = f.spec().flow_ends[fl.id];
    feedback[dst][fl.spec.priority].cnp_sent += fl.stats.feedback_sent(frame_kind::cnp);
    feedback[src][fl.spec.priority].cnp_received += fl.stats.feedback(frame_kind::cnp);
    feedback[src][fl.spec.priority].cnm_received += fl.stats.feedback(frame_kind::cnm);
  }
  for (const auto& n : f.nics) {
    if (!owned(n->node_id())) continue;
    const switch_model* peer_switch = f.switch_named(f.peer_of(n->name(), 0));  // in n's partition
    const std::array<nic_feedback, max_classes>& fed = feedback[n->name()];
    for (int prio : used) {
      if (partial) port_keys.push_back(series_order::port(true, n->node_id(), 0, prio));
      out.element(
          with_credit({{"node", n->name()},
                       {"port", 0},
                       {"peer", f.peer_of(n->name(), 0)},
                       {"priority", prio},
                       {"lossless", peer_switch ? json(peer_switch->active_mmu().is_lossless(prio)) : json(nullptr)},
                       {"pause_sent", 0},
                       {"refresh_sent", 0},
                       {"resume_sent", 0},
                       {"pause_received", n->port.flow_control.pause_received(prio)},
                       {"resume_received", n->port.flow_control.resume_received(prio)},
                       {"paused_time_ns", ns(to_ps(n->port.flow_control.paused_time(prio, now)))},
                       {"max_queue_bytes", 0},
                       {"mean_queue_bytes", 0.0},
                       {"max_ingress_bytes", 0},
                       {"max_headroom_bytes", 0},
                       {"headroom_bytes", 0},
                       {"frames_out", n->frames_sent(prio)},
                       {"bytes_out", n->bytes_sent(prio)},
                       {"drops", 0},
                       {"ecn_marked", 0},
                       {"fecn_marked", 0},
                       {"cnm_sent", 0},
                       {"cnp_sent", fed[prio].cnp_sent},
                       {"cnp_received", fed[prio].cnp_received},
                       {"cnm_received", fed[prio].cnm_received}},
                      n->port.credits.get(), prio));
    }
  }
  out.close();
  out.member("provenance", provenance_);
  out.member("scenario", f.spec().name);
  out.member("seed", seed_);

  for (const auto& sw : f.switches)
    if (owned(sw->node_id())) raw.unroutable += sw->unroutable();
  for (const auto& n : f.nics)
    if (owned(n->node_id())) raw.misdelivered += n->misdelivered();
  if (process_level) {
    raw.packet_hops = link::packet_hops();
    if (trace_) raw.trace_dropped_rows = trace_->dropped_rows();
  }

  // Congestion feedback frames, counted where they arrive: at the NICs (the sources they are
  // addressed to), whatever made them (a NIC's NP for CNPs, a switch's CP for CNMs).
  for (const auto& n : f.nics) {
    if (!owned(n->node_id())) continue;
    raw.cnp_frames += n->receiver().received(frame_kind::cnp);
    raw.cnm_frames += n->receiver().received(frame_kind::cnm);
    raw.ack_frames += n->receiver().received(frame_kind::ack);
    // A feedback kind a scheme registered beyond the shipped ones: "<name>_frames", when any arrived.
    for (const frame_kind_info* k : frame_kind_registry::instance().kinds())
      if (k->role == frame_role::feedback && k->kind != frame_kind::cnp && k->kind != frame_kind::cnm &&
          k->kind != frame_kind::ack)
        if (const uint64_t c = n->receiver().received(k->kind)) raw.other_feedback[k->name + "_frames"] += c;
  }
  out.member("totals", summary_totals(raw, fcts, completed));
  append_tail_warnings(raw, warnings);
  out.member("warnings", std::move(warnings));
  if (nlohmann::json w = window_summary(); !w.is_null()) out.member("windows", std::move(w));
  if (partial)
    out.member("_partial", {{"raw", raw.to_json()},
                            {"global_warnings", global_warnings},
                            {"port_warnings", std::move(port_warnings)},
                            {"link_keys", std::move(link_keys)},
                            {"port_keys", std::move(port_keys)},
                            {"held", std::move(partial_tree)}});
}

nlohmann::json simulation::window_summary() const {
  if (!window_mailbox_) return nullptr;
  const event_queue& q = event_queue::instance();
  return {{"partitions", plan_.parts},          {"method", plan_.method},        {"imbalance", plan_.imbalance},
          {"lookahead_ps", plan_.lookahead_ps}, {"cut_links", plan_.cut.size()}, {"threads", window_threads_},
          {"windows", q.windows_run()},         {"steps_s", q.window_steps_s()}, {"threads_busy_s", q.lanes_busy_s()}};
}

std::string simulation::table() const { return summary_table(summary()); }

std::string summary_table(const nlohmann::json& s) {
  std::ostringstream o;
  const auto& t = s["totals"];
  double hops = t["packet_hops"].get<double>();
  o << "== Sluice: " << s["scenario"].get<std::string>() << " (seed " << s["seed"] << ") ==\n";
  const double wall_s = t["wall_time_s"].get<double>();
  o << "simulated " << fmt("%.3f", t["sim_time_ns"].get<double>() / 1e3) << " us in " << fmt("%.2f", wall_s)
    << " s wall; " << static_cast<uint64_t>(hops) << " packet-hops ("
    << fmt("%.2f", wall_s > 0 ? hops / wall_s / 1e6 : 0) << " M/s)\n";
  // The fabric's own flow control and feedback: PFC frames on CEE; credit packets, FECN marks and
  // BECNs on InfiniBand.
  const bool ib = t.contains("credit_packets");
  o << "drops " << t["drops"] << " (lossless " << t["lossless_drops"] << "), ";
  if (ib)
    o << "credit packets " << t["credit_packets"] << ", FECN marks " << t["fecn_marks"] << ", BECN frames "
      << t["becn_frames"];
  else
    o << "PFC frames " << t["pause_frames"];
  if (t.contains("ack_frames")) o << ", ACK frames " << t["ack_frames"];
  o << ", flows completed " << t["flows_completed"] << "/" << t["flows"];
  if (!t["mean_fct_ns"].is_null())
    o << ", FCT mean " << fmt("%.1f", t["mean_fct_ns"].get<double>() / 1e3) << " us, p99 "
      << fmt("%.1f", t["p99_fct_ns"].get<double>() / 1e3) << " us";
  o << "\n\nLinks (at least 1% busy)\n";
  o << "  link                   rate        util    Gbytes\n";
  std::size_t quiet_links = 0;
  for (const auto& l : s["links"]) {
    if (l["utilization"].get<double>() < 0.01) {
      ++quiet_links;
      continue;
    }
    char buf[160];
    std::snprintf(buf, sizeof buf, "  %-22s %-10s %6.1f%% %9.4f\n", l["name"].get<std::string>().c_str(),
                  format_rate(data_rate{l["rate_bps"].get<double>()}).c_str(), 100 * l["utilization"].get<double>(),
                  l["bytes"].get<double>() / 1e9);
    o << buf;
  }
  if (quiet_links) o << "  (" << quiet_links << " more link directions below 1% busy)\n";
  if (ib) {
    o << "\nPorts with credit starvation, queueing or drops\n";
    o << "  port               VL    peer   blocked us  periods  maxQ KB meanQ KB  peak credit KB  drops\n";
  } else {
    o << "\nPorts with pause activity, queueing or drops\n";
    o << "  port               prio  peer   PAUSE tx/rx    paused us  maxQ KB meanQ KB  headroom KB used/cfg  drops\n";
  }
  for (const auto& p : s["ports"]) {
    const bool blocked = p.value("credit_blocked_ns", 0.0) > 0;
    bool interesting = p["pause_sent"].get<uint64_t>() || p["pause_received"].get<uint64_t>() || blocked ||
                       p["drops"].get<uint64_t>() || p["max_queue_bytes"].get<uint64_t>() > 0;
    if (!interesting) continue;
    char buf[200];
    std::string name = p["node"].get<std::string>() + ".port" + std::to_string(p["port"].get<int>());
    if (ib) {
      std::snprintf(
          buf, sizeof buf, "  %-18s %4d  %-6s %10.1f %8llu %8.1f %8.1f  %14.1f %6llu\n", name.c_str(),
          p["priority"].get<int>(), p["peer"].get<std::string>().c_str(), p.value("credit_blocked_ns", 0.0) / 1e3,
          static_cast<unsigned long long>(p.value("credit_blocked_periods", uint64_t{0})),
          p["max_queue_bytes"].get<double>() / 1e3, p["mean_queue_bytes"].get<double>() / 1e3,
          p.value("credit_peak_bytes", 0.0) / 1e3, static_cast<unsigned long long>(p["drops"].get<uint64_t>()));
      o << buf;
      continue;
    }
    std::string headroom = fmt("%.1f", p["max_headroom_bytes"].get<double>() / 1e3) + "/" +
                           fmt("%.1f", p["headroom_bytes"].get<double>() / 1e3);
    std::snprintf(buf, sizeof buf, "  %-18s %4d  %-6s %6llu/%-6llu %10.1f %8.1f %8.1f  %20s %6llu\n", name.c_str(),
                  p["priority"].get<int>(), p["peer"].get<std::string>().c_str(),
                  static_cast<unsigned long long>(p["pause_sent"].get<uint64_t>()),
                  static_cast<unsigned long long>(p["pause_received"].get<uint64_t>()),
                  p["paused_time_ns"].get<double>() / 1e3, p["max_queue_bytes"].get<double>() / 1e3,
                  p["mean_queue_bytes"].get<double>() / 1e3, headroom.c_str(),
                  static_cast<unsigned long long>(p["drops"].get<uint64_t>()));
    o << buf;
  }
  o << "\nFlows";
  const auto& flows = s["flows"];
  const std::size_t shown = std::min<std::size_t>(flows.size(), 20);
  if (shown < flows.size()) o << " (first " << shown << " of " << flows.size() << "; all in summary.json)";
  o << "\n  flow                      kind      prio   rx MB     Gbps     FCT us\n";
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& fl = flows[i];
    char buf[200];
    std::string fct = fl["fct_ns"].is_null() ? "-" : fmt("%.1f", fl["fct_ns"].get<double>() / 1e3);
    std::snprintf(buf, sizeof buf, "  %-25s %-9s %4d %8.3f %8.3f %10s\n", fl["name"].get<std::string>().c_str(),
                  fl["kind"].get<std::string>().c_str(), fl["priority"].get<int>(), fl["rx_bytes"].get<double>() / 1e6,
                  fl["throughput_bps"].get<double>() / 1e9, fct.c_str());
    o << buf;
  }
  for (const auto& w : s["warnings"]) o << "WARNING: " << w.get<std::string>() << "\n";
  return o.str();
}

std::vector<std::pair<std::string, const series*>> simulation::csv_series() const {
  std::vector<std::pair<std::string, const series*>> out;
  for (const auto& [name, s] : sampler_->all_series())
    if (sampler::csv_written(name, *s)) out.emplace_back(name, s);
  return out;
}

void write_summary_json(const std::string& dir, const std::function<void(summary_sink&)>& emit) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw config_error("--out: cannot create '" + dir + "': " + ec.message());
  // Written to a temporary name, then renamed: a failure never leaves an empty or partial
  // summary.json behind. Streamed member by member, element by element: a big fabric's
  // summary is tens of megabytes as a document.
  const std::string json_path = dir + "/summary.json";
  {
    std::ofstream json_out(json_path + ".tmp");
    stream_sink sink(json_out);
    emit(sink);
    sink.finish();
    if (!(json_out << '\n') || !json_out.flush()) {
      const std::string why = std::strerror(errno);     // a full disk: ENOSPC, a file size limit: EFBIG
      std::filesystem::remove(json_path + ".tmp", ec);  // no partial file left behind
      throw config_error("--out: cannot write '" + json_path + "': " + why);
    }
  }
  std::filesystem::rename(json_path + ".tmp", json_path, ec);
  if (ec) throw config_error("--out: cannot write '" + json_path + "': " + ec.message());
}

void simulation::write_outputs(const std::string& dir) const {
  write_summary_json(dir, [this](summary_sink& out) { emit_summary(out); });
  const auto csvs = csv_series();
  // The sampler's series share their times: their texts are made once (series.h).
  const std::unique_ptr<time_texts> times =
      csvs.empty() ? nullptr : std::make_unique<time_texts>(csvs[0].second->times_us);
  for (const auto& [name, s] : csvs) s->write_csv(dir + "/" + name + ".csv", "time_us", times.get());
  if (trace_) trace_->write_csv(dir + "/frame_trace.csv");
}

}  // namespace sluice
