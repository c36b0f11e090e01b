// Helpers for tests that elaborate a fabric (one per test process) or run the CLI.
#pragma once
#include <array>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "platforms/simulation.h"

namespace sluice::test {

// Builds a simulation from inline YAML; parameter overrides as "pattern=value".
inline std::unique_ptr<simulation> make_sim(const std::string& yaml,
                                            std::vector<std::pair<std::string, std::string>> sets = {}) {
  run_options o;
  o.sets = std::move(sets);
  return std::make_unique<simulation>(load_scenario_text(yaml, "test"), o);
}

inline std::string scenario_path(const std::string& name) {
  return std::string(SLUICE_SOURCE_DIR) + "/scenarios/" + name;
}

struct command_result {
  int status = -1;
  std::string output;  // stdout and stderr
};

// Runs the sluice binary with `args` (a shell-quoted string), bounded by a timeout.
inline command_result run_cli(const std::string& args, const std::string& stderr_to = "&1") {
  std::string cmd = "timeout 120 " + std::string(SLUICE_BINARY) + " " + args + " 2>" + stderr_to;
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

}  // namespace sluice::test
