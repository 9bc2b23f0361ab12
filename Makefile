# SPDX-License-Identifier: GPL-2.0
#
# iommu-fastpath workbench. This file is the table of contents.
#
#   make               apply the series to Linux 7.3, build the baseline and
#                      patched x86_64 kernels, boot each under QEMU (q35 +
#                      intel-iommu) in every IOMMU mode, run the benchmark
#                      matrix and the workloads (pktgen over e1000e and
#                      virtio-net), print baseline against patched (results/)
#   make workloads     only the workloads, on their own two kernels
#   make check         the test suite, what CI runs; ends "N passed, N failed"
#   make report        the benchmark and the workloads, then the report (what
#                      make does)
#   make tree          the series as commits on branch "series" of build/patched/linux
#   make export        write that branch back to patches/, one series per part
#   make posting GIT_NAME=... GIT_EMAIL=...   each part as mails for git
#                      send-email, from you, to its maintainers (build/posting/)
#   make apply KSRC=<a 7.3 git tree>   apply the series to your own tree
#   make check-bisect  build both architectures after every patch
#   make check-debug   only check's debug kernel (lockdep, KASAN, kmemleak,
#                      DMA API debugging): every IOMMU mode, CPU hotplug
#   make check-breaks  each deliberate break in tests/breaks/ must fail the
#                      KUnit case it names (a build and a run per break);
#                      make check only checks that each still applies
#   make insns         the instructions of one map and one unmap, function by
#                      function, baseline beside patched (gdb single-steps);
#                      INSNS_GRANULE=<pages> for larger ones (build/insns-g<pages>/)
#   make per-patch REVS="<rev>..."   the benchmark of the kernel at each
#                      revision, side by side: what each patch changes
#   make per-patch-workloads REVS="<rev>..."   the same for the workloads
#   make hw-kit        the kit that runs the benchmark on a booted machine,
#                      x86_64 and arm64 (build/hw-kit/; hw/README.md)
#   make hw-report A=<dir> B=<dir>   two of its result sets (one machine,
#                      one matrix; ANYWAY=1 to compare others) as make's report
#   make reset-tree    take patches/ again, dropping unexported tree commits
#   make clean-results measure again on the next make
#   make clean         remove build/ (ccache stays)
#
# The scripts each rule runs are grouped by flow: scripts/tree/ (section 1),
# scripts/build/ (2), scripts/run/ (3, 7, 8), scripts/results/ (the report)
# and scripts/check/ (4, 5: check-<name> runs scripts/check/<name>.sh where
# there is one).
#
# The parts of check (check-tests runs them all, without the summary line),
# each runnable alone; results in build/check/results:
#   make check-space        build/ has room for make check (CHECK_SPACE_GIB;
#                           make's own is 'make space', SPACE_GIB): both run first
#   make check-series       each patch applies in order; checkpatch --strict
#   make check-posting      make posting with a test sender
#   make check-shell        shellcheck of every workbench script
#   make check-hw           the hardware kit's runner on a fake sysfs (tests/hw/):
#                           refusals, giving back, group types; no tree, no guest
#   make check-results      the results layer's unit tests (tests/results/):
#                           parsers, tables, protocol, break.py; no tree, no guest
#   make check-parsers      guest-results.py, report.py and per_patch.py on the
#                           saved consoles, exact results (Linux 7.3's kunit.py
#                           from the source tarball; no tree)
#   make check-deps         deps.sh in a fresh Debian 12 root
#   make check-breaks-apply every break of tests/breaks/ complete, its modes
#                           known, its text once in the tree (break.py --verify)
#   make check-x86_64, check-arm64
#                           build the patched kernel, W=1 + sparse against the
#                           pristine tree, the boots of configs/boots
#   make check-pristine     Linux 7.3 as it is, built and booted on both
#                           architectures (check-pristine-x86_64, -arm64)
#   make check-iommupt      generic_pt's KUnit suites on UML
#   make check-insns        make insns' trace of the patched kernel, lazy mode:
#                           its guest starts the runs and gdb steps them
#   make check-iova-uml     the iova suite on UML
#   make check-debug-tests  the debug kernel's boots (check-debug: with summary),
#                           then check-report on their consoles
#   make check-report       report.py on the debug boots' consoles: a row of
#                           bench.csv per run object (workloads.csv per workload)

SHELL := /bin/bash
.DEFAULT_GOAL := all
.DELETE_ON_ERROR:

# The base: Debian's linux-source-7.3, exactly this version, fetched from
# the suite that carries it without touching the machine's apt sources.
BASE_SERIES := 7.3
BASE_VERSION ?= 7.3.4-1~bpo13+1
BASE_SUITE ?= trixie-backports
# Linux 6.12's tool, unmodified, runs against every kernel (the old ABI):
# its source comes from the package v1 of the series was built on.
OLD_SERIES := 6.12
OLD_VERSION ?= 6.12.117-1~deb12u1
OLD_SUITE ?= bookworm-security
# The identity the series' commits carry: the project's placeholder, which
# 'make posting' refuses; set your own when you send them.
PROJECT_IDENT := iommu-fastpath <iommu-fastpath@example.org>
GIT_NAME ?= iommu-fastpath
GIT_EMAIL ?= iommu-fastpath@example.org
export WB_GIT_NAME := $(GIT_NAME)
export WB_GIT_EMAIL := $(GIT_EMAIL)

