/* The files a session has read and written: no command replaces a file the user did not
 * ask fedbn to make, or a file the session is working from, without force=yes.  A file fedbn
 * wrote in an earlier session and nobody changed since may be replaced (written.c keeps
 * the record), so that a script runs again. */
#include "config.h"

#include <sys/stat.h>

#include "files.h"
#include "session.h"
#include "written.h"

/* The session's mark for the file st describes, or NULL. */
static fb_file_mark *files_find(fb_session *s, const struct stat *st)
{
	for (size_t i = 0; i < s->nfiles; i++)
		if (s->files[i].dev == st->st_dev && s->files[i].ino == st->st_ino)
			return &s->files[i];
	return NULL;
}

/* Add or update the mark of path; a role once set stays (a file read stays an input); a
 * write records the modification time and size. */
static void files_note(fb_session *s, const char *path, const char *role)
{
	struct stat st;
	fb_file_mark *m;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return;
	if ((m = files_find(s, &st)) == NULL) {
		s->files = fb_xreallocarray(s->files, s->nfiles + 1, sizeof *s->files);
		m = &s->files[s->nfiles++];
		*m = (fb_file_mark){ .dev = st.st_dev, .ino = st.st_ino };
	}
	if (role != NULL)
		m->role = role;
	else {
		m->mtime = st.st_mtim;
		m->size = st.st_size;
	}
}

/* Whether the file st describes is still as the session wrote it. */
static bool files_unchanged(const fb_file_mark *m, const struct stat *st)
{
	return m->mtime.tv_sec == st->st_mtim.tv_sec && m->mtime.tv_nsec == st->st_mtim.tv_nsec &&
	       m->size == st->st_size;
}

/* Remember a file the session read. */
void fb_files_note_read(fb_cmd_ctx *ctx, const char *path, const char *role)
{
	files_note(ctx->s, path, role);
}

/* Remember a file the session wrote. */
void fb_files_note_written(fb_cmd_ctx *ctx, const char *path)
{
	ctx->s->nwritten++;
	files_note(ctx->s, path, NULL);
	fb_written_record(path);
}

/* Forget a file. */
void fb_files_forget(fb_cmd_ctx *ctx, const char *path)
{
	fb_session *s = ctx->s;
	fb_file_mark *m;
	struct stat st;

	if (stat(path, &st) != 0 || (m = files_find(s, &st)) == NULL)
		return;
	*m = s->files[--s->nfiles];
}

/* Refuse to replace path, which changed since fedbn wrote it. */
static int files_refuse_changed(fb_cmd_ctx *ctx, const char *path)
{
	return fb_cmd_error(ctx, "'%s' changed since fedbn wrote it; give another name, or "
	                         "force=yes to replace it", path);
}

/* Why the regular file path (status st), which this session did not write, may not be
 * replaced: FB_CMD_OK when fedbn wrote it in an earlier session and it is unchanged. */
static int files_check_earlier(fb_cmd_ctx *ctx, const char *path, const struct stat *st)
{
	switch (fb_written_lookup(path, st)) {
	case FB_WRITTEN_SAME:
		return FB_CMD_OK;
	case FB_WRITTEN_CHANGED:
		return files_refuse_changed(ctx, path);
	default:
		return fb_cmd_error(ctx, "'%s' exists and fedbn did not write it; give another "
		                         "name, or force=yes to replace it", path);
	}
}

/* The one rule for replacing a file. */
int fb_files_check_target(fb_cmd_ctx *ctx, const char *path, bool force)
{
	struct stat st;
	fb_file_mark *m;

	if (stat(path, &st) != 0)
		return FB_CMD_OK; /* a new file, or one the write itself will report */
	if (S_ISDIR(st.st_mode))
		return fb_cmd_error(ctx, "cannot write '%s': it is a folder", path);
	if (!S_ISREG(st.st_mode) || force)
		return FB_CMD_OK;
	m = files_find(ctx->s, &st);
	if (m != NULL && m->role != NULL)
		return fb_cmd_error(ctx, "'%s' is an input of this session (%s); give another "
		                         "name, or force=yes to replace it", path, m->role);
	if (m == NULL)
		return files_check_earlier(ctx, path, &st);
	if (!files_unchanged(m, &st))
		return files_refuse_changed(ctx, path);
	return FB_CMD_OK;
}

/* The rule, with force from the command's parameters. */
int fb_files_check(fb_cmd_ctx *ctx, const char *path, const fb_params *p)
{
	return fb_files_check_target(ctx, path, fb_params_bool(p, "force"));
}
