// The `sluice` command line: run a scenario, or list the parameters or statistics of its fabric.
#include <unistd.h>

#include <array>
#include <boost/program_options.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

#include "models/cc/scheme.h"
#include "models/core/event_queue.h"
#include "models/core/probe.h"
#include "models/core/stats.h"
#include "platforms/compare.h"
#include "platforms/html_report.h"
#include "platforms/huge_pages.h"
#include "platforms/listing.h"
#include "platforms/partial_summary.h"
#include "platforms/partitioned_run.h"
#include "platforms/profiles.h"
#include "platforms/regs_cli.h"
#include "platforms/run_progress.h"
#include "platforms/run_request.h"
#include "platforms/simulation.h"

namespace po = boost::program_options;
using namespace sluice;

namespace {

// The tool owns its output: SystemC prints a copyright banner before sc_main unless this
// variable is set. Static initialization of this executable runs before SystemC's main().
[[maybe_unused]] const bool banner_off = setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0;

// After a run on window threads: how evenly the threads' partitions weighed (docs/parallel.md):
// each thread's share of the windows' wall time at work, the rest waiting for the others.
void print_lanes_busy(std::ostream& out) {
  const event_queue& q = event_queue::instance();
  const double steps_s = q.window_steps_s();
  out << "window threads: " << q.windows_run() << " windows in " << std::setprecision(3) << steps_s << " s; busy";
  const char* sep = " ";
  for (double busy : q.lanes_busy_s()) {
    out << sep << std::fixed << std::setprecision(1) << (steps_s > 0 ? 100.0 * busy / steps_s : 0.0) << " %";
    sep = ", ";
  }
  out << " (thread 0 first)\n" << std::defaultfloat << std::setprecision(6);
}

const char* usage =
    "usage: sluice run SCENARIO.yaml [--set PATH=VALUE ...] [--until 20ms] [--seed N] [--sample-period 10us]\n"
    "                  [--cc NAME] [--profile NAME] [--allow-inert] [--out DIR] [--quiet]\n"
    "                  [--pcap DIR --capture PORTS [--capture-kinds K,..] [--capture-window FROM:TO]]\n"
    "                  [--trace-frames FILTER] [--vcd FILE --trace SIGNALS [--trace-window FROM:TO]]\n"
    "                  [--store FILE.sqlite [--store-series]] [--report[=FILE.html]]\n"
    "       mpirun -np P sluice run SCENARIO.yaml --partitions P [--partition-method auto|metis|pod|blocks] ...\n"
    "       sluice params SCENARIO.yaml [--set PATH=VALUE ...] [--cc NAME] [--profile NAME] [--allow-inert]\n"
    "                     [--match GLOB]\n"
    "       sluice stats SCENARIO.yaml [--match GLOB]\n"
    "       sluice probes SCENARIO.yaml [--match GLOB]\n"
    "       sluice compare RUN_A RUN_B [--match GLOB]   (run folders, summary.json files or FILE.sqlite:ID)\n"
    "       sluice regs DEVICE [--format table|json|c|md|rdl]   (switch, nic, or a block: switch_port, ...)\n";

// Columns as wide as their widest cell among the rows shown (a long choice list or name must
// not run into the next column).
void print_params(const std::string& match) {
  std::vector<param_row> rows{{"parameter", "unit", "default", "value", "range", "change", "description"}};
  for (param_row& r : list_params(match, "--match")) rows.push_back(std::move(r));
  std::array<std::size_t, 6> width{};
  for (const param_row& r : rows)
    for (std::size_t c = 0; c < width.size(); ++c) width[c] = std::max(width[c], r[c].size() + 2);
  for (const param_row& r : rows) {
    for (std::size_t c = 0; c < width.size(); ++c)
      std::cout << std::left << std::setw(static_cast<int>(width[c])) << r[c];
    std::cout << r[6] << '\n';
  }
}

void print_stats(const std::string& match) {
  const std::vector<stat_registry::row> rows = list_stats(match, "--match");
  std::cout << std::left << std::setw(40) << "statistic" << std::setw(8) << "unit"
            << "description\n";
  for (const stat_registry::row& r : rows)
    std::cout << std::left << std::setw(40) << r.name << std::setw(8) << r.desc->unit << r.desc->description << '\n';
}

void print_probes(const std::string& match) {
  const std::vector<const probe_point*> points = list_probes(match, "--match");
  std::cout << std::left << std::setw(40) << "probe point"
            << "event; value\n";
  for (const probe_point* p : points)
    std::cout << std::left << std::setw(40) << p->name() << p->kind->description() << "; " << p->kind->value_meaning()
              << '\n';
}

// --out DIR must be a folder we can write, created if needed.
void check_out_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw config_error("--out: cannot create '" + dir + "': " + ec.message());
  if (!std::filesystem::is_directory(dir, ec)) throw config_error("--out: '" + dir + "' is not a folder");
  if (access(dir.c_str(), W_OK) != 0) throw config_error("--out: '" + dir + "' is not writable");
}

