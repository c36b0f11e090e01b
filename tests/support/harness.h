// Helpers for tests that elaborate a fabric (one per test process) or run the CLI.
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "models/core/params.h"
#include "platforms/simulation.h"

namespace sluice::test {

// Builds a simulation from inline YAML; parameter overrides as "pattern=value".
inline std::unique_ptr<simulation> make_sim(const std::string& yaml,
                                            std::vector<std::pair<std::string, std::string>> sets = {}) {
  run_options o;
  o.sets = std::move(sets);
  return std::make_unique<simulation>(load_scenario_text(yaml, "test"), o);
}

// Scenario YAML: NICs a and b joined by one 40 Gb/s, 1 us link, with the given traffic list
// items and any further top-level YAML (params, run, events).
inline std::string two_nics(const std::string& traffic, const std::string& rest) {
  return "platform:\n  kind: custom\n  switches: []\n  nics: [a, b]\n"
         "  links: [{a: a, b: b, rate: 40Gbps, delay: 1us}]\n"
         "traffic: [" +
         traffic + "]\n" + rest;
}

// Scenario YAML: NIC a -> switch sw0 -> NIC b over two 40 Gb/s, 1 us links, one finite flow
// of `size` on priority 3 with 1500-byte frames, and further top-level YAML (run, events).
inline std::string one_switch(const std::string& size, const std::string& rest) {
  return "platform:\n  kind: custom\n  switches: [sw0]\n  nics: [a, b]\n"
         "  links: [{a: a, b: sw0, rate: 40Gbps, delay: 1us}, {a: sw0, b: b, rate: 40Gbps, delay: 1us}]\n"
         "traffic: [{kind: finite, src: a, dst: b, size: " +
         size +
         ", priority: 3}]\n"
         "params: {\"a.mtu\": 1500B}\n" +
         rest;
}

// Scenario YAML: incast with two senders into r0 at 40 Gb/s, h0 on priority prio0, h1 on prio1.
inline std::string two_senders(int prio0, int prio1, const std::string& rest) {
  return "platform: {kind: incast, senders: 2, link_rate: 40Gbps, link_delay: 1us}\ntraffic:\n"
         "  - {kind: constant, src: h0, dst: r0, rate: 40Gbps, priority: " +
         std::to_string(prio0) +
         "}\n"
         "  - {kind: constant, src: h1, dst: r0, rate: 40Gbps, priority: " +
         std::to_string(prio1) + "}\n" + rest;
}

inline std::string scenario_path(const std::string& name) {
  return std::string(SLUICE_SOURCE_DIR) + "/scenarios/" + name;
}

struct command_result {
  int status = -1;
  std::string output;  // stdout and stderr
};

// Runs the sluice binary with `args` (a shell-quoted string), bounded by a timeout, after the
// shell commands `prefix` (limits: "ulimit -f 1;").
inline command_result run_cli_after(const std::string& prefix, const std::string& args,
                                    const std::string& stderr_to = "&1") {
  std::string cmd = prefix + " timeout 120 " + std::string(SLUICE_BINARY) + " " + args + " 2>" + stderr_to;
  command_result r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf;
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.output.append(buf.data(), n);
  int status = pclose(pipe);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline command_result run_cli(const std::string& args, const std::string& stderr_to = "&1") {
  return run_cli_after("", args, stderr_to);
}

// A file of `text` in the test's temporary folder, named after this process and `name`.
inline std::string write_temp(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + "/" + std::to_string(getpid()) + "-" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// Runs the CLI (`args` shell-quoted, with a shell prefix such as `ulimit -f 1;` allowed through
// `shell_prefix`) expecting failure: its stderr must be one line "sluice: error: ..." naming
// `fragment`, and it must neither crash nor time out.
inline void expect_cli_error(const std::string& args, const std::string& fragment,
                             const std::string& shell_prefix = "") {
  auto r = shell_prefix.empty() ? run_cli(args + " -q", "&1 >/dev/null")
                                : run_cli_after(shell_prefix, args + " -q", "&1 >/dev/null");
  EXPECT_NE(r.status, 0) << args;
  EXPECT_NE(r.status, 124) << "timed out: " << args;
  EXPECT_LT(r.status, 128) << "killed by a signal: " << args;
  std::string err = r.output;
  // Exactly one line: no banner before it, no echoed newline inside it.
  ASSERT_TRUE(!err.empty() && err.back() == '\n') << err;
  err.pop_back();
  EXPECT_EQ(err.find('\n'), std::string::npos) << err;
  EXPECT_EQ(err.rfind("sluice: error: ", 0), 0u) << err;
  EXPECT_NE(err.find(fragment), std::string::npos) << "'" << fragment << "' not in: " << err;
}

// Runs a shipped scenario in this process (once per process) and returns its summary.
inline nlohmann::json run_scenario(const std::string& name,
                                   std::vector<std::pair<std::string, std::string>> sets = {}) {
  run_options o;
  o.sets = std::move(sets);
  simulation sim(load_scenario_file(scenario_path(name)), o);
  sim.run();
  return sim.summary();
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream b;
  b << in.rdbuf();
  return b.str();
}

// A statistic from the summary's counters (zero values are left out of it: 0).
inline double counter(const nlohmann::json& summary, const std::string& name) {
  return summary["counters"].contains(name) ? summary["counters"][name].get<double>() : 0.0;
}

// A parameter's value as text (a test failure if there is none).
inline std::string param_value(const std::string& name) {
  const param_base* p = param_registry::instance().find(name);
  if (!p) {
    ADD_FAILURE() << "no parameter " << name;
    return "";
  }
  return p->value_string();
}

// Mean of a column of a sampled series over the samples in (from_us, to_us].
inline double mean_of(const series& s, const std::string& column, double from_us, double to_us) {
  auto col = std::find(s.columns.begin(), s.columns.end(), column) - s.columns.begin();
  if (static_cast<std::size_t>(col) >= s.columns.size()) {
    ADD_FAILURE() << "no column " << column;
    return 0;
  }
  double sum = 0;
  int n = 0;
  for (std::size_t r = 0; r < s.rows.size(); ++r)
    if (s.times_us[r] > from_us && s.times_us[r] <= to_us) {
      sum += s.rows[r][col];
      ++n;
    }
  return n ? sum / n : 0;
}

inline double utilization(const nlohmann::json& summary, const std::string& link_direction) {
  for (const auto& l : summary["links"])
    if (l["name"] == link_direction) return l["utilization"].get<double>();
  ADD_FAILURE() << "no link " << link_direction;
  return 0;
}

inline nlohmann::json find_port(const nlohmann::json& summary, const std::string& node, const std::string& peer,
                                int priority) {
  for (const auto& p : summary["ports"])
    if (p["node"] == node && p["peer"] == peer && p["priority"] == priority) return p;
  return nullptr;
}

inline nlohmann::json find_flow(const nlohmann::json& summary, const std::string& name) {
  for (const auto& f : summary["flows"])
    if (f["name"] == name) return f;
  return nullptr;
}

// Runs fn in a forked child (before this process elaborates) and returns what it returned: the
// reference run of a test that compares two runs (SystemC elaborates once per process).
inline std::string in_child(const std::function<std::string()>& fn) {
  int fds[2];
  if (pipe(fds) != 0) return "pipe failed";
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const std::string out = fn();
    std::size_t done = 0;
    while (done < out.size()) {
      const ssize_t n = write(fds[1], out.data() + done, out.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string out;
  char buf[65536];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return out;
}

}  // namespace sluice::test
