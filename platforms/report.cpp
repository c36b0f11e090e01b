// The run's outputs: summary.json (schema in docs/outputs.md), the text table, the CSVs.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <unordered_map>

#include "models/core/frame_kinds.h"
#include "models/core/stats.h"
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

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  std::size_t idx = static_cast<std::size_t>(std::ceil(p * static_cast<double>(v.size())));
  return v[std::min(v.size() - 1, idx == 0 ? 0 : idx - 1)];
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

nlohmann::json simulation::summary() const {
  document_sink doc;
  emit_summary(doc);
  return std::move(doc.doc);
}

void simulation::emit_summary(summary_sink& out) const {
  using nlohmann::json;
  const fabric& f = *fabric_;
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const uint64_t now_ps = to_ps(now);
  json warnings = json::array();
  for (const std::string& w : f.warnings()) warnings.push_back(w);
  for (const std::string& w : build_warnings_) warnings.push_back(w);  // inert settings, allowed

  uint64_t paused_port_ps = 0;
  for (const auto& sw : f.switches)
    for (const auto& port : sw->ports)
      for (int prio = 0; prio < sw->classes(); ++prio)
        paused_port_ps += to_ps(port->flow_control.paused_time(prio, now));
  for (const auto& n : f.nics)
    for (int prio = 0; prio < n->port.flow_control.classes(); ++prio)
      paused_port_ps += to_ps(n->port.flow_control.paused_time(prio, now));
  json tree = {{"max_ports_paused", sampler_->max_ports_paused()},
               {"max_ports_paused_at_us", sampler_->max_ports_paused_at_us()},
               {"paused_port_time_ns", ns(paused_port_ps)}};
  const bool ib = f.spec().topology.layer == link_layer::ib;
  if (ib) {
    tree["max_ports_credit_blocked"] = sampler_->max_ports_credit_blocked();
    tree["max_ports_credit_blocked_at_us"] = sampler_->max_ports_credit_blocked_at_us();
  }
  out.member("congestion_tree", std::move(tree));

  out.open("counters", false);
  double fecn_marks = 0;  // IB CCA: the switches' marks, wherever a congestion point made them
  for (const stat_registry::row& r : stat_registry::instance().rows(true)) {
    out.element(r.name, r.value());
    if (ib && r.name.size() > 15 && r.name.compare(r.name.size() - 15, 15, ".cca.fecn_marks") == 0)
      fecn_marks += r.value();
  }
  out.close();

  out.open("deadlocks", true);
  for (const deadlock_report& d : deadlocks_->found()) {
    json cycle = json::array();
    for (const deadlock_member& m : d.cycle)
      cycle.push_back({{"port", m.port}, {"peer", m.peer}, {"priority", m.cls}, {"since_us", us(m.since_ps)}});
    out.element({{"kind", d.credit ? "credit" : "pfc"},
                 {"start_us", us(d.start_ps)},
                 {"detected_us", us(d.detected_ps)},
                 {"cycle", std::move(cycle)}});
  }
  out.close();

  out.open("flows", true);
  std::vector<double> fcts;
  uint64_t completed = 0;
  std::vector<const frame_kind_info*> feedback_kinds;
  for (const frame_kind_info* k : frame_kind_registry::instance().kinds())
    if (k->role == frame_role::feedback && k->kind != frame_kind::cnp && k->kind != frame_kind::cnm)
      feedback_kinds.push_back(k);
  for (const flow& fl : f.flows) {
    const flow_spec& s = fl.spec;
    uint64_t start = to_ps(s.start);
    json j = {{"id", fl.id},
              {"name", s.name},
              {"src", f.spec().flow_ends[fl.id].first},
              {"dst", f.spec().flow_ends[fl.id].second},
              {"priority", s.priority},
              {"kind", kind_name(s.kind)},
              {"start_ns", ns(start)},
              {"tx_bytes", fl.stats.tx_bytes},
              {"rx_frames", fl.stats.rx_frames},
              {"rx_bytes", fl.stats.rx_bytes},
              {"completed", fl.stats.completed()},
              {"cnp_frames", fl.stats.feedback(frame_kind::cnp)},
              {"cnm_frames", fl.stats.feedback(frame_kind::cnm)}};
    // Every other feedback kind (a scheme's own, TIMELY's ACKs) where some arrived.
    for (const frame_kind_info* k : feedback_kinds)
      if (const uint32_t n = fl.stats.feedback(k->kind)) j[k->name + "_frames"] = n;
    j["size_bytes"] = s.kind == flow_kind::finite ? json(s.size) : json(nullptr);
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
    out.element(std::move(j));
  }
  out.close();

  out.open("links", true);
  for (const link_entry& e : f.links)
    for (const link_channel* c : {&e.model->ab, &e.model->ba})
      out.element({{"name", c->label()},
                   {"link", e.model->name()},
                   {"rate_bps", e.model->current_rate().bps},
                   {"frames", c->frames()},
                   {"bytes", c->bytes()},
                   {"utilization", now_ps ? c->busy_time(now).to_seconds() / now.to_seconds() : 0.0}});
  out.close();

  std::set<int> used;
  for (const flow& fl : f.flows) used.insert(fl.spec.priority);
  out.open("ports", true);
  uint64_t drops = 0, lossless_drops = 0, pause_frames = 0, credit_packets = 0;
  // InfiniBand ports add their credit view of a VL (nothing on CEE ports, whose summary keeps its shape).
  auto with_credit = [&](json port, const credit_flow_control* c, int vl) {
    if (c)
      port.update({{"credit_blocked_ns", ns(c->blocked_ps(vl, now_ps))},
                   {"credit_blocked_periods", c->blocked_periods(vl)},
                   {"credit_peak_bytes", uint64_t{c->peak_blocks(vl)} * 64}});
    return port;
  };
  for (const auto& sw : f.switches)
    for (const auto& port : sw->ports)
      if (port->credits) credit_packets += port->credits->packets_sent();
  for (const auto& n : f.nics)
    if (n->port.credits) credit_packets += n->port.credits->packets_sent();
  for (const auto& sw : f.switches) {
    for (const auto& port : sw->ports) {
      pause_frames += port->flow_control.frames_sent();
      for (int prio = 0; prio < sw->classes(); ++prio) {
        const queue_stats& q = port->queue(prio);
        uint64_t d = port->drops(prio);
        drops += d;
        bool lossless = sw->active_mmu().is_lossless(prio);
        if (lossless) lossless_drops += d;
        if (d && lossless)
          warnings.push_back(std::string(port->name()) + " priority " + std::to_string(prio) + ": " +
                             std::to_string(d) + " frames dropped on a lossless priority (headroom " +
                             format_bytes(byte_count{sw->active_mmu().headroom_bytes(port->index(), prio)}) +
                             " too small?)");
        if (const pfc& fc = port->flow_control; fc.watchdog_storms(prio))
          warnings.push_back(std::string(port->name()) + " priority " + std::to_string(prio) + ": PFC watchdog (" +
                             (*fc.watchdog_action)() + "): " + std::to_string(fc.watchdog_storms(prio)) +
                             " pause storms, " + std::to_string(fc.watchdog_restores(prio)) + " restored, " +
                             std::to_string(port->egress.dropped(prio).frames) + " frames dropped, " +
                             std::to_string(fc.watchdog_ignored(prio)) + " pause frames ignored");
        bool active =
            used.count(prio) || d || port->flow_control.xoff_sent(prio) || port->flow_control.pause_received(prio);
        if (!active) continue;
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
  // receives, CNPs and CNMs that reached it about the flows it sends.
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
    const switch_model* peer_switch = f.switch_named(f.peer_of(n->name(), 0));
    const std::array<nic_feedback, max_classes>& fed = feedback[n->name()];
    for (int prio : used) {
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

  uint64_t unroutable = 0, misdelivered = 0;
  for (const auto& sw : f.switches) unroutable += sw->unroutable();
  for (const auto& n : f.nics) misdelivered += n->misdelivered();
  if (unroutable) warnings.push_back(std::to_string(unroutable) + " frames had no route");
  if (misdelivered) warnings.push_back(std::to_string(misdelivered) + " frames reached the wrong NIC");
  if (trace_ && trace_->dropped_rows())
    warnings.push_back("frame trace stopped at " + std::to_string(frame_trace::max_rows) + " rows: " +
                       std::to_string(trace_->dropped_rows()) + " later events not kept (narrow --trace-frames)");

  // Congestion feedback frames, counted where they arrive: at the NICs (the sources they are
  // addressed to), whatever made them (a NIC's NP for CNPs, a switch's CP for CNMs).
  uint64_t cnp_frames = 0, cnm_frames = 0, ack_frames = 0;
  for (const auto& n : f.nics) {
    cnp_frames += n->receiver().received(frame_kind::cnp);
    cnm_frames += n->receiver().received(frame_kind::cnm);
    ack_frames += n->receiver().received(frame_kind::ack);
  }
  double mean_fct = 0;
  for (double v : fcts) mean_fct += v;
  if (!fcts.empty()) mean_fct /= static_cast<double>(fcts.size());
  json totals = {{"drops", drops},
                 {"lossless_drops", lossless_drops},
                 {"pause_frames", pause_frames},
                 {"cnp_frames", cnp_frames},
                 {"cnm_frames", cnm_frames},
                 {"packet_hops", link::packet_hops()},
                 {"sim_time_ns", ns(now_ps)},
                 {"wall_time_s", wall_s_},
                 {"elaboration_s", elab_s_},
                 {"flows", f.flows.size()},
                 {"flows_completed", completed},
                 {"mean_fct_ns", fcts.empty() ? json(nullptr) : json(mean_fct)},
                 {"p99_fct_ns", fcts.empty() ? json(nullptr) : json(percentile(fcts, 0.99))}};
  if (ack_frames) totals["ack_frames"] = ack_frames;  // transport ACKs, when any NIC sends them
  // A feedback kind a scheme registered beyond the shipped ones: "<name>_frames", when any arrived.
  for (const frame_kind_info* k : frame_kind_registry::instance().kinds()) {
    if (k->role != frame_role::feedback || k->kind == frame_kind::cnp || k->kind == frame_kind::cnm ||
        k->kind == frame_kind::ack)
      continue;
    uint64_t n = 0;
    for (const auto& nic : f.nics) n += nic->receiver().received(k->kind);
    if (n) totals[k->name + "_frames"] = n;
  }
  if (ib) {  // on InfiniBand every CNP carries a BECN
    totals["credit_packets"] = credit_packets;
    totals["fecn_marks"] = static_cast<uint64_t>(fecn_marks);
    totals["becn_frames"] = cnp_frames;
  }
  out.member("totals", std::move(totals));
  out.member("warnings", std::move(warnings));
}

std::string simulation::table() const {
  nlohmann::json s = summary();
  std::ostringstream o;
  const auto& t = s["totals"];
  double hops = t["packet_hops"].get<double>();
  o << "== Sluice: " << s["scenario"].get<std::string>() << " (seed " << s["seed"] << ") ==\n";
  o << "simulated " << fmt("%.3f", t["sim_time_ns"].get<double>() / 1e3) << " us in " << fmt("%.2f", wall_s_)
    << " s wall; " << static_cast<uint64_t>(hops) << " packet-hops ("
    << fmt("%.2f", wall_s_ > 0 ? hops / wall_s_ / 1e6 : 0) << " M/s)\n";
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
  const sampler& s = *sampler_;
  std::vector<std::pair<std::string, const series*>> out = {{"queue_depth", &s.queue_depth},
                                                            {"link_throughput", &s.link_throughput},
                                                            {"flow_throughput", &s.flow_throughput},
                                                            {"paused_fraction", &s.paused_fraction}};
  if (!s.credit_blocked_fraction.columns.empty())
    out.emplace_back("credit_blocked_fraction", &s.credit_blocked_fraction);
  out.emplace_back("flow_rate", &s.flow_rate);
  if (!s.cp_state.columns.empty()) out.emplace_back("cp_state", &s.cp_state);
  out.emplace_back("buffer_occupancy", &s.buffer_occupancy);
  return out;
}

void simulation::write_outputs(const std::string& dir) const {
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
    emit_summary(sink);
    sink.finish();
    if (!(json_out << '\n') || !json_out.flush()) {
      const std::string why = std::strerror(errno);     // a full disk: ENOSPC, a file size limit: EFBIG
      std::filesystem::remove(json_path + ".tmp", ec);  // no partial file left behind
      throw config_error("--out: cannot write '" + json_path + "': " + why);
    }
  }
  std::filesystem::rename(json_path + ".tmp", json_path, ec);
  if (ec) throw config_error("--out: cannot write '" + json_path + "': " + ec.message());
  for (const auto& [name, s] : csv_series()) s->write_csv(dir + "/" + name + ".csv", "time_us");
  if (trace_) trace_->write_csv(dir + "/frame_trace.csv");
}

}  // namespace sluice
