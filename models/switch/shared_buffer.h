// Ingress buffer accounting of a shared-buffer switch (no SystemC inside: unit-testable).
//
// Each (ingress port, priority) -- a priority group, PG -- draws first from its reserved
// space, then from the shared pool up to its threshold, then (lossless only) from its headroom.
// Threshold: static (a byte limit on the PG's shared use) or dynamic (alpha x free shared
// buffer, Choudhury-Hahne). XOFF is due when a PG holds shared bytes up to its threshold, touches
// headroom, or must drop (headroom full); XON when it has left headroom and its shared use has
// fallen xon_offset below the threshold (or to zero).
// Bytes are returned headroom first, then shared, then reserved.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace sluice {

struct pg_config {
  bool lossless = true;
  double alpha = 0.125;     // dynamic-threshold factor of this group
  uint64_t reserve = 0;     // guaranteed bytes
  uint64_t xoff = 0;        // static threshold on shared use (bytes)
  uint64_t xon_offset = 0;  // resume hysteresis below the threshold
  uint64_t headroom = 0;    // bytes absorbed after XOFF
};

struct pg_usage;

// The MMU threshold policy: the most shared bytes a priority group may hold. Evaluated on every
// admission (a virtual call on a policy chosen once, at the start of the simulation). Registered
// by name in threshold_policies (models/switch/switch_policies.h): "static", "dynamic".
class threshold_policy {
 public:
  virtual ~threshold_policy() = default;
  // The group's shared limit, given its configuration, its usage and the free shared pool.
  virtual uint64_t limit(const pg_config& c, const pg_usage& u, uint64_t free_pool) const = 0;
  // True if the limit rises as the pool frees up: a release from the shared pool then
  // re-checks every paused group, not only the releasing one.
  virtual bool follows_pool() const = 0;
  // For a policy that follows the pool (its limit never falls as the pool grows): the least free
  // pool, up to pool_size, at which the limit reaches `need`, or never_resumes if none does.
  // The default searches by halves; a policy may know it directly.
  virtual uint64_t free_pool_for(const pg_config& c, const pg_usage& u, uint64_t need, uint64_t pool_size) const;
  static constexpr uint64_t never_resumes = ~uint64_t{0};
};
const threshold_policy& static_threshold();   // c.xoff
const threshold_policy& dynamic_threshold();  // c.alpha x free pool (Choudhury-Hahne)

struct buffer_config {
  uint64_t shared_size = 0;
  bool dynamic = true;                          // when `threshold` is null: dynamic_threshold() or static_threshold()
  uint64_t cell = 1;                            // allocation unit: a frame occupies its size rounded up to whole cells
  const threshold_policy* threshold = nullptr;  // not owned; outlives the buffer
};

enum class admit_verdict { admitted, dropped };

// An admission's verdict and whether it made the group cross into pause, returned together in
// one register: the switch's own path passes no flag by address, so its admission, route and
// enqueue need no stack frame and the enqueue is a tail call.
struct admit_outcome {
  bool admitted;
  bool xoff_due;
};

// What an admission leaves to do once its accounting is done (shared_buffer::admit_plain): none
// (admitted, nothing more: the common case), a paused group's resume point to refresh, a pause to
// start (XOFF) with the frame admitted or dropped, a drop; `general`: nothing was done, the whole
// admission is still to do (another rule than the built-in one, or cells).
enum class admit_rest : uint8_t { none, refresh, pause, pause_dropped, dropped, general };

// Told of every priority group that may resume (send XON upstream).
class resume_listener {
 public:
  virtual ~resume_listener() = default;
  virtual void resumed(int port, int priority) = 0;
};

// The built-in dynamic rule's limit, alpha x the free pool, in its fast range (pools up to 2^52
// bytes, alpha up to 1024: every product below 2^62): through signed conversions, one
// instruction each where unsigned ones are four or five; the value is the same.
inline uint64_t builtin_dynamic_limit(double alpha, uint64_t free_pool) {
  return static_cast<uint64_t>(static_cast<int64_t>(alpha * static_cast<double>(static_cast<int64_t>(free_pool))));
}

