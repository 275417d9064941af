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
 * The walk, outfile_check and outfile_create are util/files.c's.
 *
 * A failed or short write is reported as one line naming the option and
 * the file; the caller exits 1.
 */
#ifndef RTLAT_OUTFILE_H
#define RTLAT_OUTFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include "util/files.h"

struct outfile {
	const char *opt;		/* "--json", "-g"... for messages */
	const char *path;		/* as given */
	FILE *f;			/* NULL: not open */
	int dirfd;			/* the target's directory (O_PATH) */
	char name[NAME_MAX + 1];	/* renamed onto at the end; "" if direct */
	char tmpname[NAME_MAX + 1];	/* the temp file, in dirfd */
	char tmp[PATH_MAX + 32];	/* its path, for the cleanup registry */
};

/* Open for writing; NULL after printing "prog: OPT PATH: reason". */
FILE *outfile_open(struct outfile *of, const char *prog, const char *opt,
		   const char *path);
/* Flush, close and rename into place; -1 after printing the one line. */
int outfile_close(struct outfile *of, const char *prog);
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
