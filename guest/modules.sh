#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The module job: only the workbench's test modules (their KUnit suites),
# for the extra check boots that cover the IOMMU modes the main check boot
# does not boot in (the stale-IOVA test needs both strict and lazy).
set -eu
# shellcheck source=guest/lib.sh
. /wb/lib.sh

run_test_modules
