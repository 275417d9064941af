/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * outfile.h - every output file rtlat writes (--json, -g, --histfile,
 * --junit, --openmetrics, the request log, the suite's files) goes through
 * here, so one rule holds for all of them:
 *
 *  - "-" is stdout;
 *  - a regular file, or a path that does not exist yet, is written to a
 *    temp file beside it (O_EXCL) and renamed over it at the end, so a
 *    reader never sees half a file (a dead writer's temp file is removed
 *    by the next one: outfile_sweep in outfile.c);
 *  - a symlink is followed (a chain too): the temp file is made next to
 *    the last target and renamed onto it, the links stay; a missing last
 *    target is created;
 *  - anything else (a character device such as /dev/null, a FIFO) is
 *    opened and written directly, never replaced. A FIFO with no reader
 *    is waited for; a stop signal (SIGINT, SIGTERM, SIGHUP) ends the wait:
 *    the output fails with one line, and every later FIFO output of the
 *    process gives up at once.
 *
 * The path is walked one component at a time, each opened O_NOFOLLOW
 * relative to the one before; the file is then made, opened and renamed
 * relative to its directory's descriptor, so nothing checked is looked up
 * again by name. A symlink (at any step: a directory on the way, a link
 * of a chain) in a sticky world-writable directory is followed only if
 * the caller (euid) or the directory's owner owns it: the kernel's
 * fs.protected_symlinks rule, applied here whatever that sysctl says,
 * since rtlat resolves the links itself.
 *
 * A failed or short write is reported as one line naming the option and
 * the file; the caller exits 1.
 */
#ifndef RTLAT_OUTFILE_H
#define RTLAT_OUTFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

/* A temp file is NAME.tmp-PID-N; the next writer of NAME removes those
 * of a writer that no longer runs (as rtlat-report does in a results
 * directory, load.py). */
#define OUTFILE_TMP_MARK	".tmp-"

struct outfile {
	const char *opt;		/* "--json", "-g"... for messages */
	const char *path;		/* as given */
	FILE *f;			/* NULL: not open */
	int dirfd;			/* the target's directory (O_PATH) */
	char name[NAME_MAX + 1];	/* renamed onto at the end; "" if direct */
	char tmpname[NAME_MAX + 1];	/* the temp file, in dirfd */
	char tmp[PATH_MAX + 32];	/* its path, for the cleanup registry */
};

/*
 * Before a run: can path be written at all? Walks it as outfile_open does
 * (the symlink rule above) and probes the directory by creating and
 * removing a file there (access() says yes to root on /proc and /sys).
 * Returns 0, or -1 with the reason in why.
 */
int outfile_check(const char *path, char *why, size_t len);
/* Open for writing; NULL after printing "prog: OPT PATH: reason". */
FILE *outfile_open(struct outfile *of, const char *prog, const char *opt,
		   const char *path);
/* Flush, close and rename into place; -1 after printing the one line. */
int outfile_close(struct outfile *of, const char *prog);
/*
 * Read fd to its end (a pipe: until every writer closed it), going on
 * after EINTR, into buf as a NUL-terminated string of at most cap - 1
 * bytes. Returns the length.
 */
size_t read_text(int fd, char *buf, size_t cap);
/*
 * A file written in place as it grows (the suite's logs): path walked as
 * above, then its last target created or truncated (O_NOFOLLOW, mode
 * 0644). Returns the fd (O_CLOEXEC), or -1 with the reason in why.
 */
int outfile_create(const char *path, char *why, size_t len);
/*
 * Can path be rewritten whole, again and again (a checkpoint's)? A
 * regular file, a path not there yet or a link to either: yes. "-"
 * (stdout), a FIFO or a device: no; each rewrite would add one more copy
 * to the stream (and a FIFO's would wait for its reader), so checkpoints
 * skip them and they get the final write only. A path that cannot be
 * looked at: yes, so that outfile_open says why.
 */
bool outfile_rewritable(const char *path);
/* Close and remove the temp file without renaming (the run failed). */
void outfile_discard(struct outfile *of);

#endif
