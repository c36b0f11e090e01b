// The sampler's CSVs print numbers with std::to_chars; the files must read exactly as they did
// with printf's "%.3f" (time) and "%.6g" (values), byte for byte.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>

#include "platforms/csv_number.h"
#include "platforms/series.h"

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
  s.rows.push_back({0.0, 0.5, 12.0});
  s.rows.push_back({1234567.0, 1e-7, -3.25});
  s.rows.push_back({40e9, 123456.0, 0.1});
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

// The series as printf writes it, one row at a time: "%.3f" times, ",%.6g" values.
std::string as_printf(const series& s, const std::string& time_column) {
  std::string text = time_column;
  for (const std::string& c : s.columns) text += "," + c;
  text += "\n";
  char buf[512];
  for (std::size_t r = 0; r < s.rows.size(); ++r) {
    std::snprintf(buf, sizeof buf, "%.3f", s.times_us[r]);
    text += buf;
    for (double v : s.rows[r]) {
      std::snprintf(buf, sizeof buf, ",%.6g", v);
      text += buf;
    }
    text += "\n";
  }
  return text;
}

// write_csv composes rows in one buffer and writes it when nearly full: long series (many
// writes), rows wider than the usual buffer, rows equal to the one before, and zero-width rows
// must read as printf's rows, one at a time.
TEST(CsvFormat, TheBufferedRowsReadAsPrintfsRowsOneAtATime) {
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<int> frames(0, 40);
  for (const auto& [width, rows] : {std::pair<std::size_t, int>{60, 3000}, {6000, 12}, {1, 20000}, {0, 50}, {17, 0}}) {
    series s;
    for (std::size_t c = 0; c < width; ++c) s.add_column("c" + std::to_string(c), 0, c);
    for (int r = 0; r < rows; ++r) {
      const double t = r * 10.0 + (rng() % 3 ? 0 : 0.0004);
      double* row = s.add_sample(t);
      const bool same = r > 0 && rng() % 4 == 0;  // the row before, bit for bit
      for (std::size_t c = 0; c < width; ++c) {
        uint64_t bits = rng();
        double any;
        std::memcpy(&any, &bits, sizeof any);
        const int kind = static_cast<int>(rng() % 8);
        row[c] = same ? s.rows[r - 1][c] : kind < 3 ? 0.0 : kind < 6 ? frames(rng) * 0.8 : kind < 7 ? -0.0 : any;
      }
    }
    std::ostringstream out;
    s.write_csv(out, "t");
    ASSERT_EQ(out.str(), as_printf(s, "t")) << width << " columns, " << rows << " rows";
  }
}

// A row equal to the one before (bit for bit) is copied from its text: runs of such rows, long
// enough to span many buffer writes, and rows that differ from the one before only in a zero's
// sign or a NaN's bits, must read as printf's rows one at a time.
TEST(CsvFormat, RowsLikeTheOneBeforeAreCopiedAsPrintfPrintsThem) {
  std::mt19937_64 rng(23);
  for (const auto& [width, rows] : {std::pair<std::size_t, int>{3, 40000}, {1, 30000}, {400, 2000}, {0, 100}}) {
    series s;
    for (std::size_t c = 0; c < width; ++c) s.add_column("c" + std::to_string(c), 0, c);
    int run = 0;  // rows left to repeat the one before
    for (int r = 0; r < rows; ++r) {
      const double t = r * 10.0;
      double* row = s.add_sample(t);
      if (r > 0 && run == 0 && rng() % 3 == 0) run = static_cast<int>(rng() % 600);
      for (std::size_t c = 0; c < width; ++c) {
        if (r > 0 && run > 0) {
          row[c] = s.rows[r - 1][c];
          continue;
        }
        const int kind = static_cast<int>(rng() % 6);
        const uint64_t nan_bits = 0x7FF8000000000000ull | (rng() & 0xFF);
        double nan;
        std::memcpy(&nan, &nan_bits, sizeof nan);
        const double previous = r > 0 ? s.rows[r - 1][c] : 1.0;
        row[c] = kind == 0   ? -previous  // 0.0 after -0.0: equal as numbers, not as bits
                 : kind == 1 ? nan
                 : kind == 2 ? previous
                             : static_cast<double>(rng() % 100) * 0.4;
      }
      if (run > 0) --run;
    }
    const std::string expected = as_printf(s, "t");
    std::ostringstream out;
    s.write_csv(out, "t");
    ASSERT_EQ(out.str(), expected) << width << " columns, " << rows << " rows";
    const time_texts shared(s.times_us);  // the sampler's path: the time texts copied
    std::ostringstream with_texts;
    s.write_csv(with_texts, "t", &shared);
    ASSERT_EQ(with_texts.str(), expected) << width << " columns, " << rows << " rows, shared times";
  }
}

