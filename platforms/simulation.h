// One simulation run of a scenario: seed, elaborate the fabric, apply overrides, run, report.
// SystemC elaborates once per process, so construct at most one simulation per process.
#pragma once
#include <array>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/switch/queued_frame.h"
#include "platforms/deadlock_detector.h"
#include "platforms/fabric.h"
#include "platforms/frame_capture.h"
#include "platforms/frame_trace.h"
#include "platforms/invariants.h"
#include "platforms/parallel_transport.h"
#include "platforms/partition.h"
#include "platforms/sampler.h"
#include "platforms/waveform.h"

namespace sluice {

class summary_sink;  // platforms/summary_sink.h
class results_store;

// --store FILE [--store-series]: where the run is appended (platforms/results_store.h).
struct store_options {
  std::string path;  // "": no store
  bool series = false;
  std::string tags;             // a JSON object kept with the run (a sweep's point), or ""
  std::string key = "--store";  // how errors name the option ("store" in Python)
};

struct run_options {
  std::vector<std::pair<std::string, std::string>> sets;  // --set PATTERN=VALUE, in order
  std::string sets_origin = "--set";                      // how errors name them ("set" in Python)
  std::optional<sc_core::sc_time> until;
  std::optional<uint64_t> seed;
  std::optional<sc_core::sc_time> sample_period;
  std::string cc;               // --cc: one congestion-control scheme for every flow ("" : the scenario's)
  std::string cc_key = "--cc";  // how errors name it ("cc" in Python)
  std::string profile;          // --profile: the hardware profile ("" : the scenario's)
  bool allow_inert = false;     // --allow-inert: settings that do nothing warn instead of failing
  std::string allow_inert_key = "--allow-inert";  // how the inert-setting error names it
  capture_options capture;                        // --pcap, --capture...: packet captures (none by default)
  std::string trace_frames;                       // --trace-frames FILTER: a frame trace ("": none)
  waveform_options waveform;                      // --vcd FILE --trace PATTERNS: waveforms (none by default)
  std::string trace_frames_key = "--trace-frames";
  store_options store;  // --store FILE: append the run to a results store (none by default)
  // A partitioned run (docs/parallel.md): this process is partition transport->rank() of
  // transport->size() (none, or size 1: the whole fabric in this process).
  parallel_transport* transport = nullptr;
  std::string partition_method = "auto";  // --partition-method (platforms/partition.h)
  // --window-partitions: the whole fabric in this process, in this many partitions run window by
  // window, each on its own calendar (docs/parallel.md; event_queue::run_in_windows); 1: none.
  int window_partitions = 1;
  std::string window_partitions_key = "--window-partitions";  // how errors name it ("window_partitions" in Python)
  // --window-threads: the threads that drain each window's partitions at once (1: this one).
  int window_threads = 1;
};

// The most threads a windowed run takes.
constexpr int max_window_threads = 64;

// The most partitions a windowed run takes (a timed client keeps its partition in 8 bits).
constexpr int max_window_partitions = 254;

// Plays the scenario's timed events (link capacity changes).
class event_player : public sc_core::sc_module {
 public:
  event_player(sc_core::sc_module_name name, fabric& f, std::vector<link_event> events);
  SC_HAS_PROCESS(event_player);

 private:
  void play();
  fabric& fabric_;
  std::vector<link_event> events_;
};

class simulation {
 public:
  // Bounds on the time series kept in memory: rows (samples over `until`), and their bytes.
  static constexpr double max_samples = 1e6, max_sample_bytes = 2.0 * (1ull << 30);

  simulation(const scenario& s, const run_options& options);
  ~simulation();
  void run();
  fabric& fabric_model() { return *fabric_; }
  const fabric& fabric_model() const { return *fabric_; }
  const sampler& samples() const { return *sampler_; }
  sampler& samples() { return *sampler_; }
  const deadlock_detector& deadlocks() const { return *deadlocks_; }
  const frame_capture* capture() const { return capture_.get(); }  // null without --pcap
  const frame_trace* trace() const { return trace_.get(); }        // null without --trace-frames
  sc_core::sc_time until() const { return until_; }
  double wall_seconds() const { return wall_s_; }
  // Problems found while building the run (inert settings allowed by allow_inert), for stderr
  // and summary.json's warnings.
  const std::vector<std::string>& build_warnings() const { return build_warnings_; }
  // A partitioned run: the plan, and the frames this partition exchanged (null transport: none).
  parallel_transport* transport() const { return transport_; }
  const partition_plan& plan() const { return plan_; }
  const class frame_mailbox* mailbox() const { return mailbox_.get(); }
  uint64_t windows() const { return windows_; }
  // A windowed run (--window-partitions): summary.json's `windows` (its plan, the windows run and
  // each thread's busy wall time); null otherwise.
  nlohmann::json window_summary() const;
  // How the run was made: scenario and its hash, overrides in order, options, build, host, date.
  const nlohmann::json& provenance() const { return provenance_; }

  nlohmann::json summary() const;
  void emit_summary(summary_sink& out) const;  // summary.json's members, in key order
  // What the nodes this process owns measured, with the raw material of the global members
  // under "_partial" (platforms/partial_summary.h; process_level: see partial_summary).
  void emit_partial_summary(summary_sink& out, bool process_level) const;
  std::string table() const;  // the summary as a readable text report
  // The CSV series of the outputs, by file name without ".csv", in the order written.
  std::vector<std::pair<std::string, const series*>> csv_series() const;
  // Writes summary.json and the time-series CSVs into `dir` (created if missing).
  void write_outputs(const std::string& dir) const;
  // With options.store: appends the run to the results store, returns its id (else nothing).
  std::optional<int64_t> store_results(bool interrupted) const;

 private:
  // Settings whose every match has no effect: an error, or warnings when the run allows them.
  void check_inert_settings(const scenario& s, const run_options& options);
  void emit(summary_sink& out, bool partial, bool process_level) const;
  // The switch queues' table of flow ends, for this run's flows: declared before the fabric, so
  // that it outlives the queues that read it.
  queued_flow_ends::scope flow_ends_;
  std::unique_ptr<fabric> fabric_;
  std::unique_ptr<sampler> sampler_;
  std::unique_ptr<event_player> events_;
  std::unique_ptr<deadlock_detector> deadlocks_;
  std::unique_ptr<invariant_checker> invariants_;
  std::unique_ptr<frame_capture> capture_;
  std::unique_ptr<frame_trace> trace_;
  std::unique_ptr<class waveform> waveform_;
  std::unique_ptr<results_store> store_;  // opened before elaboration: a bad path fails first
  parallel_transport* transport_ = nullptr;
  partition_plan plan_;
  std::unique_ptr<class frame_mailbox> mailbox_;
  std::unique_ptr<class window_mailbox> window_mailbox_;  // a windowed run's cut links
  int window_threads_ = 1;                                // --window-threads
  uint64_t windows_ = 0;
  store_options store_options_;
  sc_core::sc_time until_;
  double wall_s_ = 0;
  double elab_s_ = 0;  // building the fabric, routes, overrides (before sc_start)
  uint64_t seed_ = 1;
  nlohmann::json provenance_;  // how the run was made (platforms/provenance.h)
  std::vector<std::string> build_warnings_;
  // Settings of schemes the run does not use, from params: and from the overrides (inert settings).
  std::array<std::vector<std::string>, 2> unused_scheme_settings_;
};

}  // namespace sluice
