#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The accelerator probe: reaching this job is all that is asked.
exit 0
