// Debian's tshark over a capture the test wrote, with the repository's Lua dissectors
// (tools/wireshark/sluice.lua): the decoded fields of every frame a display filter keeps.
#pragma once
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace sluice::test {

inline bool have_tshark() { return std::system("command -v tshark >/dev/null 2>&1") == 0; }

// tshark's fields (-T fields, tab-separated) of every frame of `file` matching `filter`.
inline std::vector<std::vector<std::string>> tshark(const std::string& file, const std::string& filter,
                                                    const std::vector<std::string>& fields) {
  const std::string lua = std::string(SLUICE_SOURCE_DIR) + "/tools/wireshark/sluice.lua";
  std::string cmd = "tshark -n -X lua_script:" + lua + " -r '" + file + "' -Y '" + filter + "' -T fields";
  for (const std::string& f : fields) cmd += " -e " + f;
  cmd += " 2>/dev/null";
  std::vector<std::vector<std::string>> rows;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return rows;
  std::string out;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  EXPECT_EQ(pclose(pipe), 0) << cmd;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> row;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, '\t');) row.push_back(cell);
    while (row.size() < fields.size()) row.emplace_back();
    rows.push_back(row);
  }
  return rows;
}

}  // namespace sluice::test
