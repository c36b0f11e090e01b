// Logged runs for tests of run-time writes (a parameter's live write, a register write): the
// incast with static PFC thresholds, every PFC frame of sw0 and every admission decision
// logged, and the dumbbell under a congestion-control scheme, every rate change and CE mark
// logged. `arrange` schedules the write (on the run's timed callbacks, or a register
// initiator of its own) before the run. Both return the log, then the summary without wall
// times and provenance, so that two runs compare as text.
#pragma once
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "models/core/probe.h"
#include "models/protocol/pfc_frame.h"
#include "platforms/timed_callbacks.h"
#include "tests/support/harness.h"
#include "tests/support/switch_bench.h"

namespace sluice::test {

using arrange_fn = std::function<void(simulation&, timed_callbacks&)>;

// Records every PFC frame a switch port puts on the wire, as the port's MAC takes it from the
// port's PFC component: "<time> frame <port> <class> <quanta>" per enabled class.
class pause_log : public flow_control_if {
 public:
  pause_log(switch_port& port, std::ostringstream& out) : port_(port), inner_(port.gate()), out_(out) {
    port.mac.attach_flow_control(this);
  }
  int classes() const override { return inner_.classes(); }
  bool may_send(int cls, uint32_t bytes, uint64_t now) const override { return inner_.may_send(cls, bytes, now); }
  uint64_t blocked_until_ps(int cls, uint64_t now) const override { return inner_.blocked_until_ps(cls, now); }
  void on_transmit(int cls, uint32_t bytes) override { inner_.on_transmit(cls, bytes); }
  void on_control_frame(tlm::tlm_generic_payload& f) override { inner_.on_control_frame(f); }
  void on_admit(int cls, uint32_t bytes, bool xoff_due) override { inner_.on_admit(cls, bytes, xoff_due); }
  void on_release(int cls, uint32_t bytes, bool xon_due) override { inner_.on_release(cls, bytes, xon_due); }
  tlm::tlm_generic_payload* take_control_frame(uint64_t now) override {
    tlm::tlm_generic_payload* f = inner_.take_control_frame(now);
    pfc_request r;
    if (f && decode_pfc(*header(*f).image, r))
      for (int c = 0; c < pfc_priorities; ++c)
        if (r.class_enable & (1u << c))
          out_ << now << " frame " << port_.index() << ' ' << c << ' ' << r.quanta[c] << '\n';
    return f;
  }

 private:
  switch_port& port_;
  flow_control_if& inner_;
  std::ostringstream& out_;
};

// Records every admission to a group that is not paused, where the MMU decides whether to
// pause it: "<time> admit <port> <class> <shared bytes before> <frame bytes> <XOFF>". With a
// static threshold X (no reserve), such an admission pauses the group exactly when
// shared + frame >= X: the frame fills the shared allowance or overflows into headroom.
struct admission_log : counting_mmu {
  std::ostringstream& out;
  admission_log(mmu_if& m, std::ostringstream& o) : counting_mmu(m), out(o) {}
  bool admit(int port, int prio, uint32_t bytes, bool& xoff_due) override {
    const bool paused = inner.pg_paused(port, prio);
    const uint64_t shared = inner.usage(port, prio).shared;
    const bool admitted = inner.admit(port, prio, bytes, xoff_due);
    if (!paused)
      out << now_ps() << " admit " << port << ' ' << prio << ' ' << shared << ' ' << bytes << ' ' << xoff_due << '\n';
    return admitted;
  }
};

struct admission {
  uint64_t at_ps, shared, bytes;
  bool xoff;
};

inline std::vector<admission> admissions(const std::string& log) {
  std::vector<admission> out;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    std::istringstream f(line);
    admission a;
    std::string what;
    int port, cls;
    if (f >> a.at_ps >> what >> port >> cls >> a.shared >> a.bytes >> a.xoff && what == "admit") out.push_back(a);
  }
  return out;
}

inline uint64_t xoff_count(const std::string& log) {
  uint64_t n = 0;
  for (const admission& a : admissions(log)) n += a.xoff;
  return n;
}

