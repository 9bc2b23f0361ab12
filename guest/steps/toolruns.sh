#!/bin/sh
# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
# The toolruns step: dma_map_benchmark runs of one kind (wb.toolruns=),
# their output as diagnostic lines, for the numbers the commit messages of
# part 1 cite (scripts/run/toolruns.sh boots it). No pass or fail of its own
# but a missing device:
#   legacy      Linux 7.3's tool and, if there, the series', 1 and 64 pages
#   legacy1024  the same at 1024 pages
#   threads     two threads, five runs of each tool
#   threads1024 1024 threads, three runs of each tool (Linux 7.3 does not
#               end them: the boot's time limit does)
#   one         one run of the series' tool: wb.g= pages, wb.d= depth,
#               wb.m= map mode
#   text        the series' tool's text output, one page
#   concurrent  7.3's tool twice at once, then each alone
set -eu
# shellcheck source=guest/lib.sh
. /wb/lib.sh

run() { # <program> [args...]: the command line, its output, its wall time
	local start end
	echo "# \$ $*"
	read -r start _ </proc/uptime
	"$@" 2>&1 | sed 's/^/# /' || true
	read -r end _ </proc/uptime
	echo "# wall $(echo "$start $end" | awk '{ printf "%.2f", $2 - $1 }')"
}

series() { tool_is_v2; }

dev=$(bind_benchmark_device) || exit 1
echo "# domain=$(domain_type "$dev")"
case $(wb_arg toolruns legacy) in
legacy | legacy1024)
	granules="1 64"
	[ "$(wb_arg toolruns)" = legacy ] || granules=1024
	for g in $granules; do
		run dma_map_benchmark-7.3 -s 1 -t 1 -g "$g"
		! series || run dma_map_benchmark -j -s 1 -t 1 -g "$g"
	done ;;
threads)
	for _ in 1 2 3 4 5; do run dma_map_benchmark-7.3 -s 1 -t 2 -g 1; done
	if series; then
		for _ in 1 2 3 4 5; do run dma_map_benchmark -j -s 1 -t 2 -g 1; done
	fi ;;
threads1024)
	for _ in 1 2 3; do run dma_map_benchmark-7.3 -s 1 -t 1024 -g 1; done
	if series; then
		for _ in 1 2 3; do run dma_map_benchmark -j -s 1 -t 1024 -g 1; done
	fi ;;
one)
	run dma_map_benchmark -j -s 1 -t 1 -g "$(wb_arg g 1)" -D "$(wb_arg d 1)" -m "$(wb_arg m single)" ;;
text)
	run dma_map_benchmark -s 1 -t 1 -g 1 ;;
concurrent)
	echo "# \$ dma_map_benchmark-7.3 -s 4 -t 1 -g 1 &, and a second later -s 1 -t 1 -g 1024"
	dma_map_benchmark-7.3 -s 4 -t 1 -g 1 >/tmp/first.out 2>&1 &
	sleep 1
	dma_map_benchmark-7.3 -s 1 -t 1 -g 1024 >/tmp/second.out 2>&1 || true
	wait
	echo "# the first (one page, 4 s):"
	sed 's/^/# /' /tmp/first.out
	echo "# the second (1024 pages, 1 s):"
	sed 's/^/# /' /tmp/second.out
	run dma_map_benchmark-7.3 -s 4 -t 1 -g 1
	run dma_map_benchmark-7.3 -s 1 -t 1 -g 1024 ;;
*)
	echo "# unknown wb.toolruns=$(wb_arg toolruns)"
	exit 1 ;;
esac
