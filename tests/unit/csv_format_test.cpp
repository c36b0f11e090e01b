// The sampler's CSVs print numbers with std::to_chars; the files must read exactly as they did
// with printf's "%.3f" (time) and "%.6g" (values), byte for byte.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "platforms/sampler.h"

namespace sluice {
namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string path_for(const char* name) {
  return (std::filesystem::temp_directory_path() / (std::string("sluice_csv_") + name + ".csv")).string();
}

TEST(CsvFormat, NumbersReadAsPrintfWroteThem) {
  series s;
  s.columns = {"a", "b", "c"};
  s.times_us = {0.0, 1.5, 20000.0005};
  s.rows = {{0.0, 0.5, 12.0}, {1234567.0, 1e-7, -3.25}, {40e9, 123456.0, 0.1}};
  const std::string path = path_for("hand");
  s.write_csv(path, "time_us");
  // By hand: %.3f keeps three decimals (20000.0005 is just below ...0005 in binary: .000);
  // %.6g keeps six significant digits, drops trailing zeros, and switches to an exponent
  // once the exponent is below -4 or at least 6 (1234567 -> 1.23457e+06, 1e-7 -> 1e-07).
  EXPECT_EQ(read_all(path),
            "time_us,a,b,c\n"
            "0.000,0,0.5,12\n"
            "1.500,1.23457e+06,1e-07,-3.25\n"
            "20000.000,4e+10,123456,0.1\n");
  std::filesystem::remove(path);
}

TEST(CsvFormat, SameBytesAsPrintfOverManyValues) {
  series s;
  s.columns = {"v"};
  std::string expected = "t,v\n";
  char buf[512];
  double v = 1e-9;
  for (int i = 0; i < 400; ++i, v *= -1.37) {
    const double t = i * 0.0123456;
    s.times_us.push_back(t);
    s.rows.push_back({v});
    std::snprintf(buf, sizeof buf, "%.3f,%.6g\n", t, v);
    expected += buf;
  }
  const std::string path = path_for("sweep");
  s.write_csv(path, "t");
  EXPECT_EQ(read_all(path), expected);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace sluice