# The benchmark matrix: IOMMU modes (all of guest/protocol.sh's WB_MODES
# unless set: off,lazy,strict,cm), dma_map_benchmark's map modes, sizes
# in pages, threads, mappings outstanding per thread, seconds per run.
MODES ?= $(shell . guest/protocol.sh && echo "$$WB_MODES" | tr ' ' ,)
MAPS ?= single
GRANULES ?= 1,16,64,256,1024
THREADS ?= 1,2
DEPTHS ?= 1,64
SECONDS ?= 1
# More kernel parameters for every guest, e.g. APPEND=iova.cache_max=4M to
# measure the kernels before the RFC that makes it the default.
APPEND ?=
export WB_APPEND := $(APPEND)
# The workloads: frames pktgen sends per run (64 and 1500 bytes); the NVMe
# reads' queue depths (none by default: under -icount their IOPS count the
# idle clock's jumps to the next timer, see docs/measurements.md) and
# seconds per run.
PACKETS ?= 20000
IO_DEPTHS ?=
IO_SECONDS ?= 1
WORKLOAD_OPTIONS = wb.packets=$(PACKETS) wb.io_depths=$(IO_DEPTHS) wb.seconds=$(IO_SECONDS)
# How many patches of the series the baseline kernel carries (default: those
# above the series' baseline-end marker, the benchmark); 0: Linux 7.3 as is.
BASELINE_PATCHES ?=
export WB_BASELINE_PATCHES := $(BASELINE_PATCHES)
# One-thread runs boot one vCPU under TCG's -icount shift=ICOUNT: guest time
# counts instructions (2^ICOUNT ns each), the same on any host, boot after
# boot. Runs with more threads boot two vCPUs on host time. Empty ICOUNT:
# every run on host time.
ICOUNT ?= 1

BUILD := build
comma := ,
STATE := $(BUILD)/state
TREE := $(BUILD)/patched/linux
RESULTS := results
CHECK := $(BUILD)/check/results
# Each architecture's facts are data in archs/<arch>.sh: the kernel image,
# cross compiler, QEMU machine, console and IOMMU modes its scripts read, and
# what the rules below read: IMAGE_<arch>, FRAGMENTS_<arch> (its kernels'
# config fragments), BUSYBOX_<arch>, MODULES_<arch> (the test modules),
# COMPAT_<arch> (a 32-bit ABI the tools are also built for) and ALONE_<arch>
# (objects W=1 and sparse compile alone).
ARCHS := x86_64 arm64
ARCH_FACTS := image fragments busybox modules compat alone
$(foreach a,$(ARCHS),$(foreach f,$(ARCH_FACTS),\
	$(eval $(shell echo $(f) | tr a-z A-Z)_$(a) := $(shell . archs/$(a).sh && echo "$$$(f)"))))
# The kernels, as a table (configs/kernels: kernel, tree, architecture, more
# config fragments, what its initramfs carries), each turned into its rules
# by kernel_rules below; TREE_<kernel>, ARCH_<kernel>, MORE_<kernel> and
# GUEST_<kernel> hold its columns.
KERNEL_TABLE := configs/kernels
KERNEL_ROWS := $(shell awk '!/^\#/ && NF { print $$1 "|" $$2 "|" $$3 "|" $$4 "|" $$5 "|" $$6 }' $(KERNEL_TABLE))
$(foreach r,$(KERNEL_ROWS),$(if $(filter-out 5,$(words $(subst |, ,$(r)))),\
	$(error $(KERNEL_TABLE): a row of $(words $(subst |, ,$(r))) columns, not 5: $(subst |, ,$(r)))))
KERNELS := $(foreach r,$(KERNEL_ROWS),$(firstword $(subst |, ,$(r))))
$(foreach r,$(KERNEL_ROWS),$(eval row := $(subst |, ,$(r)))\
	$(eval TREE_$(word 1,$(row)) := $(word 2,$(row)))\
	$(eval ARCH_$(word 1,$(row)) := $(word 3,$(row)))\
	$(eval MORE_$(word 1,$(row)) := $(filter-out -,$(subst $(comma), ,$(word 4,$(row)))))\
	$(eval GUEST_$(word 1,$(row)) := $(subst $(comma), ,$(word 5,$(row)))))
# What a row may name: a tree, an architecture of archs/, initramfs contents.
GUEST_CONTENTS := tools modules randread
$(foreach k,$(KERNELS),\
	$(if $(filter-out pristine baseline patched,$(TREE_$(k))),$(error $(KERNEL_TABLE): $(k): no tree $(TREE_$(k))))\
	$(if $(filter $(ARCH_$(k)),$(ARCHS)),,$(error $(KERNEL_TABLE): $(k): no architecture $(ARCH_$(k))))\
	$(if $(filter-out $(GUEST_CONTENTS),$(GUEST_$(k))),\
		$(error $(KERNEL_TABLE): $(k): initramfs contents are $(GUEST_CONTENTS), not $(GUEST_$(k)))))