inline std::string lines_before(const std::string& log, uint64_t t_ps) {
  std::string out;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("summary", 0) != 0 && std::stoull(line) < t_ps) out += line + "\n";
  return out;
}

inline std::string summary_text(simulation& sim) {
  nlohmann::json s = sim.summary();
  s["totals"].erase("wall_time_s");
  s["totals"].erase("elaboration_s");
  s.erase("provenance");  // the two runs are asked for differently (a write, a scenario setting)
  return "summary " + s.dump() + "\n";
}

// The incast with static thresholds (every sw0 port's PFC frames and admissions logged) for
// 2 ms, with the given overrides; `arrange` schedules a write.
inline std::string run_logged_incast(std::vector<std::pair<std::string, std::string>> sets, const arrange_fn& arrange) {
  run_options o;
  o.sets = {{"sw0.mmu.threshold", "static"}};
  for (auto& s : sets) o.sets.push_back(s);
  simulation sim(load_scenario_file(scenario_path("incast.yaml")), o);
  std::ostringstream log;
  switch_model& sw = *sim.fabric_model().switches[0];
  std::vector<std::unique_ptr<pause_log>> frames;
  for (auto& p : sw.ports) frames.push_back(std::make_unique<pause_log>(*p, log));
  admission_log decisions(sw.mmu_block, log);
  sw.bind_mmu(decisions);
  timed_callbacks calls("calls", 2 * 1000000000ull);
  arrange(sim, calls);
  sim.run();
  return log.str() + summary_text(sim);
}

// The dumbbell (four 20 Gb/s flows into one 40 Gb/s bottleneck) under `cc` for 2 ms, with the
// given overrides; `arrange` schedules a write. The log: every flow's rate limit as the
// reaction points set it, "<time> rate <nic> <flow> <bit/s>" (0: no limit), and every
// congestion mark, "<time> mark <point> <flow>".
inline std::string run_logged_dumbbell(const std::string& cc, std::vector<std::pair<std::string, std::string>> sets,
                                       const arrange_fn& arrange) {
  run_options o;
  o.cc = cc;
  o.sets = std::move(sets);
  simulation sim(load_scenario_file(scenario_path("dumbbell.yaml")), o);
  std::ostringstream log;
  probe_registry::instance().subscribe("h*.rate_change", [&](const probe_point& p, const probe_event& e) {
    log << e.time_ps << " rate " << p.name() << ' ' << e.flow_id << ' ' << e.value << '\n';
  });
  probe_registry::instance().subscribe("sw*.egress.mark", [&](const probe_point& p, const probe_event& e) {
    log << e.time_ps << " mark " << p.name() << ' ' << e.frame->flow_id << '\n';
  });
  timed_callbacks calls("calls", 2 * 1000000000ull);
  arrange(sim, calls);
  sim.run();
  return log.str() + summary_text(sim);
}

inline uint64_t marks(const std::string& log, uint64_t from_ps, uint64_t to_ps) {
  uint64_t n = 0;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    std::istringstream f(line);
    uint64_t at;
    std::string what;
    if (f >> at >> what && what == "mark" && at > from_ps && at <= to_ps) ++n;
  }
  return n;
}

// Rate cuts after `from_ps` (exclusive) up to `to_ps`: a limit below the flow's previous one
// (no limit counts as the flows' 20 Gb/s).
inline uint64_t cuts(const std::string& log, uint64_t from_ps, uint64_t to_ps) {
  std::map<std::string, uint64_t> last;
  uint64_t n = 0;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    std::istringstream f(line);
    uint64_t at, rate;
    std::string what, point, flow;
    if (!(f >> at >> what >> point >> flow >> rate) || what != "rate") continue;
    const uint64_t limit = rate == 0 ? 20'000'000'000ull : std::min<uint64_t>(rate, 20'000'000'000ull);
    auto it = last.find(flow);
    if (it != last.end() && limit < it->second && at > from_ps && at <= to_ps) ++n;
    last[flow] = limit;
  }
  return n;
}
}  // namespace sluice::test
