#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The job of the debug kernel's boots in 'make check': the test modules, the
# benchmark matrix named on the command line, CPU 1 taken
# offline and back during a two-thread run (wb.hotplug=1), then a kmemleak
# scan whose report goes to the console. The workbench fails the boot on any
# lockdep, KASAN, kmemleak or DMA-API report there.
set -eu
# shellcheck source=guest/lib.sh
. /wb/lib.sh

run_test_modules
/wb/bench.sh
[ "$(wb_arg hotplug 0)" = 0 ] || hotplug_run
kmemleak_scan