// --report[=FILE]: only --report=FILE names a file. Boost lets an option with an implicit value
// take the next word as its value (`--report run.yaml` would eat the scenario), so the bare word
// --report is given a value before Boost sees it; `bare` records that the default file is meant.
std::pair<std::string, std::string> bare_report(const std::string& token, bool& bare) {
  if (token != "--report") return {};
  bare = true;
  return {"report", "report.html"};
}

// A word after a bare --report is not its file: say how to name one (one line).
void check_no_word_after_report(int argc, char* argv[]) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--report" && argv[i + 1][0] != '-')
      throw config_error(std::string("--report: '") + argv[i + 1] +
                         "' after --report is not its file; name the file as --report=" + argv[i + 1] +
                         " (--report alone: DIR/report.html with --out, else report.html)");
}

// --report FILE: its folder must exist and be writable, checked before the run.
void check_report_file(const std::string& file) {
  const std::filesystem::path folder = std::filesystem::absolute(file).parent_path();
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec))
    throw config_error("--report: no folder '" + folder.string() + "' for '" + file + "'");
  if (access(folder.c_str(), W_OK) != 0) throw config_error("--report: '" + folder.string() + "' is not writable");
}

// The page is made from the run's outputs: the --out folder, or a temporary one removed after.
void write_report(const simulation& sim, const std::string& out_dir, const std::string& file) {
  if (!out_dir.empty()) return write_html_report(out_dir, file);
  std::string temp = (std::filesystem::temp_directory_path() / "sluice-report-XXXXXX").string();
  if (!mkdtemp(temp.data()))
    throw config_error("--report: cannot make a temporary folder: " + std::string(std::strerror(errno)));
  struct remove_after {
    std::string dir;
    ~remove_after() {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  } cleanup{temp};
  sim.write_outputs(temp);
  write_html_report(temp, file);
}

// Tearing down a big fabric costs more than running it: SystemC unregisters each of its tens of
// thousands of objects, ports and exports by a linear search (O(n^2) in all). The process is
// done once the outputs are written and flushed, so it leaves without the teardown.
[[noreturn]] void finish(int code) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(code);
}

// sluice compare A B: only --match applies.
int compare(const po::variables_map& vm, const std::string& a, const std::string& b, const std::string& match) {
  if (a.empty() || b.empty())
    throw config_error("compare: needs two runs (run folders, summary.json files or FILE.sqlite:ID)");
  for (const auto& [name, value] : vm)
    if (name != "command" && name != "scenario" && name != "other" && name != "match" && name != "quiet" &&
        !value.defaulted())
      throw config_error("--" + name + ": applies to run, params, stats or probes, not 'compare'");
  if (match.empty()) throw config_error("--match: '' is empty");
  std::cout << compare_runs(load_run_summary(a), load_run_summary(b), a, b, match);
  finish(0);
}

