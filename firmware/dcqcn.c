/* DCQCN's reaction point as firmware (Zhu et al., SIGCOMM'15): the paper's rules, in the same
 * arithmetic as Sluice's built-in reaction point (models/cc/dcqcn/dcqcn_rp.h), so that at zero
 * firmware latency both give the same rate changes, bit for bit (docs/cosimulation.md).
 *
 *   CNP:          (first CNP: rc = rt = line rate, alpha = alpha_init)
 *                 catch up the alpha decays missed since the alpha timer was last due;
 *                 rt <- rc; rc <- max(rc (1 - alpha/2), min_rate); alpha <- (1 - g) alpha + g;
 *                 byte counter and both stages reset; the alpha timer and the rate timer restart
 *   alpha timer:  alpha <- (1 - g) alpha                 (every alpha_timer without a CNP)
 *   rate timer:   timer stage + 1, increase               (every timer)
 *   TX:           bytes sent; every byte_counter bytes: byte stage + 1, increase
 *   increase:     hi = max(stages), lo = min(stages)
 *                 hi <= F: rc <- (rt + rc)/2;  lo <= F: rt += R_AI;  else rt += (lo - F) R_HAI;
 *                 then rc <- (rt + rc)/2, both capped at the line rate
 * The rate goes to the NIC in bit/s (sluice_fw_set_rate_bps), exactly as the built-in sets it;
 * parameters are integers, as a device's registers: g in 1/65536, times in ns, rates in bit/s. */
#include <math.h>

#include "sluice_fw_hal.h"

enum { P_G, P_ALPHA_INIT, P_ALPHA_TIMER, P_TIMER, P_BYTE_COUNTER, P_FAST_RECOVERY, P_RAI, P_RHAI, P_MIN_RATE };
enum { C_CNPS, C_CUTS, C_INCREASES };

typedef struct {
  double g, alpha0, rai, rhai, min_rate;
  uint64_t alpha_timer_ps, timer_ps, byte_counter;
  uint32_t fast_recovery;
} dcqcn_state;

typedef struct {
  double rc, rt, alpha;
  uint64_t bytes, alpha_due, rate_due;
  uint32_t timer_stage, byte_stage, started, active;
} dcqcn_flow;

static const sluice_fw_param_desc params[] = {
    {P_G, "g", "alpha gain g, in 1/65536 (paper: 256, 1/256)", 0, 65536, 256},
    {P_ALPHA_INIT, "alpha_init", "alpha before the first CNP, in 1/65536 (paper: 65536, 1)", 0, 65536, 65536},
    {P_ALPHA_TIMER, "alpha_timer", "alpha decay period, ns (paper: 55 us)", 1, 1000000000, 55000},
    {P_TIMER, "timer", "rate-increase timer period, ns (paper: 55 us)", 1, 1000000000, 55000},
    {P_BYTE_COUNTER, "byte_counter", "a rate increase every this many bytes sent, 0 off (paper: 10 MB)", 0, 1ull << 40,
     10000000},
    {P_FAST_RECOVERY, "fast_recovery", "fast-recovery steps F (paper: 5)", 0, 1000, 5},
    {P_RAI, "rai", "additive increase step, bit/s (paper: 40 Mb/s)", 0, 10000000000000ull, 40000000},
    {P_RHAI, "rhai", "hyper increase step, bit/s (200 Mb/s)", 0, 10000000000000ull, 200000000},
    {P_MIN_RATE, "min_rate", "lowest rate a cut sets, bit/s (100 Mb/s)", 1000, 10000000000000ull, 100000000},
};
static const sluice_fw_counter_desc counters[] = {
    {C_CNPS, "cnps", "CNPs the firmware handled"},
    {C_CUTS, "cuts", "rate cuts"},
    {C_INCREASES, "increases", "rate increases (timer and byte counter)"},
};

static int init(sluice_fw_ctx* c) {
  dcqcn_state* s = (dcqcn_state*)c->state;
  s->g = (double)sluice_fw_param(c, P_G) / 65536.0;
  s->alpha0 = (double)sluice_fw_param(c, P_ALPHA_INIT) / 65536.0;
  s->alpha_timer_ps = sluice_fw_param(c, P_ALPHA_TIMER) * 1000u;
  s->timer_ps = sluice_fw_param(c, P_TIMER) * 1000u;
  s->byte_counter = sluice_fw_param(c, P_BYTE_COUNTER);
  s->fast_recovery = (uint32_t)sluice_fw_param(c, P_FAST_RECOVERY);
  s->rai = (double)sluice_fw_param(c, P_RAI);
  s->rhai = (double)sluice_fw_param(c, P_RHAI);
  s->min_rate = (double)sluice_fw_param(c, P_MIN_RATE);
  return 0;
}

static void increase(const sluice_fw_ctx* c, const dcqcn_state* s, dcqcn_flow* f, double line) {
  const uint32_t hi = f->timer_stage > f->byte_stage ? f->timer_stage : f->byte_stage;
  const uint32_t lo = f->timer_stage < f->byte_stage ? f->timer_stage : f->byte_stage;
  if (hi <= s->fast_recovery) {
  } else if (lo <= s->fast_recovery) {
    f->rt += s->rai;
  } else {
    f->rt += (double)(lo - s->fast_recovery) * s->rhai;
  }
  f->rt = line < f->rt ? line : f->rt;
  f->rc = (f->rt + f->rc) / 2 > line ? line : (f->rt + f->rc) / 2;
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
  const double line = sluice_fw_line_rate_bps(c);
  const uint64_t tau = s->alpha_timer_ps;
  double rc;
  if (!f->started) {
    f->started = 1;
    f->rc = f->rt = line;
    f->alpha = s->alpha0;
  }
  if (f->alpha_due && now >= f->alpha_due) { /* catch up on the alpha periods missed while idle */
    const uint64_t k = (now - f->alpha_due) / tau + 1;
    f->alpha *= k == 1 ? 1 - s->g : pow(1 - s->g, (double)k);
    f->alpha_due += k * tau;
  }
  f->rt = f->rc; /* cut */
  rc = f->rc * (1 - f->alpha / 2);
  f->rc = rc < s->min_rate ? s->min_rate : rc;
  f->alpha = (1 - s->g) * f->alpha + s->g;
  f->bytes = 0;
  f->timer_stage = f->byte_stage = 0;
  sluice_fw_set_rate_bps(c, r, f->rc); /* restart: the new rate, both timers */
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
    ++f->byte_stage;
    ++events;
    increase(c, s, f, sluice_fw_line_rate_bps(c));
  }
  if (events) sluice_fw_set_rate_bps(c, r, f->rc);
}

static int on_timer(sluice_fw_ctx* c, sluice_fw_result* r) {
  const dcqcn_state* s = (const dcqcn_state*)c->state;
  dcqcn_flow* f = (dcqcn_flow*)c->flow;
  const uint64_t now = sluice_fw_now_ps(c);
  const double line = sluice_fw_line_rate_bps(c);
  if (f->alpha_due && f->alpha_due <= now) {
    f->alpha *= 1 - s->g;
    f->alpha_due += s->alpha_timer_ps;
  }
  if (f->rate_due && f->rate_due <= now) {
    ++f->timer_stage;
    increase(c, s, f, line);
    f->rate_due += s->timer_ps;
    sluice_fw_set_rate_bps(c, r, f->rc);
  }
  f->active = f->rc < line || f->rt < line;
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
    "dcqcn",
    "DCQCN reaction point (the paper's rules), bit-exact with the built-in rp=dcqcn",
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
