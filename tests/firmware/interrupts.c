/* A test firmware driven by the NIC's interrupt (tests/system/firmware_test.cpp): init enables the
 * INT_STATUS flags of parameter `enable`; each IRQ cuts flow slot 0's rate register by `step`
 * Mb/s (so that every interrupt shows as a rate change at the handler's time) and, with
 * `clear`, writes its cause back to INT_STATUS (write 1 to clear). Its mailbox answers
 * "irqs" with the interrupts seen and "status" with INT_STATUS, and echoes anything else. */
#include <stdio.h>
#include <string.h>

#include "sluice_fw_hal.h"
#include "sluice_regs_nic.h"

enum { P_ENABLE, P_CLEAR, P_STEP, P_MISUSE };
enum { C_IRQS, C_CAUSES };

typedef struct {
  uint32_t irqs, rate_mbps;
} irq_state;

static const sluice_fw_param_desc params[] = {
    {P_ENABLE, "enable", "INT_ENABLE bits to set at init (1: CNP, 2: CNM, 4: PAUSED)", 0, 7, 1},
    {P_CLEAR, "clear", "1: the handler clears the flags it served", 0, 1, 1},
    {P_STEP, "step", "rate cut per interrupt, Mb/s", 1, 1000, 10},
    {P_MISUSE, "misuse", "1: the handler answers a rate, which a device event may not", 0, 1, 0},
};
static const sluice_fw_counter_desc counters[] = {
    {C_IRQS, "irqs", "interrupts handled"},
    {C_CAUSES, "causes", "cause bits seen, summed"},
};

#define GLOBAL(reg) SLUICE_NIC_GLOBALS_ADDR(SLUICE_NIC_GLOBALS_##reg##_OFFSET)

static int init(sluice_fw_ctx* c) {
  irq_state* s = (irq_state*)c->state;
  if (sluice_fw_reg_read(c, SLUICE_NIC_FLOWS_ADDR(0, SLUICE_NIC_FLOWS_RATE_OFFSET), &s->rate_mbps) != 0) return 1;
  if (s->rate_mbps == 0) s->rate_mbps = (uint32_t)(sluice_fw_line_rate_bps(c) / 1e6);
  return sluice_fw_reg_write(c, GLOBAL(INT_ENABLE), (uint32_t)sluice_fw_param(c, P_ENABLE)) != 0;
}

static int on_event(sluice_fw_ctx* c, const sluice_fw_event* e, sluice_fw_result* r) {
  irq_state* s = (irq_state*)c->state;
  uint32_t cause;
  if (sluice_fw_event_type_of(c, e) != SLUICE_FW_EV_IRQ) return 0;
  if (c->flow != 0) return 2; /* a device event has no flow */
  if (sluice_fw_param(c, P_MISUSE)) sluice_fw_set_rate(c, r, SLUICE_FW_RATE_ONE / 2);
  cause = sluice_fw_event_cause(c, e);
  ++s->irqs;
  sluice_fw_count(c, C_IRQS, 1);
  sluice_fw_count(c, C_CAUSES, cause);
  s->rate_mbps -= (uint32_t)sluice_fw_param(c, P_STEP);
  if (sluice_fw_reg_write(c, SLUICE_NIC_FLOWS_ADDR(0, SLUICE_NIC_FLOWS_RATE_OFFSET), s->rate_mbps) != 0) return 3;
  if (sluice_fw_param(c, P_CLEAR) && sluice_fw_reg_write(c, GLOBAL(INT_STATUS), cause) != 0) return 4;
  return 0;
}

static int on_mailbox(sluice_fw_ctx* c, const void* message, uint32_t length, void* reply, uint32_t capacity,
                      uint32_t* reply_length) {
  const irq_state* s = (const irq_state*)c->state;
  char text[64];
  uint32_t v = 0;
  int n;
  if (length == 4 && memcmp(message, "irqs", 4) == 0) {
    n = snprintf(text, sizeof text, "%u", (unsigned)s->irqs);
  } else if (length == 6 && memcmp(message, "status", 6) == 0) {
    if (sluice_fw_reg_read(c, GLOBAL(INT_STATUS), &v) != 0) return 1;
    n = snprintf(text, sizeof text, "%u", (unsigned)v);
  } else {
    *reply_length = length < capacity ? length : capacity;
    memcpy(reply, message, *reply_length);
    return 0;
  }
  *reply_length = (uint32_t)n < capacity ? (uint32_t)n : capacity;
  memcpy(reply, text, *reply_length);
  return 0;
}

const sluice_fw_descriptor SLUICE_FW_DESCRIPTOR = {SLUICE_FW_HAL_MAJOR,
                                                   SLUICE_FW_HAL_MINOR,
                                                   "interrupts",
                                                   "a test firmware served by the NIC's interrupt",
                                                   0,
                                                   sizeof(irq_state),
                                                   0,
                                                   params,
                                                   sizeof params / sizeof params[0],
                                                   counters,
                                                   sizeof counters / sizeof counters[0],
                                                   init,
                                                   on_event,
                                                   0,
                                                   on_mailbox};
