/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * outfile.h - every output file rtlat writes (--json, -g, --histfile, the
 * request log) goes through here, so one rule holds for all of them:
 *
 *  - "-" is stdout;
 *  - a regular file, or a path that does not exist yet, is written to a
 *    temp file beside it (O_EXCL) and renamed over it at the end, so a
 *    reader never sees half a file;
 *  - a symlink is followed: the temp file is made next to its target and
 *    renamed onto the target, the link stays;
 *  - anything else (a character device such as /dev/null, a FIFO) is
 *    opened and written directly, never replaced.
 *
 * A failed or short write is reported as one line naming the option and
 * the file; the caller exits 1.
 */
#ifndef RTLAT_OUTFILE_H
#define RTLAT_OUTFILE_H

#include <limits.h>
#include <stdio.h>

struct outfile {
	const char *opt;		/* "--json", "-g"... for messages */
	const char *path;		/* as given */
	FILE *f;			/* NULL: not open */
	char target[PATH_MAX];		/* renamed onto at the end; "" if direct */
	char tmp[PATH_MAX + 32];
};

/*
 * Before a run: can path be written at all? Probes the directory by
 * creating and removing a file there (access() says yes to root on /proc
 * and /sys). Returns 0, or -1 with the reason in why.
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
/* Close and remove the temp file without renaming (the run failed). */
void outfile_discard(struct outfile *of);

#endif
