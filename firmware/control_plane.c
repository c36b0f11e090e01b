/* A switch's control-plane firmware, as an SDK's init configures a switch (docs/cosimulation.md):
 * at time 0 it reads the switch's size from INFO and writes, through the register map
 * (sluice_regs_switch.h), the ECN marking thresholds of the classes in `ecn_classes` on every
 * port, the PFC thresholds and pause time of every port, and the MMU's dynamic-threshold factor,
 * from its parameters (0: leave the register as it is); then it may lock the configuration and
 * enable the switch's interrupts, which it counts and clears. The same values set in a scenario
 * give the same run, byte for byte. A write a register refuses (a class without an ECN
 * congestion point, a port without PFC) is skipped. How many it wrote and skipped is kept in its
 * state, not in counters (which would show in the run's summary): its mailbox answers "config"
 * with them. */
#include <stdio.h>
#include <string.h>

#include "sluice_fw_hal.h"
#include "sluice_regs_switch.h"

enum { P_ECN_KMIN, P_ECN_KMAX, P_ECN_PMAX, P_ECN_CLASSES, P_PFC_XOFF, P_PFC_XON_OFFSET, P_PFC_QUANTA, P_MMU_ALPHA };
enum { P_LOCK = 8, P_IRQ_ENABLE };
enum { C_PAUSE_IRQS, C_DROP_IRQS, C_STORM_IRQS };

typedef struct {
  uint32_t writes, skipped;
} control_plane_state;

static const sluice_fw_param_desc params[] = {
    {P_ECN_KMIN, "ecn_kmin", "ECN_KMIN of the ECN classes, bytes (0: leave)", 0, 0xffffffffu, 0},
    {P_ECN_KMAX, "ecn_kmax", "ECN_KMAX of the ECN classes, bytes (0: leave)", 0, 0xffffffffu, 0},
    {P_ECN_PMAX, "ecn_pmax", "ECN_PMAX of the ECN classes, in 1/65536 (0: leave)", 0, 65536, 0},
    {P_ECN_CLASSES, "ecn_classes", "classes whose ECN thresholds are set, a bit each", 0, 0xffff, 0xffff},
    {P_PFC_XOFF, "pfc_xoff", "PFC_XOFF of every port, bytes (0: leave)", 0, 0xffffffffu, 0},
    {P_PFC_XON_OFFSET, "pfc_xon_offset", "PFC_XON_OFFSET of every port, bytes (0: leave)", 0, 0xffffffffu, 0},
    {P_PFC_QUANTA, "pfc_quanta", "PFC_QUANTA of every port, 512-bit times (0: leave)", 0, 65535, 0},
    {P_MMU_ALPHA, "mmu_alpha", "MMU_ALPHA, the lossless dynamic-threshold factor, in 1/256 (0: leave)", 0,
     262144, 0},
    {P_LOCK, "lock", "1: lock the configuration after init (LOCK.LOCKED)", 0, 1, 0},
    {P_IRQ_ENABLE, "irq_enable", "INT_ENABLE bits (1: PAUSE_SENT, 2: DROP, 4: PFC_STORM)", 0, 7, 0},
};
static const sluice_fw_counter_desc counters[] = {
    {C_PAUSE_IRQS, "pause_irqs", "interrupts for INT_STATUS.PAUSE_SENT"},
    {C_DROP_IRQS, "drop_irqs", "interrupts for INT_STATUS.DROP"},
    {C_STORM_IRQS, "storm_irqs", "interrupts for INT_STATUS.PFC_STORM"},
};

/* A write of `param`'s value, unless it is 0; refused ones are skipped. */
static void configure(sluice_fw_ctx* c, uint32_t address, uint32_t param) {
  control_plane_state* s = (control_plane_state*)c->state;
  const uint64_t value = sluice_fw_param(c, param);
  if (!value) return;
  if (sluice_fw_reg_write(c, address, (uint32_t)value) == 0)
    ++s->writes;
  else
    ++s->skipped;
}

