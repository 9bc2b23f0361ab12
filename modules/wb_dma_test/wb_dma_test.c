// SPDX-License-Identifier: GPL-2.0
/*
 * The workbench's end-to-end DMA test: QEMU's edu device is the DMA engine,
 * an ivshmem device's BARs are the peer-to-peer targets, and the DMA goes
 * through the IOMMU that covers edu (SMMUv3 on arm64). Each case maps a
 * target for edu, makes edu write a known pattern there and reads it back
 * on the CPU.
 *
 * KUnit runs the suites when the module is loaded; the guest's check job
 * then prints their KTAP from debugfs for the workbench to count. The module
 * binds edu itself (the DMA API needs a bound device), so it must be removed
 * before the benchmark takes edu.
 *
 * Suite wb_dma_resource: dma_map_resource() of ivshmem's prefetchable BAR2
 * and of its non-prefetchable register BAR0: DMA through either mapping
 * must land.
 *
 * Suite wb_dma_unmap: after dma_unmap_single() the IOVA must no longer reach
 * the buffer. Strict mode invalidates the IOTLB before the unmap returns;
 * lazy mode (a DMA-FQ domain) only when the flush queue drains, at the
 * latest after its timeout (10 ms; 1000 ms for a single queue), so the case
 * waits well past that first.
 * (edu starts every transfer from a 100 ms timer, so the window in which
 * lazy mode may still let a stale DMA land cannot be hit from here.) Each
 * stale DMA must leave the buffer untouched and show up as a fault in the
 * kernel log, naming the IOVA. IOVAs that queued unmaps hold must not make
 * a map fail once they fill edu's space, nor make a device leave the low
 * 4 GiB, and a map larger than what the queues hold must fail without an
 * IOTLB flush when the space is full; no IOVA may come back before a flush
 * that started after its unmap finished, with threads on every CPU; and
 * under a VT-d unit in caching mode (module parameter caching_mode) unmaps
 * must be invalidated neither at once nor within 100 ms, but together
 * within the single queue's second.
 *
 * Suite wb_dma_unmap_cpu: dma_unmap_single() must still copy a bounce
 * buffer back for an untrusted device and sync the CPU caches for a
 * non-coherent one (arm64), however short the unmap path gets for others.
 *
 * Suite wb_dma_pgtable: a one-page map or unmap through a VT-d unit whose
 * page walks do not snoop the caches (QEMU's) must flush the PTE it writes,
 * and a map through a table item not known to be flushed yet that item.
 *
 * Suite wb_dma_p2p (arm64, kernels with the series' P2PDMA declaration):
 * edu writes through the SMMU into a page of an NVMe controller's CMB, which
 * nvme-pci registers with P2PDMA and declares write-combinable, and into a
 * page of an ivshmem BAR2 that the module registers, undeclared. Pages are
 * mapped as P2PDMA's mappers map them: with the provider's attributes
 * through dma_map_phys() and dma_iova_link() (dma-buf), and through
 * dma_map_sg(), where P2PDMA gives them itself (the page route of
 * blk-mq-dma and hmm too). QEMU's host bridge is not on P2PDMA's whitelist:
 * while the suite runs, a probe makes edu's peers reachable through it (or,
 * for one case, behind edu's own switch). The data must land, and the page
 * table must be asked for Normal-NC (IOMMU_MMIO_NC) for the CMB only: for
 * MMIO without IOMMU_CACHE for the undeclared page, even when the caller
 * asks for write-combining; for each page of a list of RAM and peer memory
 * as what it is, at the IOVA the layout gave it. dma_map_resource() stays
 * Device; a register BAR cannot be declared, nor a BAR whose memory is
 * published or allocated. QEMU's SMMU ignores memory types, so they are
 * checked where the DMA layer hands them to io-pgtable-arm.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/iommu.h>
#include <linux/kmsg_dump.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/pci-p2pdma.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>

/* QEMU's edu (docs/specs/edu.rst): registers in BAR0, a 4K DMA buffer */
#define EDU_VENDOR		0x1234
#define EDU_DEVICE		0x11e8
#define EDU_DMA_SRC		0x80
#define EDU_DMA_DST		0x88
#define EDU_DMA_COUNT		0x90
#define EDU_DMA_CMD		0x98
#define EDU_CMD_START		BIT(0)
#define EDU_CMD_FROM_BUFFER	BIT(1)	/* else into the buffer */
#define EDU_BUFFER		0x40000	/* the buffer's own DMA address */
/* QEMU 7.2's edu rejects a transfer of all 4K of its buffer: move less */
#define EDU_TRANSFER		SZ_2K
/* edu masks the addresses it emits to its dma_mask property, 28 bits */
#define EDU_DMA_BITS		28
/* A transfer starts from a 100 ms timer: allow for a slow TCG host */
#define EDU_DMA_TIMEOUT_MS	10000

/* ivshmem-plain: registers in BAR0, the shared memory in BAR2 */
#define IVSHMEM_VENDOR		0x1af4
#define IVSHMEM_DEVICE		0x1110
#define IVSHMEM_BAR_REGS	0	/* 32-bit, not prefetchable */
#define IVSHMEM_BAR_SHMEM	2	/* 64-bit prefetchable, RAM behind it */
#define IVSHMEM_INTRMASK	0	/* a read-write register */

static struct pci_dev *edu;		/* bound to this module's driver */
static void __iomem *edu_regs;
static struct pci_dev *ivshmem;		/* a reference, enabled, not bound */

/* Run one edu transfer and wait for it to end */
static int edu_dma(u64 src, u64 dst, u32 count, u32 direction)
{
	unsigned long timeout = jiffies + msecs_to_jiffies(EDU_DMA_TIMEOUT_MS);

	writeq(src, edu_regs + EDU_DMA_SRC);
	writeq(dst, edu_regs + EDU_DMA_DST);
	writeq(count, edu_regs + EDU_DMA_COUNT);
	writeq(EDU_CMD_START | direction, edu_regs + EDU_DMA_CMD);
	while (readq(edu_regs + EDU_DMA_CMD) & EDU_CMD_START) {
		if (time_after(jiffies, timeout))
			return -ETIMEDOUT;
		msleep(20);
	}
	return 0;
}

static u8 pattern_byte(u8 seed, size_t i)
{
	return seed + i * 7 + (i >> 8);
}

/* How many of @len bytes at @buf differ from the pattern for @seed */
static size_t pattern_mismatches(const u8 *buf, size_t len, u8 seed)
{
	size_t i, other = 0;

	for (i = 0; i < len; i++)
		other += buf[i] != pattern_byte(seed, i);
	return other;
}

/*
 * Make edu write @len bytes of the pattern for @seed to @iova: load its
 * buffer from a coherent buffer in RAM, then copy the buffer out.
 */
static int edu_write_pattern(dma_addr_t iova, size_t len, u8 seed)
{
	dma_addr_t src;
	size_t i;
	u8 *buf;
	int ret;

	buf = dma_alloc_coherent(&edu->dev, len, &src, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	for (i = 0; i < len; i++)
		buf[i] = pattern_byte(seed, i);
	ret = edu_dma(src, EDU_BUFFER, len, 0);
	if (!ret)
		ret = edu_dma(EDU_BUFFER, iova, len, EDU_CMD_FROM_BUFFER);
	dma_free_coherent(&edu->dev, len, buf, src);
	return ret;
}

/* Clear a BAR range from the CPU, 32 bits at a time (registers too) */
static void bar_clear(void __iomem *cpu, size_t len)
{
	size_t i;

	for (i = 0; i < len; i += 4)
		iowrite32(0, cpu + i);
}

/* How many bytes of the BAR range hold the pattern for @seed */
static size_t bar_bytes_matching(void __iomem *cpu, size_t len, u8 seed)
{
	size_t i, matching = 0;
	u32 word;
	int b;

	for (i = 0; i < len; i += 4) {
		word = ioread32(cpu + i);
		for (b = 0; b < 4; b++)
			matching += ((word >> (8 * b)) & 0xff) ==
				    pattern_byte(seed, i + b);
	}
	return matching;
}

/*
 * The workbench gives arm64 guests an ivshmem peer: there, a missing one
 * is a broken set-up, not a reason to skip.
 */
static bool expect_ivshmem;
module_param(expect_ivshmem, bool, 0444);
MODULE_PARM_DESC(expect_ivshmem, "fail, not skip, the resource suite without ivshmem");

static void need_devices(struct kunit *test)
{
	if (!edu)
		kunit_skip(test, "no edu device (1234:11e8) bound");
	if (!ivshmem && expect_ivshmem)
		KUNIT_FAIL_AND_ABORT(test, "no ivshmem device (1af4:1110), yet expect_ivshmem=1");
	if (!ivshmem)
		kunit_skip(test, "no ivshmem device (1af4:1110)");
}

/*
 * Map @len bytes at @offset of ivshmem's BAR @bar for edu, have edu write a
 * pattern through the mapping and check that all of it landed.
 */
static void check_dma_into_bar(struct kunit *test, int bar, size_t offset,
			       size_t len, u8 seed)
{
	phys_addr_t phys = pci_resource_start(ivshmem, bar) + offset;
	void __iomem *cpu;
	dma_addr_t iova;
	size_t landed;
	int ret;

	KUNIT_ASSERT_GE(test, pci_resource_len(ivshmem, bar), offset + len);
	cpu = pci_iomap_range(ivshmem, bar, offset, len);
	KUNIT_ASSERT_NOT_NULL(test, cpu);
	bar_clear(cpu, len);

	iova = dma_map_resource(&edu->dev, phys, len, DMA_FROM_DEVICE, 0);
	if (dma_mapping_error(&edu->dev, iova)) {
		pci_iounmap(ivshmem, cpu);
		KUNIT_FAIL_AND_ABORT(test, "dma_map_resource(%pa) failed", &phys);
	}
	ret = edu_write_pattern(iova, len, seed);
	dma_unmap_resource(&edu->dev, iova, len, DMA_FROM_DEVICE, 0);

	landed = bar_bytes_matching(cpu, len, seed);
	pci_iounmap(ivshmem, cpu);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "edu's DMA failed or did not finish");
	kunit_info(test, "%zu of %zu bytes landed in ivshmem BAR%d at %pa through IOVA %pad\n",
		   landed, len, bar, &phys, &iova);
	KUNIT_EXPECT_EQ(test, landed, len);
}

static void resource_prefetchable_bar(struct kunit *test)
{
	need_devices(test);
	check_dma_into_bar(test, IVSHMEM_BAR_SHMEM, 0, EDU_TRANSFER, 0x11);
}

/* A register BAR: the mapping is MMIO, and DMA into it must land too */
static void resource_registers_bar(struct kunit *test)
{
	need_devices(test);
	check_dma_into_bar(test, IVSHMEM_BAR_REGS, IVSHMEM_INTRMASK, 4, 0xa5);
}

static struct kunit_case wb_dma_resource_cases[] = {
	KUNIT_CASE(resource_prefetchable_bar),
	KUNIT_CASE(resource_registers_bar),
	{}
};

static struct kunit_suite wb_dma_resource_suite = {
	.name = "wb_dma_resource",
	.test_cases = wb_dma_resource_cases,
};

/*
 * The fault line the IOMMU driver logs for an access to @iova: VT-d's
 * "DMAR: [DMA Write NO_PASID] Request device [..] fault addr 0x<page>",
 * SMMUv3's "event 0x10 received:" followed by the event's dwords, the third
 * of which (one per line, "\t0x%016llx") is the input address.
 */