// The sampler's series print one time column, made once (time_texts): written with the texts of
// their times, a series must read as written alone; with another series' texts (other times, or
// as many times but one differs), or texts too long for their slots (times past 10^12 us, where
// every series prints its own), it prints its own times.
TEST(CsvFormat, SharedTimeTextsPrintWhatEachSeriesPrintsAlone) {
  std::mt19937_64 rng(9);
  for (int trial = 0; trial < 60; ++trial) {
    const int rows = static_cast<int>(rng() % 400);
    series a, b;
    a.add_column("x", 0, 0);
    b.add_column("y", 0, 1);
    b.add_column("z", 0, 2);
    const int kind = trial % 4;  // 0: as the sampler's; 1: huge times; 2: one time differs; 3: fewer rows
    for (int r = 0; r < rows; ++r) {
      double t = kind == 1 && r % 7 == 3 ? std::ldexp(1.0, 40 + static_cast<int>(rng() % 30)) : r * 10.0;
      if (rng() % 5 == 0) t += static_cast<double>(rng() % 1000000) * 1e-4;  // a run's last, shorter sample
      a.add_sample(t)[0] = static_cast<double>(rng() % 50) * 0.8;
      if (kind == 3 && r + 1 == rows) break;
      if (kind == 2 && r == rows / 2) t += 0.001;
      double* row = b.add_sample(t);
      row[0] = static_cast<double>(r);
      row[1] = -static_cast<double>(rng() % 7);
    }
    const time_texts shared(a.times_us);
    for (const series* s : {&a, &b}) {
      std::ostringstream alone, with_texts;
      s->write_csv(alone, "time_us");
      s->write_csv(with_texts, "time_us", &shared);
      ASSERT_EQ(with_texts.str(), alone.str()) << "trial " << trial << (s == &a ? " a" : " b");
    }
    if (kind == 0) {
      EXPECT_TRUE(shared.are_of(b.times_us)) << trial;  // the texts are used
    }
    if (kind == 1 && rows > 3) {
      EXPECT_FALSE(shared.are_of(a.times_us)) << trial;
    }
    if (kind >= 2 && rows > 0) {
      EXPECT_FALSE(shared.are_of(b.times_us)) << trial;
    }
  }
}

// csv_number's short path (a scaled product, exact away from rounding ties) against printf on
// values of every kind a series holds and on the boundaries where the short path must step
// aside: a failure names the value.
void expect_as_printf(double v) {
  char want[512], got[512];
  std::snprintf(want, sizeof want, "%.6g", v);
  std::memset(got, 'z', sizeof got);
  *csv_number::general6(got, v) = '\0';
  // What it may overwrite after the text stays within general6_max characters.
  ASSERT_EQ(std::string(got + csv_number::general6_max, 8), "zzzzzzzz") << "%.6g of " << std::hexfloat << v;
  ASSERT_STREQ(got, want) << "%.6g of " << std::hexfloat << v;
  std::snprintf(want, sizeof want, "%.3f", v);
  *csv_number::fixed3(got, v) = '\0';
  ASSERT_STREQ(got, want) << "%.3f of " << std::hexfloat << v;
}

