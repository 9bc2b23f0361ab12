#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Write the commits pristine..HEAD of <tree> to <patch dir> as a git format-patch
# series with a cover letter (from the branch description) and a series file
# that keeps the baseline-end marker. Files that did not change are not
# touched, so exporting an unchanged tree changes nothing.
# Usage: export.sh <tree> <patch dir> <state dir>
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

tree=$1 patches=$(realpath "$2") state=$3
[ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ] ||
	die "$tree has uncommitted changes: commit them first"

count=$(git -C "$tree" rev-list --count pristine..HEAD)
keep=$(series_baseline_count "$patches/series" 2>/dev/null || echo 0)
[ "$keep" -le "$count" ] || keep=$count
base_line="Applies to $(git -C "$tree" log -1 --format=%s pristine)."

cover_description() {
	desc=$(git -C "$tree" config branch.series.description || true)
	[ -n "$desc" ] || desc=$(printf '%s\n\n%s\n' "iommu-fastpath: cheap DMA mapping with an IOMMU" "$base_line")
	printf '%s\n' "$desc" | sed "s/^Applies to Linux .*/$base_line/"
}

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if [ "$count" -gt 0 ]; then
	git -C "$tree" config branch.series.description "$(cover_description)"
	git -C "$tree" format-patch -q -M --zero-commit --no-signature --base=pristine \
		--cover-letter --cover-from-description=subject -o "$out" pristine..HEAD
	# The cover letter's date is the newest patch's, not the export's.
	date=$(git -C "$tree" log -1 --format='%aD' HEAD)
	sed -i "s/^Date: .*/Date: $date/" "$out/0000-cover-letter.patch"
fi

{
	echo "# iommu-fastpath series v2 for Linux 7.3, applied in this order."
	echo "# Patches above baseline-end are in both measured kernels (the benchmark)."
	for f in "$out"/0*.patch; do
		case ${f##*/} in 0000-cover-letter.patch | "0*.patch") ;; *) echo "${f##*/}" ;; esac
	done | awk -v keep="$keep" 'NR == keep + 1 { print "# baseline-end" } { print }
			END { if (NR <= keep) print "# baseline-end" }'
} >"$out/series"

for f in "$out"/*; do
	cmp -s "$f" "$patches/${f##*/}" || cp "$f" "$patches/"
done
for f in "$patches"/*.patch; do
	[ -e "$f" ] && [ ! -e "$out/${f##*/}" ] && rm -f "$f"
done

git -C "$tree" update-ref refs/wb/applied HEAD
series_hash "$patches" >"$state/series.hash"
say "export: $count patches in $patches"