static void fault_line_for(dma_addr_t iova, char *buf, size_t len)
{
	if (IS_ENABLED(CONFIG_ARM_SMMU_V3))
		snprintf(buf, len, "\t0x%016llx", (u64)iova);
	else
		snprintf(buf, len, "fault addr 0x%llx", (u64)iova & PAGE_MASK);
}

/* How many lines of the kernel log hold @needle */
static unsigned int log_count(const char *needle)
{
	struct kmsg_dump_iter iter;
	unsigned int count = 0;
	size_t len;
	char *line;

	line = kmalloc(1024, GFP_KERNEL);
	if (!line)
		return 0;
	kmsg_dump_rewind(&iter);
	while (kmsg_dump_get_line(&iter, false, line, 1023, &len)) {
		line[len] = '\0';
		count += !!strstr(line, needle);
	}
	kfree(line);
	return count;
}

/*
 * Wait for a new fault line for @iova (the fault interrupt, or SMMUv3's
 * event queue thread, logs it a little after edu's transfer ends)
 */
static bool fault_logged(const char *needle, unsigned int before)
{
	int tries;

	for (tries = 0; tries < 50; tries++) {
		if (log_count(needle) > before)
			return true;
		msleep(20);
	}
	return false;
}

/* How many bytes of @buf differ from @byte */
static size_t bytes_not(const u8 *buf, size_t len, u8 byte)
{
	size_t i, other = 0;

	for (i = 0; i < len; i++)
		other += buf[i] != byte;
	return other;
}

/*
 * Lazy mode may hold a stale IOTLB entry until the flush queue drains: at
 * the latest after 10 ms for per-CPU queues, after 1000 ms for the single
 * queue of a device whose IOTLB flushes resync shadow tables (s390, and
 * VT-d in caching mode with this series).
 */
#define FQ_TIMEOUT_MS		10
#define SINGLE_FQ_TIMEOUT_MS	1000
#define STALE_WAIT_MARGIN_MS	190
/* Rounds per case: 2 faults per boot stay under the drivers' log ratelimit */
#define STALE_ROUNDS		2
#define STALE_CLEAR		0xee
/*
 * The stale DMA moves one word: QEMU's SMMUv3 reports a fault per 4-byte
 * access, and the drivers log at most 10 faults per 5 s.
 */
#define STALE_LEN		4

/* Skip unless edu's DMA goes through dma-iommu (not dma-direct) */
static void need_dma_domain(struct kunit *test)
{
	struct iommu_domain *domain;

	if (!edu)
		kunit_skip(test, "no edu device (1234:11e8) bound");
	domain = iommu_get_domain_for_dev(&edu->dev);
	if (!domain || !(domain->type & __IOMMU_DOMAIN_DMA_API))
		kunit_skip(test, "edu is not behind a DMA API domain");
}

/* The longest a lazy unmap of edu's may wait for its invalidation */
static unsigned int fq_window_ms(void)
{
	return edu->dev.iommu->shadow_on_flush ? SINGLE_FQ_TIMEOUT_MS : FQ_TIMEOUT_MS;
}

struct stale_round {
	bool landed_mapped;	/* the DMA through the live mapping landed */
	bool faulted;		/* the stale DMA was logged as a fault */
	size_t touched;		/* bytes the stale DMA changed */
};

/*
 * One round: map @buf, have edu fill it through the mapping (edu's buffer
 * keeps the pattern), unmap, clear @buf from the CPU, and have edu write its
 * buffer to the old IOVA again. @src stays mapped all along, so the old
 * IOVA is not handed out again in between.
 */
static int stale_round(struct kunit *test, u8 *buf, dma_addr_t src, u8 seed,
		       bool lazy, struct stale_round *r)
{
	char needle[48];
	unsigned int before;
	dma_addr_t iova;
	int ret;

	memset(buf, 0, EDU_TRANSFER);
	iova = dma_map_single(&edu->dev, buf, EDU_TRANSFER, DMA_FROM_DEVICE);
	if (dma_mapping_error(&edu->dev, iova))
		return -ENOMEM;
	ret = edu_dma(src, EDU_BUFFER, EDU_TRANSFER, 0);
	if (!ret)
		ret = edu_dma(EDU_BUFFER, iova, EDU_TRANSFER, EDU_CMD_FROM_BUFFER);
	dma_unmap_single(&edu->dev, iova, EDU_TRANSFER, DMA_FROM_DEVICE);
	if (ret)
		return ret;
	r->landed_mapped = buf[0] == pattern_byte(seed, 0) &&
			   buf[EDU_TRANSFER - 1] == pattern_byte(seed, EDU_TRANSFER - 1);

	memset(buf, STALE_CLEAR, EDU_TRANSFER);
	if (lazy)
		msleep(fq_window_ms() + STALE_WAIT_MARGIN_MS);
	fault_line_for(iova, needle, sizeof(needle));
	before = log_count(needle);
	ret = edu_dma(EDU_BUFFER, iova, STALE_LEN, EDU_CMD_FROM_BUFFER);
	if (ret)
		return ret;
	r->faulted = fault_logged(needle, before);
	r->touched = bytes_not(buf, EDU_TRANSFER, STALE_CLEAR);
	kunit_info(test, "IOVA %pad: mapped DMA %s, stale DMA %s, %zu bytes touched\n",
		   &iova, r->landed_mapped ? "landed" : "LOST",
		   r->faulted ? "faulted" : "NOT FAULTED", r->touched);
	return 0;
}

/* Fill a coherent buffer with the pattern for @seed: edu's source */
static u8 *pattern_source(size_t len, u8 seed, dma_addr_t *src)
{
	u8 *buf = dma_alloc_coherent(&edu->dev, len, src, GFP_KERNEL);
	size_t i;

	for (i = 0; buf && i < len; i++)
		buf[i] = pattern_byte(seed, i);
	return buf;
}

static void unmapped_iova_faults(struct kunit *test)
{
	struct iommu_domain *domain;
	struct stale_round r;
	unsigned int faults = 0, touched = 0, round;
	dma_addr_t src;
	u8 *buf, *pat;
	int ret = 0;
	bool lazy;

	if (!edu)
		kunit_skip(test, "no edu device (1234:11e8) bound");
	domain = iommu_get_domain_for_dev(&edu->dev);
	if (!domain || !(domain->type & __IOMMU_DOMAIN_PAGING) ||
	    !(domain->type & __IOMMU_DOMAIN_DMA_API))
		kunit_skip(test, "edu is not behind a translating DMA domain");
	lazy = domain->type == IOMMU_DOMAIN_DMA_FQ;

	buf = (u8 *)__get_free_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	pat = pattern_source(EDU_TRANSFER, 0x3c, &src);
	if (!pat) {
		free_page((unsigned long)buf);
		KUNIT_FAIL_AND_ABORT(test, "no coherent source buffer");
	}
	for (round = 0; round < STALE_ROUNDS && !ret; round++) {
		memset(&r, 0, sizeof(r));
		ret = stale_round(test, buf, src, 0x3c, lazy, &r);
		KUNIT_EXPECT_TRUE_MSG(test, ret || r.landed_mapped,
				      "round %u: DMA through the live mapping did not land", round);
		faults += r.faulted;
		touched += r.touched;
	}
	dma_free_coherent(&edu->dev, EDU_TRANSFER, pat, src);
	free_page((unsigned long)buf);

	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "edu's DMA failed or did not finish");
	/* The line the workbench reports */
	if (lazy)
		kunit_info(test, "lazy: stale-IOVA faults seen %u of %u expected, %u bytes touched (after %u ms, flush queue timeout %u ms)\n",
			   faults, STALE_ROUNDS, touched,
			   fq_window_ms() + STALE_WAIT_MARGIN_MS, fq_window_ms());
	else
		kunit_info(test, "strict: stale-IOVA faults seen %u of %u expected, %u bytes touched\n",
			   faults, STALE_ROUNDS, touched);
	KUNIT_EXPECT_EQ(test, faults, STALE_ROUNDS);
	KUNIT_EXPECT_EQ(test, touched, 0);
}

/*
 * A lazy unmap leaves its IOVA in a flush queue. Once queued IOVAs fill the
 * device's DMA space, the next map must still get one: the allocator has
 * to drain the queues rather than fail. edu's mask is narrowed to 26 bits
 * for the maps: IOVA 0 is never handed out, so the space has room for 63
 * IOVAs of 1 MiB, fewer than a per-CPU queue holds (255) and less space
 * than a single queue holds before its bound drains it (a sixteenth of
 * what lies free below 4 GiB: 128 MiB or more on q35): map 64 finds the
 * space full. What earlier cases queued is drained first, and interrupts
 * stay off, so that no timer drains the queue during the loop.
 */
#define SPACE_MAP_SIZE		SZ_1M
#define SPACE_DMA_BITS		26

static bool pristine;
module_param(pristine, bool, 0444);
MODULE_PARM_DESC(pristine, "the kernel is Linux 7.3 without the series: skip the cases of what the series adds");

static void need_queue_drains(struct kunit *test)
{
	if (pristine)
		kunit_skip(test, "Linux 7.3 as it is never drains the flush queues for an allocation (3-vtd-cm)");
}

/* Map and unmap @size for edu @rounds times; the first round that failed */
static unsigned int map_unmap_rounds(struct page *page, size_t size, unsigned int rounds,
				     dma_addr_t *highest)
{
	unsigned int round, failed_at = 0;
	unsigned long flags;
	dma_addr_t iova;

	*highest = 0;
	local_irq_save(flags);
	for (round = 1; round <= rounds; round++) {
		iova = dma_map_page(&edu->dev, page, 0, size, DMA_TO_DEVICE);
		if (dma_mapping_error(&edu->dev, iova)) {
			failed_at = round;
			break;
		}
		*highest = max(*highest, iova);
		dma_unmap_page(&edu->dev, iova, size, DMA_TO_DEVICE);
	}
	local_irq_restore(flags);
	return failed_at;
}

static void queued_iovas_do_not_exhaust_space(struct kunit *test)
{
	unsigned int rounds = 2 * (DMA_BIT_MASK(SPACE_DMA_BITS) / SPACE_MAP_SIZE + 1);
	unsigned int failed_at = 0;
	struct iommu_domain *domain;
	dma_addr_t highest;
	struct page *page;
	int narrowed;

	need_queue_drains(test);
	need_dma_domain(test);
	domain = iommu_get_domain_for_dev(&edu->dev);
	if (domain->type != IOMMU_DOMAIN_DMA_FQ)
		kunit_skip(test, "edu's domain has no flush queue: unmaps free their IOVAs at once");
	page = alloc_pages(GFP_KERNEL, get_order(SPACE_MAP_SIZE));
	KUNIT_ASSERT_NOT_NULL(test, page);

	msleep(fq_window_ms() + STALE_WAIT_MARGIN_MS);
	narrowed = dma_set_mask(&edu->dev, DMA_BIT_MASK(SPACE_DMA_BITS));
	if (!narrowed)
		failed_at = map_unmap_rounds(page, SPACE_MAP_SIZE, rounds, &highest);
	__free_pages(page, get_order(SPACE_MAP_SIZE));

	KUNIT_ASSERT_EQ(test, dma_set_mask(&edu->dev, DMA_BIT_MASK(EDU_DMA_BITS)), 0);
	KUNIT_ASSERT_EQ(test, narrowed, 0);
	KUNIT_EXPECT_EQ_MSG(test, failed_at, 0,
			    "map %u of %u (1 MiB each, %d-bit space) failed: queued IOVAs filled the space",
			    failed_at, rounds, SPACE_DMA_BITS);
}

