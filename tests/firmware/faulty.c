/* Deliberately faulty firmware for tests/system/firmware_test.cpp: built once per FAULT, each a
 * different way to fail. The fault fires at the flow's first CNP (or at load). */
#include "sluice_fw_hal.h"
#include "sluice_regs_nic.h"

#define FAULT_NONE 0
#define FAULT_CRASH 1      /* a null dereference: SIGSEGV */
#define FAULT_HANG 2       /* never returns: the wall-clock watchdog */
#define FAULT_RATE_ZERO 3  /* sets a rate of 0 */
#define FAULT_RATE_ABOVE 4 /* sets a rate above the line rate */
#define FAULT_HAL_MAJOR 5  /* built against a HAL major this Sluice does not have */
#define FAULT_NO_SYMBOL 6  /* exports no descriptor */
#define FAULT_GLOBAL 7     /* keeps a writable global */
#define FAULT_ERROR 8      /* its handler returns an error code */
#define FAULT_REG_UNMAPPED 9 /* writes a register the NIC's map does not have */
#define FAULT_REGISTERS 10   /* no fault: uses the NIC's registers as sluice_regs_nic.h says */

#ifndef FAULT
#define FAULT FAULT_NONE
#endif

#if FAULT == FAULT_GLOBAL
int cnps_seen;
#endif

static const sluice_fw_param_desc params[] = {{7, "level", "a parameter in [1, 10]", 1, 10, 5}};

static int on_event(sluice_fw_ctx* c, const sluice_fw_event* e, sluice_fw_result* r) {
  if (sluice_fw_event_type_of(c, e) != SLUICE_FW_EV_CNP) return 0;
#if FAULT == FAULT_CRASH
  *(volatile int*)c->flow = 0;       /* fine: the flow context */
  *(volatile int*)(uintptr_t)8u = 1; /* not fine */
#elif FAULT == FAULT_HANG
  for (;;) {
    volatile uint64_t spin = sluice_fw_now_ps(c);
    (void)spin;
  }
#elif FAULT == FAULT_RATE_ZERO
  sluice_fw_set_rate(c, r, 0);
#elif FAULT == FAULT_RATE_ABOVE
  sluice_fw_set_rate(c, r, SLUICE_FW_RATE_ONE + 1);
#elif FAULT == FAULT_GLOBAL
  ++cnps_seen;
#elif FAULT == FAULT_ERROR
  return 42;
#elif FAULT == FAULT_REG_UNMAPPED
  sluice_fw_reg_write(c, 0xfff0u, 1);
#elif FAULT == FAULT_REGISTERS
  {
    uint32_t v = 0;
    const uint32_t scratch = SLUICE_NIC_GLOBALS_ADDR(SLUICE_NIC_GLOBALS_SCRATCH_OFFSET);
    if (sluice_fw_reg_read(c, SLUICE_NIC_GLOBALS_ADDR(SLUICE_NIC_GLOBALS_LAYOUT_ID_OFFSET), &v) != 0 ||
        v != SLUICE_REGS_NIC_LAYOUT)
      return 1;
    if (sluice_fw_reg_write(c, SLUICE_NIC_GLOBALS_ADDR(SLUICE_NIC_GLOBALS_MTU_OFFSET), 1) != SLUICE_FW_EREG) return 2;
    if (sluice_fw_reg_write(c, scratch, 0x1234u) != 0 || sluice_fw_reg_read(c, scratch, &v) != 0 || v != 0x1234u)
      return 3;
    /* the flow's slot: its rate register reads the limiter the firmware sets */
    if (sluice_fw_reg_read(c, SLUICE_NIC_FLOWS_ADDR(0, SLUICE_NIC_FLOWS_FLOW_ID_OFFSET), &v) != 0 || v != c->flow_id)
      return 4;
    if (sluice_fw_reg_read(c, SLUICE_NIC_GLOBALS_ADDR(SLUICE_NIC_GLOBALS_CNP_RECEIVED_LO_OFFSET), &v) != 0 || v == 0)
      return 5;
    sluice_fw_set_rate(c, r, SLUICE_FW_RATE_ONE / 2);
  }
#else
  sluice_fw_set_rate(c, r, SLUICE_FW_RATE_ONE / 2);
#endif
  (void)r;
  return 0;
}

#if FAULT != FAULT_NO_SYMBOL
const sluice_fw_descriptor SLUICE_FW_DESCRIPTOR = {
#if FAULT == FAULT_HAL_MAJOR
    SLUICE_FW_HAL_MAJOR + 1,
#else
    SLUICE_FW_HAL_MAJOR,
#endif
    SLUICE_FW_HAL_MINOR,
    "faulty",
    "a test firmware that fails on purpose",
    0,
    0,
    16,
    params,
    1,
    0,
    0,
    0,
    on_event,
    0,
    0};
#else
int sluice_fw_unrelated(void) { return params[0].min + on_event(0, 0, 0); }
#endif
