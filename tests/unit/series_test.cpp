// A series keeps its rows in one block (series_rows): what it holds must be what a vector per
// row held, through every reader's path (index, row view, iteration, copies).
#include "platforms/series.h"

#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <vector>

namespace sluice {
namespace {

void expect_same(const series_rows& rows, const std::vector<std::vector<double>>& plain, std::size_t width) {
  ASSERT_EQ(rows.size(), plain.size());
  EXPECT_EQ(rows.empty(), plain.empty());
  if (!plain.empty()) {
    EXPECT_EQ(rows.width(), width);
  }
  for (std::size_t r = 0; r < plain.size(); ++r) {
    const series_rows::const_row row = rows[r];
    ASSERT_EQ(row.size(), plain[r].size()) << "row " << r;
    EXPECT_EQ(std::vector<double>(row.begin(), row.end()), plain[r]) << "row " << r;
    for (std::size_t c = 0; c < row.size(); ++c) EXPECT_EQ(row[c], plain[r][c]) << "row " << r << " column " << c;
    if (!row.empty()) {
      EXPECT_EQ(row.front(), plain[r].front());
      EXPECT_EQ(row.back(), plain[r].back());
    }
  }
  std::size_t r = 0;
  for (series_rows::const_row row : rows) {
    ASSERT_LT(r, plain.size());
    EXPECT_EQ(std::vector<double>(row.begin(), row.end()), plain[r++]);
  }
  EXPECT_EQ(r, plain.size());
  if (!plain.empty()) {
    EXPECT_EQ(std::vector<double>(rows.back().begin(), rows.back().end()), plain.back());
  }
}

TEST(SeriesRows, HoldWhatAVectorPerRowHeld) {
  std::mt19937_64 rng(23);
  std::uniform_real_distribution<double> value(-1e9, 1e9);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t width = rng() % 40, rows = rng() % 300;
    series_rows flat;
    std::vector<std::vector<double>> plain;
    if (rng() % 2) flat.reserve(rng() % 400, width);  // reserved short, long or exactly, or not at all
    for (std::size_t r = 0; r < rows; ++r) {
      std::vector<double> row(width);
      for (double& v : row) v = rng() % 4 ? value(rng) : 0.0;
      double* out = flat.append(width);
      for (std::size_t c = 0; c < width; ++c) out[c] = row[c];
      plain.push_back(row);
      if (r % 37 == 0) {  // also while it grows
        ASSERT_NO_FATAL_FAILURE(expect_same(flat, plain, width));
      }
    }
    ASSERT_NO_FATAL_FAILURE(expect_same(flat, plain, width));

    // Copies are whole and apart; a move leaves the rows to the new owner.
    series_rows copy(flat), assigned;
    assigned = flat;
    if (rows && width) {
      flat[rows / 2][width / 2] += 1;
      plain[rows / 2][width / 2] += 1;
      EXPECT_NE(copy[rows / 2][width / 2], flat[rows / 2][width / 2]);
      copy[rows / 2][width / 2] += 1;
      assigned[rows / 2][width / 2] += 1;
    }
    ASSERT_NO_FATAL_FAILURE(expect_same(copy, plain, width));
    ASSERT_NO_FATAL_FAILURE(expect_same(assigned, plain, width));
    series_rows moved(std::move(flat));
    ASSERT_NO_FATAL_FAILURE(expect_same(moved, plain, width));
  }
}

TEST(SeriesRows, EveryRowHasTheFirstRowsWidth) {
  series_rows rows;
  rows.push_back({1, 2});
  EXPECT_THROW(rows.push_back({1}), std::logic_error);
  EXPECT_THROW(rows.reserve(10, 3), std::logic_error);
  rows.push_back({3, 4});
  EXPECT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1][0], 3);

  series_rows none;  // rows without columns are still counted (a sample of a series with no columns)
  none.append(0);
  none.append(0);
  EXPECT_EQ(none.size(), 2u);
  EXPECT_TRUE(none[1].empty());
}

TEST(Series, AddSampleKeepsTheTimeAndARowOfEveryColumn) {
  series s;
  s.add_column("a", 0, 0);
  s.add_column("b", 1, 1);
  s.reserve(3);
  for (int t = 0; t < 5; ++t) {
    double* row = s.add_sample(10.0 * t);
    row[0] = t;
    row[1] = -t;
  }
  ASSERT_EQ(s.times_us.size(), 5u);
  ASSERT_EQ(s.rows.size(), 5u);
  EXPECT_EQ(s.times_us[4], 40.0);
  EXPECT_EQ(s.rows[4][0], 4);
  EXPECT_EQ(s.rows[3][1], -3);
}

}  // namespace
}  // namespace sluice