# The guest boots of check, as a table (label, architecture, kernel, IOMMU
# mode, whether the built-in suites count, devices, time limit, command line).
BOOTS := configs/boots
# The guests carry the hardware kit's runner too (guest/steps/hwkit.sh):
# hw/hw-run.sh and its parts, hw/lib/.
HW_RUNNER := hw/hw-run.sh $(wildcard hw/lib/*.sh)
GUEST := $(wildcard guest/init guest/*.sh guest/steps/*.sh) $(HW_RUNNER)
STAGE := scripts/stage.sh
TEST := scripts/check/test.sh $(CHECK)

# What the rules build for kernel <dir>/<variant> of configs/kernels, all in
# build/<dir>/: $(call out,patched/x86_64) is build/patched/out-x86_64.
kdir = $(BUILD)/$(patsubst %/,%,$(dir $(1)))
out = $(call kdir,$(1))/out-$(notdir $(1))
kernel = $(call out,$(1))/$(IMAGE_$(ARCH_$(1)))
fragments = $(FRAGMENTS_$(ARCH_$(1))) $(MORE_$(1))
fragment_list = $(call kdir,$(1))/fragments-$(notdir $(1))
guest_list = $(call kdir,$(1))/guest-$(notdir $(1))
tools = $(call kdir,$(1))/tools-$(notdir $(1))/dma_map_benchmark
modules = $(if $(filter modules,$(GUEST_$(1))),\
	$(foreach m,$(MODULES_$(ARCH_$(1))),$(call kdir,$(1))/modules-$(notdir $(1))/$(m)/$(m).ko))
initramfs = $(call kdir,$(1))/initramfs-$(notdir $(1)).cpio.gz
# The tools each guest gets (scripts/build/tools.sh): the tree's own, Linux 7.3's
# and 6.12's unmodified, the series' (for Linux 7.3 as it is), and the
# tree's and 7.3's for the architecture's 32-bit ABI, if it has one.
tool_names = dma_map_benchmark $(addprefix dma_map_benchmark-,7.3 6.12 series \
	$(if $(COMPAT_$(ARCH_$(1))),$(COMPAT_$(ARCH_$(1))) 7.3-$(COMPAT_$(ARCH_$(1)))))
# The workbench's NVMe reader, for the workload step
RANDREAD := $(BUILD)/randread/randread
# The programs and modules kernel <kernel>'s initramfs carries, and the
# files it is made from (the tools' other programs come with the first)
guest_files = $(if $(filter tools,$(GUEST_$(1))),\
	$(addprefix $(dir $(call tools,$(1))),$(call tool_names,$(1)))) \
	$(call modules,$(1)) $(if $(filter randread,$(GUEST_$(1))),$(RANDREAD))
guest_prerequisites = $(if $(filter tools,$(GUEST_$(1))),$(call tools,$(1))) \
	$(call modules,$(1)) $(if $(filter randread,$(GUEST_$(1))),$(RANDREAD))
# The kselftest KTAP helpers the guest's steps print their results with
ktap_helpers = $(BUILD)/$(TREE_$(1))/linux/tools/testing/selftests/kselftest/ktap_helpers.sh

.PHONY: all per-patch per-patch-workloads report workloads check check-tests check-series check-posting check-shell check-pristine tree export posting \
	check-breaks-apply check-results check-report \
	apply check-bisect check-breaks check-iommupt check-insns check-iova-uml check-parsers check-debug check-debug-tests check-deps reset-tree \
	insns clean-results clean hw-kit hw-report check-hw space check-space FORCE

all: space report

# A run that cannot fit on the disk stops here, naming how much to free,
# not half-way with "No space left on device" in every later stage. The
# GiB each takes in build/ (make check measured at its peak, docs/testing.md).
SPACE_GIB ?= 16
CHECK_SPACE_GIB ?= 12
space:
	@scripts/space.sh $(BUILD) $(SPACE_GIB) make
check-space:
	@scripts/space.sh $(BUILD) $(CHECK_SPACE_GIB) "make check"

## 1. Packages, the pristine tree and the series on it

$(STATE)/deps: scripts/deps.sh
	@mkdir -p $(STATE)
	@$(STAGE) "packages" scripts/deps.sh
	@touch $@

# Debian's source packages, unpacked under build/deb-<series>/; the file
# build/deb-<series>.tarball names the source tarball.
$(BUILD)/deb-%.tarball: scripts/tree/fetch-source.sh | $(STATE)/deps
	@scripts/tree/fetch-source.sh linux-source-$* $(if $(filter $(BASE_SERIES),$*),$(BASE_VERSION) \
		$(BASE_SUITE),$(OLD_VERSION) $(OLD_SUITE)) $(BUILD)/deb-$* >$@

$(STATE)/pristine: $(BUILD)/deb-$(BASE_SERIES).tarball | $(STATE)/deps
	@$(STAGE) "pristine tree" scripts/tree/pristine.sh $(TREE) $$(cat $<) $$(cat $(BUILD)/deb-$(BASE_SERIES)/version) \
		$(BASE_SERIES)
	@touch $@

# Rewritten only when the tree changes, so kernels rebuild only then.
$(STATE)/baseline.rev $(STATE)/patched.rev &: $(STATE)/pristine FORCE
	@$(STAGE) "series" scripts/tree/tree.sh $(TREE) patches $(BUILD)/baseline/linux $(STATE)

# Linux 7.3 as it is (pristine), tested as a check.
$(STATE)/pristine.rev: $(STATE)/pristine
	@scripts/tree/worktree.sh $(TREE) pristine $(BUILD)/pristine/linux
	@git -C $(TREE) rev-parse pristine >$@

tree: $(STATE)/patched.rev

export: $(STATE)/pristine
	@scripts/tree/export.sh $(TREE) patches $(STATE)

apply: $(STATE)/deps
	@scripts/tree/ksrc.sh "$(KSRC)" patches

reset-tree: $(STATE)/pristine
	@scripts/tree/reset-tree.sh $(TREE)
	@$(STAGE) "series" scripts/tree/tree.sh $(TREE) patches $(BUILD)/baseline/linux $(STATE)

## 2. Kernels, the dma_map_benchmark tools and the guest's initramfs, per architecture

# Linux 6.12's tool and the header it was built with, from its source package.
OLD_TOOL := $(BUILD)/tool-$(OLD_SERIES)
$(OLD_TOOL)/stamp: $(BUILD)/deb-$(OLD_SERIES).tarball
	@mkdir -p $(OLD_TOOL)
	@tar -xJf $$(cat $<) -C $(OLD_TOOL) --strip-components=1 \
		linux-source-$(OLD_SERIES)/tools/testing/selftests/dma/dma_map_benchmark.c \
		linux-source-$(OLD_SERIES)/include/linux/map_benchmark.h
	@touch $@

$(BUSYBOX_x86_64): | $(STATE)/deps
$(BUSYBOX_arm64): | $(STATE)/deps
	@$(STAGE) "arm64 busybox" scripts/build/busybox-arm64.sh $@

$(RANDREAD): workload/randread.c | $(STATE)/deps
	@mkdir -p $(dir $@)
	@gcc -static -O2 -Wall -Wextra -Werror -o $@ $<

# The rules of one kernel of configs/kernels: its image from its tree and
# config fragments, its tools, its test modules, its initramfs.
define kernel_rules
$(call kernel,$(1)): $(STATE)/$(TREE_$(1)).rev $(call fragment_list,$(1)) $(call fragments,$(1)) \
		scripts/build/kbuild.sh scripts/build/kconfig.sh
	@$(STAGE) "$(1) kernel" scripts/build/kbuild.sh $(ARCH_$(1)) $(BUILD)/$(TREE_$(1))/linux $(call out,$(1)) \
		$(call fragments,$(1))

$(call tools,$(1)): $(call kernel,$(1)) $(OLD_TOOL)/stamp $(STATE)/patched.rev scripts/build/tools.sh
	@$(STAGE) "$(1) tools/dma" scripts/build/tools.sh $(ARCH_$(1)) $(BUILD)/$(TREE_$(1))/linux $(OLD_TOOL) \
		$(TREE) $(dir $(call tools,$(1)))

$(foreach m,$(call modules,$(1)),
$(m): $(call kernel,$(1)) $(wildcard modules/$(basename $(notdir $(m)))/*) scripts/build/module.sh
	@$(STAGE) "$(1) module $(basename $(notdir $(m)))" scripts/build/module.sh $(ARCH_$(1)) \
		$(BUILD)/$(TREE_$(1))/linux $(call out,$(1)) modules/$(basename $(notdir $(m))) $(dir $(m))
)

# The list of its fragments, rewritten only when it changes: a fragment
# dropped from configs/kernels or archs/ reconfigures the kernel too.
$(call fragment_list,$(1)): FORCE
	@mkdir -p $$(dir $$@)
	@echo "$(call fragments,$(1))" >$$@.new
	@if cmp -s $$@.new $$@; then rm $$@.new; else mv $$@.new $$@; fi

# The same for what its initramfs carries: one dropped repacks it.
$(call guest_list,$(1)): FORCE
	@mkdir -p $$(dir $$@)
	@echo "$(call guest_files,$(1))" >$$@.new
	@if cmp -s $$@.new $$@; then rm $$@.new; else mv $$@.new $$@; fi

# The tree too: the initramfs takes the tree's KTAP helpers.
$(call initramfs,$(1)): $(STATE)/$(TREE_$(1)).rev $(call guest_list,$(1)) $(call guest_prerequisites,$(1)) \
		$(BUSYBOX_$(ARCH_$(1))) $(GUEST) scripts/build/initramfs.sh
	@$(STAGE) "$(1) initramfs" scripts/build/initramfs.sh $(BUSYBOX_$(ARCH_$(1))) guest $$@ \
		$(call ktap_helpers,$(1)) $(HW_RUNNER) $(call guest_files,$(1))

# Named so that make never takes them for intermediate files, which it
# would delete after use and not remake when missing.
BUILT += $(call kernel,$(1)) $(call guest_prerequisites,$(1)) $(call initramfs,$(1))
endef
$(foreach k,$(KERNELS),$(eval $(call kernel_rules,$(k))))
$(BUILT):

## 3. Benchmark: both x86_64 kernels in every IOMMU mode, then the report

$(STATE)/accel: $(call kernel,patched/x86_64) $(call initramfs,patched/x86_64)
	@scripts/run/accel.sh $^ $(BUILD)/accel-probe.log >$@

$(STATE)/matrix: FORCE
	@mkdir -p $(STATE)
	@echo "$(MODES) $(MAPS) $(GRANULES) $(THREADS) $(DEPTHS) $(SECONDS) $(ICOUNT) $(APPEND)" >$@.new
	@if cmp -s $@.new $@; then rm $@.new; else mv $@.new $@; fi

# Baseline and patched boot side by side, one mode after the other.
$(BUILD)/results/done: $(foreach v,baseline patched,$(call kernel,$(v)/x86_64) $(call initramfs,$(v)/x86_64)) \
		$(STATE)/matrix $(STATE)/accel
	@WB_ACCEL=$$(cat $(STATE)/accel) WB_ICOUNT=$(ICOUNT) \
		$(STAGE) "benchmark, baseline and patched ($$(cat $(STATE)/accel))" \
		scripts/run/bench.sh x86_64 $(BUILD)/results $(MODES) $(THREADS) "wb.maps=$(MAPS) \
		wb.granules=$(GRANULES) wb.depths=$(DEPTHS) wb.seconds=$(SECONDS)" $(SECONDS) \
		$(foreach v,baseline patched,$(v):$(call kernel,$(v)/x86_64):$(call initramfs,$(v)/x86_64))
	@touch $@

## 3b. Workloads: real drivers' traffic through the IOMMU, both kernels

# The workload kernels (configs/kernels: <tree>/workload) are the x86_64
# kernels plus a network stack, e1000e, virtio-net, pktgen and NVMe
# (configs/net.config, nvme.config), built apart so that the benchmark's and check's
# kernels stay as they are; their initramfs carries randread, the
# workbench's NVMe reader.
$(STATE)/workloads: FORCE
	@mkdir -p $(STATE)
	@echo "$(MODES) $(PACKETS) $(IO_DEPTHS) $(IO_SECONDS)" >$@.new
	@if cmp -s $@.new $@; then rm $@.new; else mv $@.new $@; fi

# Baseline and patched side by side, one IOMMU mode after the other, always
# on the -icount clock with one vCPU (ICOUNT does not apply: pktgen's rate
# on host time would follow the host's load).
$(BUILD)/workloads/done: $(foreach v,baseline patched,$(call kernel,$(v)/workload) \
		$(call initramfs,$(v)/workload)) $(STATE)/workloads
	@$(STAGE) "workloads, baseline and patched" scripts/run/workloads.sh $(BUILD)/workloads $(MODES) \
		"$(WORKLOAD_OPTIONS)" \
		$(foreach v,baseline patched,$(v):$(call kernel,$(v)/workload):$(call initramfs,$(v)/workload))
	@touch $@

workloads: $(BUILD)/workloads/done

report: $(BUILD)/results/done $(BUILD)/workloads/done
	@$(STAGE) "report" scripts/results/report.py $(RESULTS) $(BUILD)/results/baseline \
		$(BUILD)/results/patched "$$(scripts/results/accel-label.sh $$(cat $(STATE)/accel) $(ICOUNT))" \
		$(BUILD)/workloads/baseline $(BUILD)/workloads/patched

clean-results:
	rm -rf $(BUILD)/results $(BUILD)/workloads $(RESULTS)

## 4. Tests: the series, the workbench, each architecture's build and boot

check: check-space $(STATE)/deps
	@mkdir -p $(dir $(CHECK))
	@rm -f $(CHECK)
	@rc=0; $(MAKE) --no-print-directory -k check-tests || rc=$$?; \
		scripts/check/summary.sh $(CHECK) $$rc

check-tests: check-series check-posting check-shell check-hw check-results check-parsers check-deps check-breaks-apply \
	$(addprefix check-,$(ARCHS)) check-pristine check-iommupt check-insns check-iova-uml check-debug-tests

# Every boot of $(BOOTS) of kernel <dir>/<arch> of configs/kernels, with
# what each console shows recorded.
boots = scripts/check/boots.sh $(CHECK) $(BOOTS) $(patsubst %/,%,$(dir $(1))) $(ARCH_$(1)) \
	$(call kernel,$(1)) $(call initramfs,$(1)) $(BUILD)/$(TREE_$(1))/linux

check-series: $(STATE)/patched.rev
	@scripts/check/series.sh $(TREE) patches $(CHECK)
	@scripts/check/checkpatch.sh $(TREE) patches $(CHECK)

# Every deliberate break of tests/breaks/ still applies: it has its fields,
# names IOMMU modes of guest/protocol.sh and its text occurs exactly once in
# the tree (make check-breaks runs them; this only keeps them from going
# stale); a stale one fails, named with its file.
check-breaks-apply: $(STATE)/patched.rev
	@$(TEST) "the breaks of tests/breaks apply to the tree" python3 scripts/check/break.py --verify \
		$(TREE) $(wildcard tests/breaks/*.json)

# 'make posting' with a test sender: versions, identities, recipients, base
# trailers, and the mails applying to give the tree.
check-posting: $(STATE)/patched.rev
	@scripts/check/posting.sh $(TREE) patches $(CHECK) "$(PROJECT_IDENT)"

# generic_pt's own KUnit suites, every page-table format with the map and
# unmap fast paths, run as their authors run them: the tree's kunit.py on
# UML with drivers/iommu/generic_pt/.kunitconfig. Their leak check compares
# a vmstat counter that SMP kernels fold from per-CPU deltas only now and
# then, so it fails spuriously in the x86_64 guest; uniprocessor UML keeps
# it exact.
check-iommupt: $(STATE)/patched.rev
	@$(TEST) "KUnit of generic_pt on UML" scripts/check/kunit-uml.sh $(TREE) $(BUILD)/kunit-uml \
		drivers/iommu/generic_pt $(BUILD)/check/iommupt.log
	@scripts/results/guest-results.py $(TREE) $(BUILD)/check/iommupt.log iommupt $(CHECK)

# What make insns does for one kernel and mode: the patched x86_64 kernel
# in lazy mode, its trace step's start line awaited and a few one-page maps
# and unmaps single-stepped by gdb (section 7).
check-insns: $(call kernel,patched/x86_64) $(call initramfs,patched/x86_64)
	@$(TEST) "make insns traces a one-page map and unmap" scripts/run/insns.sh \
		$(firstword $(INSNS_MODES)) $(call kernel,patched/x86_64) $(call out,patched/x86_64)/vmlinux \
		$(call initramfs,patched/x86_64) $(BUILD)/check/insns-lazy

# The series' IOVA cache suite as its users would run it, kunit.py on UML
# (configs/iova.kunitconfig): the guests run it too, but a suite of a
# library that needs no IOMMU must not need a guest.
check-iova-uml: $(STATE)/patched.rev
	@$(TEST) "KUnit of iova on UML" scripts/check/kunit-uml.sh $(TREE) $(BUILD)/kunit-uml-iova \
		configs/iova.kunitconfig $(BUILD)/check/iova-uml.log
	@scripts/results/guest-results.py $(TREE) $(BUILD)/check/iova-uml.log iova-uml $(CHECK)

# Linux 7.3's tools/testing/kunit, as build/kunit-tool/tools/testing/kunit:
# a directory guest-results.py takes in place of a tree.
KUNIT_TOOL := $(BUILD)/kunit-tool
$(KUNIT_TOOL)/stamp: $(BUILD)/deb-$(BASE_SERIES).tarball
	@rm -rf $(KUNIT_TOOL)
	@mkdir -p $(KUNIT_TOOL)
	@tar -xJf $$(cat $<) -C $(KUNIT_TOOL) --strip-components=1 \
		linux-source-$(BASE_SERIES)/tools/testing/kunit
	@touch $@

# The parsers on saved consoles: guest-results.py on tests/consoles/ (a good
# check boot, a debug boot, a failing suite, consoles cut short as a hung or
# killed guest leaves them, and a warning a test expects beside one it does
# not), report.py and per_patch.py on tests/bench/; each must give exactly
# its expected results. Their KTAP parser is Linux 7.3's own kunit.py,
# extracted alone from the source tarball, so that no patched tree is
# needed (the series does not touch tools/testing/kunit).
check-parsers: $(KUNIT_TOOL)/stamp
	@mkdir -p $(dir $(CHECK))
	@scripts/check/parsers.sh $(KUNIT_TOOL) $(CHECK)

# The results layer's unit tests (tests/results/test_*.py, unittest):
# report.py, per_patch.py, workload_table.py, guest-results.py, insns.py,
# break.py and guest/protocol.sh on the saved consoles and data made up on
# the spot, a renamed protocol value among them. They need no kernel tree
# and no guest; one result per test module.
RESULT_TESTS := $(patsubst tests/results/%.py,%,$(wildcard tests/results/test_*.py))
check-results:
	@mkdir -p $(dir $(CHECK))
	@rc=0; for t in $(RESULT_TESTS); do \
		$(TEST) "unit tests $$t of the results layer" \
			python3 -B -m unittest discover -s tests/results -p $$t.py || rc=1; \
	done; exit $$rc

check-shell:
	@$(TEST) "shellcheck of the workbench" shellcheck -x scripts/*.sh scripts/*/*.sh archs/*.sh guest/init guest/*.sh guest/steps/*.sh .ci/run \
		hw/*.sh hw/lib/*.sh tests/hw/*.sh tests/hw/bin/*

# The hardware kit's runner on a fake machine (tests/hw/): a kit laid out by
# scripts/build/hw-kit.sh with stand-in tools, a fake sysfs whose kernel
# part tests/hw/fake_kernel.py plays; no tree, no root, no guest.
check-hw:
	@mkdir -p $(dir $(CHECK))
	@rc=0; for shell in dash bash "busybox sh"; do \
		WB_TEST_SHELL="$$shell" $(TEST) "the hardware kit on a fake sysfs under $$shell" \
			python3 -B -m unittest discover -s tests/hw || rc=1; \
	done; exit $$rc

# deps.sh in a fresh Debian 12 root (debootstrap): its package list gives
# every command the workbench calls, whatever this machine happens to have.
check-deps: $(STATE)/deps
	@mkdir -p $(BUILD)/fresh $(dir $(CHECK))
	@$(TEST) "deps.sh on a fresh Debian 12" scripts/check/deps.sh $(BUILD)/fresh

check-pristine: $(addprefix check-pristine-,$(ARCHS))

# Linux 7.3 as it is, with the test module and the tools of its own tree.
check-pristine-%: $(STATE)/pristine.rev
	@$(TEST) "build $* kernel, Linux 7.3 as it is" \
		$(MAKE) --no-print-directory $(call initramfs,pristine/$*)
	@$(call boots,pristine/$*)

# W=1 and sparse also compile the architecture's ALONE objects (archs/).
$(addprefix check-,$(ARCHS)): check-%: $(STATE)/patched.rev $(STATE)/pristine.rev
	@$(TEST) "build $* kernel" $(MAKE) --no-print-directory $(call initramfs,patched/$*)
	@WB_ALONE="$(ALONE_$*)" scripts/check/warnings.sh $* $(TREE) $(call out,patched/$*) $(BUILD)/pristine/linux \
		$(call out,pristine/$*) $(CHECK) $(call fragments,patched/$*)
	@$(call boots,patched/$*)

## 5. The debug kernel, part of check

# The patched x86_64 kernel with lockdep, KASAN, kmemleak and DMA API
# debugging (configs/kernels: debug/x86_64), its own test module (struct
# layouts differ), tools and NVMe reader, booted as the debug rows of
# $(BOOTS) say.

check-debug: $(STATE)/deps
	@mkdir -p $(dir $(CHECK))
	@rm -f $(CHECK)
	@rc=0; $(MAKE) --no-print-directory -k check-debug-tests || rc=$$?; \
		scripts/check/summary.sh $(CHECK) $$rc

# The debug boots, then check-report on their consoles: here rather than
# beside check-debug-tests in check-tests, so that it always comes after
# them (also under make -j, and in make check-debug) and runs even when a
# boot failed, saying what the report makes of its console.
check-debug-tests: $(STATE)/patched.rev
	@$(TEST) "build the debug x86_64 kernel" \
		$(MAKE) --no-print-directory $(call initramfs,debug/x86_64)
	@rc=0; $(call boots,debug/x86_64) || rc=1; \
		$(MAKE) --no-print-directory check-report || rc=1; exit $$rc

# report.py fed the debug boots' consoles (build/check/<label>.log), laid
# out as a benchmark's: it must pass, with a row of bench.csv per run
# object they carry (and of workloads.csv per workload object). Alone, it
# reads the consoles already there: no kernel, no guest.
check-report:
	@mkdir -p $(dir $(CHECK))
	@scripts/check/report.sh $(CHECK) $(BUILD)/check

check-bisect: $(STATE)/patched.rev $(OLD_TOOL)/stamp
	@mkdir -p $(dir $(CHECK))
	@rm -f $(CHECK)
	@rc=0; scripts/check/bisect.sh $(TREE) $(BUILD)/bisect $(OLD_TOOL) $(CHECK) $(ARCHS) || rc=$$?; \
		scripts/check/summary.sh $(CHECK) $$rc

# The series' tests can fail: each break of tests/breaks/<suite>.json, one
# line of the tree changed, must fail the case of <suite> it names (about a
# minute per break here, so not part of check). The patched x86_64 kernel is
# built from the clean tree again at the end.
BREAKS ?= $(wildcard tests/breaks/*.json)
# A file's "arch" names the guest its suite runs in (x86_64 unless set).
breaks_of = $(strip $(foreach j,$(BREAKS),$(if $(filter $(1),$(shell python3 scripts/check/break.py --arch $(j))),$(j))))
check-breaks: $(STATE)/patched.rev
	@mkdir -p $(dir $(CHECK))
	@rm -f $(CHECK)
	@rc=0; $(foreach arch,$(ARCHS),$(if $(call breaks_of,$(arch)),\
	$(MAKE) --no-print-directory $(call initramfs,patched/$(arch)) || rc=1; \
	for json in $(call breaks_of,$(arch)); do \
		scripts/check/breaks.sh $(arch) $(TREE) $(call out,patched/$(arch)) $(IMAGE_$(arch)) \
			$(call initramfs,patched/$(arch)) $$json $(CHECK) $(call fragments,patched/$(arch)) || rc=1; \
	done;)) scripts/check/summary.sh $(CHECK) $$rc

## 6. Mails for the list

# Each part of patches/parts as mails for git send-email (build/posting/):
# the sender's identity, never the project's placeholder; To and Cc from the
# tree's get_maintainer.pl and the part's lists; see README.md.
POSTING := $(BUILD)/posting
VERSION ?= 2
posting: $(STATE)/patched.rev
	@scripts/tree/posting.sh $(TREE) patches $(POSTING) $(VERSION) "$(GIT_NAME) <$(GIT_EMAIL)>" \
		"$(PROJECT_IDENT)"

## 7. Where a one-page map and unmap spend their guest instructions

# The instruction budget of a one-page map and unmap: the baseline and
# patched x86_64 kernels that make measures, booted in each of INSNS_MODES
# with QEMU's gdbstub; gdb single-steps dma_map_page_attrs() and
# dma_unmap_page_attrs() calls and scripts/results/insns.py counts what each
# function they went through executed (build/insns/<mode>.txt). Maps and
# unmaps of INSNS_GRANULE pages, one unless given, go to build/insns-g<pages>.
INSNS_GRANULE ?= 1
INSNS := $(BUILD)/insns$(if $(filter-out 1,$(INSNS_GRANULE)),-g$(INSNS_GRANULE))
INSNS_MODES ?= $(shell . guest/protocol.sh && echo "$$WB_MODE_LAZY $$WB_MODE_STRICT")
INSNS_KERNELS := baseline patched

insns: $(foreach k,$(INSNS_KERNELS),$(call kernel,$(k)/x86_64) $(call initramfs,$(k)/x86_64))
	@for mode in $(INSNS_MODES); do \
		$(foreach k,$(INSNS_KERNELS),WB_INSNS_GRANULE=$(INSNS_GRANULE) scripts/run/insns.sh $$mode $(call kernel,$(k)/x86_64) \
			$(call out,$(k)/x86_64)/vmlinux $(call initramfs,$(k)/x86_64) \
			$(INSNS)/$(k)-$$mode || exit 1;) \
		scripts/results/insns.py "$$mode mode" $(foreach k,$(INSNS_KERNELS),\
			$(k):$(INSNS)/$(k)-$$mode.json:$(call out,$(k)/x86_64)/vmlinux) \
			>$(INSNS)/$$mode.txt && cat $(INSNS)/$$mode.txt || exit 1; \
	done

## 8. What each patch changes

# The kernel at each revision of REVS (of the tree, oldest first: say
# "part/2-iova part/3-fastpath~1 part/3-fastpath"), all benchmarked in one
# run with the patched initramfs and printed side by side, each p50 against
# the revision before (build/per-patch/per-patch.txt). One thread, on the
# -icount clock when ICOUNT is set; MODES, MAPS, GRANULES, DEPTHS, SECONDS
# as for make.
REVS ?=
per-patch: $(STATE)/patched.rev $(call initramfs,patched/x86_64)
	@test -n "$(REVS)" || { echo 'make per-patch: say REVS="<rev> <rev>..."'; exit 2; }
	@WB_ICOUNT=$(ICOUNT) scripts/run/per-patch.sh bench $(TREE) $(BUILD)/per-patch \
		$(call initramfs,patched/x86_64) $(MODES) "wb.maps=$(MAPS) wb.granules=$(GRANULES) \
		wb.depths=$(DEPTHS) wb.seconds=$(SECONDS)" $(REVS) -- $(call fragments,patched/x86_64)

# The workloads of make workloads on the workload kernel at each revision of
# REVS, side by side (build/per-patch/per-patch-workloads.txt): each rate
# against the revision before and against the IOMMU off. PACKETS, IO_DEPTHS,
# IO_SECONDS and MODES as for make workloads.
per-patch-workloads: $(STATE)/patched.rev $(call initramfs,patched/workload)
	@test -n "$(REVS)" || { echo 'make per-patch-workloads: say REVS="<rev> <rev>..."'; exit 2; }
	@scripts/run/per-patch.sh workload $(TREE) $(BUILD)/per-patch \
		$(call initramfs,patched/workload) $(MODES) "$(WORKLOAD_OPTIONS)" \
		$(REVS) -- $(call fragments,patched/workload)

## 9. The hardware kit: the benchmark on a booted machine (hw/, issue 31)

# The kit of each architecture (scripts/build/hw-kit.sh): hw/hw-run.sh and
# its parts (hw/lib/), the guests' bench and workload steps with their
# helpers, the patched and Linux 7.3's dma_map_benchmark and randread,
# static; from the patched tree's tools alone (scripts/build/tools.sh:
# tools/dma needs no kernel build), so no kernel is built for it.
HW_KIT := $(BUILD)/hw-kit
HW_KIT_BUILT := $(foreach a,$(ARCHS),$(HW_KIT)/tools-$(a)/dma_map_benchmark $(HW_KIT)/randread-$(a)/randread)
$(HW_KIT)/tools-%/dma_map_benchmark: $(STATE)/patched.rev $(OLD_TOOL)/stamp scripts/build/tools.sh
	@$(STAGE) "$* tools/dma for the hw kit" scripts/build/tools.sh $* $(TREE) $(OLD_TOOL) $(TREE) $(dir $@)

$(HW_KIT)/randread-%/randread: workload/randread.c | $(STATE)/deps
	@mkdir -p $(dir $@)
	@$$(. archs/$*.sh && echo "$$cross")gcc -static -O2 -Wall -Wextra -Werror -o $@ $<

$(HW_KIT)/wb-hw-kit-%.tar.gz: $(HW_KIT)/tools-%/dma_map_benchmark $(HW_KIT)/randread-%/randread \
		$(STATE)/patched.rev hw/README.md $(GUEST) scripts/build/hw-kit.sh
	@$(STAGE) "$* hw kit" scripts/build/hw-kit.sh $(dir $<) $(HW_KIT)/randread-$*/randread \
		$(TREE)/tools/testing/selftests/kselftest/ktap_helpers.sh $(HW_KIT)/wb-hw-kit-$*

# Named, so that make never takes them for intermediate files.
$(HW_KIT_BUILT):

hw-kit: $(foreach a,$(ARCHS),$(HW_KIT)/wb-hw-kit-$(a).tar.gz)

# Two result sets of the kit, A as the report's baseline, B as its patched
# (results/hw/).
HW_RESULTS := $(RESULTS)/hw
hw-report:
	@test -n "$(A)" && test -n "$(B)" || { echo 'make hw-report: say A=<dir> B=<dir>'; exit 2; }
	@scripts/results/hw-report.py $(if $(ANYWAY),--anyway) $(HW_RESULTS) $(A) $(B)

clean:
	rm -rf $(BUILD)