static int init(sluice_fw_ctx* c) {
  uint32_t info = 0, ports, classes, port, cls;
  if (sluice_fw_reg_read(c, SLUICE_SWITCH_GLOBALS_ADDR(SLUICE_SWITCH_GLOBALS_INFO_OFFSET), &info) != 0) return 1;
  ports = (info & SLUICE_SWITCH_GLOBALS_INFO_PORTS_MASK) >> SLUICE_SWITCH_GLOBALS_INFO_PORTS_SHIFT;
  classes = (info & SLUICE_SWITCH_GLOBALS_INFO_CLASSES_MASK) >> SLUICE_SWITCH_GLOBALS_INFO_CLASSES_SHIFT;
  configure(c, SLUICE_SWITCH_GLOBALS_ADDR(SLUICE_SWITCH_GLOBALS_MMU_ALPHA_OFFSET), P_MMU_ALPHA);
  for (port = 0; port < ports; ++port) {
    configure(c, SLUICE_SWITCH_PORT_ADDR(port, SLUICE_SWITCH_PORT_PFC_XOFF_OFFSET), P_PFC_XOFF);
    configure(c, SLUICE_SWITCH_PORT_ADDR(port, SLUICE_SWITCH_PORT_PFC_XON_OFFSET_OFFSET), P_PFC_XON_OFFSET);
    configure(c, SLUICE_SWITCH_PORT_ADDR(port, SLUICE_SWITCH_PORT_PFC_QUANTA_OFFSET), P_PFC_QUANTA);
    for (cls = 0; cls < classes; ++cls) {
      if (!(sluice_fw_param(c, P_ECN_CLASSES) >> cls & 1u)) continue;
      configure(c, SLUICE_SWITCH_PORT_ADDR(port, SLUICE_SWITCH_PORT_ECN_KMIN_OFFSET(cls)), P_ECN_KMIN);
      configure(c, SLUICE_SWITCH_PORT_ADDR(port, SLUICE_SWITCH_PORT_ECN_KMAX_OFFSET(cls)), P_ECN_KMAX);
      configure(c, SLUICE_SWITCH_PORT_ADDR(port, SLUICE_SWITCH_PORT_ECN_PMAX_OFFSET(cls)), P_ECN_PMAX);
    }
  }
  if (sluice_fw_param(c, P_LOCK) &&
      sluice_fw_reg_write(c, SLUICE_SWITCH_GLOBALS_ADDR(SLUICE_SWITCH_GLOBALS_LOCK_OFFSET), 1) != 0)
    return 2;
  if (sluice_fw_reg_write(c, SLUICE_SWITCH_GLOBALS_ADDR(SLUICE_SWITCH_GLOBALS_INT_ENABLE_OFFSET),
                          (uint32_t)sluice_fw_param(c, P_IRQ_ENABLE)) != 0)
    return 3;
  return 0;
}

/* The switch's interrupt: count each cause, then clear it (write 1 to clear). */
static int on_event(sluice_fw_ctx* c, const sluice_fw_event* e, sluice_fw_result* r) {
  uint32_t cause;
  (void)r;
  if (sluice_fw_event_type_of(c, e) != SLUICE_FW_EV_IRQ) return 0;
  cause = sluice_fw_event_cause(c, e);
  if (cause & SLUICE_SWITCH_GLOBALS_INT_STATUS_PAUSE_SENT_MASK) sluice_fw_count(c, C_PAUSE_IRQS, 1);
  if (cause & SLUICE_SWITCH_GLOBALS_INT_STATUS_DROP_MASK) sluice_fw_count(c, C_DROP_IRQS, 1);
  if (cause & SLUICE_SWITCH_GLOBALS_INT_STATUS_PFC_STORM_MASK) sluice_fw_count(c, C_STORM_IRQS, 1);
  return sluice_fw_reg_write(c, SLUICE_SWITCH_GLOBALS_ADDR(SLUICE_SWITCH_GLOBALS_INT_STATUS_OFFSET), cause) != 0;
}

/* "config": what init wrote ("writes 21 skipped 0"). */
static int on_mailbox(sluice_fw_ctx* c, const void* message, uint32_t length, void* reply, uint32_t capacity,
                      uint32_t* reply_length) {
  const control_plane_state* s = (const control_plane_state*)c->state;
  char text[64];
  int n;
  if (length != 6 || memcmp(message, "config", 6) != 0) return 1;
  n = snprintf(text, sizeof text, "writes %u skipped %u", (unsigned)s->writes, (unsigned)s->skipped);
  *reply_length = (uint32_t)n < capacity ? (uint32_t)n : capacity;
  memcpy(reply, text, *reply_length);
  return 0;
}

const sluice_fw_descriptor SLUICE_FW_DESCRIPTOR = {SLUICE_FW_HAL_MAJOR,
                                                   SLUICE_FW_HAL_MINOR,
                                                   "control-plane",
                                                   "switch control plane: ECN, PFC and MMU settings by register at init",
                                                   0,
                                                   sizeof(control_plane_state),
                                                   0,
                                                   params,
                                                   sizeof params / sizeof params[0],
                                                   counters,
                                                   sizeof counters / sizeof counters[0],
                                                   init,
                                                   on_event,
                                                   0,
                                                   on_mailbox};