/*
 * A device whose mask reaches past 4 GiB gets IOVAs below 4 GiB first, and
 * switches to the whole space for good once those run out. IOVAs a queue
 * holds must not make it switch: a single queue (32768 entries) could hold
 * all 1023 IOVAs of 4 MiB below 4 GiB, and must drain before it holds a
 * sixteenth of what is free there, so the case needs several. edu's mask
 * is widened for the maps only; nothing is transferred. (4 MiB, so that 2048 maps of two 2 MiB leaves each fill the space twice
 * over.)
 */
#define LOW_MAP_SIZE		SZ_4M

static void queued_iovas_keep_dma_below_4g(struct kunit *test)
{
	unsigned int rounds = 2 * (DMA_BIT_MASK(32) / LOW_MAP_SIZE + 1);
	unsigned int failed_at;
	struct iommu_domain *domain;
	dma_addr_t highest;
	struct page *page;

	need_queue_drains(test);
	need_dma_domain(test);
	domain = iommu_get_domain_for_dev(&edu->dev);
	if (domain->type != IOMMU_DOMAIN_DMA_FQ || !edu->dev.iommu->shadow_on_flush)
		kunit_skip(test, "no single flush queue: per-CPU queues cannot hold 4 GiB of IOVAs");
	if (!edu->dev.iommu->pci_32bit_workaround)
		kunit_skip(test, "edu already uses addresses above 4 GiB");
	page = alloc_pages(GFP_KERNEL, get_order(LOW_MAP_SIZE));
	KUNIT_ASSERT_NOT_NULL(test, page);

	msleep(fq_window_ms() + STALE_WAIT_MARGIN_MS);
	KUNIT_ASSERT_EQ(test, dma_set_mask(&edu->dev, DMA_BIT_MASK(64)), 0);
	failed_at = map_unmap_rounds(page, LOW_MAP_SIZE, rounds, &highest);
	KUNIT_ASSERT_EQ(test, dma_set_mask(&edu->dev, DMA_BIT_MASK(EDU_DMA_BITS)), 0);
	__free_pages(page, get_order(LOW_MAP_SIZE));

	KUNIT_EXPECT_EQ(test, failed_at, 0);
	KUNIT_EXPECT_LE_MSG(test, highest, (dma_addr_t)DMA_BIT_MASK(32),
			    "after %u maps of 4 MiB, edu got IOVA %pad: queued IOVAs made it leave the low 4 GiB",
			    rounds, &highest);
}

#if IS_ENABLED(CONFIG_INTEL_IOMMU) && defined(CONFIG_X86)
static bool caching_mode;
module_param(caching_mode, bool, 0444);
MODULE_PARM_DESC(caching_mode, "edu sits behind a VT-d unit in caching mode (QEMU's caching-mode=on)");

/*
 * IOTLB flushes of one VT-d domain: cache_tag_flush_range(), which
 * cache_tag_flush_all() calls too
 */
static void *counted_domain;
static atomic_t domain_flushes, domain_wide_flushes;

static int count_domain_flush(struct kprobe *kp, struct pt_regs *regs)
{
	/* struct dmar_domain starts with its struct iommu_domain */
	if ((void *)regs_get_kernel_argument(regs, 0) != READ_ONCE(counted_domain))
		return 0;
	atomic_inc(&domain_flushes);
	/* cache_tag_flush_all() flushes the range 0 to ULONG_MAX */
	if (regs_get_kernel_argument(regs, 1) == 0 &&
	    regs_get_kernel_argument(regs, 2) == ULONG_MAX)
		atomic_inc(&domain_wide_flushes);
	return 0;
}

static struct kprobe domain_flush_probe;

static void unregister_domain_flush_probe(void *unused)
{
	unregister_kprobe(&domain_flush_probe);
	WRITE_ONCE(counted_domain, NULL);
}

static int register_domain_flush_probe(void *domain)
{
	WRITE_ONCE(counted_domain, domain);
	atomic_set(&domain_flushes, 0);
	atomic_set(&domain_wide_flushes, 0);
	/* A kprobe keeps the address it was once registered at: start afresh */
	domain_flush_probe = (struct kprobe){
		.symbol_name = "cache_tag_flush_range",
		.pre_handler = count_domain_flush,
	};
	return register_kprobe(&domain_flush_probe);
}

/*
 * A drain cannot make room for more IOVA pages than the queues hold, and
 * costs a domain-wide flush. With edu's space full of live 1 MiB mappings
 * and one of them unmapped (queued), a 2 MiB map must fail without an
 * IOTLB flush: the freed slot's neighbours are all live. Interrupts stay
 * off from the unmap to the failed map, so no timer drains the queue in
 * between.
 */
#define LIVE_MAPS_MAX		256

static void live_full_space_fails_without_drain(struct kunit *test)
{
	unsigned int live = 0, flushes, i;
	struct iommu_domain *domain;
	dma_addr_t *iovas, more;
	unsigned long flags;
	struct page *page;
	int ret;

	need_queue_drains(test);
	need_dma_domain(test);
	domain = iommu_get_domain_for_dev(&edu->dev);
	if (domain->type != IOMMU_DOMAIN_DMA_FQ)
		kunit_skip(test, "edu's domain has no flush queue");
	iovas = kunit_kcalloc(test, LIVE_MAPS_MAX, sizeof(*iovas), GFP_KERNEL);
	page = alloc_pages(GFP_KERNEL, get_order(2 * SPACE_MAP_SIZE));
	KUNIT_ASSERT_NOT_NULL(test, iovas);
	KUNIT_ASSERT_NOT_NULL(test, page);
	msleep(fq_window_ms() + STALE_WAIT_MARGIN_MS);

	while (live < LIVE_MAPS_MAX) {
		iovas[live] = dma_map_page(&edu->dev, page, 0, SPACE_MAP_SIZE, DMA_TO_DEVICE);
		if (dma_mapping_error(&edu->dev, iovas[live]))
			break;
		live++;
	}
	ret = register_domain_flush_probe(domain);

	local_irq_save(flags);
	if (live)
		dma_unmap_page(&edu->dev, iovas[--live], SPACE_MAP_SIZE, DMA_TO_DEVICE);
	atomic_set(&domain_flushes, 0);
	more = dma_map_page(&edu->dev, page, 0, 2 * SPACE_MAP_SIZE, DMA_TO_DEVICE);
	flushes = atomic_read(&domain_flushes);
	local_irq_restore(flags);

	if (!ret)
		unregister_domain_flush_probe(NULL);
	if (!dma_mapping_error(&edu->dev, more))
		dma_unmap_page(&edu->dev, more, 2 * SPACE_MAP_SIZE, DMA_TO_DEVICE);
	for (i = 0; i < live; i++)
		dma_unmap_page(&edu->dev, iovas[i], SPACE_MAP_SIZE, DMA_TO_DEVICE);
	__free_pages(page, get_order(2 * SPACE_MAP_SIZE));

	if (ret == -ENOSYS)
		kunit_skip(test, "no kprobes (CONFIG_KPROBES)");
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "cannot probe VT-d's cache_tag_flush_range()");
	KUNIT_ASSERT_TRUE_MSG(test, live > 0 && live < LIVE_MAPS_MAX,
			      "edu's space did not fill up with 1 MiB mappings (%u)", live);
	kunit_info(test, "%u live 1 MiB mappings, one unmapped: the 2 MiB map %s, %u IOTLB flushes\n",
		   live + 1, dma_mapping_error(&edu->dev, more) ? "failed" : "found room", flushes);
	/* A 1 MiB map can fail for want of a page table, not of IOVA space */
	if (!dma_mapping_error(&edu->dev, more))
		kunit_skip(test, "the space was not full: nothing to check");
	KUNIT_EXPECT_EQ_MSG(test, flushes, 0,
			    "a map no drain could help flushed the IOTLB %u times", flushes);
}

/*
 * No IOVA may come back from the allocator before an IOTLB flush that
 * started after its unmap has completed, however the queues drain: by
 * filling up, by their timer, or for an allocation that found the space
 * full (3-vtd-cm). Threads on every CPU map and unmap 1 MiB for edu, so
 * that all three happen, and check every IOVA they get against a kretprobe
 * on VT-d's domain-wide flushes of edu's domain: each flush takes a ticket
 * when it starts, and the highest ticket of a finished one is kept. An
 * unmap notes the tickets taken before it; a map that returns that IOVA
 * needs a finished flush with a later ticket.
 */
#define STRESS_ROUNDS		2000
#define STRESS_SLOTS		(1 << (EDU_DMA_BITS - 20))

static atomic64_t flush_tickets, flush_finished;
static atomic64_t slot_unmapped_at[STRESS_SLOTS];
static atomic_t reused_early, stress_running;

struct flush_ticket {
	u64 ticket;
};

static int flush_all_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct flush_ticket *t = (struct flush_ticket *)ri->data;

	t->ticket = 0;
	if ((void *)regs_get_kernel_argument(regs, 0) == READ_ONCE(counted_domain) &&
	    regs_get_kernel_argument(regs, 1) == 0 &&
	    regs_get_kernel_argument(regs, 2) == ULONG_MAX)
		t->ticket = atomic64_inc_return(&flush_tickets);
	return 0;
}

static int flush_all_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct flush_ticket *t = (struct flush_ticket *)ri->data;
	s64 seen = atomic64_read(&flush_finished);

	while (t->ticket && t->ticket > seen &&
	       !atomic64_try_cmpxchg(&flush_finished, &seen, t->ticket))
		;
	return 0;
}

static struct kretprobe flush_all_kretprobe;

static void unregister_flush_all_kretprobe(void *unused)
{
	unregister_kretprobe(&flush_all_kretprobe);
	WRITE_ONCE(counted_domain, NULL);
}

static int stress_thread(void *data)
{
	struct page *page = data;
	unsigned int round;
	dma_addr_t iova;
	s64 unmapped_at;

	for (round = 0; round < STRESS_ROUNDS; round++) {
		iova = dma_map_page(&edu->dev, page, 0, SPACE_MAP_SIZE, DMA_TO_DEVICE);
		if (dma_mapping_error(&edu->dev, iova))
			continue;
		unmapped_at = atomic64_read(&slot_unmapped_at[iova >> 20]);
		if (unmapped_at >= 0 && atomic64_read(&flush_finished) <= unmapped_at)
			atomic_inc(&reused_early);
		atomic64_set(&slot_unmapped_at[iova >> 20], atomic64_read(&flush_tickets));
		dma_unmap_page(&edu->dev, iova, SPACE_MAP_SIZE, DMA_TO_DEVICE);
	}
	if (atomic_dec_and_test(&stress_running))
		wake_up_var(&stress_running);
	return 0;
}

