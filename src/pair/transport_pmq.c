// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * transport_pmq.c - POSIX message queues (pmqtest): mq_send on a test
 * queue, mq_receive (or mq_timedreceive with -T) on the other side; a
 * second queue returns control.
 */
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "measure/clock.h"
#include "system/cleanup.h"
#include "util/opts.h"
#include "pair/pair_types.h"
#include "pair/pair_test.h"
#include "system/sysinfo.h"

#define MQ_LIMITS "/proc/sys/fs/mqueue/"
#define STREAM_DEPTH 10

struct pmq_priv {
	mqd_t q[2];
	char *buf;		/* message of --size bytes */
};

struct pmq_config {
	long long timeout_s, force_s, msg_size;
	bool throughput, fork;
	const char *sizes;
};

static const struct opt pmq_opts[] = {
	{ .short_name = 'T', .long_name = "timeout", .type = OPT_INT,
	  .arg = OPT_ARG_REQUIRED, .argname = "TO", .min = 1, .max = 3600,
	  .dest = OPT_AT(struct pmq_config, timeout_s),
	  .help = "use mq_timedreceive() with a timeout of TO seconds; timeouts are counted" },
	{ .short_name = 'f', .long_name = "forcetimeout", .type = OPT_INT,
	  .arg = OPT_ARG_REQUIRED, .argname = "TO", .min = 1, .max = 3600,
	  .dest = OPT_AT(struct pmq_config, force_s),
	  .help = "delay each send by TO seconds to force timeouts (needs -T)" },
	{ .long_name = "size", .type = OPT_INT, .arg = OPT_ARG_REQUIRED,
	  .argname = "BYTES", .min = 1, .max = 1LL << 24, .dflt = 16,
	  .dest = OPT_AT(struct pmq_config, msg_size), .help = "message size in bytes" },
	{ .long_name = "throughput", .type = OPT_FLAG, .arg = OPT_ARG_NONE,
	  .dest = OPT_AT(struct pmq_config, throughput),
	  .help = "stream messages for -D (default 1 s) or -l messages: messages/s and MB/s" },
	{ .long_name = "sizes", .type = OPT_STRING, .arg = OPT_ARG_REQUIRED,
	  .argname = "LIST", .dest = OPT_AT(struct pmq_config, sizes),
	  .help = "--throughput for each size of LIST (8,64,512,4096), one after the other" },
	{ .long_name = "fork", .type = OPT_FLAG, .arg = OPT_ARG_NONE,
	  .dest = OPT_AT(struct pmq_config, fork),
	  .help = "two processes per pair instead of threads" },
	OPT_END
};

static const struct opt *opt(const struct pair_run *run, int short_name,
			      const char *long_name)
{
	return opts_find(run->opts, short_name, long_name);
}

/* "8,64,512": each 1 to max bytes, at most PAIR_MAX_SIZES of them. */
static int parse_sizes(struct pair_run *run, long long max)
{
	const struct pmq_config *tc = run->tcfg;
	char buf[512], *tok, *save = NULL;
	long long v;

	snprintf(buf, sizeof(buf), "%s", tc->sizes);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (parse_ll(tok, &v) || v < 1 || v > max ||
		    run->cfg->nsizes == PAIR_MAX_SIZES) {
			opts_error(run->prog, opt(run, 0, "sizes"),
				   "'%s' is not a list of sizes; accepted: up to %d comma-separated sizes, each 1 to %lld bytes (e.g. 8,64,512,4096)",
				   tc->sizes, PAIR_MAX_SIZES, max);
			return -1;
		}
		run->cfg->sizes[run->cfg->nsizes++] = v;
	}
	if (run->cfg->nsizes)
		return 0;
	opts_error(run->prog, opt(run, 0, "sizes"),
		   "empty; accepted: comma-separated sizes, each 1 to %lld bytes", max);
	return -1;
}

/* --throughput, --sizes: the harness's stream mode. */
static int stream_setup(struct pair_run *run, long long size_max)
{
	const struct pmq_config *tc = run->tcfg;

	run->cfg->fork = tc->fork;
	if (!tc->throughput && !tc->sizes)
		return 0;
	if (tc->timeout_s) {
		opts_error(run->prog, opt(run, 'T', NULL),
			   "not with --throughput; accepted: one of them");
		return -1;
	}
	run->cfg->stream = true;
	if (tc->sizes && parse_sizes(run, size_max > 0 ? size_max : 1LL << 24))
		return -1;
	if (!tc->sizes)
		run->cfg->sizes[run->cfg->nsizes++] = tc->msg_size;
	if (!run->cfg->duration_s && !run->cfg->loops)
		run->cfg->duration_s = 1;
	return 0;
}

