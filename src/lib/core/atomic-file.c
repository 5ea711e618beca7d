/* Atomic file writes: a temporary file beside the target, renamed over it on commit.  Only a
 * regular file (or a new one) is replaced that way; a symbolic link is followed and its target
 * replaced, and a device or a pipe is written in place, since renaming over it would put a
 * regular file where the node was. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fedbn/core.h"

/* Record "cannot write 'path': strerror(e)" in err and return FB_ERR. */
static int atomic_fail_errno(fb_error *err, const char *path, int e)
{
	char why[128];

	return fb_fail(err, "cannot write '%s': %s", path, fb_strerror(e, why, sizeof why));
}

/* The file a write to path lands in (path itself, or the end of its chain of links), with
 * its status in *st (st_mode 0 when it does not exist yet); NULL with err set when path
 * is a folder or a link to nothing. */
static char *atomic_target(const char *path, struct stat *st, fb_error *err)
{
	char *target;

	memset(st, 0, sizeof *st);
	if (lstat(path, st) != 0)
		return errno == ENOENT ? fb_xstrdup(path) : (atomic_fail_errno(err, path, errno), NULL);
	if (!S_ISLNK(st->st_mode))
		target = fb_xstrdup(path);
	else if ((target = realpath(path, NULL)) == NULL) {
		fb_fail(err, "cannot write '%s': it is a symbolic link to a missing file", path);
		return NULL;
	}
	if (stat(target, st) != 0)
		memset(st, 0, sizeof *st);
	if (S_ISDIR(st->st_mode)) {
		fb_fail(err, "cannot write '%s': it is a folder", path);
		free(target);
		return NULL;
	}
	return target;
}

/* Write into an existing device, pipe or socket as it is: no temporary file. */
static int atomic_open_in_place(fb_atomic_file *af, const char *path, fb_error *err)
{
	af->fp = fopen(af->path, "w");
	if (af->fp == NULL) {
		int e = errno;

		fb_atomic_abort(af);
		return atomic_fail_errno(err, path, e);
	}
	return FB_OK;
}

/* Give the temporary file fd the mode of the file it replaces (mode 0: a new file), or the
 * mode a plain fopen would give. */
static void atomic_mode(int fd, mode_t mode)
{
	mode_t mask = umask(0);

	umask(mask);
	fchmod(fd, mode != 0 ? (mode & 07777) : (0666 & ~mask));
}

/* The process id in name when name is TARGET.fedbn-tmp-PID-XXXXXX for the target whose base
 * name with the suffix is prefix (plen bytes); 0 when it is not such a name. */
static pid_t atomic_tmp_pid(const char *name, const char *prefix, size_t plen)
{
	char *end;
	long pid;

	if (strncmp(name, prefix, plen) != 0 || name[plen] < '1' || name[plen] > '9')
		return 0;
	errno = 0;
	pid = strtol(name + plen, &end, 10);
	if (errno != 0 || pid <= 0 || pid != (pid_t)pid || end[0] != '-' || strlen(end + 1) != 6)
		return 0;
	return (pid_t)pid;
}

/* Remove the temporary files that writers of target left when they were killed: the regular
 * files TARGET.fedbn-tmp-PID-XXXXXX whose PID no process has any more. */
static void atomic_remove_stale(const char *target)
{
	const char *slash = strrchr(target, '/');
	char *dir = slash == NULL ? fb_xstrdup(".")
	            : fb_xasprintf("%.*s", (int)(slash == target ? 1 : slash - target), target);
	char *prefix = fb_xasprintf("%s" FB_ATOMIC_TMP_SUFFIX, slash != NULL ? slash + 1 : target);
	size_t plen = strlen(prefix);
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d != NULL && (e = readdir(d)) != NULL) {
		pid_t pid = atomic_tmp_pid(e->d_name, prefix, plen);
		struct stat st;

		if (pid == 0 || pid == getpid() || kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
			unlinkat(dirfd(d), e->d_name, 0);
	}
	if (d != NULL)
		closedir(d);
	free(prefix);
	free(dir);
}

/* Open the file writes to path go to: a temporary file "TARGET.fedbn-tmp-PID-XXXXXX" in the
 * target's folder when the target is a regular file or new (after removing those that killed
 * writers left), else the target itself. */
int fb_atomic_open(fb_atomic_file *af, const char *path, fb_error *err)
{
	struct stat st;
	int fd;

	af->fp = NULL;
	af->tmp = af->name = NULL;
	af->path = atomic_target(path, &st, err);
	if (af->path == NULL)
		return FB_ERR;
	af->name = fb_xstrdup(path);
	if (st.st_mode != 0 && !S_ISREG(st.st_mode))
		return atomic_open_in_place(af, path, err);
	atomic_remove_stale(af->path);
	af->tmp = fb_xasprintf("%s" FB_ATOMIC_TMP_SUFFIX "%ld-XXXXXX", af->path, (long)getpid());
	fd = mkstemp(af->tmp);
	if (fd < 0) {
		int e = errno;

		free(af->tmp);
		af->tmp = NULL;
		fb_atomic_abort(af);
		return atomic_fail_errno(err, path, e);
	}
	atomic_mode(fd, st.st_mode);
	af->fp = fdopen(fd, "w");
	if (af->fp == NULL) {
		int e = errno;

		close(fd);
		fb_atomic_abort(af);
		return atomic_fail_errno(err, path, e);
	}
	return FB_OK;
}

/* Flush and close af->fp, and sync a regular file to disk; 0 or the errno of the failure. */
static int atomic_close(fb_atomic_file *af)
{
	int e = 0;

	if (fflush(af->fp) != 0)
		e = errno;
	else if (ferror(af->fp))
		e = EIO;
	else if (af->tmp != NULL && fsync(fileno(af->fp)) != 0)
		e = errno;
	if (fclose(af->fp) != 0 && e == 0)
		e = errno;
	af->fp = NULL;
	return e;
}

/* Flush, sync, close and rename over the target (written in place: flush and close). */
int fb_atomic_commit(fb_atomic_file *af, fb_error *err)
{
	int e = atomic_close(af);
	if (e == 0 && af->tmp != NULL && rename(af->tmp, af->path) != 0)
		e = errno;
	if (e != 0) {
		atomic_fail_errno(err, af->name, e);
		fb_atomic_abort(af);
		return FB_ERR;
	}
	free(af->path);
	free(af->tmp);
	free(af->name);
	af->path = af->tmp = af->name = NULL;
	return FB_OK;
}

/* Close and remove the temporary file. */
void fb_atomic_abort(fb_atomic_file *af)
{
	if (af->fp != NULL)
		fclose(af->fp);
	af->fp = NULL;
	if (af->tmp != NULL)
		unlink(af->tmp);
	free(af->path);
	free(af->tmp);
	free(af->name);
	af->path = af->tmp = af->name = NULL;
}