struct pg_usage {
  uint64_t reserved = 0, shared = 0, headroom = 0;
  uint64_t peak_total = 0, peak_headroom = 0;  // high-water marks over the run
  uint64_t overflows = 0;  // lossless frames refused with the headroom full (the counted cause of a lossless drop)
  uint64_t total() const { return reserved + shared + headroom; }
};

class shared_buffer {
 public:
  shared_buffer(int ports, int priorities, buffer_config config, std::vector<pg_config> pgs);

  // `xoff_due` is set when this arrival makes the PG cross into pause.
  admit_verdict admit(int port, int priority, uint64_t bytes, bool& xoff_due) {
    const admit_outcome a = admit(port, priority, bytes);
    xoff_due = a.xoff_due;
    return a.admitted ? admit_verdict::admitted : admit_verdict::dropped;
  }
  admit_outcome admit(int port, int priority, uint64_t bytes) {
    return builtin_dynamic_ ? admit_as<true>(at(port, priority), occupancy(bytes))
                            : admit_as<false>(at(port, priority), occupancy(bytes));
  }
  // admit() in two halves, for the switch's own receive, which then makes no call and saves no
  // registers for most frames: admit_plain does the accounting inline under the built-in rule
  // with whole bytes, and returns what is left (none for most frames); finish_admission does the
  // rest out of line and returns admit()'s outcome. Under another rule or with cells admit_plain
  // does nothing (general) and finish_admission admits the frame whole.
  [[gnu::always_inline]] admit_rest admit_plain(int port, int priority, uint64_t bytes) {
    if (!plain_) return admit_rest::general;
    return admit_accounting<true>(at(port, priority), bytes);
  }
  admit_outcome finish_admission(int port, int priority, uint64_t bytes, admit_rest rest);
  // Returns the bytes. Every group this lets resume is reported to the listener: this group,
  // and under dynamic thresholds any paused group, because the free pool (and with it every
  // group's threshold) grew.
  // Inline: the accounting. A release while no group is paused (half the incast's) is only that,
  // with no call and no saved registers; the paused groups' part is after_release.
  void release(int port, int priority, uint64_t frame_bytes) {
    uint64_t bytes = occupancy(frame_bytes);
    const std::size_t i = at(port, priority);
    group& u = groups_[i];
    const uint64_t from_headroom = std::min(u.headroom, bytes);
    u.headroom -= from_headroom;
    bytes -= from_headroom;
    const uint64_t from_shared = std::min(u.shared, bytes);
    u.shared -= from_shared;
    shared_used_ -= from_shared;
    bytes -= from_shared;
    const uint64_t from_reserve = std::min(u.reserved, bytes);
    u.reserved -= from_reserve;
    in_use_ -= from_headroom + from_shared + from_reserve;
    if (!paused_list_.empty()) after_release(i, from_shared);
  }
  void set_listener(resume_listener* l) { listener_ = l; }

  // Re-evaluates the XON condition of a paused group (the PFC refresh asks before re-pausing,
  // so a group whose threshold rose, or which holds nothing after a drop, resumes). Returns true
  // if the group was paused and now resumes (not reported to the listener).
  bool try_resume(int port, int priority);

  uint64_t threshold(int port, int priority) const;
  pg_usage usage(int port, int priority) const { return usage_at(at(port, priority)); }
  bool paused(int port, int priority) const { return groups_[at(port, priority)].paused; }
  uint64_t shared_used() const { return shared_used_; }
  // Every group's bytes together (reserve, shared and headroom): the switch's buffer in use,
  // and the high-water marks of it and of the shared pool over the run.
  uint64_t in_use() const { return in_use_; }
  uint64_t peak_in_use() const { return peak_in_use_; }
  uint64_t peak_shared() const { return peak_shared_; }
  uint64_t occupancy(uint64_t frame_bytes) const {
    // Whole bytes (the default cell) without the division: a 64-bit divide is tens of cycles, twice a frame.
    if (config_.cell == 1) return frame_bytes;
    return (frame_bytes + config_.cell - 1) / config_.cell * config_.cell;
  }
  pg_config config(int port, int priority) const { return config_at(at(port, priority)); }
  // A new configuration for a group during the run (a live parameter): usage and pause state
  // are kept; the next admission, release or try_resume of the group applies it.
  void set_config(int port, int priority, const pg_config& c);

