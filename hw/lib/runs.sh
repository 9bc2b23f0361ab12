# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
# The hardware kit's runner (hw-run.sh): what one mode runs, the guests'
# own steps with the matrix as a guest gets it, and with which tool.
# Sourced by hw-run.sh.

# One mode's KTAP document, as guest/init prints a job's: hw-run.sh
# --document runs it in a session of its own, so that a signal to the
# runner can end all of it.
document() { # <steps>
	# shellcheck disable=SC2086 # a list
	set -- $1
	printf '%s\n%s\n' "$(ktap_print_header)" \
		"$(job_header hw "kernel=$(uname -r) arch=$(uname -m) cpus=$WB_CPUS")"
	ktap_set_plan $#
	for step; do
		ktap_subtest "$step" "$WB_DIR/steps/$step.sh"
	done
	rc=0
	# shellcheck disable=SC2031 # ktap_subtest counts here
	[ "$KTAP_CNT_FAIL" = 0 ] || rc=1
	job_end "$rc"
	exit "$rc"
}

# The steps each mode's document runs: the bench step, and the workload
# step for a NIC or a block device.
run_steps() { # <nic> <block>
	if [ -z "$1$2" ]; then echo bench; else echo "bench workload"; fi
}

# The words the steps' wb_arg reads (WB_ARGS, exported: the matrix as the
# host passes it to a guest).
step_args() { # <nic> <dst mac> <block> <io depths>
	local workloads=""
	[ -z "$1" ] || workloads=net
	[ -z "$3" ] || workloads="${workloads:+$workloads,}nvme"
	WB_ARGS="wb.maps=$MAPS wb.granules=$GRANULES wb.threads=$THREADS wb.depths=$DEPTHS"
	WB_ARGS="$WB_ARGS wb.seconds=$SECONDS_RUN wb.workloads=$workloads wb.nic=$1 wb.block=$3"
	WB_ARGS="$WB_ARGS wb.io_depths=$4 wb.packets=${PACKETS:-20000} wb.dma_bits=$DMA_BITS"
	[ -z "$2" ] || WB_ARGS="$WB_ARGS wb.dst_mac=$2"
	export WB_ARGS
}

# The tool the bench step runs (tool: --tool's, else chosen here): the
# series' when this kernel takes its JSON run, else Linux 7.3's under the
# same name, first on PATH (a link in <out dir>/bin).
choose_tool() { # <out dir>
	if [ -z "$tool" ]; then
		tool=7.3
		timeout -k 5 30 dma_map_benchmark -j -s 1 -t 1 -g 1 -b "$DMA_BITS" >/dev/null 2>&1 && tool=series
		[ "$tool" = series ] ||
			say "the series' tool got no JSON run from this kernel: Linux 7.3's runs (means only; --tool series to insist)"
	fi
	case $tool in
	series) ;;
	7.3)
		mkdir -p "$1/bin"
		ln -sf "$(command -v dma_map_benchmark-7.3)" "$1/bin/dma_map_benchmark"
		PATH=$1/bin:$PATH ;;
	*) refuse "--tool $tool: series or 7.3" ;;
	esac
}
