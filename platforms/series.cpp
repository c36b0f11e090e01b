#include "platforms/series.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>

#include "models/core/units.h"
#include "platforms/csv_number.h"

namespace sluice {

void series_rows::first_width(std::size_t width) {
  if (rows_ != 0)
    throw std::logic_error("series: a row of " + std::to_string(width) + " values after rows of " +
                           std::to_string(width_));
  width_ = width;
}

series_rows::series_rows(const series_rows& o)
    : values_(new double[o.rows_ * o.width_]), capacity_(o.rows_ * o.width_), width_(o.width_), rows_(o.rows_) {
  std::copy(o.values_.get(), o.values_.get() + rows_ * width_, values_.get());
}

void series_rows::reallocate(std::size_t capacity) {
  std::unique_ptr<double[]> values(new double[capacity]);  // not value-initialized: not zeroed
  std::copy(values_.get(), values_.get() + rows_ * width_, values.get());
  values_ = std::move(values);
  capacity_ = capacity;
}

void series_rows::grow(std::size_t values) {
  // Doubling: a run of unknown length copies each value about once more in all.
  reallocate(std::max(values, 2 * capacity_));
}

void series_rows::reserve(std::size_t rows, std::size_t width) {
  if (width != width_) first_width(width);
  if (rows * width > capacity_) reallocate(rows * width);
}

time_texts::time_texts(const std::vector<double>& times_us) : times_(&times_us), texts_(times_us.size()) {
  char text[csv_number::fixed3_max];
  for (std::size_t r = 0; r < times_us.size() && usable_; ++r) {
    const std::size_t length = static_cast<std::size_t>(csv_number::fixed3(text, times_us[r]) - text);
    usable_ = length <= slot_bytes;
    std::memcpy(texts_[r].text, text, std::min(length, slot_bytes));
    texts_[r].length = length;
  }
}

void series::write_csv(const std::string& path, const std::string& time_column, const time_texts* times) const {
  std::ofstream out(path);
  if (!out) throw config_error("--out: cannot write '" + path + "'");
  write_csv(out, time_column, times);
  // A full disk fails the write or the flush, not the open: a truncated series is an error.
  if (!out.flush()) throw config_error("--out: cannot write '" + path + "': " + std::strerror(errno));
}

void series::write_csv(std::ostream& out, const std::string& time_column, const time_texts* times) const {
  if (times && !times->are_of(times_us)) times = nullptr;
  out << time_column;
  for (const std::string& c : columns) out << ',' << c;
  out << '\n';
  // csv_number prints what printf's "%.3f" and "%.6g" print, without printf's locale and
  // format parsing and mostly without std::to_chars's exact path (csv_number.h); a value seen
  // lately is copied from the memo. Rows are composed in one buffer, with room for at least
  // a few of the longest possible rows, and written when it is nearly full: one ostream call
  // per 64 KiB, not per row (each cost about 100 instructions).
  csv_number::general6_memo memo;
  const std::size_t longest = csv_number::fixed3_max + rows.width() * (1 + csv_number::general6_max) + 1;
  const std::size_t size = std::max<std::size_t>(64 << 10, 4 * longest);
  const std::unique_ptr<char[]> buffer(new char[size]);  // not zeroed: written before it is read
  char* const start = buffer.get();
  char* const last_start = start + size - longest;  // a row may begin at or before it
  char* p = start;
  const double* v = rows.data();
  const std::size_t width = rows.width();
  // A row whose values are the row before's, bit for bit, prints the same text: it is copied (a
  // series that holds still, such as flow_rate's limits, was ~20 instructions a value). The text
  // before stays readable after a flush: it began past the buffer's first `longest` bytes, which
  // are all a row may write, and a row's text never runs into the next one's.
  const char* before = nullptr;  // the previous row's values text (after its time) and length
  std::size_t before_length = 0;
  // Rows are compared only while that pays (a comparison is a memcmp call, ~30 instructions):
  // after a row that differs, the next 1, 2, 4 ... 64 rows are printed without one; a repeat
  // starts the comparisons again at every row. Copied or printed, the text is the same.
  std::size_t unchecked = 0, next_unchecked = 1;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (p > last_start) {
      out.write(start, p - start);
      p = start;
    }
    if (times) {  // a fixed-size copy, no call: the buffer has room for fixed3_max characters here
      std::memcpy(p, times->text(r), time_texts::slot_bytes);
      p += times->length(r);
    } else {
      p = csv_number::fixed3(p, times_us[r]);
    }
    bool repeat = false;
    if (r > 0 && unchecked > 0) {
      --unchecked;
    } else if (r > 0) {
      // No columns: every row repeats (and v may be null, which memcmp must not get: UBSan).
      repeat = width == 0 || std::memcmp(v, v - width, width * sizeof(double)) == 0;
      unchecked = repeat ? 0 : next_unchecked;
      next_unchecked = repeat ? 1 : std::min<std::size_t>(2 * next_unchecked, 64);
    }
    if (repeat) {
      std::memcpy(p, before, before_length);
      before = p;
      p += before_length;
      v += width;
    } else {
      before = p;
      for (const double* row_end = v + width; v != row_end; ++v) {
        *p++ = ',';
        p = memo.write(p, *v);
      }
      before_length = static_cast<std::size_t>(p - before);
    }
    *p++ = '\n';
  }
  out.write(start, p - start);
}

}  // namespace sluice
