#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Pack a guest initramfs: busybox, the guest/ scripts, the given shell
# libraries (*.sh, in /wb; the hardware kit's runner's parts, hw/lib/*.sh,
# in /wb/lib, beside its hw-run.sh as in the kit), programs (in /bin) and
# kernel modules (*.ko, in /lib/modules).
# Usage: initramfs.sh <busybox> <guest dir> <output.cpio.gz> <program or module>...
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

busybox=$1 guest=$2 output=$3
shift 3
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

mkdir -p "$root/bin" "$root/wb/steps" "$root/proc" "$root/sys" "$root/dev" "$root/tmp" \
	"$root/lib/modules"
install -m 755 "$busybox" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
install -m 755 "$guest/init" "$root/init"
install -m 644 "$guest"/*.sh "$root/wb/"
install -m 755 "$guest"/steps/*.sh "$root/wb/steps/"
for file in "$@"; do
	case $file in
	hw/lib/*.sh) install -D -m 644 "$file" "$root/wb/lib/${file##*/}" ;;
	*.sh) install -m 644 "$file" "$root/wb/" ;;
	*.ko) install -m 644 "$file" "$root/lib/modules/" ;;
	*) install -m 755 "$file" "$root/bin/" ;;
	esac
done

# Same inputs, same archive: sorted names, fixed times, no gzip timestamp.
find "$root" -exec touch -h -d @0 {} +
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --reproducible --quiet) |
	gzip -n -9 >"$output.tmp"
mv "$output.tmp" "$output"
