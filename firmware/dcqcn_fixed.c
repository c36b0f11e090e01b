/* DCQCN's reaction point as fixed-point firmware: the rules of dcqcn.c (the paper's), in the
 * arithmetic of a hardware rate register (docs/cosimulation.md): rates are 21-bit integers in
 * units of line rate / 2^20 (SLUICE_FW_RATE_ONE is the line rate), alpha and g are in 2^-16 with
 * alpha saturating at 0xffff, products are truncated and the mean of rt and rc is rounded up.
 * These are the widths and roundings of the RTL block rtl/sluice_dcqcn_rp.sv and its reference
 * (docs/rtl.md), so the two agree on a cut or an increase; the rate goes to the NIC as a
 * fraction (sluice_fw_set_rate), as to a hardware rate limiter.
 *
 *   CNP:          catch up the alpha decays missed since the alpha timer was last due;
 *                 rt <- rc; rc <- max(rc - (rc alpha >> 17), min_rate); alpha <- alpha - (alpha g >> 16) + g
 *   alpha timer:  alpha <- alpha - (alpha g >> 16)
 *   increase:     as dcqcn.c, rt += R_AI or (lo - F) R_HAI, capped at ONE; rc <- min((rt + rc + 1) >> 1, ONE)
 * Parameters are those of dcqcn.c (g in 1/65536, times in ns, rates in bit/s, converted to
 * 2^-20 of the line rate at init, rounded to the nearest step). */
#include "sluice_fw_hal.h"

enum { P_G, P_ALPHA_INIT, P_ALPHA_TIMER, P_TIMER, P_BYTE_COUNTER, P_FAST_RECOVERY, P_RAI, P_RHAI, P_MIN_RATE };
enum { C_CNPS, C_CUTS, C_INCREASES };

#define ONE SLUICE_FW_RATE_ONE
#define ALPHA_MAX 0xffffu

typedef struct {
  uint32_t g, alpha0, rai, rhai, min_rate, fast_recovery;
  uint64_t alpha_timer_ps, timer_ps, byte_counter;
} dcqcn_state;

typedef struct {
  uint32_t rc, rt, alpha;
  uint64_t bytes, alpha_due, rate_due;
  uint32_t timer_stage, byte_stage, started, active;
} dcqcn_flow;

static const sluice_fw_param_desc params[] = {
    {P_G, "g", "alpha gain g, in 1/65536 (paper: 256, 1/256)", 0, 65535, 256},
    {P_ALPHA_INIT, "alpha_init", "alpha before the first CNP, in 1/65536 (saturates at 65535)", 0, 65536, 65536},
    {P_ALPHA_TIMER, "alpha_timer", "alpha decay period, ns (paper: 55 us)", 1, 1000000000, 55000},
    {P_TIMER, "timer", "rate-increase timer period, ns (paper: 55 us)", 1, 1000000000, 55000},
    {P_BYTE_COUNTER, "byte_counter", "a rate increase every this many bytes sent, 0 off (paper: 10 MB)", 0, 1ull << 40,
     10000000},
    {P_FAST_RECOVERY, "fast_recovery", "fast-recovery steps F (paper: 5)", 0, 255, 5},
    {P_RAI, "rai", "additive increase step, bit/s (paper: 40 Mb/s)", 0, 10000000000000ull, 40000000},
    {P_RHAI, "rhai", "hyper increase step, bit/s (200 Mb/s)", 0, 10000000000000ull, 200000000},
    {P_MIN_RATE, "min_rate", "lowest rate a cut sets, bit/s (100 Mb/s)", 1000, 10000000000000ull, 100000000},
};
static const sluice_fw_counter_desc counters[] = {
    {C_CNPS, "cnps", "CNPs the firmware handled"},
    {C_CUTS, "cuts", "rate cuts"},
    {C_INCREASES, "increases", "rate increases (timer and byte counter)"},
};

/* bit/s -> line rate / 2^20, to the nearest step, within [0, ONE]. */
static uint32_t fraction_of(double bps, double line) {
  const double q = bps / line * ONE + 0.5;
  return q >= ONE ? ONE : (uint32_t)q;
}

static int init(sluice_fw_ctx* c) {
  dcqcn_state* s = (dcqcn_state*)c->state;
  const double line = sluice_fw_line_rate_bps(c);
  const uint64_t alpha0 = sluice_fw_param(c, P_ALPHA_INIT);
  s->g = (uint32_t)sluice_fw_param(c, P_G);
  s->alpha0 = alpha0 > ALPHA_MAX ? ALPHA_MAX : (uint32_t)alpha0;
  s->alpha_timer_ps = sluice_fw_param(c, P_ALPHA_TIMER) * 1000u;
  s->timer_ps = sluice_fw_param(c, P_TIMER) * 1000u;
  s->byte_counter = sluice_fw_param(c, P_BYTE_COUNTER);
  s->fast_recovery = (uint32_t)sluice_fw_param(c, P_FAST_RECOVERY);
  s->rai = fraction_of((double)sluice_fw_param(c, P_RAI), line);
  s->rhai = fraction_of((double)sluice_fw_param(c, P_RHAI), line);
  s->min_rate = fraction_of((double)sluice_fw_param(c, P_MIN_RATE), line);
  if (s->min_rate == 0) s->min_rate = 1; /* a rate of 0 is refused */
  return 0;
}

