/* The generated register headers are strict C99 (RegmapGen.HeadersAreStrictC99): both devices'
 * maps in one translation unit, with each macro kind used once. */
#include "sluice_regs_nic.h"
#include "sluice_regs_switch.h"

unsigned regs_example(unsigned port, unsigned cls);
unsigned regs_example(unsigned port, unsigned cls) {
  return SLUICE_SWITCH_PORT_ADDR(port, SLUICE_SWITCH_PORT_ECN_KMIN_OFFSET(cls)) +
         SLUICE_SWITCH_PORT_PFC_XOFF_BYTES_MASK + SLUICE_SWITCH_GLOBALS_MMU_CFG_THRESHOLD_DYNAMIC +
         SLUICE_NIC_FLOWS_ADDR(0, SLUICE_NIC_FLOWS_RATE_OFFSET) + SLUICE_REGS_NIC_LAYOUT +
         SLUICE_NIC_GLOBALS_SCRATCH_VALUE_RESET;
}