static void no_iova_reused_before_its_flush(struct kunit *test)
{
	unsigned int cpu, started = 0, i;
	struct task_struct *thread;
	struct iommu_domain *domain;
	struct page *page;
	int ret;

	need_queue_drains(test);
	need_dma_domain(test);
	domain = iommu_get_domain_for_dev(&edu->dev);
	if (domain->type != IOMMU_DOMAIN_DMA_FQ)
		kunit_skip(test, "edu's domain has no flush queue");
	page = alloc_pages(GFP_KERNEL, get_order(SPACE_MAP_SIZE));
	KUNIT_ASSERT_NOT_NULL(test, page);
	msleep(fq_window_ms() + STALE_WAIT_MARGIN_MS);

	/* A slot whose IOVA no one unmapped yet needs no flush */
	for (i = 0; i < STRESS_SLOTS; i++)
		atomic64_set(&slot_unmapped_at[i], -1);
	atomic64_set(&flush_tickets, 0);
	atomic64_set(&flush_finished, 0);
	atomic_set(&reused_early, 0);
	WRITE_ONCE(counted_domain, domain);
	flush_all_kretprobe = (struct kretprobe){
		.kp.symbol_name = "cache_tag_flush_range",
		.entry_handler = flush_all_entry,
		.handler = flush_all_return,
		.data_size = sizeof(struct flush_ticket),
		.maxactive = 2 * NR_CPUS,
	};
	ret = register_kretprobe(&flush_all_kretprobe);
	if (ret == -ENOSYS) {
		__free_pages(page, get_order(SPACE_MAP_SIZE));
		kunit_skip(test, "no kretprobes (CONFIG_KRETPROBES)");
	}
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, unregister_flush_all_kretprobe,
							NULL), 0);

	/* One count for this thread, so none can reach zero before all started */
	atomic_set(&stress_running, 1);
	for_each_online_cpu(cpu) {
		atomic_inc(&stress_running);
		thread = kthread_run_on_cpu(stress_thread, page, cpu, "wb_stress/%u");
		if (IS_ERR(thread)) {
			atomic_dec(&stress_running);
			break;
		}
		started++;
	}
	atomic_dec(&stress_running);
	wait_var_event(&stress_running, !atomic_read(&stress_running));
	__free_pages(page, get_order(SPACE_MAP_SIZE));

	kunit_info(test, "%u threads x %u maps of 1 MiB: %lld domain-wide flushes, %d IOVAs reused before one covered them\n",
		   started, STRESS_ROUNDS, atomic64_read(&flush_tickets), atomic_read(&reused_early));
	KUNIT_ASSERT_GT(test, started, 0U);
	KUNIT_EXPECT_GT(test, atomic64_read(&flush_tickets), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&reused_early), 0);
}

/* edu's domain in a caching-mode boot, which must be lazy; skips otherwise */
static struct iommu_domain *caching_mode_lazy_domain(struct kunit *test)
{
	struct iommu_domain *domain;

	if (!caching_mode)
		kunit_skip(test, "not booted with wb.wb_dma_test=caching_mode=1");
	if (!edu)
		KUNIT_FAIL_AND_ABORT(test, "caching_mode=1, yet no edu device (1234:11e8) bound");
	domain = iommu_get_domain_for_dev(&edu->dev);
	KUNIT_ASSERT_TRUE_MSG(test, domain && domain->type == IOMMU_DOMAIN_DMA_FQ,
			      "caching mode: edu's domain is not a lazy DMA domain (strict?)");
	return domain;
}

/*
 * Under a VT-d unit in caching mode the host resyncs its shadow of edu's
 * table on each invalidation, so unmaps are batched in one queue: 300
 * unmaps (more than a per-CPU queue's 255) must be invalidated neither at
 * once (strict) nor within 100 ms (a per-CPU queue's timer, or its filling
 * up), but together, once, within the single queue's second.
 */
#define CM_UNMAPS		300
#define CM_QUIET_MS		100

static void caching_mode_batches_unmap_invalidations(struct kunit *test)
{
	unsigned int quiet, later, i;
	struct iommu_domain *domain;
	dma_addr_t *iovas;
	void *buf;
	int ret;

	domain = caching_mode_lazy_domain(test);
	buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	iovas = kunit_kcalloc(test, CM_UNMAPS, sizeof(*iovas), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, iovas);
	/* Let what earlier cases queued drain first */
	msleep(SINGLE_FQ_TIMEOUT_MS + STALE_WAIT_MARGIN_MS);

	for (i = 0; i < CM_UNMAPS; i++) {
		iovas[i] = dma_map_single(&edu->dev, buf, PAGE_SIZE, DMA_TO_DEVICE);
		KUNIT_ASSERT_FALSE(test, dma_mapping_error(&edu->dev, iovas[i]));
	}
	ret = register_domain_flush_probe(domain);
	if (ret == -ENOSYS)
		kunit_skip(test, "no kprobes (CONFIG_KPROBES)");
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "cannot probe VT-d's cache_tag_flush_range()");
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, unregister_domain_flush_probe,
							NULL), 0);

	for (i = 0; i < CM_UNMAPS; i++)
		dma_unmap_single(&edu->dev, iovas[i], PAGE_SIZE, DMA_TO_DEVICE);
	msleep(CM_QUIET_MS);
	quiet = atomic_read(&domain_flushes);
	msleep(SINGLE_FQ_TIMEOUT_MS + STALE_WAIT_MARGIN_MS - CM_QUIET_MS);
	later = atomic_read(&domain_flushes);

	kunit_info(test, "IOTLB flushes of edu's domain after %u unmaps: %u in the first %u ms, %u within %u ms\n",
		   CM_UNMAPS, quiet, CM_QUIET_MS, later, SINGLE_FQ_TIMEOUT_MS + STALE_WAIT_MARGIN_MS);
	KUNIT_EXPECT_EQ_MSG(test, quiet, 0, "the unmaps were not batched for the single queue's window");
	KUNIT_EXPECT_EQ_MSG(test, later, 1, "the unmaps were not invalidated together, once");
}

/*
 * A single queue drains once its IOVAs below 4 GiB take a sixteenth of
 * what lies free there, whatever their size, so that a drain hands the
 * IOVA caches about what they take and the queue's first fill touches that
 * much fresh space at most. 16384 unmaps of 64 KiB (1 GiB, half the
 * entries the queue has) must drain it at least three times, since a
 * sixteenth of 4 GiB is 256 MiB and less than 4 GiB is free there, and at
 * most 16 times, since any machine leaves 1 GiB free there. Interrupts
 * stay off meanwhile, so the queue's timer cannot drain it instead; edu's
 * mask is widened to 32 bits for the maps, so that no allocation fails and
 * drains.
 */
#define HOLD_MAP_SIZE		SZ_64K
#define HOLD_MAPS		(SZ_1G / HOLD_MAP_SIZE)
#define HOLD_DRAINS_MIN		(SZ_1G / (SZ_4G / 16) - 1)
#define HOLD_DRAINS_MAX		(SZ_1G / SZ_64M)

static void single_queue_drains_at_its_bound(struct kunit *test)
{
	unsigned int failed_at = 0, drains = 0;
	struct iommu_domain *domain;
	int ret, widened = 0;
	dma_addr_t highest;
	struct page *page;

	domain = caching_mode_lazy_domain(test);
	page = alloc_pages(GFP_KERNEL, get_order(HOLD_MAP_SIZE));
	KUNIT_ASSERT_NOT_NULL(test, page);
	/* Let what earlier cases queued drain first */
	msleep(SINGLE_FQ_TIMEOUT_MS + STALE_WAIT_MARGIN_MS);

	ret = register_domain_flush_probe(domain);
	if (!ret) {
		widened = dma_set_mask(&edu->dev, DMA_BIT_MASK(32));
		if (!widened)
			failed_at = map_unmap_rounds(page, HOLD_MAP_SIZE, HOLD_MAPS,
						     &highest);
		drains = atomic_read(&domain_wide_flushes);
		unregister_domain_flush_probe(NULL);
	}
	__free_pages(page, get_order(HOLD_MAP_SIZE));

	if (ret == -ENOSYS)
		kunit_skip(test, "no kprobes (CONFIG_KPROBES)");
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "cannot probe VT-d's cache_tag_flush_range()");
	KUNIT_ASSERT_EQ(test, dma_set_mask(&edu->dev, DMA_BIT_MASK(EDU_DMA_BITS)), 0);
	KUNIT_ASSERT_EQ(test, widened, 0);
	KUNIT_ASSERT_EQ(test, failed_at, 0);
	kunit_info(test, "%lu unmaps of 64 KiB: %u domain-wide IOTLB flushes\n",
		   (unsigned long)HOLD_MAPS, drains);
	KUNIT_EXPECT_GE_MSG(test, drains, HOLD_DRAINS_MIN,
			    "the single queue held 1 GiB of 64 KiB IOVAs with %u drains", drains);
	KUNIT_EXPECT_LE_MSG(test, drains, HOLD_DRAINS_MAX,
			    "%u drains: the single queue held less than 64 MiB between them", drains);
}
#else
static void live_full_space_fails_without_drain(struct kunit *test)
{
	kunit_skip(test, "counts VT-d's flushes: no VT-d (CONFIG_INTEL_IOMMU) here");
}

static void no_iova_reused_before_its_flush(struct kunit *test)
{
	kunit_skip(test, "watches VT-d's flushes: no VT-d (CONFIG_INTEL_IOMMU) here");
}

static void caching_mode_batches_unmap_invalidations(struct kunit *test)
{
	kunit_skip(test, "no VT-d (CONFIG_INTEL_IOMMU) on this architecture");
}

static void single_queue_drains_at_its_bound(struct kunit *test)
{
	kunit_skip(test, "no VT-d (CONFIG_INTEL_IOMMU) on this architecture");
}
#endif

static struct kunit_case wb_dma_unmap_cases[] = {
	KUNIT_CASE_SLOW(unmapped_iova_faults),
	KUNIT_CASE(queued_iovas_do_not_exhaust_space),
	KUNIT_CASE(queued_iovas_keep_dma_below_4g),
	KUNIT_CASE(live_full_space_fails_without_drain),
	KUNIT_CASE_SLOW(no_iova_reused_before_its_flush),
	KUNIT_CASE_SLOW(caching_mode_batches_unmap_invalidations),
	KUNIT_CASE_SLOW(single_queue_drains_at_its_bound),
	{}
};

static struct kunit_suite wb_dma_unmap_suite = {
	.name = "wb_dma_unmap",
	.test_cases = wb_dma_unmap_cases,
};

/*
 * Suite wb_dma_unmap_cpu: what dma_unmap_single() owes the CPU. A device
 * the IOMMU layer bounces must get the bounce buffer's data copied back, a
 * non-coherent device must get the CPU caches invalidated over the buffer,
 * whatever shortcut the unmap path takes for coherent, trusted devices.
 * Both cases change a property of edu that firmware or the platform sets
 * at enumeration (untrusted, DMA coherence) and restore it; the DMA layer
 * reads both on every map and unmap, while the domain type and ATS were
 * settled at probe and stay. pci_dev->untrusted shares a word with other
 * bitfields: edu is idle and bound to this module, so nothing else writes
 * them meanwhile.
 */
#define BOUNCE_OFFSET		64	/* not granule aligned: must bounce */
#define BOUNCE_LEN		512
#define BOUNCE_CLEAR		0xee

/* Where @iova leads in edu's IOMMU domain, or 0 */
static phys_addr_t iova_target(dma_addr_t iova)
{
	struct iommu_domain *domain = iommu_get_domain_for_dev(&edu->dev);

	return domain ? iommu_iova_to_phys(domain, iova) : 0;
}

