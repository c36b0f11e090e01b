// A time series as the sampler keeps it: named columns, a time per sample, and one row of
// values per sample, written as CSV at the end of the run.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace sluice {

// One row of a series: size() values in column order, seen where the series keeps them.
template <class T>
class row_view {
 public:
  row_view(T* values, std::size_t size) : values_(values), size_(size) {}
  operator row_view<const T>() const { return {values_, size_}; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](std::size_t c) const { return values_[c]; }
  T& front() const { return values_[0]; }
  T& back() const { return values_[size_ - 1]; }
  T* data() const { return values_; }
  T* begin() const { return values_; }
  T* end() const { return values_ + size_; }

 private:
  T* values_;
  std::size_t size_;
};

// A series' rows, one per sample, kept one after another in a single block (row-major): a row
// is a view of width() values. A vector per row cost an allocation and a free per series and
// sample, and 40 bytes beside its values.
class series_rows {
 public:
  using row = row_view<double>;
  using const_row = row_view<const double>;

  series_rows() = default;
  series_rows(const series_rows& o);
  series_rows(series_rows&& o) noexcept { swap(o); }
  series_rows& operator=(series_rows o) noexcept {
    swap(o);
    return *this;
  }
  void swap(series_rows& o) noexcept {
    std::swap(values_, o.values_);
    std::swap(capacity_, o.capacity_);
    std::swap(width_, o.width_);
    std::swap(rows_, o.rows_);
  }

  std::size_t size() const { return rows_; }
  bool empty() const { return rows_ == 0; }
  std::size_t width() const { return width_; }
  const double* data() const { return values_.get(); }  // size() x width() values, row after row

  row operator[](std::size_t r) { return {values_.get() + r * width_, width_}; }
  const_row operator[](std::size_t r) const { return {values_.get() + r * width_, width_}; }
  row back() { return (*this)[rows_ - 1]; }
  const_row back() const { return (*this)[rows_ - 1]; }

  // A new last row of `width` values (every row has the first row's width: std::logic_error
  // otherwise), returned to be filled: its values are unspecified until written.
  double* append(std::size_t width) {
    if (width != width_) first_width(width);
    const std::size_t end = (rows_ + 1) * width_;
    if (end > capacity_) grow(end);
    return values_.get() + rows_++ * width_;
  }
  void push_back(std::initializer_list<double> values) {
    double* out = append(values.size());
    for (double v : values) *out++ = v;
  }
  // Room for `rows` rows of `width` values, allocated once (a run that knows its samples).
  void reserve(std::size_t rows, std::size_t width);

  class const_iterator {
   public:
    const_iterator(const series_rows* rows, std::size_t r) : rows_(rows), r_(r) {}
    const_row operator*() const { return (*rows_)[r_]; }
    const_iterator& operator++() {
      ++r_;
      return *this;
    }
    bool operator!=(const const_iterator& o) const { return r_ != o.r_; }
    bool operator==(const const_iterator& o) const { return r_ == o.r_; }

   private:
    const series_rows* rows_;
    std::size_t r_;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, rows_}; }

 private:
  void first_width(std::size_t width);
  void grow(std::size_t values);
  void reallocate(std::size_t capacity);
  // Never zeroed: a row's values are written when it is appended (callgrind counts a memset's
  // bytes one by one, and the zeros would be overwritten at once).
  std::unique_ptr<double[]> values_;
  std::size_t capacity_ = 0;  // values
  std::size_t width_ = 0, rows_ = 0;
};

// The texts of a series' times ("%.3f"), made once for every series that shares them: the
// sampler's series sample together, and their six to eight files print the same time column
// (fixed3 was ≈ 110 instructions a row and file).
class time_texts {
 public:
  explicit time_texts(const std::vector<double>& times_us);  // kept by reference: it must outlive this
  // Whether these are the texts of times_us (the same values; otherwise write_csv prints its own).
  bool are_of(const std::vector<double>& times_us) const { return usable_ && times_us == *times_; }
  // Row r's text: length(r) characters at text(r), with room to copy 16 bytes whole.
  const char* text(std::size_t r) const { return texts_[r].text; }
  std::size_t length(std::size_t r) const { return texts_[r].length; }
  static constexpr std::size_t slot_bytes = 16;

 private:
  struct slot {
    char text[slot_bytes];
    std::size_t length;
  };
  const std::vector<double>* times_;
  std::vector<slot> texts_;
  bool usable_ = true;  // false: a text longer than a slot (a time past 10^12 us), each prints its own
};

struct series {
  std::vector<std::string> columns;
  std::vector<double> times_us;
  series_rows rows;
  // For partitioned runs (platforms/partial_summary.h): the node that measured each column, and
  // the column's place in the single-process run's order (series_order keys).
  std::vector<uint32_t> column_nodes;
  std::vector<uint64_t> column_keys;
  void add_column(std::string name, uint32_t node, uint64_t key) {
    columns.push_back(std::move(name));
    column_nodes.push_back(node);
    column_keys.push_back(key);
  }
  // A sample at t_us: its time, and its row of columns.size() values, returned to be filled.
  double* add_sample(double t_us) {
    times_us.push_back(t_us);
    return rows.append(columns.size());
  }
  void reserve(std::size_t samples) {
    times_us.reserve(samples);
    rows.reserve(samples, columns.size());
  }
  // times: the texts of times shared with other series, used if they are this series' times.
  void write_csv(const std::string& path, const std::string& time_column, const time_texts* times = nullptr) const;
  void write_csv(std::ostream& out, const std::string& time_column, const time_texts* times = nullptr) const;
};

}  // namespace sluice
