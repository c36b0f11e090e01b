/* A template for RTT-driven firmware: probe the path once per round trip and react to each
 * answer. It changes no rate; copy it and put the algorithm in on_rtt (timely.c is this
 * template with TIMELY in it). The probe rides on the flow's next data frame and the first ACK
 * covering it answers (an RTT event), so the receiver must send ACKs (TIMELY's notification
 * point, or the transport ACK model). */
#include "sluice_fw_hal.h"

enum { C_PROBES, C_SAMPLES };

typedef struct {
  uint64_t last_rtt_ps, min_rtt_ps;
} probe_flow;

static const sluice_fw_counter_desc counters[] = {
    {C_PROBES, "probes", "RTT probes requested"},
    {C_SAMPLES, "rtt_samples", "RTT probe answers"},
};

static void probe(sluice_fw_ctx* c, sluice_fw_result* r) {
  sluice_fw_request_probe(c, r);
  sluice_fw_count(c, C_PROBES, 1);
}

static void on_rtt(sluice_fw_ctx* c, probe_flow* f, uint64_t rtt_ps, sluice_fw_result* r) {
  f->last_rtt_ps = rtt_ps;
  if (!f->min_rtt_ps || rtt_ps < f->min_rtt_ps) f->min_rtt_ps = rtt_ps;
  sluice_fw_count(c, C_SAMPLES, 1);
  (void)r; /* the algorithm's rate goes here: sluice_fw_set_rate(c, r, fraction) */
}

static int on_event(sluice_fw_ctx* c, const sluice_fw_event* e, sluice_fw_result* r) {
  probe_flow* f = (probe_flow*)c->flow;
  switch (sluice_fw_event_type_of(c, e)) {
    case SLUICE_FW_EV_FLOW_START:
      probe(c, r);
      break;
    case SLUICE_FW_EV_RTT:
      on_rtt(c, f, sluice_fw_event_rtt_ps(c, e), r);
      probe(c, r); /* the next round trip */
      break;
    default:
      break;
  }
  return 0;
}

const sluice_fw_descriptor SLUICE_FW_DESCRIPTOR = {SLUICE_FW_HAL_MAJOR,
                                                   SLUICE_FW_HAL_MINOR,
                                                   "rtt-probe",
                                                   "template: one RTT probe per round trip, no rate change",
                                                   0,
                                                   0,
                                                   sizeof(probe_flow),
                                                   0,
                                                   0,
                                                   counters,
                                                   sizeof counters / sizeof counters[0],
                                                   0,
                                                   on_event,
                                                   0,
                                                   0};