static void untrusted_unmap_copies_bounce_back(struct kunit *test)
{
	phys_addr_t page, target = 0;
	dma_addr_t iova, src;
	u8 *buf, *data, *pat;
	bool was_untrusted;
	size_t stale = 0;
	int ret;

	need_dma_domain(test);
	buf = kunit_kmalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	pat = pattern_source(BOUNCE_LEN, 0x5a, &src);
	KUNIT_ASSERT_NOT_NULL(test, pat);
	memset(buf, BOUNCE_CLEAR, PAGE_SIZE);
	data = buf + BOUNCE_OFFSET;
	page = virt_to_phys(buf) & PAGE_MASK;

	was_untrusted = edu->untrusted;
	edu->untrusted = 1;
	iova = dma_map_single(&edu->dev, data, BOUNCE_LEN, DMA_FROM_DEVICE);
	ret = dma_mapping_error(&edu->dev, iova) ? -ENOMEM : 0;
	if (!ret) {
		target = iova_target(iova);
		ret = edu_dma(src, EDU_BUFFER, BOUNCE_LEN, 0);
		if (!ret)
			ret = edu_dma(EDU_BUFFER, iova, BOUNCE_LEN, EDU_CMD_FROM_BUFFER);
		/* Bounced, the buffer itself must not have been written yet */
		stale = bytes_not(data, BOUNCE_LEN, BOUNCE_CLEAR);
		dma_unmap_single(&edu->dev, iova, BOUNCE_LEN, DMA_FROM_DEVICE);
	}
	edu->untrusted = was_untrusted;
	dma_free_coherent(&edu->dev, BOUNCE_LEN, pat, src);
	/* No swiotlb: x86_64 frees it when RAM ends below 4G (iommu=soft) */
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "mapping (bounce buffers?) or edu's DMA failed");

	kunit_info(test, "IOVA %pad leads to %pa, the buffer's page is %pa\n",
		   &iova, &target, &page);
	KUNIT_EXPECT_NE_MSG(test, target & PAGE_MASK, page,
			    "an untrusted device was given the buffer itself, not a bounce buffer");
	KUNIT_EXPECT_EQ_MSG(test, stale, 0,
			    "the DMA reached the buffer before the unmap");
	KUNIT_EXPECT_EQ_MSG(test, pattern_mismatches(data, BOUNCE_LEN, 0x5a), 0,
			    "the unmap did not copy the bounce buffer back");
	KUNIT_EXPECT_EQ(test, bytes_not(buf, BOUNCE_OFFSET, BOUNCE_CLEAR), 0);
	KUNIT_EXPECT_EQ(test, bytes_not(data + BOUNCE_LEN,
					PAGE_SIZE - BOUNCE_OFFSET - BOUNCE_LEN,
					BOUNCE_CLEAR), 0);
}

#ifdef CONFIG_ARCH_HAS_SYNC_DMA_FOR_CPU
/* Counts arch_sync_dma_for_cpu() calls on one physical address */
static phys_addr_t sync_watched;
static atomic_t sync_hits;

static int count_sync_for_cpu(struct kprobe *kp, struct pt_regs *regs)
{
	if ((phys_addr_t)regs_get_kernel_argument(regs, 0) == sync_watched)
		atomic_inc(&sync_hits);
	return 0;
}

static struct kprobe sync_probe = {
	.symbol_name = "arch_sync_dma_for_cpu",
	.pre_handler = count_sync_for_cpu,
};

static void noncoherent_unmap_syncs_for_cpu(struct kunit *test)
{
	bool was_coherent;
	dma_addr_t iova;
	u8 *buf;
	int ret;

	need_dma_domain(test);
	buf = kunit_kmalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	sync_watched = virt_to_phys(buf);
	atomic_set(&sync_hits, 0);
	ret = register_kprobe(&sync_probe);
	if (ret == -ENOSYS)
		kunit_skip(test, "no kprobes (CONFIG_KPROBES)");
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "cannot probe arch_sync_dma_for_cpu()");

	was_coherent = dev_dma_coherent(&edu->dev);
	dev_clear_dma_coherent(&edu->dev);
	iova = dma_map_single(&edu->dev, buf, PAGE_SIZE, DMA_FROM_DEVICE);
	ret = dma_mapping_error(&edu->dev, iova) ? -ENOMEM : 0;
	if (!ret)
		dma_unmap_single(&edu->dev, iova, PAGE_SIZE, DMA_FROM_DEVICE);
	dev_assign_dma_coherent(&edu->dev, was_coherent);
	unregister_kprobe(&sync_probe);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "dma_map_single() failed");

	kunit_info(test, "arch_sync_dma_for_cpu(%pa) called %d times\n",
		   &sync_watched, atomic_read(&sync_hits));
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&sync_hits), 1,
			    "the unmap of a non-coherent device's buffer must sync it for the CPU once");
}
#else
static void noncoherent_unmap_syncs_for_cpu(struct kunit *test)
{
	kunit_skip(test, "every device is DMA-coherent on this architecture");
}
#endif

static struct kunit_case wb_dma_unmap_cpu_cases[] = {
	KUNIT_CASE(untrusted_unmap_copies_bounce_back),
	KUNIT_CASE(noncoherent_unmap_syncs_for_cpu),
	{}
};

static struct kunit_suite wb_dma_unmap_cpu_suite = {
	.name = "wb_dma_unmap_cpu",
	.test_cases = wb_dma_unmap_cpu_cases,
};


/*
 * Suite wb_dma_pgtable: an IOMMU whose page-table walks do not snoop the
 * CPU caches (a DMA_INCOHERENT table: VT-d without ECAP.C in legacy mode,
 * as QEMU's intel-iommu) must have every PTE a map writes flushed to
 * memory before the map or unmap returns, whichever path of the
 * page-table code wrote it, and the table items above it too until a
 * map has marked them flushed.
 */
#if IS_ENABLED(CONFIG_IOMMU_PT_VTDSS) && defined(CONFIG_X86)
#include <linux/generic_pt/iommu.h>

/*
 * The generic page-table features of @domain's table, if it is a VT-d
 * second-stage one (VT-d in legacy mode has no other).
 */
static int vtdss_features(struct iommu_domain *domain, unsigned int *features)
{
	struct pt_iommu_vtdss *table;

	if (domain->ops->iova_to_phys != pt_iommu_vtdss_iova_to_phys)
		return -ENOENT;
	table = container_of(domain, struct pt_iommu_vtdss, iommu.domain);
	*features = table->vtdss_pt.common.features;
	return 0;
}

/*
 * Counts clflush_cache_range() calls made by one task and keeps what the
 * first one flushed (x86-64 passes the address in rdi, the length in rsi).
 */
static struct task_struct *flush_task;
static atomic_t flush_hits;
static u64 *flushed_word;
static unsigned long flushed_len;

static int count_flush(struct kprobe *kp, struct pt_regs *regs)
{
	if (current != READ_ONCE(flush_task))
		return 0;
	if (atomic_inc_return(&flush_hits) == 1) {
		flushed_word = (u64 *)regs->di;
		flushed_len = regs->si;
	}
	return 0;
}

static struct kprobe flush_probe;

static void unregister_flush_probe(void *unused)
{
	unregister_kprobe(&flush_probe);
}

/*
 * Skips unless edu's table is an incoherent VT-d one, then probes
 * clflush_cache_range() until the case ends.
 */
static void need_incoherent_table(struct kunit *test)
{
	unsigned int features;
	int ret;

	need_dma_domain(test);
	if (vtdss_features(iommu_get_domain_for_dev(&edu->dev), &features))
		kunit_skip(test, "edu's domain has no VT-d second-stage table");
	if (!(features & BIT(PT_FEAT_DMA_INCOHERENT)))
		kunit_skip(test, "the IOMMU's page walks snoop the caches: nothing to flush");
	/* A kprobe keeps the address it was once registered at: start afresh */
	flush_probe = (struct kprobe){
		.symbol_name = "clflush_cache_range",
		.pre_handler = count_flush,
	};
	ret = register_kprobe(&flush_probe);
	if (ret == -ENOSYS)
		kunit_skip(test, "no kprobes (CONFIG_KPROBES)");
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "cannot probe clflush_cache_range()");
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, unregister_flush_probe, NULL), 0);
}

/* Counts this task's flushes from now, or stops counting them */
static void count_flushes(bool on)
{
	if (on)
		atomic_set(&flush_hits, 0);
	WRITE_ONCE(flush_task, on ? current : NULL);
}

/* Maps @page, counting its flushes, with interrupts off: nothing else is counted */
static dma_addr_t map_counted(u8 *page)
{
	unsigned long flags;
	dma_addr_t iova;

	local_irq_save(flags);
	count_flushes(true);
	iova = dma_map_single(&edu->dev, page, PAGE_SIZE, DMA_TO_DEVICE);
	count_flushes(false);
	local_irq_restore(flags);
	return iova;
}

/* Unmaps whichever of @iova and @warm were mapped, then ends the case */
static void map_failed(struct kunit *test, dma_addr_t iova, dma_addr_t warm)
{
	if (!dma_mapping_error(&edu->dev, iova))
		dma_unmap_single(&edu->dev, iova, PAGE_SIZE, DMA_TO_DEVICE);
	if (!dma_mapping_error(&edu->dev, warm))
		dma_unmap_single(&edu->dev, warm, PAGE_SIZE, DMA_TO_DEVICE);
	KUNIT_FAIL_AND_ABORT(test, "dma_map_single() failed");
}

/*
 * Maps @buf's first page next to a mapping of its second, made first, so
 * that the tables the map needs exist and it only writes its PTE: the
 * common case, which page-table code may take a fast path for. Counts the
 * flushes of that map. Both maps run on one CPU, so that both IOVAs come
 * from its cache or both from the tree.
 */
static dma_addr_t map_beside(struct kunit *test, u8 *buf, dma_addr_t *warm)
{
	dma_addr_t iova;

	preempt_disable();
	*warm = dma_map_single(&edu->dev, buf + PAGE_SIZE, PAGE_SIZE, DMA_TO_DEVICE);
	iova = map_counted(buf);
	preempt_enable();
	if (dma_mapping_error(&edu->dev, *warm) || dma_mapping_error(&edu->dev, iova))
		map_failed(test, iova, *warm);
	return iova;
}