TEST(CsvFormat, ShortPathPrintsWhatPrintfPrints) {
  const double inf = std::numeric_limits<double>::infinity();
  for (double v : {0.0,
                   -0.0,
                   1.0,
                   -1.0,
                   0.5,
                   0.0005,
                   0.0015,
                   0.0025,
                   1e-4,
                   9.99995e-5,
                   9.999949999e-5,
                   1e-5,
                   99999.95,
                   99999.949999,
                   999999.5,
                   999999.4999,
                   999999.5000001,
                   1e6,
                   1e21,
                   9.999995e20,
                   1e-15,
                   123456.5,
                   123457.5,
                   2.5,
                   0.125,
                   1e10,
                   4e10,
                   1.5e10,
                   33.6,
                   10.4,
                   2.4,
                   1e300,
                   -1e300,
                   5e-324,
                   std::numeric_limits<double>::max(),
                   std::numeric_limits<double>::min(),
                   inf,
                   -inf,
                   std::numeric_limits<double>::quiet_NaN(),
                   999.9995,
                   999999.9995,
                   0.9999995,
                   1234.5675})
    expect_as_printf(v);
  // The layouts of the digit pairs: trailing zeros in each pair, every exponent.
  for (double v : {100000.0, 120000.0, 123400.0, 100.5, 1.2e7, 1.00001e7, -4.5e20, 0.00012, 0.000123456, 0.0001, 1.2e-5,
                   -3e-15, 9.5e-10})
    expect_as_printf(v);
  for (int x = -16; x <= 21; ++x)
    for (double m : {1.0, 1.5, 9.99999, 1.23456, 1.2, 1.23})
      for (double sign : {1.0, -1.0}) expect_as_printf(sign * m * std::pow(10.0, x));
  // Integers (counts, bytes, rates in b/s) take an integer path: its ties, its rounding to the next
  // power of ten, every digit count up to 2^53 and past it.
  for (double v : {999999.0,
                   1e6,
                   1000001.0,
                   1234565.0,
                   1234575.0,
                   1234565.000001e3,
                   9999995.0,
                   9999996.0,
                   9999994.0,
                   99999950.0,
                   99999949.0,
                   2.5e9,
                   4e10,
                   1.25e15,
                   9007199254740991.0,
                   9007199254740992.0,
                   9007199254740994.0,
                   9007199254740990.0,
                   4503599627370497.0,
                   -1234565.0,
                   -42.0,
                   7.0,
                   100.0})
    expect_as_printf(v);
  std::mt19937_64 rng(7);
  for (int i = 0; i < 40'000; ++i) {
    const uint64_t n = rng() >> (11 + rng() % 53);  // below 2^53, of every digit count
    expect_as_printf(static_cast<double>(n));
    const uint64_t unit = static_cast<uint64_t>(std::pow(10.0, static_cast<double>(rng() % 11)));
    expect_as_printf(static_cast<double>(n / unit * unit + unit / 2));  // a tie when it has over six digits
    expect_as_printf(-static_cast<double>(n % 10'000'000));
  }
  std::uniform_int_distribution<int64_t> count(0, 10'000'000);
  std::uniform_int_distribution<int> scale(0, 12), exponent(-330, 310);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int i = 0; i < 40'000; ++i) {
    const double n = static_cast<double>(count(rng));
    expect_as_printf(n);                                       // counts
    expect_as_printf(n / std::pow(10.0, scale(rng)));          // decimals: rates, fractions
    expect_as_printf((n + 0.5) / std::pow(10.0, scale(rng)));  // halves: ties of %.6g and %.3f
    expect_as_printf(-n / 8.0);
    expect_as_printf(unit(rng) * std::pow(10.0, exponent(rng)));  // any magnitude
    uint64_t bits = rng();
    double any;
    std::memcpy(&any, &bits, sizeof any);
    expect_as_printf(any);  // any bit pattern
  }
}

// The memo gives general6's text for every value, whether found, evicted or never seen: repeats
// of a few values, far more values than slots (evictions), the zeros, NaN and infinity.
TEST(CsvFormat, MemoPrintsWhatGeneral6Prints) {
  csv_number::general6_memo memo;
  auto expect_same = [&](double v) {
    char want[64], got[64];
    *csv_number::general6(want, v) = '\0';
    std::memset(got, 'z', sizeof got);
    *memo.write(got, v) = '\0';
    ASSERT_STREQ(got, want) << std::hexfloat << v;
    ASSERT_EQ(std::string(got + csv_number::general6_max, 8), "zzzzzzzz") << std::hexfloat << v;
  };
  const double inf = std::numeric_limits<double>::infinity();
  for (int round = 0; round < 3; ++round)
    for (double v : {0.0, -0.0, 1.0, 2.4, 1e10, 0.0512, -3.25, 123456.5, 1e-7, 1e300, 5e-324, inf, -inf,
                     std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::quiet_NaN()})
      expect_same(v);
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int> small(0, 300), frames(0, 40);
  for (int i = 0; i < 200'000; ++i) {
    expect_same(frames(rng) * 0.8);                           // rates in whole frames: few values
    expect_same(small(rng) / 1000.0);                         // more values than slots
    expect_same(static_cast<double>(rng() >> (rng() % 64)));  // counts: almost never seen twice
    uint64_t bits = rng();
    double any;
    std::memcpy(&any, &bits, sizeof any);
    expect_same(any);
  }
}

}  // namespace
}  // namespace sluice
