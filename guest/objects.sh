# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# The lines of a guest's console that the host reads, as guest/protocol.sh
# names them: the job's first and last lines, the trace step's start line
# and the steps' JSON objects, one "# {...}" diagnostic line each. Nothing
# else in guest/ or the hardware kit (hw/) writes or picks them, so that a marker or a kind renamed in
# protocol.sh alone is renamed in what the guest prints
# (tests/results/test_protocol.py runs these under renamed values).

# The job's line after the KTAP version line: its name, then <words>.
job_header() { # <job> <words>
	echo "$WB_JOB_MARKER$1 $2"
}

# The job's last line: its exit status.
job_end() { # <status>
	echo "$WB_END_MARKER$1"
}

# The trace step's line saying the runs a debugger steps through start.
trace_start() {
	echo "# $WB_TRACE_START"
}

# The bench step's matrix (a JSON object) and the object's other members.
matrix_object() { # <matrix> <members>
	printf '# {"%s":%s,%s}\n' "$WB_KIND_MATRIX" "$1" "$2"
}

# One run of the bench step: its key (a JSON object) and other members.
run_object() { # <key> <members>
	printf '# {"%s":%s,%s}\n' "$WB_KIND_RUN" "$1" "$2"
}

# The workload step's plan: the names of its workloads (a JSON list).
plan_object() { # <names>
	printf '# {"%s":%s}\n' "$WB_KIND_PLAN" "$1"
}

# The run objects of <console>, for a step that compares runs (hwkit.sh).
run_objects() { # <console>
	grep "# {\"$WB_KIND_RUN\":" "$1"
}

# One workload of the workload step: its name and other members.
workload_object() { # <name> <members>
	printf '# {"%s":"%s",%s}\n' "$WB_KIND_WORKLOAD" "$1" "$2"
}
