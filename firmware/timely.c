/* TIMELY's reaction point as firmware (Mittal et al., SIGCOMM'15, Algorithm 1; the paper's rules
 * as docs/models/timely.md lists them), driven by RTT probes (rtt_probe_template.c): one probe
 * per round trip, each answer an update:
 *
 *   new_rtt_diff = new_rtt - prev_rtt;  rtt_diff = (1 - alpha) rtt_diff + alpha new_rtt_diff
 *   gradient = rtt_diff / min_rtt
 *   new_rtt < T_low: rate += delta;  new_rtt > T_high: rate *= 1 - beta (1 - T_high / new_rtt)
 *   gradient <= 0: rate += N delta (N = hai_factor after hai_threshold such updates in a row, else 1)
 *   gradient > 0:  rate *= 1 - beta gradient;   rate within [min_rate, line rate]
 *
 * It hands the rate over as hardware does: a 20-bit fraction of the line rate
 * (sluice_fw_set_rate). Differences from the built-in rp=timely: it samples once per probe (one
 * RTT) instead of every ACK at the min-RTT cadence, starts at line rate, and quantizes the rate
 * to 1/2^20 of the line rate (docs/cosimulation.md). Parameters: times in ns, alpha and beta in
 * 1/65536, rates in bit/s, min_rate in 1/65536 of the line rate. */
#include "sluice_fw_hal.h"

enum { P_T_LOW, P_T_HIGH, P_ALPHA, P_BETA, P_DELTA, P_MIN_RTT, P_HAI_THRESHOLD, P_HAI_FACTOR, P_MIN_RATE };
enum { C_SAMPLES, C_DECREASES, C_INCREASES };

typedef struct {
  double t_low_ps, t_high_ps, alpha, beta, delta, min_rtt_ps, hai_factor, min_fraction;
  uint32_t hai_threshold;
} timely_state;

typedef struct {
  double rate, prev_rtt, rtt_diff;
  uint32_t have_prev, negatives;
} timely_flow;

static const sluice_fw_param_desc params[] = {
    {P_T_LOW, "t_low", "below this RTT, additive increase only, ns (paper: 50 us)", 0, 1000000000, 50000},
    {P_T_HIGH, "t_high", "above this RTT, decrease by beta (1 - t_high/RTT), ns (paper: 500 us)", 0, 1000000000,
     500000},
    {P_ALPHA, "alpha", "EWMA weight of the newest RTT difference, in 1/65536 (0.875: 57344)", 0, 65536, 57344},
    {P_BETA, "beta", "multiplicative decrease factor, in 1/65536 (0.8: 52429)", 0, 65536, 52429},
    {P_DELTA, "delta", "additive increase step, bit/s (paper: 10 Mb/s)", 0, 1000000000000ull, 10000000},
    {P_MIN_RTT, "min_rtt", "minimum RTT normalizing the gradient, ns (20 us)", 1, 1000000000, 20000},
    {P_HAI_THRESHOLD, "hai_threshold", "updates with gradient <= 0 in a row before HAI (paper: 5)", 1, 1000000, 5},
    {P_HAI_FACTOR, "hai_factor", "N, the HAI step in deltas (paper: 5)", 1, 1000, 5},
    {P_MIN_RATE, "min_rate", "lowest rate, in 1/65536 of the line rate (0.01: 655)", 1, 65536, 655},
};
static const sluice_fw_counter_desc counters[] = {
    {C_SAMPLES, "rtt_samples", "RTT probe answers (updates)"},
    {C_DECREASES, "decreases", "updates that lowered the rate"},
    {C_INCREASES, "increases", "updates that raised the rate"},
};

static int init(sluice_fw_ctx* c) {
  timely_state* s = (timely_state*)c->state;
  s->t_low_ps = (double)sluice_fw_param(c, P_T_LOW) * 1000;
  s->t_high_ps = (double)sluice_fw_param(c, P_T_HIGH) * 1000;
  s->alpha = (double)sluice_fw_param(c, P_ALPHA) / 65536;
  s->beta = (double)sluice_fw_param(c, P_BETA) / 65536;
  s->delta = (double)sluice_fw_param(c, P_DELTA);
  s->min_rtt_ps = (double)sluice_fw_param(c, P_MIN_RTT) * 1000;
  s->hai_threshold = (uint32_t)sluice_fw_param(c, P_HAI_THRESHOLD);
  s->hai_factor = (double)sluice_fw_param(c, P_HAI_FACTOR);
  s->min_fraction = (double)sluice_fw_param(c, P_MIN_RATE) / 65536;
  return 0;
}

static void update(sluice_fw_ctx* c, const timely_state* s, timely_flow* f, double rtt, sluice_fw_result* r) {
  const double line = sluice_fw_line_rate_bps(c);
  const double before = f->rate;
  const double new_diff = f->have_prev ? rtt - f->prev_rtt : 0.0;
  double gradient, fraction;
  f->prev_rtt = rtt;
  f->have_prev = 1;
  f->rtt_diff = (1 - s->alpha) * f->rtt_diff + s->alpha * new_diff;
  gradient = f->rtt_diff / s->min_rtt_ps;
  f->negatives = gradient <= 0 ? f->negatives + 1 : 0;
  if (rtt < s->t_low_ps)
    f->rate += s->delta;
  else if (rtt > s->t_high_ps)
    f->rate *= 1 - s->beta * (1 - s->t_high_ps / rtt);
  else if (gradient <= 0)
    f->rate += (f->negatives >= s->hai_threshold ? s->hai_factor : 1.0) * s->delta;
  else
    f->rate *= 1 - s->beta * gradient;
  if (f->rate < s->min_fraction * line) f->rate = s->min_fraction * line;
  if (f->rate > line) f->rate = line;
  fraction = f->rate / line * SLUICE_FW_RATE_ONE;
  sluice_fw_set_rate(c, r, fraction < 1 ? 1u : (uint32_t)fraction);
  sluice_fw_count(c, C_SAMPLES, 1);
  if (f->rate < before) sluice_fw_count(c, C_DECREASES, 1);
  if (f->rate > before) sluice_fw_count(c, C_INCREASES, 1);
}

static int on_event(sluice_fw_ctx* c, const sluice_fw_event* e, sluice_fw_result* r) {
  const timely_state* s = (const timely_state*)c->state;
  timely_flow* f = (timely_flow*)c->flow;
  switch (sluice_fw_event_type_of(c, e)) {
    case SLUICE_FW_EV_FLOW_START:
      f->rate = sluice_fw_line_rate_bps(c);
      sluice_fw_request_probe(c, r);
      break;
    case SLUICE_FW_EV_RTT:
      update(c, s, f, (double)sluice_fw_event_rtt_ps(c, e), r);
      sluice_fw_request_probe(c, r);
      break;
    default:
      break;
  }
  return 0;
}

const sluice_fw_descriptor SLUICE_FW_DESCRIPTOR = {SLUICE_FW_HAL_MAJOR,
                                                   SLUICE_FW_HAL_MINOR,
                                                   "timely",
                                                   "TIMELY reaction point on RTT probes, 20-bit fixed-point rates",
                                                   0,
                                                   sizeof(timely_state),
                                                   sizeof(timely_flow),
                                                   params,
                                                   sizeof params / sizeof params[0],
                                                   counters,
                                                   sizeof counters / sizeof counters[0],
                                                   init,
                                                   on_event,
                                                   0,
                                                   0};
