#include "platforms/simulation.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>

#include "models/core/random.h"
#include "models/core/stats.h"
#include "platforms/inert_settings.h"
#include "platforms/partitioned_run.h"
#include "platforms/profiles.h"
#include "platforms/provenance.h"
#include "platforms/results_store.h"

namespace sluice {
namespace {
// SystemC's scratch for sc_dt concatenation results, a ring of 3 MiB zeroed (so resident) when
// the library loads: Sluice makes no such temporaries, and 64 KiB serves any that a foreign model
// makes (a ring reused as it wraps). A sixth of a 1 ns incast run's memory (docs/scale.md).
void shrink_systemc_scratch() {
  static const bool once = (sc_core::sc_temp_heap.initialize(64 * 1024), true);
  (void)once;
}

// Kernel-side health: how many payloads the run needed at its peak (the pool never shrinks).
const stat_desc pool_stats[] = {
    {"allocated", "payloads", "payloads the pool has allocated (peak in flight)",
     [](const void*, int) { return static_cast<double>(packet_pool::allocated_by_all()); }},
};
const stat_desc timer_queue_stats[] = {
    {"pending", "wake-ups", "model wake-ups pending in the timer queue",
     [](const void*, int) { return static_cast<double>(event_queue::instance().pending()); }},
};

// How the unused-scheme settings name the schemes in use: "--cc dcqcn", "traffic cc: dcqcn, timely".
std::string schemes_in_use(const fabric& f, const run_options& options) {
  if (!options.cc.empty()) return options.cc_key + " " + options.cc;
  std::string names;
  for (const cc_scheme* s : f.schemes_in_use()) names += (names.empty() ? "" : ", ") + s->name;
  return names.empty() ? "no " + options.cc_key + " and no traffic cc:" : "traffic cc: " + names;
}
std::vector<std::size_t> unmatched_everywhere(parallel_transport& t, const std::vector<std::size_t>& unmatched,
                                              std::size_t count) {
  std::vector<uint8_t> here(count, 0);
  for (std::size_t i : unmatched) here[i] = 1;
  const std::vector<uint8_t> all = t.allreduce_bits(here, bits_op::all);
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < count; ++i)
    if (all[i]) out.push_back(i);
  return out;
}

// A partition sees only the settings that match its own nodes: a setting is without effect (or
// matches nothing) when every partition says so, in the same words.
std::vector<std::string> lines_of_every_partition(parallel_transport& t, const std::vector<std::string>& lines) {
  std::string mine;
  for (const std::string& l : lines) mine += l + '\n';
  const std::vector<std::vector<char>> all =
      t.exchange(std::vector<std::vector<char>>(static_cast<std::size_t>(t.size()), {mine.begin(), mine.end()}));
  std::vector<std::string> common;
  for (const std::string& l : lines) {
    bool everywhere = true;
    for (const std::vector<char>& other : all)
      everywhere = everywhere && std::string(other.begin(), other.end()).find(l + '\n') != std::string::npos;
    if (everywhere) common.push_back(l);
  }
  return common;
}
}  // namespace

event_player::event_player(sc_core::sc_module_name name, fabric& f, std::vector<link_event> events)
    : sc_module(name), fabric_(f), events_(std::move(events)) {
  std::stable_sort(events_.begin(), events_.end(),
                   [](const link_event& a, const link_event& b) { return a.at < b.at; });
  // A partitioned run plays the events of the links this partition holds (both ends' copies of
  // a cut link take the change).
  if (f.partitioned())
    events_.erase(
        std::remove_if(events_.begin(), events_.end(),
                       [&](const link_event& e) { return !f.holds_link(e.link) && f.topology_has_link(e.link); }),
        events_.end());
  for (std::size_t i = 0; i < events_.size(); ++i) {  // fail before the run, not during it
    try {
      fabric_.link_named(events_[i].link).rate.validate(events_[i].rate);
    } catch (const config_error& e) {
      throw config_error("events: " + std::string(e.what()));
    }
  }
  SC_THREAD(play);  // a handful of events per run: a thread keeps this readable
}

void event_player::play() {
  for (const link_event& e : events_) {
    if (e.at > sc_core::sc_time_stamp()) wait(e.at - sc_core::sc_time_stamp());
    fabric_.link_named(e.link).set_rate(e.rate);
  }
}

