#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Write the commits pristine..HEAD of <tree> to <patch dir> as the series'
# parts (<patch dir>/parts): each part a git format-patch series of its own in
# <patch dir>/<part>/, with a cover letter from the description of the tree's
# branch part/<part>, which export points at the part's last commit; and a
# series file of every patch in order that keeps the baseline-end marker.
# Files that did not change are not touched, so exporting an unchanged tree
# changes nothing.
# Usage: export.sh <tree> <patch dir> <state dir>
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

tree=$1 patches=$(realpath "$2") state=$3
[ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ] ||
	die "$tree has uncommitted changes: commit them first"

mapfile -t commits < <(git -C "$tree" rev-list --reverse pristine..HEAD)
count=${#commits[@]}
mapfile -t part_lines < <(parts "$patches")
[ "${#part_lines[@]}" -gt 0 ] || die "$patches/parts names no part"
keep=$(series_baseline_count "$patches/series" 2>/dev/null || echo 0)
[ "$keep" -le "$count" ] || keep=$count
base_line="Applies to $(git -C "$tree" log -1 --format=%s pristine)."

cover_description() { # <part>
	desc=$(git -C "$tree" config "branch.part/$1.description" || true)
	[ -n "$desc" ] || desc=$(printf '%s\n\n%s\n' "iommu-fastpath: $1" "$base_line")
	printf '%s\n' "$desc" | sed "s/^Applies to Linux .*/$base_line/"
}

# Part <name>'s <n> commits, from index <first>, as a series in <dir>.
export_part() { # <name> <first> <n> <dir>
	local name=$1 first=$2 n=$3 parent=pristine date
	[ "$first" = 0 ] || parent=${commits[$((first - 1))]}
	git -C "$tree" branch -f "part/$name" "${commits[$((first + n - 1))]}"
	git -C "$tree" config "branch.part/$name.description" "$(cover_description "$name")"
	git -C "$tree" format-patch -q -M --zero-commit --no-signature --base=pristine \
		--cover-letter --cover-from-description=subject -o "$4" "$parent..part/$name"
	# The cover letter's date is the part's newest patch's, not the export's.
	date=$(git -C "$tree" log -1 --format='%aD' "part/$name")
	sed -i "s/^Date: .*/Date: $date/" "$4/0000-cover-letter.patch"
}

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
first=0 last=$((${#part_lines[@]} - 1))
for i in "${!part_lines[@]}"; do
	read -r name n kind lists <<<"${part_lines[$i]}"
	# The last part takes every commit beyond the others.
	[ "$i" -lt "$last" ] || n=$((count - first))
	if [ "$n" -le 0 ] || [ $((first + n)) -gt "$count" ]; then
		die "part $name: the tree has $count commits, fewer than patches/parts gives the parts up to it"
	fi
	export_part "$name" "$first" "$n" "$out/$name"
	printf '%-15s %-7s %-5s %s\n' "$name" "$n" "$kind" "$lists" >>"$out/parts.lines"
	first=$((first + n))
done

# The parts file: its comments as they were, each part's count as exported.
{ grep '^#' "$patches/parts"; cat "$out/parts.lines"; } >"$out/parts"
rm "$out/parts.lines"
{
	echo "# iommu-fastpath series v2 for Linux 7.3, applied in this order."
	echo "# Patches above baseline-end are in both measured kernels (the benchmark)."
	for line in "${part_lines[@]}"; do
		read -r name _ <<<"$line"
		for f in "$out/$name"/0*.patch; do
			[ "${f##*/}" = 0000-cover-letter.patch ] || echo "$name/${f##*/}"
		done
	done | awk -v keep="$keep" 'NR == keep + 1 { print "# baseline-end" } { print }
			END { if (NR <= keep) print "# baseline-end" }'
} >"$out/series"

# Copy what changed; remove patches no part has any more (flat ones too).
(cd "$out" && find . -type f) | while IFS= read -r f; do
	mkdir -p "$(dirname "$patches/$f")"
	cmp -s "$out/$f" "$patches/$f" || cp "$out/$f" "$patches/$f"
done
(cd "$patches" && find . -name '*.patch') | while IFS= read -r f; do
	[ -e "$out/$f" ] || rm -f "$patches/$f"
done
find "$patches" -mindepth 1 -type d -empty -delete

git -C "$tree" update-ref refs/wb/applied HEAD
series_hash "$patches" >"$state/series.hash"
say "export: $count patches in $patches, as ${#part_lines[@]} parts"
