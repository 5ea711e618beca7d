/* The files fedbn wrote in earlier sessions: a registry in $XDG_STATE_HOME/fedbn/written
 * (else ~/.local/state/fedbn/written) of each file's real path, identity (device and inode),
 * size and modification time when fedbn last wrote it, so that a script run again may replace
 * its own earlier output while any file fedbn did not write, or one changed since, is kept. */
#ifndef FEDBN_CLI_WRITTEN_H
#define FEDBN_CLI_WRITTEN_H

#include <sys/stat.h>

/* What the registry says of a file. */
enum fb_written {
	FB_WRITTEN_UNKNOWN, /* no entry for its path (or no registry) */
	FB_WRITTEN_SAME,    /* fedbn wrote it and nobody changed it since */
	FB_WRITTEN_CHANGED  /* fedbn wrote a file at this path, and this one differs from it */
};

/* Record that fedbn has just written the regular file path.  Without a usable registry
 * (no $XDG_STATE_HOME or $HOME, a folder that cannot be made) nothing is recorded. */
void fb_written_record(const char *path);
/* What the registry says of the regular file path, which st describes. */
enum fb_written fb_written_lookup(const char *path, const struct stat *st);
/* The registry's path (owned by the caller), or NULL when there is none. */
char *fb_written_registry(void);

#endif