static void incoherent_walk_map_flushes_pte(struct kunit *test)
{
	dma_addr_t iova, warm;
	u64 pte = 0;
	int hits;
	u8 *buf;

	need_incoherent_table(test);
	buf = kunit_kmalloc(test, 2 * PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	iova = map_beside(test, buf, &warm);
	hits = atomic_read(&flush_hits);
	if (hits)
		pte = READ_ONCE(*flushed_word);
	dma_unmap_single(&edu->dev, iova, PAGE_SIZE, DMA_TO_DEVICE);
	dma_unmap_single(&edu->dev, warm, PAGE_SIZE, DMA_TO_DEVICE);

	kunit_info(test, "a one-page map at %pad next to %pad flushed %d times\n",
		   &iova, &warm, hits);
	KUNIT_ASSERT_EQ_MSG(test, iova / SZ_2M, warm / SZ_2M,
			    "the IOVAs do not share a last-level table");
	/* One PTE written into existing tables: one flush, whichever path */
	KUNIT_ASSERT_EQ_MSG(test, hits, 1, "a map wrote a PTE the IOMMU's walk may not see");
	KUNIT_EXPECT_EQ(test, flushed_len, sizeof(u64));
	KUNIT_EXPECT_EQ_MSG(test, pte & GENMASK_ULL(51, 12), (u64)virt_to_phys(buf),
			    "the word flushed is not the new mapping's PTE");
}

/*
 * An unmap clears one PTE and frees no table: the clear must reach memory,
 * else the IOMMU's next walk, after the IOTLB invalidation, still finds the
 * page mapped. The map's flush shows where that PTE is.
 */
static void incoherent_walk_unmap_flushes_pte(struct kunit *test)
{
	u64 *pte = NULL, cleared = 0;
	unsigned long flags;
	dma_addr_t iova, warm;
	u8 *buf;

	need_incoherent_table(test);
	buf = kunit_kmalloc(test, 2 * PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	iova = map_beside(test, buf, &warm);
	if (atomic_read(&flush_hits) == 1)
		pte = flushed_word;
	local_irq_save(flags);
	count_flushes(true);
	dma_unmap_single(&edu->dev, iova, PAGE_SIZE, DMA_TO_DEVICE);
	count_flushes(false);
	local_irq_restore(flags);
	if (pte)
		cleared = READ_ONCE(*pte);
	dma_unmap_single(&edu->dev, warm, PAGE_SIZE, DMA_TO_DEVICE);

	kunit_info(test, "a one-page unmap at %pad flushed %d times\n",
		   &iova, atomic_read(&flush_hits));
	KUNIT_ASSERT_NOT_NULL_MSG(test, pte, "the map before the unmap did not flush one PTE");
	KUNIT_ASSERT_EQ_MSG(test, atomic_read(&flush_hits), 1,
			    "an unmap left a PTE clear the IOMMU's walk may not see");
	KUNIT_EXPECT_PTR_EQ_MSG(test, flushed_word, pte, "the unmap flushed another word");
	KUNIT_EXPECT_EQ(test, flushed_len, sizeof(u64));
	KUNIT_EXPECT_EQ(test, cleared, 0);
}

/*
 * The item of @table's level-1 table that leads to @iova's last-level table,
 * found by walking down from the top: VT-d second-stage tables have 512
 * items per level over 4 KiB pages, and a table item holds the next table's
 * address in bits 51:12.
 */
static u64 *vtdss_table_item(struct pt_iommu_vtdss *table, dma_addr_t iova)
{
	uintptr_t top = READ_ONCE(table->vtdss_pt.common.top_of_table);
	unsigned int level = top & PT_TOP_LEVEL_MASK;
	u64 *items = (u64 *)(top & ~(uintptr_t)PT_TOP_LEVEL_MASK);
	u64 *item;

	for (;; level--) {
		item = &items[(iova >> (12 + 9 * level)) & 511];
		if (level == 1 || !READ_ONCE(*item))
			return level == 1 ? item : NULL;
		items = phys_to_virt(READ_ONCE(*item) & GENMASK_ULL(51, 12));
	}
}

/* Where the VT-d second-stage format keeps SW_BIT_CACHE_FLUSH_DONE */
#define VTDSS_FLUSH_DONE	BIT_ULL(10)

/*
 * A table item whose flush-done bit is clear may still be being flushed by
 * the map that installed it: a map through it must flush it again before
 * its PTE can be seen, whichever path it takes. Clearing the bit by hand
 * makes that case without a race.
 */
static void incoherent_walk_map_flushes_unflushed_table(struct kunit *test)
{
	struct pt_iommu_vtdss *table;
	u64 *item = NULL, *first;
	bool cleared = false;
	dma_addr_t iova, warm;
	int hits = 0;
	u8 *buf;

	need_incoherent_table(test);
	table = container_of(iommu_get_domain_for_dev(&edu->dev), struct pt_iommu_vtdss,
			     iommu.domain);
	buf = kunit_kmalloc(test, 2 * PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	/* As map_beside(), with the bit cleared between the two maps */
	preempt_disable();
	iova = DMA_MAPPING_ERROR;
	warm = dma_map_single(&edu->dev, buf + PAGE_SIZE, PAGE_SIZE, DMA_TO_DEVICE);
	if (!dma_mapping_error(&edu->dev, warm))
		item = vtdss_table_item(table, warm);
	if (item && (READ_ONCE(*item) & VTDSS_FLUSH_DONE)) {
		WRITE_ONCE(*item, READ_ONCE(*item) & ~VTDSS_FLUSH_DONE);
#ifdef WB_LEAF_HINTS
		/*
		 * The warm map left this CPU a leaf hint of the table. No CPU
		 * can hold one while the table's creator still flushes its
		 * item, so retire it, as a table free would.
		 */
		atomic_long_inc(&table->iommu.tables_freed);
#endif
		cleared = true;
		iova = map_counted(buf);
		hits = atomic_read(&flush_hits);
		/* The full algorithm flushed it again: true again */
		WRITE_ONCE(*item, READ_ONCE(*item) | VTDSS_FLUSH_DONE);
	}
	preempt_enable();
	if (!dma_mapping_error(&edu->dev, warm) && !cleared) {
		dma_unmap_single(&edu->dev, warm, PAGE_SIZE, DMA_TO_DEVICE);
		KUNIT_FAIL_AND_ABORT(test, "no flushed table item leads to %pad", &warm);
	}
	if (dma_mapping_error(&edu->dev, iova))
		map_failed(test, iova, warm);
	first = flushed_word;
	dma_unmap_single(&edu->dev, iova, PAGE_SIZE, DMA_TO_DEVICE);
	dma_unmap_single(&edu->dev, warm, PAGE_SIZE, DMA_TO_DEVICE);

	kunit_info(test, "a one-page map through an unflushed table item flushed %d times\n",
		   hits);
	KUNIT_ASSERT_EQ_MSG(test, iova / SZ_2M, warm / SZ_2M,
			    "the IOVAs do not share a last-level table");
	KUNIT_EXPECT_EQ_MSG(test, hits, 2, "a map through an unflushed table item did not flush it");
	KUNIT_EXPECT_PTR_EQ_MSG(test, first, item, "the first word flushed is not the table item");
}

#else
static void incoherent_walk_map_flushes_pte(struct kunit *test)
{
	kunit_skip(test, "no VT-d second-stage tables in this kernel");
}

static void incoherent_walk_unmap_flushes_pte(struct kunit *test)
{
	kunit_skip(test, "no VT-d second-stage tables in this kernel");
}

static void incoherent_walk_map_flushes_unflushed_table(struct kunit *test)
{
	kunit_skip(test, "no VT-d second-stage tables in this kernel");
}
#endif

static struct kunit_case wb_dma_pgtable_cases[] = {
	KUNIT_CASE(incoherent_walk_map_flushes_pte),
	KUNIT_CASE(incoherent_walk_unmap_flushes_pte),
	KUNIT_CASE(incoherent_walk_map_flushes_unflushed_table),
	{}
};

static struct kunit_suite wb_dma_pgtable_suite = {
	.name = "wb_dma_pgtable",
	.test_cases = wb_dma_pgtable_cases,
};

#ifdef IOMMU_MMIO_NC
/*
 * The workbench gives arm64 guests an NVMe controller with a CMB, which
 * nvme-pci registers with P2PDMA and declares write-combinable: there, a
 * missing one is a broken set-up.
 */
static bool expect_cmb;
module_param(expect_cmb, bool, 0444);
MODULE_PARM_DESC(expect_cmb, "fail, not skip, the P2P suite without an NVMe CMB");

/*
 * The ivshmem devices whose BAR2 the module registered as P2PDMA memory,
 * undeclared: the first, and the second, whose BAR2 follows the first's
 */
static struct pci_dev *p2p_undeclared, *p2p_adjacent;
/* An NVMe controller: nvme-pci registered and declared its CMB */
static struct pci_dev *cmb_peer;

static void need_p2p_peers(struct kunit *test)
{
	if (!edu)
		kunit_skip(test, "no edu device (1234:11e8) bound");
	if (!p2p_undeclared && expect_ivshmem)
		KUNIT_FAIL_AND_ABORT(test, "no ivshmem with P2PDMA memory, yet expect_ivshmem=1");
	if (!cmb_peer && expect_cmb)
		KUNIT_FAIL_AND_ABORT(test, "no NVMe controller, yet expect_cmb=1");
	if (!p2p_undeclared || !cmb_peer)
		kunit_skip(test, "no ivshmem with P2PDMA memory or no NVMe controller");
}

/* The IOMMU prots io-pgtable-arm was last asked to map watched addresses with */
#define P2P_WATCHED	2
static phys_addr_t watched_paddr[P2P_WATCHED];
static int watched_prot[P2P_WATCHED];

static int record_leaf_prot(struct kprobe *kp, struct pt_regs *regs)
{
	/* arm_lpae_map_pages(ops, iova, paddr, pgsize, pgcount, prot, ...) */
	phys_addr_t paddr = regs_get_kernel_argument(regs, 2);
	int i;

	for (i = 0; i < P2P_WATCHED; i++)
		if (paddr && paddr == READ_ONCE(watched_paddr[i]))
			WRITE_ONCE(watched_prot[i], regs_get_kernel_argument(regs, 5));
	return 0;
}

static struct kprobe leaf_prot_probe = {
	.symbol_name = "arm_lpae_map_pages",
	.pre_handler = record_leaf_prot,
};

static void watch(int i, phys_addr_t paddr)
{
	WRITE_ONCE(watched_prot[i], -1);
	WRITE_ONCE(watched_paddr[i], paddr);
}

/* What of the memory type the page table was asked for */
static int watched_type(struct kunit *test, int i)
{
	int prot = READ_ONCE(watched_prot[i]);

	WRITE_ONCE(watched_paddr[i], 0);
	KUNIT_ASSERT_GE_MSG(test, prot, 0, "io-pgtable-arm never mapped watched address %d", i);
	return prot & (IOMMU_MMIO | IOMMU_MMIO_NC | IOMMU_CACHE);
}

/*
 * QEMU's host bridges are not on P2PDMA's whitelist, so P2PDMA refuses every
 * peer of edu. While the suite runs, this probe makes edu's peers reachable
 * through the host bridge, as a whitelisted root complex does: the
 * page-based route (pci_p2pdma_state(): iommu_dma_map_sg(), blk-mq-dma,
 * hmm) then maps them, with their provider's attributes.
 */
struct p2p_state_call {
	struct pci_p2pdma_map_state *state;
	struct device *dev;
};

static int p2p_state_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct p2p_state_call *call = (struct p2p_state_call *)ri->data;

	call->state = (void *)regs_get_kernel_argument(regs, 0);
	call->dev = (void *)regs_get_kernel_argument(regs, 1);
	return 0;
}

/* A provider a case wants edu to reach as if behind its own switch */
static struct p2pdma_provider *bus_addr_provider;

static int p2p_state_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct p2p_state_call *call = (struct p2p_state_call *)ri->data;

	if (!edu || call->dev != &edu->dev ||
	    call->state->map != PCI_P2PDMA_MAP_NOT_SUPPORTED)
		return 0;
	if (call->state->mem == READ_ONCE(bus_addr_provider))
		call->state->map = PCI_P2PDMA_MAP_BUS_ADDR;
	else
		call->state->map = PCI_P2PDMA_MAP_THRU_HOST_BRIDGE;
	return 0;
}

static struct kretprobe host_bridge_probe = {
	.kp.symbol_name = "__pci_p2pdma_update_state",
	.entry_handler = p2p_state_entry,
	.handler = p2p_state_return,
	.data_size = sizeof(struct p2p_state_call),
	.maxactive = 4,
};

static bool p2p_probes_registered;

/* The probes only where the peers are: elsewhere the cases skip */
static int wb_dma_p2p_init(struct kunit_suite *suite)
{
	int ret;

	if (!edu || !p2p_undeclared || !cmb_peer)
		return 0;
	ret = register_kprobe(&leaf_prot_probe);
	if (ret)
		return ret;
	ret = register_kretprobe(&host_bridge_probe);
	if (ret) {
		unregister_kprobe(&leaf_prot_probe);
		return ret;
	}
	p2p_probes_registered = true;
	return 0;
}

static void wb_dma_p2p_exit(struct kunit_suite *suite)
{
	if (!p2p_probes_registered)
		return;
	unregister_kretprobe(&host_bridge_probe);
	unregister_kprobe(&leaf_prot_probe);
	p2p_probes_registered = false;
}

/* The BAR of @peer that holds @phys */
static int bar_of(struct pci_dev *peer, phys_addr_t phys)
{
	int bar;

	for (bar = 0; bar < PCI_STD_NUM_BARS; bar++)
		if (pci_resource_len(peer, bar) &&
		    phys >= pci_resource_start(peer, bar) &&
		    phys <= pci_resource_end(peer, bar))
			return bar;
	return -1;
}

/* A page of @peer's P2P memory, its BAR cleared through a CPU mapping */
struct p2p_page {
	struct pci_dev *peer;
	void *mem;
	phys_addr_t phys;
	void __iomem *cpu;
	unsigned long attrs;	/* its provider's */
};

static void p2p_page_get(struct kunit *test, struct p2p_page *p, struct pci_dev *peer)
{
	struct p2pdma_provider *provider;
	int bar;

	p->peer = peer;
	p->mem = pci_alloc_p2pmem(peer, PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL_MSG(test, p->mem, "no P2P memory of %s", pci_name(peer));
	p->phys = virt_to_phys(p->mem);
	bar = bar_of(peer, p->phys);
	KUNIT_ASSERT_GE(test, bar, 0);
	provider = pcim_p2pdma_provider(peer, bar);
	KUNIT_ASSERT_NOT_NULL(test, provider);
	p->attrs = provider->dma_mapping_flags;
	p->cpu = pci_iomap_range(peer, bar, p->phys - pci_resource_start(peer, bar),
				 PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, p->cpu);
	bar_clear(p->cpu, EDU_TRANSFER);
}

/* Free the page; whether the pattern for @seed landed in it */
static bool p2p_page_put(struct p2p_page *p, u8 seed)
{
	bool landed = bar_bytes_matching(p->cpu, EDU_TRANSFER, seed) == EDU_TRANSFER;

	pci_iounmap(p->peer, p->cpu);
	pci_free_p2pmem(p->peer, p->mem, PAGE_SIZE);
	return landed;
}

/* How a case maps the P2P page for edu */
enum p2p_map_api { P2P_MAP_PHYS, P2P_IOVA_LINK, P2P_MAP_RESOURCE, P2P_MAP_SG };

struct p2p_mapping {
	enum p2p_map_api api;
	unsigned long caller_attrs;	/* what the caller adds to P2PDMA's */
	struct dma_iova_state ist;
	struct scatterlist sg;
	dma_addr_t iova;
};

static dma_addr_t p2p_map(struct p2p_mapping *m, struct p2p_page *p)
{
	switch (m->api) {
	case P2P_MAP_PHYS:
		return dma_map_phys(&edu->dev, p->phys, PAGE_SIZE, DMA_FROM_DEVICE,
				    p->attrs | m->caller_attrs);
	case P2P_IOVA_LINK:
		if (!dma_iova_try_alloc(&edu->dev, &m->ist, p->phys, PAGE_SIZE) ||
		    dma_iova_link(&edu->dev, &m->ist, p->phys, 0, PAGE_SIZE, DMA_FROM_DEVICE,
				  p->attrs) ||
		    dma_iova_sync(&edu->dev, &m->ist, 0, PAGE_SIZE))
			return DMA_MAPPING_ERROR;
		return m->ist.addr;
	case P2P_MAP_RESOURCE:
		/* even passed P2PDMA's attributes, a resource stays Device */
		return dma_map_resource(&edu->dev, p->phys, PAGE_SIZE, DMA_FROM_DEVICE,
					p->attrs);
	case P2P_MAP_SG:
		/* the page route: P2PDMA gives the attributes itself */
		sg_init_table(&m->sg, 1);
		sg_set_page(&m->sg, virt_to_page(p->mem), PAGE_SIZE, 0);
		if (dma_map_sg_attrs(&edu->dev, &m->sg, 1, DMA_FROM_DEVICE,
				     m->caller_attrs) != 1)
			return DMA_MAPPING_ERROR;
		return sg_dma_address(&m->sg);
	}
	return DMA_MAPPING_ERROR;
}

static void p2p_unmap(struct p2p_mapping *m, struct p2p_page *p)
{
	switch (m->api) {
	case P2P_MAP_PHYS:
		dma_unmap_phys(&edu->dev, m->iova, PAGE_SIZE, DMA_FROM_DEVICE, p->attrs);
		break;
	case P2P_IOVA_LINK:
		dma_iova_destroy(&edu->dev, &m->ist, PAGE_SIZE, DMA_FROM_DEVICE, p->attrs);
		break;
	case P2P_MAP_RESOURCE:
		dma_unmap_resource(&edu->dev, m->iova, PAGE_SIZE, DMA_FROM_DEVICE, 0);
		break;
	case P2P_MAP_SG:
		dma_unmap_sg(&edu->dev, &m->sg, 1, DMA_FROM_DEVICE);
		break;
	}
}

/*
 * Have edu write a pattern into a P2P page of @peer mapped with @api, check
 * that it landed, and return the memory type the page table got for it.
 */
static int p2p_dma_into_attrs(struct kunit *test, struct pci_dev *peer,
			      enum p2p_map_api api, unsigned long caller_attrs, u8 seed)
{
	struct p2p_mapping m = { .api = api, .caller_attrs = caller_attrs };
	struct p2p_page p;
	bool landed;
	int ret;

	p2p_page_get(test, &p, peer);
	watch(0, p.phys);
	m.iova = p2p_map(&m, &p);
	ret = dma_mapping_error(&edu->dev, m.iova) ?:
	      edu_write_pattern(m.iova, EDU_TRANSFER, seed);
	if (!dma_mapping_error(&edu->dev, m.iova))
		p2p_unmap(&m, &p);
	landed = p2p_page_put(&p, seed);

	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "mapping %pa for edu or edu's DMA failed", &p.phys);
	kunit_info(test, "DMA into %s at %pa through IOVA %pad, attrs %#lx, prot %#x, %s\n",
		   pci_name(peer), &p.phys, &m.iova, p.attrs, READ_ONCE(watched_prot[0]),
		   landed ? "landed" : "did not land");
	KUNIT_EXPECT_TRUE(test, landed);
	return watched_type(test, 0);
}

static int p2p_dma_into(struct kunit *test, struct pci_dev *peer,
			enum p2p_map_api api, u8 seed)
{
	return p2p_dma_into_attrs(test, peer, api, 0, seed);
}

/* nvme-pci declares its CMB: peers map it Normal-NC */
static void cmb_maps_write_combined(struct kunit *test)
{
	need_p2p_peers(test);
	KUNIT_EXPECT_EQ(test, p2p_dma_into(test, cmb_peer, P2P_MAP_PHYS, 0x31),
			IOMMU_MMIO | IOMMU_MMIO_NC);
}

static void cmb_links_write_combined(struct kunit *test)
{
	need_p2p_peers(test);
	KUNIT_EXPECT_EQ(test, p2p_dma_into(test, cmb_peer, P2P_IOVA_LINK, 0x32),
			IOMMU_MMIO | IOMMU_MMIO_NC);
}

static void cmb_sg_maps_write_combined(struct kunit *test)
{
	need_p2p_peers(test);
	KUNIT_EXPECT_EQ(test, p2p_dma_into(test, cmb_peer, P2P_MAP_SG, 0x33),
			IOMMU_MMIO | IOMMU_MMIO_NC);
}

static void undeclared_memory_maps_device(struct kunit *test)
{
	need_p2p_peers(test);
	KUNIT_EXPECT_EQ(test, p2p_dma_into(test, p2p_undeclared, P2P_MAP_PHYS, 0x34),
			IOMMU_MMIO);
}

/* map_sg maps peer memory as MMIO, never cacheable, as every other mapper does */
static void undeclared_sg_maps_device(struct kunit *test)
{
	need_p2p_peers(test);
	KUNIT_EXPECT_EQ(test, p2p_dma_into(test, p2p_undeclared, P2P_MAP_SG, 0x35),
			IOMMU_MMIO);
}

/* Only the owner declares: a caller asking for write-combining gets Device */
static void undeclared_memory_refuses_callers_wc(struct kunit *test)
{
	need_p2p_peers(test);
	KUNIT_EXPECT_EQ(test, p2p_dma_into_attrs(test, p2p_undeclared, P2P_MAP_PHYS,
						 DMA_ATTR_WRITE_COMBINE, 0x3a),
			IOMMU_MMIO);
}

static void undeclared_sg_refuses_callers_wc(struct kunit *test)
{
	need_p2p_peers(test);
	KUNIT_EXPECT_EQ(test, p2p_dma_into_attrs(test, p2p_undeclared, P2P_MAP_SG,
						 DMA_ATTR_WRITE_COMBINE, 0x3b),
			IOMMU_MMIO);
}

/* dma_map_resource() keeps its Device semantics, declared memory or not */
static void resource_of_declared_memory_stays_device(struct kunit *test)
{
	need_p2p_peers(test);
	KUNIT_EXPECT_EQ(test, p2p_dma_into(test, cmb_peer, P2P_MAP_RESOURCE, 0x36),
			IOMMU_MMIO);
}

/*
 * A list of a RAM page (watched as 0) and a page of the undeclared peer
 * (watched as 1); returns the RAM page
 */
static u8 *ram_and_peer_list(struct kunit *test, struct scatterlist *sg,
			     struct p2p_page *p)
{
	u8 *ram = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ram);
	p2p_page_get(test, p, p2p_undeclared);
	sg_init_table(sg, 2);
	sg_set_buf(&sg[0], ram, PAGE_SIZE);
	sg_set_page(&sg[1], virt_to_page(p->mem), PAGE_SIZE, 0);
	watch(0, virt_to_phys(ram));
	watch(1, p->phys);
	return ram;
}