simulation::simulation(const scenario& s, const run_options& options) : store_options_(options.store) {
  shrink_systemc_scratch();
  const auto elab_start = std::chrono::steady_clock::now();
  if (!options.store.path.empty()) store_ = std::make_unique<results_store>(options.store.path, options.store.key);
  seed_ = options.seed.value_or(s.seed);
  random_streams::instance().seed(seed_);
  until_ = options.until.value_or(s.until);
  scenario expanded = s;
  expand_workloads(expanded, seed_);
  if (expanded.stop_when_done && expanded.flows.empty())
    throw config_error("run.stop_when_done: the workloads produced no flows");
  if (options.transport && options.transport->size() > 1) {
    transport_ = options.transport;
    if (expanded.stop_when_done)
      throw config_error("run.stop_when_done: not in a partitioned run (--partitions): give run.until instead");
    plan_ = plan_partitions(expanded.topology, transport_->size(), options.partition_method);
    if (!plan_.warning.empty() && transport_->rank() == 0) std::cerr << "sluice: warning: " << plan_.warning << '\n';
    fabric_ = std::make_unique<fabric>(expanded, plan_.owner, static_cast<uint32_t>(transport_->rank()));
    mailbox_ = std::make_unique<frame_mailbox>(*fabric_, plan_.owner, transport_->size());
    fabric_->set_shipper(mailbox_.get());
  } else if (options.window_partitions > 1) {
    const int parts = options.window_partitions;
    if (expanded.stop_when_done)  // its stop is a model's wake-up, in one partition's window
      throw config_error("run.stop_when_done: not with " + options.window_partitions_key +
                         " (its stop is a model's, in one partition's window): give run.until instead");
    plan_ = plan_partitions(expanded.topology, parts, options.partition_method, options.window_partitions_key);
    if (!plan_.warning.empty()) std::cerr << "sluice: warning: " << plan_.warning << '\n';
    window_mailbox_ = std::make_unique<window_mailbox>(expanded.topology, plan_.owner, parts, options.window_threads);
    window_threads_ = options.window_threads;
    window_mailbox* box = window_mailbox_.get();
    event_queue::instance().run_in_windows(
        static_cast<uint32_t>(parts), static_cast<uint32_t>(options.window_threads), plan_.lookahead_ps,
        [box](uint64_t key) { return box->part_of_key(key); }, [box](uint32_t part) { box->deliver(part); });
    fabric_ = std::make_unique<fabric>(expanded);
    window_mailbox_->attach(*fabric_);
  } else {
    fabric_ = std::make_unique<fabric>(expanded);
  }
  flow_ends_.reserve(fabric_->flows.size());
  const sc_core::sc_time period = options.sample_period.value_or(s.sample_period);
  const std::string period_key = options.sample_period ? "--sample-period" : "run.sample_period";
  const std::string period_text = "'" + format_time(period) + "' over " + format_time(until_);
  // One row per period is kept in memory: bound the rows and their bytes rather than exhaust
  // the machine.
  const double samples = std::floor(until_ / period) + 1;
  if (samples > max_samples + 1)
    throw config_error(period_key + ": " + period_text + " gives more than 1000000 samples (set run.sample_period " +
                       "or --sample-period longer)");
  sampler_ = std::make_unique<sampler>("sampler", *fabric_, period);
  provenance_ = run_provenance(s, options, seed_, to_ps(until_), to_ps(period),
                               options.profile.empty() ? s.profile : options.profile);
  if (double bytes = sampler_->estimated_bytes(samples); bytes > max_sample_bytes)
    throw config_error(period_key + ": " + period_text + " keeps about " +
                       format_number(std::ceil(bytes / (1 << 30) * 10) / 10) + " GiB of samples in memory (" +
                       format_number(samples) + " rows; at most " + format_number(max_sample_bytes / (1 << 30)) +
                       " GiB): set run.sample_period or --sample-period longer");
  if (!s.stop_when_done) sampler_->expect_samples(static_cast<std::size_t>(samples));
  events_ = std::make_unique<event_player>("events", *fabric_, s.events);
  deadlocks_ = std::make_unique<deadlock_detector>("deadlock", *fabric_);
  invariants_ = std::make_unique<invariant_checker>(*fabric_);
  sampler_->on_sample([this](uint64_t now) { invariants_->on_sample(now); });
  if (s.stop_when_done) {
    // The kernel announces sc_stop() on stdout as an info of type "/OSCI/SystemC".
    sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
    // Every flow is finite (the loader checks): stop the kernel when the last one completes.
    auto remaining = std::make_shared<std::size_t>(fabric_->flows.size());
    for (auto& n : fabric_->nics)
      n->on_flow_complete([remaining](uint32_t) {
        if (--*remaining == 0) event_queue::instance().request_stop();
      });
  }
  stat_registry::instance().add(nullptr, "sluice.packet_pool", pool_stats, 1, nullptr);
  stat_registry::instance().add(nullptr, "sluice.event_queue", timer_queue_stats, 1, nullptr);
  // Two passes: the first chooses the policies (and sets what exists), the chosen policies then
  // declare their own parameters, and the second pass sets those too; only then is a pattern
  // that matches nothing an error. Re-applying in the same order leaves the same values.
  // The congestion-control schemes (--cc, or each traffic group's cc:) choose policies first,
  // as defaults the scenario's params and --set may still change.
  // A hardware profile replaces declared defaults before each pass, so every setting wins over it.
  fabric_->choose_congestion_control(options.cc);
  const hardware_profile& profile = hardware_profile_named(options.profile.empty() ? s.profile : options.profile,
                                                           options.profile.empty() ? "profile" : "--profile");
  apply_profile(profile, s.topology.layer);
  apply_overrides(s.params, "params", false);
  apply_overrides(options.sets, options.sets_origin, false);
  fabric_->make_policies();
  apply_profile(profile, s.topology.layer);
  // A pattern that still matches nothing is a typo, or names a parameter of a scheme the run
  // does not use: a setting with no effect (checked with the others below).
  std::vector<std::size_t> params_unmatched = apply_overrides(s.params, "params", false);
  std::vector<std::size_t> sets_unmatched = apply_overrides(options.sets, options.sets_origin, false);
  if (transport_) {  // a pattern matches nothing only if it matches nothing in any partition
    params_unmatched = unmatched_everywhere(*transport_, params_unmatched, s.params.size());
    sets_unmatched = unmatched_everywhere(*transport_, sets_unmatched, options.sets.size());
  }
  const std::string in_use = schemes_in_use(*fabric_, options);
  unused_scheme_settings_ = {unmatched_settings(s.params, params_unmatched, "params", *fabric_, in_use),
                             unmatched_settings(options.sets, sets_unmatched, options.sets_origin, *fabric_, in_use)};
  if (transport_) {
    // What the headroom of a cut link's port needs from the other side: the far port's pause
    // response and the largest frame of the whole fabric. One partition holds each link end, so
    // an OR of the bytes gathers the values.
    const std::vector<uint64_t> near = fabric_->near_responses();
    std::vector<uint8_t> bytes(near.size() * sizeof(uint64_t));
    std::memcpy(bytes.data(), near.data(), bytes.size());
    bytes = transport_->allreduce_bits(bytes, bits_op::any);
    std::vector<uint64_t> far(near.size());
    std::memcpy(far.data(), bytes.data(), bytes.size());
    fabric_->set_far_responses(std::move(far));
    fabric_->derive_defaults([this](uint64_t v) { return transport_->allreduce(v, reduce_op::max); });
  } else {
    fabric_->derive_defaults();
  }
  for (const std::string& w : fabric_->warnings()) std::cerr << "sluice: warning: " << w << '\n';
  fabric_->check_policies();  // after the derived headroom: a congestion point's Qeq is checked against it
  if (transport_)
    fabric_->arm_resequencing([this](bool v) { return transport_->allreduce(v ? 1 : 0, reduce_op::max) != 0; });
  else
    fabric_->arm_resequencing();
  check_inert_settings(s, options);
  if (!options.capture.dir.empty())
    capture_ = std::make_unique<frame_capture>(options.capture, s.topology.layer == link_layer::ib);
  if (!options.trace_frames.empty())
    trace_ = std::make_unique<frame_trace>(options.trace_frames, *fabric_, options.trace_frames_key);
  if (!options.waveform.path.empty()) {
    std::vector<std::pair<uint32_t, std::string>> flows;
    for (const flow& fl : fabric_->flows) flows.emplace_back(fl.id, fabric_->nic_at(fl.spec.src).name());
    std::map<const void*, const switch_port*> port_of_egress;
    for (const auto& sw : fabric_->switches)
      for (const auto& port : sw->ports) port_of_egress[&port->egress] = port.get();
    auto cp_state = [port_of_egress](const void* egress, int cls) {
      auto it = port_of_egress.find(egress);
      const congestion_point_if* cp = it == port_of_egress.end() ? nullptr : it->second->congestion_point(cls);
      return cp ? cp->state() : -1;
    };
    waveform_ =
        std::make_unique<waveform>(options.waveform, s.topology.layer == link_layer::ib ? 16 : 8, flows, cp_state);
  }
  elab_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - elab_start).count();
}

