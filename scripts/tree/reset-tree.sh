#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Forget the tree's own commits and uncommitted changes so that the next
# tree stage applies patches/ afresh.
# Usage: reset-tree.sh <tree>
set -eu

tree=$1
git -C "$tree" am --abort >/dev/null 2>&1 || true
git -C "$tree" reset -q --hard
git -C "$tree" update-ref -d refs/wb/applied 2>/dev/null || true
