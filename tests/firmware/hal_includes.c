/* Firmware.HalHeaderIsStrictC99: the HAL header alone, compiled as strict C99. */
#include "sluice_fw_hal.h"

int main(void) { return SLUICE_FW_HAL_MAJOR == 1 ? 0 : 1; }