/*
 * A list of a RAM page and a peer page: each is mapped as what it is, at
 * the IOVA the layout gave it, and edu's DMA through both lands.
 */
static void mixed_sg_maps_each_page_as_its_kind(struct kunit *test)
{
	struct scatterlist sg[2];
	struct p2p_page p;
	dma_addr_t iova;
	u8 *ram;
	int ret;

	need_p2p_peers(test);
	ram = ram_and_peer_list(test, sg, &p);
	ret = dma_map_sg(&edu->dev, sg, 2, DMA_FROM_DEVICE);
	iova = ret > 0 ? sg_dma_address(sg) : DMA_MAPPING_ERROR;
	/* both pages are whole granules: the peer page follows the RAM page */
	if (ret > 0) {
		ret = edu_write_pattern(iova, EDU_TRANSFER, 0x37) ?:
		      edu_write_pattern(iova + PAGE_SIZE, EDU_TRANSFER, 0x38);
		dma_unmap_sg(&edu->dev, sg, 2, DMA_FROM_DEVICE);
	} else {
		ret = -EIO;
	}
	KUNIT_EXPECT_TRUE(test, p2p_page_put(&p, 0x38));
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "mapping the list for edu or edu's DMA failed");
	KUNIT_EXPECT_EQ(test, pattern_mismatches(ram, EDU_TRANSFER, 0x37), 0);
	KUNIT_EXPECT_EQ(test, watched_type(test, 0), IOMMU_CACHE);
	KUNIT_EXPECT_EQ(test, watched_type(test, 1), IOMMU_MMIO);
}

/*
 * A caller passing DMA_ATTR_MMIO | DMA_ATTR_WRITE_COMBINE for a list of a
 * page of its own and a peer page: neither was declared, both stay Device.
 */
