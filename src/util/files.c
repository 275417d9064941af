// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * files.c - walking a path to write, component by component and holding
 * each directory, checking or creating the file (files.h). What an
 * output file does with it (temp file, rename, cleanup registry) is
 * system/outfile.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/files.h"

#define MAX_LINKS 40		/* the kernel's MAXSYMLINKS */

int path_walk_fail(struct path_walk *w)
{
	snprintf(w->why, w->len, "%s", strerror(errno));
	return -1;
}

/* dir/name, or name alone for the current directory. */
void path_join(char *buf, size_t len, const char *dir, const char *name)
{
	if (!strcmp(dir, "."))
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "%s%s%s", dir,
			 dir[strlen(dir) - 1] == '/' ? "" : "/", name);
}

static int walk_root(struct path_walk *w, bool absolute)
{
	int fd = open(absolute ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return path_walk_fail(w);
	if (w->dirfd >= 0)
		close(w->dirfd);
	w->dirfd = fd;
	snprintf(w->dir, sizeof(w->dir), "%s", absolute ? "/" : ".");
	return 0;
}

/* The next component of rest into comp ("" at the end); rest keeps the
 * slash after it, so rest is "" only after the last component. */
static int next_comp(struct path_walk *w, char *comp)
{
	const char *s = w->rest + strspn(w->rest, "/");
	size_t n = strcspn(s, "/");

	if (n > NAME_MAX) {
		errno = ENAMETOOLONG;
		return path_walk_fail(w);
	}
	memcpy(comp, s, n);
	comp[n] = '\0';
	memmove(w->rest, s + n, strlen(s + n) + 1);
	return 0;
}

/*
 * Follow the link comp (fd, its own stat lst) of w->dirfd: the kernel's
 * protected_symlinks rule first, then its target goes before the rest.
 */
static int follow(struct path_walk *w, int fd, const char *comp,
		  const struct stat *lst)
{
	char target[PATH_MAX], link[PATH_MAX];
	struct stat d;
	ssize_t n;

	if (++w->links > MAX_LINKS)
		return errno = ELOOP, path_walk_fail(w);
	if (fstat(w->dirfd, &d))
		return path_walk_fail(w);
	if ((d.st_mode & (S_ISVTX | S_IWOTH)) == (S_ISVTX | S_IWOTH) &&
	    lst->st_uid != geteuid() && lst->st_uid != d.st_uid) {
		path_join(link, sizeof(link), w->dir, comp);
		snprintf(w->why, w->len,
			 "'%s' is a symlink owned by uid %u, neither the caller nor the owner of its sticky world-writable directory: not followed (the kernel's fs.protected_symlinks rule)",
			 link, (unsigned int)lst->st_uid);
		return -1;
	}
	n = readlinkat(fd, "", target, sizeof(target) - 1);
	if (n <= 0)
		return errno = n ? errno : ENOENT, path_walk_fail(w);
	target[n] = '\0';
	if (strlen(target) + strlen(w->rest) >= sizeof(w->rest))
		return errno = ENAMETOOLONG, path_walk_fail(w);
	memmove(w->rest + n, w->rest, strlen(w->rest) + 1);
	memcpy(w->rest, target, (size_t)n);
	return target[0] == '/' ? walk_root(w, true) : 0;
}

/* One component: 1 the walk ends here, 0 go on, -1 failed. */
static int step(struct path_walk *w, const char *comp)
{
	bool last = !w->rest[0];
	int fd = openat(w->dirfd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	char dir[PATH_MAX];
	struct stat st;

	if (fd < 0 && last && errno == ENOENT) {
		snprintf(w->name, sizeof(w->name), "%s", comp);
		return 1;
	}
	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		return path_walk_fail(w);
	}
	if (S_ISLNK(st.st_mode)) {
		int rc = follow(w, fd, comp, &st);

		close(fd);
		return rc;
	}
	if (last) {
		close(fd);
		snprintf(w->name, sizeof(w->name), "%s", comp);
		w->st = st;
		return 1;
	}
	if (!S_ISDIR(st.st_mode)) {
		close(fd);
		return errno = ENOTDIR, path_walk_fail(w);
	}
	close(w->dirfd);
	w->dirfd = fd;
	path_join(dir, sizeof(dir), w->dir, comp);
	snprintf(w->dir, sizeof(w->dir), "%s", dir);
	return 0;
}

/* Walk path; on failure the reason is in why and nothing is held. */
int path_walk(const char *path, struct path_walk *w, char *why, size_t len)
{
	char comp[NAME_MAX + 1];
	int rc = 0;

	memset(w, 0, sizeof(*w));
	w->dirfd = -1;
	w->why = why;
	w->len = len;
	if (strlen(path) >= sizeof(w->rest))
		return errno = ENAMETOOLONG, path_walk_fail(w);
	strcpy(w->rest, path);
	if (walk_root(w, path[0] == '/'))
		return -1;
	while (!rc) {
		rc = next_comp(w, comp);
		if (!rc && !comp[0])		/* it ends on a directory */
			rc = fstat(w->dirfd, &w->st) ? path_walk_fail(w) : 1;
		else if (!rc)
			rc = step(w, comp);
	}
	if (rc > 0)
		return 0;
	close(w->dirfd);
	w->dirfd = -1;
	return -1;
}

/*
 * O_EXCL temp file beside name in dirfd; the fd, or -1 (errno set). Its
 * writer holds an flock on it until it is renamed or removed, so that
 * what a writer killed outright left (SIGKILL before the janitor knew of
 * it) is told from a live writer's file: outfile_sweep.
 */
int path_make_tmp(int dirfd, const char *name, char *tmp, size_t len)
{
	int fd, i;

	for (i = 0; i < 100; i++) {
		if (snprintf(tmp, len, "%s" OUTFILE_TMP_MARK "%d-%d", name,
			     (int)getpid(), i) >= (int)len)
			return errno = ENAMETOOLONG, -1;
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			    O_CLOEXEC, 0666);
		if (fd >= 0)
			flock(fd, LOCK_EX | LOCK_NB);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

int outfile_check(const char *path, char *why, size_t len)
{
	char tmp[NAME_MAX + 1];
	struct path_walk w;
	int fd, rc = -1;

	if (!*path)
		return snprintf(why, len, "empty file name"), -1;
	if (!strcmp(path, "-"))
		return 0;
	if (path_walk(path, &w, why, len))
		return -1;
	if (S_ISDIR(w.st.st_mode)) {
		snprintf(why, len, "'%s' is a directory", path);
	} else if (!path_replaced(&w)) {
		rc = faccessat(w.dirfd, w.name, W_OK, 0);
		if (rc)
			snprintf(why, len, "%s", strerror(errno));
	} else {
		fd = path_make_tmp(w.dirfd, w.name, tmp, sizeof(tmp));
		if (fd < 0) {
			snprintf(why, len, "cannot create a file in '%s': %s",
				 w.dir, strerror(errno));
		} else {
			close(fd);
			unlinkat(w.dirfd, tmp, 0);
			rc = 0;
		}
	}
	close(w.dirfd);
	return rc;
}

int outfile_create(const char *path, char *why, size_t len)
{
	struct path_walk w;
	int fd;

	if (path_walk(path, &w, why, len))
		return -1;
	fd = openat(w.dirfd, w.name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
		    O_CLOEXEC, 0644);
	if (fd < 0)
		path_walk_fail(&w);
	close(w.dirfd);
	return fd;
}

size_t read_text(int fd, char *buf, size_t cap)
{
	size_t len = 0;
	ssize_t got;

	while (len < cap - 1) {
		got = read(fd, buf + len, cap - 1 - len);
		if (got > 0)
			len += (size_t)got;
		else if (got == 0 || errno != EINTR)
			break;
	}
	buf[len] = '\0';
	return len;
}