simulation::~simulation() = default;

std::optional<int64_t> simulation::store_results(bool interrupted) const {
  if (!store_) return std::nullopt;
  return store_->append(*this, interrupted, store_options_.series, store_options_.tags);
}

void simulation::check_inert_settings(const scenario& s, const run_options& options) {
  std::vector<std::string> lines = inert_settings(s.params, "params");
  for (std::string& line : unused_scheme_settings_[0]) lines.push_back(std::move(line));
  for (std::string& line : inert_settings(options.sets, options.sets_origin)) lines.push_back(std::move(line));
  for (std::string& line : unused_scheme_settings_[1]) lines.push_back(std::move(line));
  if (transport_) lines = lines_of_every_partition(*transport_, lines);
  if (lines.empty()) return;
  if (!options.allow_inert && !s.allow_inert)
    throw config_error(lines.front() + " (" + options.allow_inert_key + " or run.allow_inert: true to run anyway)");
  for (std::string& line : lines) {
    std::cerr << "sluice: warning: " << line << '\n';
    build_warnings_.push_back(std::move(line));
  }
}

void simulation::run() {
  invariants_->run_ends_at(to_ps(until_));
  auto wall_start = std::chrono::steady_clock::now();
  if (transport_)
    windows_ = run_windows(to_ps(until_), plan_.lookahead_ps, *mailbox_, *transport_, *fabric_);
  else
    sluice::start(until_);
  wall_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  sampler_->finish();                                         // the kernel stops before running the tick due at `until`
  invariants_->check(to_ps(sc_core::sc_time_stamp()), true);  // the end of the run, sampled or not
  if (capture_) capture_->finish();
  if (waveform_) waveform_->finish(to_ps(sc_core::sc_time_stamp()));
}

}  // namespace sluice