static int pmq_setup(struct pair_run *run)
{
	const struct pmq_config *tc = run->tcfg;
	long long size_max = sysinfo_read_ll(MQ_LIMITS "msgsize_max");
	long long queues_max = sysinfo_read_ll(MQ_LIMITS "queues_max");

	if (tc->force_s && !tc->timeout_s) {
		opts_error(run->prog, opt(run, 'f', NULL),
			   "needs -T/--timeout; accepted: -T TO -f TO, each TO in seconds from 1 to 3600 (e.g. -T 1 -f 2)");
		return -1;
	}
	if (size_max > 0 && tc->msg_size > size_max) {
		opts_error(run->prog, opt(run, 0, "size"),
			   "%lld is above fs.mqueue.msgsize_max (%lld); accepted: 1 to %lld, or raise it with sysctl -w fs.mqueue.msgsize_max=%lld",
			   tc->msg_size, size_max, size_max, tc->msg_size);
		return -1;
	}
	if (queues_max > 0 && 2LL * run->npairs > queues_max) {
		opts_error(run->prog, opt(run, 't', NULL),
			   "%d pairs need %d message queues, above fs.mqueue.queues_max (%lld); accepted: up to %lld pairs, or raise it with sysctl -w fs.mqueue.queues_max=%d",
			   run->npairs, 2 * run->npairs, queues_max,
			   queues_max / 2, 2 * run->npairs);
		return -1;
	}
	return stream_setup(run, size_max);
}

static void pmq_set_size(struct pair_run *run, long long bytes)
{
	struct pmq_config *tc = run->tcfg;

	tc->msg_size = bytes;
}

static void pmq_close(struct pair *p)
{
	struct pmq_priv *q = p->priv;
	int d;

	for (d = 0; d < 2; d++)
		if (q->q[d] != (mqd_t)-1)
			mq_close(q->q[d]);
	free(q->buf);
	q->buf = NULL;
}

/* Create with O_EXCL, then unlink at once: the descriptor stays valid
 * (also in forked workers) and nothing can be left in /dev/mqueue.
 * On failure, what this pair got so far is released here: the harness
 * closes only pairs that opened completely. */
static int pmq_open(struct pair *p)
{
	const struct pmq_config *tc = p->run->tcfg;
	struct pmq_priv *q = p->priv;
	struct mq_attr attr = { .mq_maxmsg = 1, .mq_msgsize = tc->msg_size };
	long long depth = sysinfo_read_ll(MQ_LIMITS "msg_max");
	char name[64];
	int d, err = 0;

	/* Streaming: a queue that can take a few messages ahead. */
	if (p->run->cfg->stream)
		attr.mq_maxmsg = depth > 0 && depth < STREAM_DEPTH ? depth : STREAM_DEPTH;
	q->q[0] = q->q[1] = (mqd_t)-1;
	q->buf = calloc(1, tc->msg_size);
	if (!q->buf)
		return -ENOMEM;
	for (d = 0; d < 2; d++) {
		cleanup_unique_name(name, sizeof(name), d ? "pmq-back" : "pmq", p->index);
		cleanup_add_mq(name);
		q->q[d] = mq_open(name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600, &attr);
		if (q->q[d] == (mqd_t)-1)
			err = -errno;
		else
			mq_unlink(name);
		cleanup_del_mq(name);
		if (err)
			goto fail;
	}
	return 0;
fail:
	pmq_close(p);
	return err;
}

static int pmq_send(struct pair *p, enum pair_dir dir)
{
	const struct pmq_config *tc = p->run->tcfg;
	struct pmq_priv *q = p->priv;

	return mq_send(q->q[dir], q->buf, tc->msg_size, 1) ? -errno : 0;
}

static int pmq_receive(struct pair *p, enum pair_dir dir)
{
	const struct pmq_config *tc = p->run->tcfg;
	struct pmq_priv *q = p->priv;
	struct timespec abs;
	ssize_t n;

	if (dir == DIR_FWD && tc->timeout_s) {
		/* mq_timedreceive takes a CLOCK_REALTIME deadline. */
		clock_gettime(CLOCK_REALTIME, &abs);
		abs.tv_sec += tc->timeout_s;
		n = mq_timedreceive(q->q[dir], q->buf, tc->msg_size, NULL, &abs);
	} else {
		n = mq_receive(q->q[dir], q->buf, tc->msg_size, NULL);
	}
	return n < 0 ? -errno : 0;
}

static int64_t pmq_send_delay(const struct pair *p)
{
	const struct pmq_config *tc = p->run->tcfg;

	return tc->force_s * NSEC_PER_SEC;
}

static const struct transport_ops pmq_transport = {
	.priv_size = sizeof(struct pmq_priv),
	.has_timeouts = true,
	.setup = pmq_setup,
	.open = pmq_open,
	.send = pmq_send,
	.receive = pmq_receive,
	.close = pmq_close,
	.send_delay_ns = pmq_send_delay,
	.set_size = pmq_set_size,
};

const struct test_ops test_pmq = PAIR_TEST("pmq", "pmqtest",
	"POSIX message queue hand-off latency", &pmq_transport, pmq_opts,
	struct pmq_config, "-l 200");
