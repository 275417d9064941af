// SPDX-License-Identifier: GPL-2.0-or-later
/* outfile.c - the output-file rule shared by every writer (see outfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/cleanup.h"
#include "core/outfile.h"

/* The file the path finally names: a symlink's target, or path itself. */
static int resolve(const char *path, char *out, size_t len)
{
	struct stat st;
	char link[PATH_MAX], *slash;
	ssize_t n;

	if (lstat(path, &st) || !S_ISLNK(st.st_mode)) {
		snprintf(out, len, "%s", path);
		return 0;
	}
	if (realpath(path, out))
		return 0;
	/* A dangling link: create its target, relative to the link's folder. */
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return -1;
	link[n] = '\0';
	slash = strrchr(path, '/');
	if (link[0] == '/' || !slash)
		n = snprintf(out, len, "%s", link);
	else
		n = snprintf(out, len, "%.*s/%s", (int)(slash - path), path, link);
	if (n < 0 || (size_t)n >= len)
		return errno = ENAMETOOLONG, -1;
	return 0;
}

/* Regular files and new paths are replaced atomically; others are not. */
static bool replace_atomically(const char *target)
{
	struct stat st;

	if (stat(target, &st))
		return errno == ENOENT;
	return S_ISREG(st.st_mode);
}

static void dir_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == path)
		snprintf(dir, len, "/");
	else
		snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

/* O_EXCL temp file beside target; returns the fd or -1 (errno set). */
static int make_tmp(const char *target, char *tmp, size_t len)
{
	int fd, i;

	for (i = 0; i < 100; i++) {
		snprintf(tmp, len, "%s.tmp-%d-%d", target, (int)getpid(), i);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

int outfile_check(const char *path, char *why, size_t len)
{
	char target[PATH_MAX], tmp[PATH_MAX + 32], dir[PATH_MAX];
	struct stat st;
	int fd;

	if (!*path)
		return snprintf(why, len, "empty file name"), -1;
	if (!strcmp(path, "-"))
		return 0;
	if (resolve(path, target, sizeof(target)))
		return snprintf(why, len, "%s", strerror(errno)), -1;
	if (stat(target, &st) == 0 && S_ISDIR(st.st_mode))
		return snprintf(why, len, "'%s' is a directory", path), -1;
	if (!replace_atomically(target)) {
		if (access(target, W_OK) == 0)
			return 0;
		return snprintf(why, len, "%s", strerror(errno)), -1;
	}
	dir_of(target, dir, sizeof(dir));
	fd = make_tmp(target, tmp, sizeof(tmp));
	if (fd < 0)
		return snprintf(why, len, "cannot create a file in '%s': %s",
				dir, strerror(errno)), -1;
	close(fd);
	unlink(tmp);
	return 0;
}

FILE *outfile_open(struct outfile *of, const char *prog, const char *opt,
		   const char *path)
{
	int fd;

	memset(of, 0, sizeof(*of));
	of->opt = opt;
	of->path = path;
	if (!strcmp(path, "-")) {
		of->f = stdout;
		return of->f;
	}
	if (resolve(path, of->target, sizeof(of->target)))
		goto fail;
	if (replace_atomically(of->target)) {
		fd = make_tmp(of->target, of->tmp, sizeof(of->tmp));
		if (fd >= 0)
			cleanup_add_file(of->tmp);
	} else {
		of->target[0] = '\0';
		fd = open(path, O_WRONLY | O_CLOEXEC);
	}
	if (fd < 0)
		goto fail;
	of->f = fdopen(fd, "w");
	if (of->f)
		return of->f;
	close(fd);
fail:
	fprintf(stderr, "%s: %s %s: %s\n", prog, opt, path, strerror(errno));
	if (of->tmp[0])
		unlink(of->tmp);
	return NULL;
}

int outfile_close(struct outfile *of, const char *prog)
{
	int err = 0;

	if (!of->f)
		return 0;
	if (fflush(of->f) || ferror(of->f))
		err = errno ? errno : EIO;
	if (of->f != stdout && fclose(of->f) && !err)
		err = errno;
	of->f = NULL;
	if (!err && of->target[0] && rename(of->tmp, of->target))
		err = errno;
	/* The temp file is gone (renamed, or removed below): forget it, so
	 * that the cleanup at exit never removes a path that is not ours. */
	if (of->tmp[0])
		cleanup_del_file(of->tmp);
	if (!err)
		return 0;
	if (of->tmp[0])
		unlink(of->tmp);
	fprintf(stderr, "%s: %s %s: %s\n", prog, of->opt, of->path, strerror(err));
	return -1;
}

void outfile_discard(struct outfile *of)
{
	if (of->f && of->f != stdout)
		fclose(of->f);
	of->f = NULL;
	if (of->tmp[0]) {
		unlink(of->tmp);
		cleanup_del_file(of->tmp);
	}
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
