/* Atomic file writes: a temporary file beside the target, renamed over it on commit. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fedbn/core.h"

/* Open a temporary file in the same folder as path. */
int fb_atomic_open(fb_atomic_file *af, const char *path, fb_error *err)
{
	char why[128];
	int fd;

	af->fp = NULL;
	af->path = fb_xstrdup(path);
	af->tmp = fb_xasprintf("%s.tmp-XXXXXX", path);
	fd = mkstemp(af->tmp);
	if (fd < 0) {
		int e = errno;

		free(af->path);
		free(af->tmp);
		af->path = af->tmp = NULL;
		return fb_fail(err, "cannot write '%s': %s", path, fb_strerror(e, why, sizeof why));
	}
	/* mkstemp makes the file 0600; give it the mode a plain fopen would */
	{
		mode_t mask = umask(0);

		umask(mask);
		fchmod(fd, 0666 & ~mask);
	}
	af->fp = fdopen(fd, "w");
	if (af->fp == NULL) {
		int e = errno;

		close(fd);
		fb_atomic_abort(af);
		return fb_fail(err, "cannot write '%s': %s", path, fb_strerror(e, why, sizeof why));
	}
	return FB_OK;
}

/* Flush, sync, close and rename over the target. */
int fb_atomic_commit(fb_atomic_file *af, fb_error *err)
{
	char why[128];
	int failed = ferror(af->fp) || fflush(af->fp) != 0 || fsync(fileno(af->fp)) != 0;
	int e = errno;

	if (fclose(af->fp) != 0 && !failed) {
		failed = 1;
		e = errno;
	}
	af->fp = NULL;
	if (!failed && rename(af->tmp, af->path) != 0) {
		failed = 1;
		e = errno;
	}
	if (failed) {
		fb_fail(err, "cannot write '%s': %s", af->path, fb_strerror(e, why, sizeof why));
		fb_atomic_abort(af);
		return FB_ERR;
	}
	free(af->path);
	free(af->tmp);
	af->path = af->tmp = NULL;
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
	af->path = af->tmp = NULL;
}