static uint32_t decayed(const dcqcn_state* s, uint32_t alpha) { return alpha - (uint32_t)(((uint64_t)alpha * s->g) >> 16); }

static void increase(const sluice_fw_ctx* c, const dcqcn_state* s, dcqcn_flow* f) {
  const uint32_t hi = f->timer_stage > f->byte_stage ? f->timer_stage : f->byte_stage;
  const uint32_t lo = f->timer_stage < f->byte_stage ? f->timer_stage : f->byte_stage;
  uint64_t rt = f->rt;
  if (hi <= s->fast_recovery) {
  } else if (lo <= s->fast_recovery) {
    rt += s->rai;
  } else {
    rt += (uint64_t)(lo - s->fast_recovery) * s->rhai;
  }
  f->rt = rt > ONE ? ONE : (uint32_t)rt;
  f->rc = (f->rt + f->rc + 1) >> 1 > ONE ? ONE : (f->rt + f->rc + 1) >> 1;
  sluice_fw_count(c, C_INCREASES, 1);
}

static uint64_t next_due(const dcqcn_flow* f) {
  uint64_t t = UINT64_MAX;
  if (f->alpha_due && f->alpha_due < t) t = f->alpha_due;
  if (f->rate_due && f->rate_due < t) t = f->rate_due;
  return t;
}

static void on_cnp(sluice_fw_ctx* c, const dcqcn_state* s, dcqcn_flow* f, sluice_fw_result* r) {
  const uint64_t now = sluice_fw_now_ps(c);
  const uint64_t tau = s->alpha_timer_ps;
  uint32_t rc;
  if (!f->started) {
    f->started = 1;
    f->rc = f->rt = ONE;
    f->alpha = s->alpha0;
  }
  if (f->alpha_due && now >= f->alpha_due) { /* catch up on the alpha periods missed while idle */
    uint64_t k = (now - f->alpha_due) / tau + 1;
    f->alpha_due += k * tau;
    while (k-- && f->alpha) f->alpha = decayed(s, f->alpha);
  }
  f->rt = f->rc; /* cut */
  rc = f->rc - (uint32_t)(((uint64_t)f->rc * f->alpha) >> 17);
  f->rc = rc < s->min_rate ? s->min_rate : rc;
  f->alpha = decayed(s, f->alpha) + s->g;
  if (f->alpha > ALPHA_MAX) f->alpha = ALPHA_MAX;
  f->bytes = 0;
  f->timer_stage = f->byte_stage = 0;
  sluice_fw_set_rate(c, r, f->rc);
  f->alpha_due = now + tau;
  f->rate_due = now + s->timer_ps;
  f->active = 1;
  sluice_fw_set_timer(c, r, next_due(f));
  sluice_fw_count(c, C_CNPS, 1);
  sluice_fw_count(c, C_CUTS, 1);
}

static void on_tx(sluice_fw_ctx* c, const dcqcn_state* s, dcqcn_flow* f, const sluice_fw_event* e,
                  sluice_fw_result* r) {
  uint32_t events = 0;
  if (!f->active) return;
  f->bytes += sluice_fw_event_bytes(c, e);
  while (s->byte_counter && f->bytes >= s->byte_counter) {
    f->bytes -= s->byte_counter;
    if (f->byte_stage < 255) ++f->byte_stage;
    ++events;
    increase(c, s, f);
  }
  if (events) sluice_fw_set_rate(c, r, f->rc);
}

static int on_timer(sluice_fw_ctx* c, sluice_fw_result* r) {
  const dcqcn_state* s = (const dcqcn_state*)c->state;
  dcqcn_flow* f = (dcqcn_flow*)c->flow;
  const uint64_t now = sluice_fw_now_ps(c);
  if (f->alpha_due && f->alpha_due <= now) {
    f->alpha = decayed(s, f->alpha);
    f->alpha_due += s->alpha_timer_ps;
  }
  if (f->rate_due && f->rate_due <= now) {
    if (f->timer_stage < 255) ++f->timer_stage;
    increase(c, s, f);
    f->rate_due += s->timer_ps;
    sluice_fw_set_rate(c, r, f->rc);
  }
  f->active = f->rc < ONE || f->rt < ONE;
  if (f->active) sluice_fw_set_timer(c, r, next_due(f));
  return 0;
}

static int on_event(sluice_fw_ctx* c, const sluice_fw_event* e, sluice_fw_result* r) {
  const dcqcn_state* s = (const dcqcn_state*)c->state;
  dcqcn_flow* f = (dcqcn_flow*)c->flow;
  switch (sluice_fw_event_type_of(c, e)) {
    case SLUICE_FW_EV_CNP:
      on_cnp(c, s, f, r);
      break;
    case SLUICE_FW_EV_TX:
      on_tx(c, s, f, e, r);
      break;
    default:
      break;
  }
  return 0;
}

const sluice_fw_descriptor SLUICE_FW_DESCRIPTOR = {
    SLUICE_FW_HAL_MAJOR,
    SLUICE_FW_HAL_MINOR,
    "dcqcn-fixed",
    "DCQCN reaction point (the paper's rules) in 20-bit fixed point, the RTL block's arithmetic",
    0,
    sizeof(dcqcn_state),
    sizeof(dcqcn_flow),
    params,
    sizeof params / sizeof params[0],
    counters,
    sizeof counters / sizeof counters[0],
    init,
    on_event,
    on_timer,
    0,
};