 private:
  std::size_t at(int port, int priority) const { return static_cast<std::size_t>(port) * priorities_ + priority; }
  uint64_t threshold_index(std::size_t i) const;
  template <bool builtin_dynamic>
  uint64_t threshold_as(std::size_t i) const {  // threshold_index, knowing the policy's kind
    const uint64_t free = config_.shared_size > shared_used_ ? config_.shared_size - shared_used_ : 0;
    return builtin_dynamic ? builtin_dynamic_limit(groups_[i].alpha, free) : limit_by_policy(i, free);
  }
  // The policy's limit for group i, out of line: its configuration and usage are put together for the call.
  [[gnu::noinline]] uint64_t limit_by_policy(std::size_t i, uint64_t free) const {
    return policy_->limit(config_at(i), usage_at(i), free);
  }
  template <bool builtin_dynamic>
  admit_outcome admit_as(std::size_t i, uint64_t bytes);
  template <bool builtin_dynamic>
  [[gnu::always_inline]] inline admit_rest admit_accounting(std::size_t i, uint64_t bytes);
  // What admit_accounting left, each call a tail call (an admission saves no registers).
  admit_outcome finish_rest(std::size_t i, admit_rest rest);
  admit_outcome pause_then(std::size_t i, bool admitted);  // xoff_due
  admit_outcome refresh_then_admitted(std::size_t i);
  bool resume_index(std::size_t i);  // try_resume by group index
  void pause_index(std::size_t i);
  // Whether group i holds a resume point now (paused, under a policy that follows the pool, with
  // no headroom held): only then does refresh_resume_free do anything.
  bool keeps_resume_free(std::size_t i) const {
    const group& g = groups_[i];
    return follows_pool_ && g.paused && g.headroom == 0;
  }
  void refresh_resume_free(std::size_t i);
  // Its resume point through the policy's call, out of line: the group's configuration and usage
  // put together for it do not keep refresh_resume_free from being inlined.
  [[gnu::noinline]] uint64_t resume_free_by_policy(std::size_t i, uint64_t need) const;
  uint64_t least_pool_shifted(uint64_t need, int k) const;  // a group's resume point for an alpha of 2^-k
  void report_resumed();  // tells the listener of resumed_ (not empty), and empties it
  // A release's resume points and XONs, while some group is paused (from_shared: the bytes it
  // returned to the pool).
  void after_release(std::size_t i, uint64_t from_shared);
  [[gnu::noinline]] void refresh_then_resume(std::size_t i, uint64_t from_shared);  // its resume point not by a shift
  void resume_after_refresh(std::size_t i, uint64_t from_shared);
  [[gnu::noinline]] void resume_crossed();             // after_release's scan: some resume point was crossed
  [[gnu::noinline]] void resume_alone(std::size_t i);  // and its one group's test (the pool did not grow)
  // What every admission reads first, together.
  int priorities_;
  uint64_t shared_used_ = 0;
  uint64_t in_use_ = 0, peak_in_use_ = 0, peak_shared_ = 0;
  const threshold_policy* policy_;
  bool follows_pool_;  // policy_->follows_pool(), asked once
  // policy_ is the built-in dynamic rule (the default): its limit and resume point are computed
  // here, inline, not through the policy's virtual calls (a threshold a hop, ~20 instructions).
  bool builtin_dynamic_;
  bool plain_ = false;  // builtin_dynamic_ and whole bytes (cell 1): admit_plain does the accounting
  buffer_config config_;
  // A group's usage, pause state and the configuration an admission tests in its first cache
  // line: an admission and a release read only that line (pg_config and pg_usage side by side
  // filled both lines, and either read both; a large fabric misses each). The rest, read by a
  // pause's resume and a lossless drop, in the second line, at the same base.
  struct alignas(64) group {
    uint64_t reserved = 0, shared = 0, headroom = 0, peak_total = 0;  // pg_usage's
    double alpha = 0;                                                 // pg_config's
    uint64_t reserve = 0, headroom_size = 0;                          // pg_config::headroom
    bool lossless = true;
    bool paused = false;
    // k when the group's alpha is exactly 2^-k (0 <= k <= 10; the default 1/8 is 3), else -1:
    // under the built-in rule its resume point is then need << k, exact, not a division and the
    // products that step to it (half the incast's releases refresh one).
    int8_t alpha_shift = -1;
    uint32_t slot = 0;  // while paused: its place in paused_list_ and resume_free_
    // The second line: the rest of pg_config and pg_usage.
    uint64_t xoff = 0, xon_offset = 0;
    uint64_t peak_headroom = 0, overflows = 0;
    uint64_t total() const { return reserved + shared + headroom; }
  };
  static_assert(offsetof(group, xoff) == 64, "what an admission and a release read fills the first line");
  std::vector<group> groups_;
  void set_group(std::size_t i, const pg_config& c);  // group i's configuration
  pg_config config_at(std::size_t i) const;
  pg_usage usage_at(std::size_t i) const;
  std::vector<uint32_t> paused_list_;  // indices of paused groups, for the pool-growth re-check
  // Beside paused_list_, each paused group's resume point: under a policy that follows the pool,
  // with no headroom held, the free pool at which it may resume (XON), kept so that a release
  // from the pool compares one number per paused group instead of computing each threshold;
  // never_resumes while it holds headroom (only its own release empties that, and refreshes it).
  // In an array of their own: the pool-growth scan reads 8 bytes a group, not two of its lines.
  std::vector<uint64_t> resume_free_;
  void unlist_paused(uint32_t slot);  // removes paused_list_[slot] (and its resume point): the last moves there
  // At most the least resume point of the paused groups holding no headroom (a group reaches
  // that state, or a new resume point, only through refresh_resume_free): a release leaving less
  // free skips the scan.
  uint64_t least_resume_free_ = threshold_policy::never_resumes;
  std::vector<uint32_t> resumed_;  // scratch: groups resumed by one release
  resume_listener* listener_ = nullptr;
};

