#include "models/switch/shared_buffer.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "models/switch/switch_policies.h"

namespace sluice {
namespace {
struct static_policy final : threshold_policy {
  uint64_t limit(const pg_config& c, const pg_usage&, uint64_t) const override { return c.xoff; }
  bool follows_pool() const override { return false; }
};
// The built-in rule's fast range: a pool and a resume need of at most 2^52 bytes and an alpha in
// (0, 1024] keep every product below 2^62, so it may convert through signed integers.
constexpr uint64_t fast_bytes = uint64_t{1} << 52;
bool in_fast_range(const pg_config& c) { return c.alpha > 0 && c.alpha <= 1024 && c.xon_offset <= fast_bytes; }
// k if alpha is exactly 2^-k with 0 <= k <= 10, else -1. Then, in the fast range, the built-in
// limit of a pool f is f >> k exactly (f < 2^53 converts exactly and the product only moves the
// exponent), so the least pool reaching a need is need << k (need < 2^54: no overflow).
int8_t alpha_shift_of(double alpha) {
  for (int k = 0; k <= 10; ++k)
    if (alpha == std::ldexp(1.0, -k)) return static_cast<int8_t>(k);
  return -1;
}

// uint64 <-> double: in the fast range through int64, which needs no sign-bit tests (an
// unsigned conversion is four or five instructions, a signed one one; the value is the same).
template <bool fast>
double as_double(uint64_t v) {
  if constexpr (fast) return static_cast<double>(static_cast<int64_t>(v));
  return static_cast<double>(v);
}
template <bool fast>
uint64_t as_bytes(double d) {
  if constexpr (fast) return static_cast<uint64_t>(static_cast<int64_t>(d));
  return static_cast<uint64_t>(d);
}

struct dynamic_policy final : threshold_policy {
  template <bool fast = false>
  static uint64_t of(double alpha, uint64_t free_pool) {
    if constexpr (fast) return builtin_dynamic_limit(alpha, free_pool);
    return static_cast<uint64_t>(alpha * static_cast<double>(free_pool));
  }
  uint64_t limit(const pg_config& c, const pg_usage&, uint64_t free_pool) const override {
    return of(c.alpha, free_pool);
  }
  bool follows_pool() const override { return true; }
  uint64_t free_pool_for(const pg_config& c, const pg_usage&, uint64_t need, uint64_t pool_size) const override {
    return in_fast_range(c) && pool_size <= fast_bytes && need <= 2 * fast_bytes
               ? least_pool<true>(c.alpha, need, pool_size)
               : least_pool<false>(c.alpha, need, pool_size);
  }
  // From the estimate need / alpha, truncated, stepped to the exact least pool by the very product
  // limit() computes (its rounding may put the quotient a unit off either way). Usually two
  // products: for an alpha of 1/2^k the quotient is exact, the estimate reaches the need and the
  // pool below it does not; otherwise the estimate falls short and the pool above it reaches.
  // An estimate within the pool that reaches the need proves the whole pool does (the limit
  // never falls as the pool grows).
  template <bool fast>
  static uint64_t least_pool(double alpha, uint64_t need, uint64_t pool_size) {
    const double estimate = as_double<fast>(need) / alpha;
    uint64_t f = estimate < as_double<fast>(pool_size) ? as_bytes<fast>(estimate) : pool_size;
    if (of<fast>(alpha, f) >= need) {
      while (f > 0 && of<fast>(alpha, f - 1) >= need) --f;
      return f;
    }
    while (f < pool_size)
      if (of<fast>(alpha, ++f) >= need) return f;
    return never_resumes;
  }
};
const policy_registrar<threshold_policies> static_reg{"static",
                                                      "a byte limit on the group's shared use (<port>.pfc.xoff)",
                                                      [] { return std::make_unique<static_policy>(); },
                                                      {"pfc.xoff"}};
const policy_registrar<threshold_policies> dynamic_reg{
    "dynamic",
    "alpha x free shared pool (<sw>.mmu.alpha, alpha_lossy; Choudhury-Hahne)",
    [] { return std::make_unique<dynamic_policy>(); },
    {"alpha", "alpha_lossy"}};
}  // namespace

uint64_t threshold_policy::free_pool_for(const pg_config& c, const pg_usage& u, uint64_t need,
                                         uint64_t pool_size) const {
  if (limit(c, u, pool_size) < need) return never_resumes;
  uint64_t lo = 0, hi = pool_size;  // limit(hi) >= need
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (limit(c, u, mid) >= need) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

const threshold_policy& static_threshold() {
  static const static_policy p;
  return p;
}
const threshold_policy& dynamic_threshold() {
  static const dynamic_policy p;
  return p;
}

shared_buffer::shared_buffer(int ports, int priorities, buffer_config config, std::vector<pg_config> pgs)
    : priorities_(priorities),
      policy_(config.threshold ? config.threshold
              : config.dynamic ? &dynamic_threshold()
                               : &static_threshold()),
      follows_pool_(policy_->follows_pool()),
      builtin_dynamic_(dynamic_cast<const dynamic_policy*>(policy_) != nullptr && config.shared_size <= fast_bytes),
      config_(config),
      groups_(static_cast<std::size_t>(ports) * priorities) {
  if (pgs.size() != groups_.size()) throw std::invalid_argument("shared_buffer: one pg_config per (port, priority)");
  for (std::size_t i = 0; i < pgs.size(); ++i) {
    set_group(i, pgs[i]);
    builtin_dynamic_ = builtin_dynamic_ && in_fast_range(pgs[i]);  // else the policy's calls, exact everywhere
  }
  if (config_.cell == 0) throw std::invalid_argument("shared_buffer: cell size must be positive");
  plain_ = builtin_dynamic_ && config_.cell == 1;
}

void shared_buffer::set_group(std::size_t i, const pg_config& c) {
  group& g = groups_[i];
  g.lossless = c.lossless;
  g.alpha = c.alpha;
  g.reserve = c.reserve;
  g.headroom_size = c.headroom;
  g.alpha_shift = alpha_shift_of(c.alpha);
  g.xoff = c.xoff;
  g.xon_offset = c.xon_offset;
}

pg_config shared_buffer::config_at(std::size_t i) const {
  const group& g = groups_[i];
  return {g.lossless, g.alpha, g.reserve, g.xoff, g.xon_offset, g.headroom_size};
}

pg_usage shared_buffer::usage_at(std::size_t i) const {
  const group& g = groups_[i];
  return {g.reserved, g.shared, g.headroom, g.peak_total, g.peak_headroom, g.overflows};
}

void shared_buffer::set_config(int port, int priority, const pg_config& c) {
  set_group(at(port, priority), c);
  builtin_dynamic_ = builtin_dynamic_ && in_fast_range(c);
  plain_ = plain_ && builtin_dynamic_;
  if (keeps_resume_free(at(port, priority)))
    refresh_resume_free(at(port, priority));  // a live alpha or offset moves the resume point
}

uint64_t shared_buffer::threshold(int port, int priority) const { return threshold_index(at(port, priority)); }

inline uint64_t shared_buffer::threshold_index(std::size_t i) const {
  return builtin_dynamic_ ? threshold_as<true>(i) : threshold_as<false>(i);
}

// One admission per policy kind: under the built-in rule the threshold is inline and every call
// left (a pause, a resume point) is a tail call, so an admission saves no registers.
template <bool builtin_dynamic>
admit_outcome shared_buffer::admit_as(std::size_t i, uint64_t bytes) {
  return finish_rest(i, admit_accounting<builtin_dynamic>(i, bytes));
}

template admit_outcome shared_buffer::admit_as<true>(std::size_t, uint64_t);
template admit_outcome shared_buffer::admit_as<false>(std::size_t, uint64_t);

inline admit_outcome shared_buffer::finish_rest(std::size_t i, admit_rest rest) {
  switch (rest) {
    case admit_rest::none:
      return {true, false};
    case admit_rest::refresh:
      return refresh_then_admitted(i);
    case admit_rest::pause:
      return pause_then(i, true);  // XOFF
    case admit_rest::pause_dropped:
      return pause_then(i, false);
    case admit_rest::dropped:
    case admit_rest::general:  // not an accounting's answer
      break;
  }
  return {false, false};
}

admit_outcome shared_buffer::finish_admission(int port, int priority, uint64_t bytes, admit_rest rest) {
  if (rest == admit_rest::general) return admit(port, priority, bytes);
  return finish_rest(at(port, priority), rest);
}

admit_outcome shared_buffer::pause_then(std::size_t i, bool admitted) {
  pause_index(i);
  return {admitted, true};
}

admit_outcome shared_buffer::refresh_then_admitted(std::size_t i) {
  refresh_resume_free(i);
  return {true, false};
}

void shared_buffer::pause_index(std::size_t i) {
  groups_[i].paused = true;
  groups_[i].slot = static_cast<uint32_t>(paused_list_.size());
  paused_list_.push_back(static_cast<uint32_t>(i));
  resume_free_.push_back(threshold_policy::never_resumes);
  if (keeps_resume_free(i)) refresh_resume_free(i);
}

// least_pool<true> for an alpha of 2^-k (alpha_shift_of): its estimate need << k is exact, the
// least pool reaching the need, if the pool has it.
inline uint64_t shared_buffer::least_pool_shifted(uint64_t need, int k) const {
  const uint64_t f = need << k;
  return f <= config_.shared_size ? f : threshold_policy::never_resumes;
}

// resume_index's condition, solved for the free pool: the group resumes once the pool holds
// this point (at once if it holds no shared bytes). For a group that keeps_resume_free. Inline:
// most of the incast's releases happen while their group is paused (~40 instructions, not a call).
inline void shared_buffer::refresh_resume_free(std::size_t i) {
  group& g = groups_[i];
  const uint64_t need = g.shared + g.xon_offset;
  const uint64_t point = g.shared == 0        ? 0
                         : !builtin_dynamic_  ? resume_free_by_policy(i, need)
                         : g.alpha_shift >= 0 ? least_pool_shifted(need, g.alpha_shift)
                                              : dynamic_policy::least_pool<true>(g.alpha, need, config_.shared_size);
  resume_free_[g.slot] = point;
  least_resume_free_ = std::min(least_resume_free_, point);
}

uint64_t shared_buffer::resume_free_by_policy(std::size_t i, uint64_t need) const {
  return policy_->free_pool_for(config_at(i), usage_at(i), need, config_.shared_size);
}

// The common case (the releasing group's resume point refreshed by the shift, no resume point
// crossed) saves no registers: a resume point through a policy's call or the rule's products, the
// scan and the single group's resume are out of line, each a tail call (their registers were
// saved at every release, 15 instructions; most resume nothing).
void shared_buffer::after_release(std::size_t i, uint64_t from_shared) {
  if (keeps_resume_free(i)) {
    if (!builtin_dynamic_ || groups_[i].alpha_shift < 0) return refresh_then_resume(i, from_shared);
    refresh_resume_free(i);  // by the shift, inline
  }
  resume_after_refresh(i, from_shared);
}

void shared_buffer::refresh_then_resume(std::size_t i, uint64_t from_shared) {
  refresh_resume_free(i);
  resume_after_refresh(i, from_shared);
}

inline void shared_buffer::resume_after_refresh(std::size_t i, uint64_t from_shared) {
  const uint64_t free = config_.shared_size - shared_used_;
  if (from_shared > 0 && follows_pool_) {
    // The pool grew: every paused group's threshold rose with it.
    if (free < least_resume_free_) return;  // no resume point crossed: no scan
    return resume_crossed();
  }
  // Only this group may resume (resume_index's first test). A resume point it keeps was just
  // refreshed, so resume_index's threshold test is then one comparison with it, as in the scan
  // (most of these releases resume nothing: the threshold's product and a call were ~50
  // instructions each).
  const group& g = groups_[i];
  if (keeps_resume_free(i) ? free >= resume_free_[g.slot] : g.paused && g.headroom == 0) return resume_alone(i);
}

// Those holding no headroom whose resume point the pool has reached resume, in the list's order
// (resume_index's test, decided by one comparison; a group holding headroom has no point). The
// least resume point in a local: a member written in the loop was stored at every group.
void shared_buffer::resume_crossed() {
  const uint64_t free = config_.shared_size - shared_used_;
  uint64_t least = threshold_policy::never_resumes;
  for (uint32_t k = 0; k < paused_list_.size();) {
    if (resume_free_[k] > free) {
      least = std::min(least, resume_free_[k]);
      ++k;
      continue;
    }
    resumed_.push_back(paused_list_[k]);
    groups_[paused_list_[k]].paused = false;
    unlist_paused(k);  // the last moves to k, and is looked at next
  }
  least_resume_free_ = least;
  if (!resumed_.empty()) report_resumed();
}

void shared_buffer::unlist_paused(uint32_t slot) {
  paused_list_[slot] = paused_list_.back();
  resume_free_[slot] = resume_free_.back();
  groups_[paused_list_[slot]].slot = slot;
  paused_list_.pop_back();
  resume_free_.pop_back();
}

void shared_buffer::resume_alone(std::size_t i) {
  if (!resume_index(i)) return;
  resumed_.push_back(static_cast<uint32_t>(i));
  report_resumed();
}

// Out of line: the release above saves no registers for it (most releases resume nothing).
void shared_buffer::report_resumed() {
  if (!listener_) {
    resumed_.clear();
    return;
  }
  // Report after the scan: a listener may send XON, start a frame and re-enter release().
  std::vector<uint32_t> done;
  done.swap(resumed_);
  for (uint32_t g : done) listener_->resumed(static_cast<int>(g / priorities_), static_cast<int>(g % priorities_));
  if (resumed_.empty()) {  // keep the scratch capacity
    done.clear();
    resumed_.swap(done);
  }
}

bool shared_buffer::try_resume(int port, int priority) { return resume_index(at(port, priority)); }

bool shared_buffer::resume_index(std::size_t i) {
  group& g = groups_[i];
  if (!g.paused || g.headroom != 0) return false;
  if (g.shared + g.xon_offset > threshold_index(i) && g.shared != 0) return false;
  g.paused = false;
  unlist_paused(g.slot);
  return true;
}

}  // namespace sluice