// mpirun -np P sluice run ... --partitions P: this process simulates its partition; rank 0 gathers
// every partition's partial outputs and writes the single-process run's (docs/parallel.md).
int run_partitioned(int argc, char* argv[], int partitions, const std::string& method, run_options opts,
                    const std::string& scenario_path, const std::string& out_dir, bool quiet,
                    const po::variables_map& vm) {
  for (const char* opt : {"pcap", "trace-frames", "vcd", "store", "report"})
    if (vm.count(opt))
      throw config_error(std::string("--") + opt + ": not in a partitioned run (--partitions) yet (docs/parallel.md)");
  std::unique_ptr<parallel_transport> transport = make_mpi_transport();
  if (transport->size() != partitions)
    throw config_error("--partitions: '" + std::to_string(partitions) + "' but mpirun started " +
                       std::to_string(transport->size()) + " processes (mpirun -np " + std::to_string(partitions) +
                       ")");
  opts.transport = transport.get();
  opts.partition_method = method;
  const int code = run_rank(*transport, [&] {
    scenario s = load_scenario_file(scenario_path);
    simulation sim(s, opts);
    if (!out_dir.empty() && transport->rank() == 0) check_out_dir(out_dir);
    sim.run();
    const std::vector<std::string> summaries = transport->gather_strings(to_partial_bytes(partial_summary(sim)));
    const std::vector<std::string> series = transport->gather_strings(to_partial_bytes(partial_series(sim)));
    if (transport->rank() != 0) return 0;
    std::vector<nlohmann::json> parts, part_series;
    for (const std::string& b : summaries) parts.push_back(from_partial_bytes(b));
    for (const std::string& b : series) part_series.push_back(from_partial_bytes(b));
    const nlohmann::json summary = merge_summaries(parts);
    if (!quiet) {
      std::cout << summary_table(summary);
      std::cout << "partitions: " << partitions << " (" << sim.plan().method << "), lookahead "
                << format_time(from_ps(sim.plan().lookahead_ps)) << ", " << sim.plan().cut.size() << " cut links, "
                << sim.windows() << " windows\n";
    }
    if (!out_dir.empty()) {
      write_merged_outputs(out_dir, summary, merge_series(part_series));
      if (!quiet) std::cout << "outputs written to " << out_dir << "/\n";
    }
    return 0;
  });
  transport->finalize();
  finish(code);
}