// An admission's accounting: which part of the group takes the frame, the counts and their
// high-water marks, and what is left to do (a pause, a resume point), not done here: inline in
// the switch's receive under the built-in rule (admit_plain), and in admit_as under either.
template <bool builtin_dynamic>
inline admit_rest shared_buffer::admit_accounting(std::size_t i, uint64_t bytes) {
  group& g = groups_[i];
  const group& c = g;  // its configuration
  group& u = g;        // its usage
  // Each high-water mark is raised where its count grows (no other admission moves it).
  if (u.reserved + bytes <= c.reserve) {
    u.reserved += bytes;
  } else if (u.headroom == 0 && u.shared + bytes <= threshold_as<builtin_dynamic>(i) &&
             shared_used_ + bytes <= config_.shared_size) {
    u.shared += bytes;
    shared_used_ += bytes;
    peak_shared_ = std::max(peak_shared_, shared_used_);
  } else if (c.lossless && u.headroom + bytes <= c.headroom_size) {
    u.headroom += bytes;
    u.peak_headroom = std::max(u.peak_headroom, u.headroom);
  } else {
    if (c.lossless) ++u.overflows;
    // Even a group whose headroom cannot take one frame must still pause its sender.
    return c.lossless && !g.paused ? admit_rest::pause_dropped : admit_rest::dropped;
  }
  u.peak_total = std::max(u.peak_total, u.total());
  in_use_ += bytes;
  peak_in_use_ = std::max(peak_in_use_, in_use_);
  if (g.paused) {
    if (keeps_resume_free(i)) return admit_rest::refresh;
    if (u.headroom != 0) resume_free_[g.slot] = threshold_policy::never_resumes;  // stale while it holds headroom
  } else if (c.lossless && (u.headroom > 0 || (u.shared > 0 && u.shared >= threshold_as<builtin_dynamic>(i)))) {
    return admit_rest::pause;  // XOFF
  }
  return admit_rest::none;
}

}  // namespace sluice
