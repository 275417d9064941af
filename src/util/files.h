/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * files.h - a path to write, walked one component at a time (each opened
 * O_NOFOLLOW relative to the one before, the symlink rule of
 * system/outfile.h), checked or created; reading a descriptor whole.
 * The bottom of every output file (system/outfile.c) and of the option
 * table's output-file check (opts.c).
 */
#ifndef RTLAT_FILES_H
#define RTLAT_FILES_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* A temp file is NAME.tmp-PID-N; the next writer of NAME removes those
 * of a writer that no longer runs (as rtlat-report does in a results
 * directory, load.py). */
#define OUTFILE_TMP_MARK	".tmp-"

/* A path walked to its last component, held by its directory's fd. */
struct path_walk {
	int dirfd;			/* O_PATH, -1: none */
	char dir[PATH_MAX];		/* dirfd as walked, for messages */
	char name[NAME_MAX + 1];	/* "": the path names a directory */
	struct stat st;			/* name's own; st_mode 0: missing */
	char rest[PATH_MAX];		/* what is left to walk */
	int links;
	char *why;
	size_t len;
};

/* Walk path; on failure the reason is in why and nothing is held. */
int path_walk(const char *path, struct path_walk *w, char *why, size_t len);
/* errno's text into w's why; -1. */
int path_walk_fail(struct path_walk *w);
/* dir/name, or name alone for the current directory. */
void path_join(char *buf, size_t len, const char *dir, const char *name);
/*
 * O_EXCL temp file NAME.tmp-PID-N beside name in dirfd; the fd, or -1
 * (errno set). Its writer holds an flock on it until it is renamed or
 * removed (system/outfile.c's sweep tells a dead writer's by it).
 */
int path_make_tmp(int dirfd, const char *name, char *tmp, size_t len);

/* A regular file or a new path: replaced by a temp file at the end. */
static inline bool path_replaced(const struct path_walk *w)
{
	return !w->st.st_mode || S_ISREG(w->st.st_mode);
}

/*
 * Before a run: can path be written at all? Walks it as outfile_open does
 * (the symlink rule above) and probes the directory by creating and
 * removing a file there (access() says yes to root on /proc and /sys).
 * Returns 0, or -1 with the reason in why.
 */
int outfile_check(const char *path, char *why, size_t len);

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

#endif