int run(int argc, char* argv[]) {
  std::string command, scenario_path, other_path, out_dir, until, sample_period, seed, cc, profile, match = "*";
  std::string format = "table";
  std::string pcap, capture_kinds, capture_window, trace_frames, vcd, trace_window, store, report;
  std::vector<std::string> sets, capture, trace;
  bool quiet = false, allow_inert = false, store_series = false;
  int partitions = 1;
  std::string partition_method = "auto", window_partitions, window_threads;
  // The scheme list comes from the scheme table, so --help names every scheme there is.
  const std::string cc_help = "run, params: one congestion-control scheme for every flow (" +
                              cc_scheme_registry::instance().names() +
                              "): its congestion point on the switch queues of the traffic's classes, notification "
                              "point at receivers, reaction point at senders";
  const std::string profile_help = "run, params: hardware profile of defaults (" + hardware_profile_names() +
                                   "; docs/models/profiles.md), replacing the scenario's profile";
  po::options_description options("options");
  options.add_options()("help,h", "show this help")("set", po::value(&sets)->composing(),
                                                    "override parameters: PATH=VALUE, PATH may use * and ?")(
      "until", po::value(&until), "simulated time to run, e.g. 20ms (overrides run.until)")(
      "sample-period", po::value(&sample_period), "period of the CSV time series (overrides run.sample_period)")(
      "seed", po::value(&seed), "random seed (overrides run.seed)")("cc", po::value(&cc), cc_help.c_str())(
      "profile", po::value(&profile), profile_help.c_str())(
      "allow-inert", po::bool_switch(&allow_inert),
      "run, params: a setting whose every match has no effect warns instead of failing")(
      "out", po::value(&out_dir), "write summary.json and time-series CSVs into DIR")(
      "partitions", po::value(&partitions),
      "run: split the fabric over P processes started by mpirun -np P (docs/parallel.md); the outputs are the "
      "single-process run's")(
      "partition-method", po::value(&partition_method),
      "with --partitions or --window-partitions: auto (the default: the balanced plan with the longest lookahead), "
      "metis, pod or blocks")(
      "window-partitions", po::value(&window_partitions),
      "run: one process, the fabric in P partitions run window by window (faster for large fabrics; "
      "docs/parallel.md); the outputs are the whole run's")(
      "window-threads", po::value(&window_threads),
      "with --window-partitions: T threads drain each window's partitions at once (partition p on thread p % T; "
      "docs/parallel.md)")("quiet,q", po::bool_switch(&quiet), "do not print the summary table")(
      "pcap", po::value(&pcap), "write packet captures (pcapng, one file per port) into DIR; needs --capture")(
      "capture", po::value(&capture)->composing(), "ports to capture: names or globs (sw0.port4, 'h*'), repeatable")(
      "capture-kinds", po::value(&capture_kinds), "frame kinds to capture, e.g. data,pfc,cnm,cnp (default: all)")(
      "capture-window", po::value(&capture_window), "simulated time to capture, FROM:TO, e.g. 1ms:2ms (default: all)")(
      "vcd", po::value(&vcd), "write a waveform (VCD, picoseconds; GTKWave) of the --trace signals into FILE")(
      "trace", po::value(&trace)->composing(),
      "signals for --vcd: names or globs (sw0.port4.prio3.queue_bytes, '*.paused', 'h*.flow*.rate'), repeatable")(
      "trace-window", po::value(&trace_window), "simulated time the VCD covers, FROM:TO (default: all)")(
      "trace-frames", po::value(&trace_frames),
      "write frame_trace.csv (needs --out): every event of the frames FILTER keeps, e.g. flow=3, kind=cnm, id=N")(
      "store", po::value(&store),
      "append the run (provenance, totals, counters, flows, ports, links) to the results store FILE (SQLite; "
      "created if missing)")("store-series", po::bool_switch(&store_series), "with --store: keep the CSV series too")(
      "format", po::value(&format), "regs: table, json, c (the firmware header), md or rdl (SystemRDL 2.0)")(
      "report",
      po::value(&report)->implicit_value("", "DIR/report.html with --out, else report.html")->value_name("FILE"),
      "write one self-contained HTML page of the run (summary, plots, provenance, warnings); a file is named "
      "with '=' only (--report=FILE); runs the venv's python ($SLUICE_PYTHON)")(
      "match", po::value(&match),
      "params, stats, probes: list only names matching GLOB; compare: only metrics matching GLOB");
  po::options_description hidden;
  hidden.add_options()("command", po::value(&command))("scenario", po::value(&scenario_path))("other",
                                                                                              po::value(&other_path));
  po::options_description all;
  all.add(options).add(hidden);
  po::positional_options_description positional;
  positional.add("command", 1).add("scenario", 1).add("other", 1);
  po::variables_map vm;
  bool report_bare = false;
  po::store(po::command_line_parser(argc, argv)
                .options(all)
                .positional(positional)
                .extra_parser([&](const std::string& token) { return bare_report(token, report_bare); })
                .run(),
            vm);
  po::notify(vm);
  if (vm.count("help") || command.empty()) {
    std::cout << usage << options;
    return command.empty() && !vm.count("help") ? 2 : 0;
  }
  if (command == "compare") return compare(vm, scenario_path, other_path, match);
  if (command == "regs") {
    for (const auto& [name, value] : vm)
      if (name != "command" && name != "scenario" && name != "format" && name != "quiet" && !value.defaulted())
        throw config_error("--" + name + ": does not apply to 'regs'");
    if (scenario_path.empty()) throw config_error("regs: name a device kind (switch, nic) or a block");
    std::cout << register_map_text(scenario_path, format);
    finish(0);
  }
  if (vm.count("format") && !vm["format"].defaulted()) throw config_error("--format: applies to 'regs' only");
  if (command != "run" && command != "params" && command != "stats" && command != "probes")
    throw config_error("command: '" + command + "' is not run, params, stats, probes, compare or regs");
  if (scenario_path.empty()) throw config_error("missing SCENARIO.yaml");
  if (!other_path.empty() && report_bare) check_no_word_after_report(argc, argv);
  if (!other_path.empty()) throw config_error("'" + other_path + "': one scenario only (" + command + ")");
  // An option that does not apply to the command would be silently ignored: reject it.
  const bool run_command = command == "run";
  for (const char* opt : {"until", "sample-period", "seed", "out", "pcap", "capture", "capture-kinds", "capture-window",
                          "trace-frames", "vcd", "trace", "trace-window", "store", "report"})
    if (!run_command && vm.count(opt))
      throw config_error(std::string("--") + opt + ": applies to 'run' only, not '" + command + "'");
  if (run_command && vm.count("match"))
    throw config_error("--match: applies to 'params', 'stats' and 'probes', not 'run'");
  const bool listing = command == "stats" || command == "probes";
  if (listing && !sets.empty()) throw config_error("--set: applies to 'run' and 'params', not '" + command + "'");
  for (const char* opt : {"cc", "profile", "allow-inert"})
    if (listing && vm.count(opt) && !vm[opt].defaulted())
      throw config_error(std::string("--") + opt + ": applies to 'run' and 'params', not '" + command + "'");
  if (!run_command && store_series) throw config_error("--store-series: applies to 'run' only, not '" + command + "'");
  for (const char* opt : {"out", "match"})  // an empty value is an error, not "no option"
    if (vm.count(opt) && vm[opt].as<std::string>().empty())
      throw config_error(std::string("--") + opt + ": '' is empty");
  run_request request;
  for (const std::string& kv : sets) request.sets.push_back(split_set_argument(kv, "--set"));
  if (vm.count("until")) request.until = until;
  if (vm.count("sample-period")) request.sample_period = sample_period;
  if (vm.count("seed")) request.seed = seed;
  if (vm.count("cc")) request.cc = cc;
  if (vm.count("profile")) request.profile = profile;
  request.allow_inert = allow_inert;
  if (vm.count("pcap")) request.pcap = pcap;
  if (vm.count("trace-frames")) request.trace_frames = trace_frames;
  if (vm.count("vcd")) request.vcd = vcd;
  if (vm.count("trace-window")) request.trace_window = trace_window;
  request.trace = trace;
  if (vm.count("trace-frames") && out_dir.empty()) throw config_error("--trace-frames: needs --out DIR");
  if (vm.count("capture-kinds")) request.capture_kinds = capture_kinds;
  if (vm.count("capture-window")) request.capture_window = capture_window;
  request.capture = capture;
  if (vm.count("store")) request.store = store;
  request.store_series = store_series;
  if (vm.count("window-partitions")) {
    if (!run_command) throw config_error("--window-partitions: applies to 'run' only, not '" + command + "'");
    if (vm.count("partitions"))
      throw config_error("--window-partitions: not with --partitions (windows are one process's; docs/parallel.md)");
    request.window_partitions = window_partitions;
    if (vm.count("partition-method")) request.partition_method = partition_method;
  }
  if (vm.count("window-threads")) {
    if (!run_command) throw config_error("--window-threads: applies to 'run' only, not '" + command + "'");
    request.window_threads = window_threads;
  }
  run_options opts = parse_run_request(request, "--");
  if (vm.count("partitions") || (vm.count("partition-method") && !vm.count("window-partitions"))) {
    if (!run_command) throw config_error("--partitions: applies to 'run' only, not '" + command + "'");
    if (partitions > 1)
      return run_partitioned(argc, argv, partitions, partition_method, opts, scenario_path, out_dir, quiet, vm);
    if (partitions < 1) throw config_error("--partitions: '" + std::to_string(partitions) + "' is below 1");
    if (vm.count("partition-method"))  // one process: the method would choose nothing
      throw config_error("--partition-method: '" + partition_method +
                         "' needs --partitions or --window-partitions 2 or more");
  }
  if (const char* size = std::getenv("OMPI_COMM_WORLD_SIZE"); size && std::string(size) != "1" && run_command)
    throw config_error(std::string("started by mpirun with ") + size + " processes: give --partitions " + size +
                       " (docs/parallel.md)");
  scenario s = load_scenario_file(scenario_path);
  simulation sim(s, opts);
  if (command == "params") {
    print_params(match);
    finish(0);
  }
  if (command == "stats") {
    print_stats(match);
    finish(0);
  }
  if (command == "probes") {
    print_probes(match);
    finish(0);
  }
  if (!out_dir.empty()) check_out_dir(out_dir);  // before the run, not after it
  if (report_bare) report = out_dir.empty() ? "report.html" : out_dir + "/report.html";
  if (vm.count("report")) check_report_file(report);
  // Progress on a terminal; Ctrl-C ends the run early and still reports and writes the outputs.
  const uint64_t end_ps = to_ps(sim.until());
  timed_callbacks calls("progress", end_ps);
  run_progress progress(calls, end_ps, !quiet && isatty(STDERR_FILENO));
  sim.run();
  progress.done();
  if (progress.interrupted())
    std::cerr << "sluice: interrupted at " << format_time(sc_core::sc_time_stamp()) << " of "
              << format_time(sim.until()) << ": the summary and outputs hold what was measured until then\n";
  if (!quiet) std::cout << sim.table();
  if (!quiet && opts.window_partitions > 1)
    std::cout << "window partitions: " << opts.window_partitions << " (" << sim.plan().method << "), lookahead "
              << format_time(from_ps(sim.plan().lookahead_ps)) << ", " << sim.plan().cut.size() << " cut links, "
              << opts.window_threads << (opts.window_threads == 1 ? " thread\n" : " threads\n");
  if (!quiet && opts.window_threads > 1) print_lanes_busy(std::cout);
  if (const frame_capture* c = sim.capture(); c && !quiet)
    std::cout << "captured " << c->frames() << " frames into " << c->files().size() << " file(s) in " << pcap << "/\n";
  if (!out_dir.empty()) {
    sim.write_outputs(out_dir);
    if (!quiet) std::cout << "outputs written to " << out_dir << "/\n";
  }
  if (!report.empty()) {
    write_report(sim, out_dir, report);
    if (!quiet) std::cout << "report written to " << report << "\n";
  }
  if (const std::optional<int64_t> id = sim.store_results(progress.interrupted()); id && !quiet)
    std::cout << "stored as run " << *id << " in " << store << " (sluice compare " << store << ":" << *id << ")\n";
  finish(progress.interrupted() ? 130 : 0);
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  relaunch_with_huge_pages(argv);
  try {
    return run(argc, argv);
  } catch (const config_error& e) {
    std::cerr << "sluice: error: " << e.what() << '\n';
  } catch (const po::error& e) {
    std::cerr << "sluice: error: " << printable(e.what()) << " (see sluice --help)\n";
  } catch (const sc_core::sc_report& e) {
    std::cerr << "sluice: error: " << printable(std::string(e.get_msg_type()) + ": " + e.get_msg()) << '\n';
  } catch (const std::exception& e) {
    std::cerr << "sluice: error: " << printable(e.what()) << '\n';
  }
  return 2;
}
