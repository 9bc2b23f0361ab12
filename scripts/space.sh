#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Refuse to start a run that cannot fit on the disk: the kernel trees and
# builds take gigabytes, and a disk that fills half-way fails every later
# stage with "No space left on device" instead of naming the cause. What
# <dir> already holds counts towards the run (a warm build needs less).
# Usage: space.sh <dir> <GiB the run's build trees take> <what the run is>
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

dir=$1 need_gib=$2 what=$3
[[ $need_gib =~ ^[0-9]+$ ]] || die "space.sh: not a whole number of GiB: $need_gib"
mkdir -p "$dir"
kib_per_gib=$((1024 * 1024))
held_kib=$(du -sk "$dir" 2>/dev/null | awk '{ print $1 }') || held_kib=0
free_kib=$(df -Pk "$dir" | awk 'NR == 2 { print $4 }')
short_kib=$((need_gib * kib_per_gib - ${held_kib:-0} - free_kib))
[ "$short_kib" -le 0 ] && exit 0
gib() { awk -v k="$1" 'BEGIN { printf "%.1f GiB", k / 1048576 }'; }
die "$what needs about $need_gib GiB in $dir: it holds $(gib "${held_kib:-0}") and" \
	"$(df -Pk "$dir" | awk 'NR == 2 { print $6 }') has $(gib "$free_kib") free;" \
	"free $(gib "$short_kib") more (make clean removes $dir; ccache stays)"
