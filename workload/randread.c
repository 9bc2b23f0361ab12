// SPDX-License-Identifier: GPL-2.0
/*
 * randread: 4 KiB random reads with O_DIRECT at a fixed queue depth, through
 * Linux AIO (io_submit), for a given time; prints one JSON object.
 *
 *   randread <block device> <queue depth> <seconds>
 *
 * The workbench's storage workload: every read is one DMA mapping of the
 * NVMe driver, so IOPS follow the cost of dma_map/unmap. Built statically,
 * with raw system calls: a guest has no libaio. Offsets come from a fixed
 * xorshift sequence, so every run reads the same blocks. Exit 1 with a
 * message on any error, including a read that completes short.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define BLOCK		4096
#define MAX_DEPTH	256

static void fail(const char *what)
{
	fprintf(stderr, "randread: %s: %s\n", what, strerror(errno));
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A whole decimal number, or -1 */
static int number(const char *text)
{
	char *end;
	long value;

	errno = 0;
	value = strtol(text, &end, 10);
	if (errno || end == text || *end || value < 0 || value > 1 << 20)
		return -1;
	return value;
}

static uint64_t next_block(uint64_t *state, uint64_t blocks)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state % blocks;
}

static void submit(aio_context_t ctx, struct iocb *cb, int fd, void *buf,
		   uint64_t *state, uint64_t blocks)
{
	struct iocb *list[1] = { cb };

	memset(cb, 0, sizeof(*cb));
	cb->aio_fildes = fd;
	cb->aio_lio_opcode = IOCB_CMD_PREAD;
	cb->aio_buf = (uintptr_t)buf;
	cb->aio_nbytes = BLOCK;
	cb->aio_offset = next_block(state, blocks) * BLOCK;
	cb->aio_data = (uintptr_t)cb;
	if (syscall(SYS_io_submit, ctx, 1, list) != 1)
		fail("io_submit");
}

int main(int argc, char **argv)
{
	struct io_event events[MAX_DEPTH];
	static struct iocb cbs[MAX_DEPTH];
	aio_context_t ctx = 0;
	uint64_t size, blocks, state = 88172645463325252ull, done = 0;
	double start, end, elapsed;
	char *bufs;
	int fd, depth, seconds, i;

	/*
	 * "claim": only whether the device can be claimed, as the kit asks of
	 * each disk behind a device it would take.
	 */
	if (argc == 3 && !strcmp(argv[2], "claim")) {
		/* O_NONBLOCK: an optical drive's tray stays as it is. */
		fd = open(argv[1], O_RDONLY | O_EXCL | O_NONBLOCK);
		if (fd < 0)
			fail(argv[1]);
		return 0;
	}
	if (argc != 4) {
		fprintf(stderr, "usage: randread <block device> <queue depth> <seconds>\n"
			"       randread <block device> claim\n");
		return 2;
	}
	depth = number(argv[2]);
	seconds = number(argv[3]);
	if (depth < 1 || depth > MAX_DEPTH || seconds < 1) {
		fprintf(stderr, "randread: queue depth 1..%d, seconds at least 1\n", MAX_DEPTH);
		return 2;
	}
	/*
	 * O_EXCL on a block device claims it: the kernel refuses (EBUSY) one
	 * that is mounted, swapped on or held by md, LVM or dm-crypt, whatever
	 * name it is given by. Read-only besides.
	 */
	fd = open(argv[1], O_RDONLY | O_DIRECT | O_EXCL);
	if (fd < 0)
		fail(argv[1]);
	if (ioctl(fd, BLKGETSIZE64, &size))
		fail("BLKGETSIZE64");
	blocks = size / BLOCK;
	if (!blocks) {
		fprintf(stderr, "randread: %s holds no 4 KiB block\n", argv[1]);
		return 1;
	}
	errno = posix_memalign((void **)&bufs, BLOCK, (size_t)depth * BLOCK);
	if (errno)
		fail("posix_memalign");
	if (syscall(SYS_io_setup, depth, &ctx))
		fail("io_setup");

	start = now();
	end = start + seconds;
	for (i = 0; i < depth; i++)
		submit(ctx, &cbs[i], fd, bufs + (size_t)i * BLOCK, &state, blocks);
	/* Reap and resubmit until the time is up, then drain what is in flight */
	for (int inflight = depth; inflight > 0;) {
		int n = syscall(SYS_io_getevents, ctx, 1, depth, events, NULL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			fail("io_getevents");
		for (i = 0; i < n; i++) {
			struct iocb *cb = (struct iocb *)(uintptr_t)events[i].data;

			if (events[i].res != BLOCK) {
				errno = events[i].res < 0 ? -events[i].res : EIO;
				fail("read");
			}
			done++;
			if (now() < end)
				submit(ctx, cb, fd, (void *)(uintptr_t)cb->aio_buf, &state, blocks);
			else
				inflight--;
		}
	}
	elapsed = now() - start;
	printf("{\"device\":\"%s\",\"depth\":%d,\"block\":%d,\"ios\":%llu,\"seconds\":%.6f,\"iops\":%.0f}\n",
	       argv[1], depth, BLOCK, (unsigned long long)done, elapsed, done / elapsed);
	return 0;
}