static void callers_wc_sg_leaves_every_page_device(struct kunit *test)
{
	const unsigned long attrs = DMA_ATTR_MMIO | DMA_ATTR_WRITE_COMBINE;
	struct scatterlist sg[2];
	struct p2p_page p;
	int n;

	need_p2p_peers(test);
	ram_and_peer_list(test, sg, &p);
	n = dma_map_sg_attrs(&edu->dev, sg, 2, DMA_FROM_DEVICE, attrs);
	if (n > 0)
		dma_unmap_sg_attrs(&edu->dev, sg, 2, DMA_FROM_DEVICE, attrs);
	p2p_page_put(&p, 0);
	KUNIT_ASSERT_GT_MSG(test, n, 0, "the list did not map");
	KUNIT_EXPECT_EQ(test, watched_type(test, 0), IOMMU_MMIO);
	KUNIT_EXPECT_EQ(test, watched_type(test, 1), IOMMU_MMIO);
}

/*
 * A host-bridge page, a bus-address page whose address continues it (the
 * second ivshmem's BAR2 follows the first's; the probe makes edu reach it
 * as if behind its own switch) and a RAM page: the list maps, and the RAM
 * page lies at the IOVA after the first page's, where the layout put it.
 */
static void bus_segment_keeps_the_next_run_in_place(struct kunit *test)
{
	phys_addr_t end, first, after;
	struct iommu_domain *domain;
	struct scatterlist sg[3];
	dma_addr_t iova;
	void *ram;
	int n;

	need_p2p_peers(test);
	KUNIT_ASSERT_NOT_NULL_MSG(test, p2p_adjacent, "no second ivshmem with P2PDMA memory");
	end = pci_resource_end(p2p_undeclared, IVSHMEM_BAR_SHMEM) + 1;
	KUNIT_ASSERT_EQ_MSG(test, pci_resource_start(p2p_adjacent, IVSHMEM_BAR_SHMEM), end,
			    "the ivshmem BAR2s are not adjacent");
	ram = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ram);
	domain = iommu_get_domain_for_dev(&edu->dev);
	KUNIT_ASSERT_NOT_NULL(test, domain);

	sg_init_table(sg, 3);
	sg_set_page(&sg[0], pfn_to_page(PHYS_PFN(end - PAGE_SIZE)), PAGE_SIZE, 0);
	sg_set_page(&sg[1], pfn_to_page(PHYS_PFN(end)), PAGE_SIZE, 0);
	sg_set_buf(&sg[2], ram, PAGE_SIZE);
	WRITE_ONCE(bus_addr_provider, pcim_p2pdma_provider(p2p_adjacent, IVSHMEM_BAR_SHMEM));
	n = dma_map_sg(&edu->dev, sg, 3, DMA_FROM_DEVICE);
	WRITE_ONCE(bus_addr_provider, NULL);
	KUNIT_ASSERT_GT_MSG(test, n, 0, "the list did not map");
	iova = sg_dma_address(&sg[0]);
	first = iommu_iova_to_phys(domain, iova);
	after = iommu_iova_to_phys(domain, iova + PAGE_SIZE);
	dma_unmap_sg(&edu->dev, sg, 3, DMA_FROM_DEVICE);

	kunit_info(test, "IOVA %pad: %pa, next page %pa\n", &iova, &first, &after);
	KUNIT_EXPECT_EQ(test, first, end - PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, after, virt_to_phys(ram));
}

/*
 * A range that starts in the declared CMB and runs past its end (into what
 * follows the BAR) is not all declared memory: it stays Device. Mapped
 * only, no DMA.
 */
static void range_past_declared_memory_stays_device(struct kunit *test)
{
	struct p2p_page p;
	phys_addr_t last;
	dma_addr_t iova;
	int bar;

	need_p2p_peers(test);
	p2p_page_get(test, &p, cmb_peer);
	bar = bar_of(cmb_peer, p.phys);
	p2p_page_put(&p, 0);
	last = pci_resource_end(cmb_peer, bar) + 1 - PAGE_SIZE;
	KUNIT_ASSERT_TRUE_MSG(test, is_pci_p2pdma_page(pfn_to_page(PHYS_PFN(last))),
			      "the CMB does not reach its BAR's last page");
	watch(0, last);
	iova = dma_map_phys(&edu->dev, last, 2 * PAGE_SIZE, DMA_FROM_DEVICE, p.attrs);
	KUNIT_ASSERT_FALSE(test, dma_mapping_error(&edu->dev, iova));
	dma_unmap_phys(&edu->dev, iova, 2 * PAGE_SIZE, DMA_FROM_DEVICE, p.attrs);
	kunit_info(test, "%pa + 2 pages, attrs %#lx, prot %#x\n", &last, p.attrs,
		   READ_ONCE(watched_prot[0]));
	KUNIT_EXPECT_EQ(test, watched_type(test, 0), IOMMU_MMIO);
}

/* Registers are not memory: a BAR that is not prefetchable cannot be declared */
static void non_prefetchable_bar_cannot_be_declared(struct kunit *test)
{
	need_p2p_peers(test);
	/* NVMe's BAR0: its registers and doorbells, of a P2PDMA provider */
	KUNIT_EXPECT_EQ(test, pci_p2pdma_declare_write_combine(cmb_peer, 0), -EINVAL);
}

/* Once its memory is published, a BAR's mapping type cannot change */
static void published_memory_cannot_be_declared(struct kunit *test)
{
	int ret;

	need_p2p_peers(test);
	pci_p2pmem_publish(p2p_undeclared, true);
	ret = pci_p2pdma_declare_write_combine(p2p_undeclared, IVSHMEM_BAR_SHMEM);
	pci_p2pmem_publish(p2p_undeclared, false);
	KUNIT_EXPECT_EQ(test, ret, -EBUSY);
}

/* Nor while any of it is allocated */
static void allocated_memory_cannot_be_declared(struct kunit *test)
{
	void *mem;
	int ret;

	need_p2p_peers(test);
	mem = pci_alloc_p2pmem(p2p_undeclared, PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, mem);
	ret = pci_p2pdma_declare_write_combine(p2p_undeclared, IVSHMEM_BAR_SHMEM);
	pci_free_p2pmem(p2p_undeclared, mem, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, ret, -EBUSY);
}

static struct kunit_case wb_dma_p2p_cases[] = {
	KUNIT_CASE(cmb_maps_write_combined),
	KUNIT_CASE(cmb_links_write_combined),
	KUNIT_CASE(cmb_sg_maps_write_combined),
	KUNIT_CASE(undeclared_memory_maps_device),
	KUNIT_CASE(undeclared_sg_maps_device),
	KUNIT_CASE(undeclared_memory_refuses_callers_wc),
	KUNIT_CASE(undeclared_sg_refuses_callers_wc),
	KUNIT_CASE(resource_of_declared_memory_stays_device),
	KUNIT_CASE(mixed_sg_maps_each_page_as_its_kind),
	KUNIT_CASE(callers_wc_sg_leaves_every_page_device),
	KUNIT_CASE(bus_segment_keeps_the_next_run_in_place),
	KUNIT_CASE(range_past_declared_memory_stays_device),
	KUNIT_CASE(non_prefetchable_bar_cannot_be_declared),
	KUNIT_CASE(published_memory_cannot_be_declared),
	KUNIT_CASE(allocated_memory_cannot_be_declared),
	{}
};

static struct kunit_suite wb_dma_p2p_suite = {
	.name = "wb_dma_p2p",
	.suite_init = wb_dma_p2p_init,
	.suite_exit = wb_dma_p2p_exit,
	.test_cases = wb_dma_p2p_cases,
};

/* Bind every ivshmem and register its BAR2 as P2PDMA memory, undeclared */
static int wb_ivshmem_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	int ret = pcim_enable_device(pdev);

	if (!ret)
		ret = pci_p2pdma_add_resource(pdev, IVSHMEM_BAR_SHMEM, 0, 0);
	if (!ret && !p2p_undeclared)
		p2p_undeclared = pdev;
	else if (!ret && !p2p_adjacent)
		p2p_adjacent = pdev;
	return ret;
}

static void wb_ivshmem_remove(struct pci_dev *pdev)
{
	if (pdev == p2p_undeclared)
		p2p_undeclared = NULL;
	if (pdev == p2p_adjacent)
		p2p_adjacent = NULL;
}

static const struct pci_device_id wb_ivshmem_ids[] = {
	{ PCI_DEVICE(IVSHMEM_VENDOR, IVSHMEM_DEVICE) },
	{}
};

static struct pci_driver wb_ivshmem_driver = {
	.name = "wb_dma_test_p2p",
	.id_table = wb_ivshmem_ids,
	.probe = wb_ivshmem_probe,
	.remove = wb_ivshmem_remove,
};

/* The peers: the ivshmem devices, bound here, and an NVMe controller */
static int p2p_peers_get(void)
{
	cmb_peer = pci_get_class(PCI_CLASS_STORAGE_EXPRESS, NULL);
	return pci_register_driver(&wb_ivshmem_driver);
}

static void p2p_peers_put(void)
{
	pci_unregister_driver(&wb_ivshmem_driver);
	pci_dev_put(cmb_peer);
	cmb_peer = NULL;
}
#define WB_DMA_P2P_SUITE &wb_dma_p2p_suite,
#else
static int p2p_peers_get(void) { return 0; }
static void p2p_peers_put(void) {}
#define WB_DMA_P2P_SUITE
#endif /* IOMMU_MMIO_NC */

/*
 * wb_dma_pgtable runs before wb_dma_unmap: its cases need two one-page
 * IOVAs in one last-level table, and wb_dma_unmap's narrowed-mask case
 * leaves the allocator handing out one-page IOVAs from the bottom of edu's
 * space while this CPU's cache still holds some from the top.
 */
kunit_test_suites(&wb_dma_resource_suite, WB_DMA_P2P_SUITE &wb_dma_pgtable_suite,
		  &wb_dma_unmap_suite, &wb_dma_unmap_cpu_suite);

static int wb_edu_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	int ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	pci_set_master(pdev);
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(EDU_DMA_BITS));
	if (ret)
		return ret;
	edu_regs = pcim_iomap(pdev, 0, 0);
	if (!edu_regs)
		return -ENOMEM;
	edu = pdev;
	return 0;
}

static void wb_edu_remove(struct pci_dev *pdev)
{
	edu = NULL;
	pci_clear_master(pdev);
}

static const struct pci_device_id wb_edu_ids[] = {
	{ PCI_DEVICE(EDU_VENDOR, EDU_DEVICE) },
	{}
};
MODULE_DEVICE_TABLE(pci, wb_edu_ids);

static struct pci_driver wb_edu_driver = {
	.name = "wb_dma_test",
	.id_table = wb_edu_ids,
	.probe = wb_edu_probe,
	.remove = wb_edu_remove,
};

/* KUnit runs the suites once this returns: edu is bound by then */
static int __init wb_dma_test_init(void)
{
	int ret;

	ret = p2p_peers_get();
	if (ret)
		return ret;
	ivshmem = pci_get_device(IVSHMEM_VENDOR, IVSHMEM_DEVICE, NULL);
	if (ivshmem && pci_enable_device(ivshmem)) {
		pci_dev_put(ivshmem);
		ivshmem = NULL;
	}
	ret = pci_register_driver(&wb_edu_driver);
	if (ret && ivshmem) {
		pci_disable_device(ivshmem);
		pci_dev_put(ivshmem);
	}
	if (ret)
		p2p_peers_put();
	return ret;
}
module_init(wb_dma_test_init);

static void __exit wb_dma_test_exit(void)
{
	pci_unregister_driver(&wb_edu_driver);
	if (ivshmem) {
		pci_disable_device(ivshmem);
		pci_dev_put(ivshmem);
	}
	p2p_peers_put();
}
module_exit(wb_dma_test_exit);

MODULE_DESCRIPTION("iommu-fastpath workbench: end-to-end DMA through the IOMMU with edu and ivshmem");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS("GENERIC_PT_IOMMU");
