/* fedbn core: errors, checked allocation, random streams, small string helpers,
 * atomic file writes.  Everything else in libfedbn builds on this header. */
#ifndef FEDBN_CORE_H
#define FEDBN_CORE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <gsl/gsl_rng.h>

#ifdef __GNUC__
#define FB_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define FB_NORETURN __attribute__((noreturn))
#else
#define FB_PRINTF(f, a)
#define FB_NORETURN
#endif

/* Status returned by every fallible library call. */
enum fb_status {
	FB_OK = 0,   /* success */
	FB_ERR = -1, /* failure: the fb_error passed in holds the reason */
};

/* Room for one error sentence. */
#define FB_ERROR_MAX 512

/* One error sentence, filled by the callee, read by the caller.  Messages are lower case,
 * have no full stop, and name the input at fault (file, line, column or parameter). */
typedef struct fb_error {
	char msg[FB_ERROR_MAX]; /* the sentence; empty when no error was recorded */
} fb_error;

/* Record a formatted error in err (may be NULL) and return FB_ERR. */
int fb_fail(fb_error *err, const char *fmt, ...) FB_PRINTF(2, 3);

/* Like fb_fail with a va_list. */
int fb_failv(fb_error *err, const char *fmt, va_list ap) FB_PRINTF(2, 0);

/* Clear err so that it holds no message. */
void fb_error_clear(fb_error *err);

/* A sink for warnings (a constant column, dropped rows): the library reports, the caller prints. */
typedef struct fb_warn {
	void (*fn)(void *ctx, const char *msg); /* called once per warning; NULL ignores */
	void *ctx;                               /* passed back to fn */
} fb_warn;

/* Send a formatted warning to w (w or w->fn may be NULL). */
void fb_warnf(const fb_warn *w, const char *fmt, ...) FB_PRINTF(2, 3);

/* How a caller stops a long library call (a simulation, a picture): the call asks fn between
 * pieces of its work and, when it says stop, frees what it built and fails with
 * FB_CANCELLED_MSG in err.  The library never touches signals; the program's Ctrl-C flag
 * sits behind fn. */
typedef struct fb_cancel {
	bool (*fn)(void *ctx); /* true: stop now (NULL: never) */
	void *ctx;             /* passed back to fn */
} fb_cancel;

/* The reason a cancelled call leaves in its fb_error. */
#define FB_CANCELLED_MSG "stopped before the end, on request"

/* The longest line fedbn's readers take (CSV files, BIF files, scripts): a longer line is
 * refused with a sentence naming it, so that an endless input (/dev/zero) ends at once instead
 * of filling the memory. */
#define FB_LINE_MAX ((size_t)16 << 20)
/* FB_LINE_MAX in words, for those sentences. */
#define FB_LINE_MAX_TEXT "16 MiB"

/* Whether c asks to stop (c or c->fn may be NULL: no). */
bool fb_cancel_requested(const fb_cancel *c);

/* Run the BLAS under GSL on one thread (fedbn parallelises over clients itself). */
void fb_blas_single_thread(void);
/* The bytes of address space the BLAS maps for a thread's first computation (OpenBLAS: its
 * 128 MiB work buffer, which it retries forever when the mapping fails), 0 when it maps none. */
size_t fb_blas_buffer_bytes(void);
/* Have the BLAS map the calling thread's work buffer now, while the memory is there (one
 * buffer: computations on one thread at a time reuse it). */
void fb_blas_reserve(void);
/* The BLAS kernel the program runs: OpenBLAS's core name (such as "SkylakeX", "Haswell",
 * "Prescott"), or the name of the BLAS linked when it is not OpenBLAS ("gslcblas"). */
const char *fb_blas_kernel(void);
/* The family of a kernel name: the kernels that compute the same bits share one (Zen runs
 * Haswell's kernels, Cooperlake and SapphireRapids SkylakeX's), lower case, into buf. */
const char *fb_blas_family(const char *kernel, char *buf, size_t size);

/* Factor the Gaussian kernel K_ab = exp(-theta |x_a - x_b|^2 / 2) over the n rows of x
 * (row-major, p values a row) as K ~ G'G, G r x n (row k at g + k n; g has room for rmax
 * rows), by pivoted incomplete Cholesky.  The remainder K - G'G is positive semi-definite;
 * the factor stops once its trace is at most n tol (the rows' mean left-out variance; the
 * trace also bounds the remainder's every eigenvalue and entry).  The pivot is the first row
 * with the largest remaining diagonal, so the result is deterministic.  True with *rank = r
 * when tol is reached within rmax rows; false when it is not, or when out of memory. */
bool fb_kernel_factor_rbf(const double *x, size_t n, size_t p, double theta, double tol,
                          size_t rmax, double *g, size_t *rank);
/* The same, the kernel's entries by an exp of fedbn's own (Cody-Waite reduction and a Taylor
 * polynomial, two values at a time where SSE2 is there; within a few units in the last place
 * of glibc's, the same bits on every machine), several times faster than glibc's: the
 * factor is not the same bits as fb_kernel_factor_rbf's. */
bool fb_kernel_factor_rbf_fast(const double *x, size_t n, size_t p, double theta, double tol,
                               size_t rmax, double *g, size_t *rank);

/* Seconds on a monotonic clock (for durations and deadlines). */
double fb_clock_now(void);

/* Run fn on each of nt works, size bytes apart from works (size 0: the one work nt times),
 * at once: the first on the calling thread, each other on a thread of its own (one kept from
 * an earlier outermost call where it is free; on the calling thread, after the first, where a
 * thread cannot start); returns when every one has returned. */
void fb_threads_run(void *(*fn)(void *), void *works, size_t size, size_t nt);
/* Processor time of the calling thread, in seconds (balance figures of threaded work). */
double fb_thread_seconds(void);
/* Processor seconds spent so far inside the outermost fb_threads_run calls (a call made from
 * one of their works is counted in it): *work summed over their threads, *span summed over
 * calls of the busiest thread's (with the works that ran on the calling thread added up).
 * The process's processor time less work, plus span, is about the wall time the same run
 * takes on cores of its own as many as the threads. */
void fb_threads_times(double *work, double *span);

/* Install a GSL error handler that records the reason instead of aborting. */
void fb_gsl_install_handler(void);

/* The reason of the last GSL error seen by this thread, or "" when none; clears it. */
const char *fb_gsl_last_error(void);

/* Allocation that never returns NULL: out of memory prints "fedbn: out of memory" and exits
 * with status 2.  The rule as the code keeps it: these wrappers are the default in the
 * library as well as in the shell (about 460 library calls: sessions, federations and their
 * messages, names, graphs' lists, results, exports, the newer learners' states), so a library
 * call may end the process when memory runs out; FB_ERR is never promised for that.  The
 * numerical layers (stats, optim, most of nn and circuit, the data readers' tables, the
 * older learners' work arrays, fb_graph_try_alloc) use plain malloc and turn NULL into
 * FB_ERR with "...: out of memory" in err, so that a problem too large for the machine
 * (rows x variables, d x d weights) is refused with a sentence and the session kept.  New
 * code: an allocation whose size comes from the input (n, d, a file) checks NULL and returns
 * FB_ERR; any other uses these wrappers. */
void *fb_xmalloc(size_t size);
void *fb_xcalloc(size_t count, size_t size);
void *fb_xrealloc(void *ptr, size_t size);
void *fb_xreallocarray(void *ptr, size_t count, size_t size);
char *fb_xstrdup(const char *s);
char *fb_xasprintf(const char *fmt, ...) FB_PRINTF(1, 2);
/* fb_xasprintf with a va_list (ap is used up). */
char *fb_xvasprintf(const char *fmt, va_list ap) FB_PRINTF(1, 0);
/* What the allocators above do when size bytes cannot be had: print and exit. */
void fb_xalloc_fail(size_t size) FB_NORETURN;

/* A growable string buffer. */
typedef struct fb_buf {
	char *data; /* NUL-terminated contents (NULL until the first append) */
	size_t len; /* bytes used, without the NUL */
	size_t cap; /* bytes allocated */
} fb_buf;

/* Append formatted text to b. */
void fb_buf_printf(fb_buf *b, const char *fmt, ...) FB_PRINTF(2, 3);
/* Append n bytes of s to b. */
void fb_buf_append(fb_buf *b, const char *s, size_t n);
/* Free b's memory and reset it to empty. */
void fb_buf_release(fb_buf *b);
/* Append s to b with every control character (bytes 1 to 31, and 127) written as \xHH, so
 * that a name read from a file cannot drive the terminal it is printed on. */
void fb_buf_append_escaped(fb_buf *b, const char *s);
/* Whether s holds a control character that fb_buf_append_escaped would escape. */
bool fb_str_has_control(const char *s);

/* Parse a whole string as a double (no trailing junk, finite); 0 on success. */
int fb_parse_double(const char *s, double *out);
/* Parse a whole string as a signed 64-bit integer; 0 on success. */
int fb_parse_int64(const char *s, int64_t *out);
/* Write v into buf (len bytes) with the fewest significant digits that read back as the
 * same double ("0.85", not "0.84999999999999998"; "nan", "inf" as printf writes them);
 * returns buf. */
const char *fb_format_double(double v, char *buf, size_t len);
/* Case-insensitive ASCII comparison; returns 0 when equal. */
int fb_strcasecmp(const char *a, const char *b);
/* strerror(e) with its first letter in lower case (not an acronym's), as error sentences are
 * written; the text
 * lives in buf (len bytes) and buf is returned. */
const char *fb_strerror(int e, char *buf, size_t len);
/* Levenshtein edit distance between two short strings. */
size_t fb_edit_distance(const char *a, const char *b);
/* The edit distance from typed to name when name is near enough to suggest for a mistyped
 * typed (2 edits, 3 when typed is longer than 5 characters), else SIZE_MAX. */
size_t fb_suggest_distance(const char *typed, const char *name);

/* Random streams.  Each logical stream (graph, weights, noise, split, ...) has its own
 * generator derived from (seed, stream name), so that changing one part of an experiment
 * leaves the others' draws unchanged.  Same seed and name give the same sequence everywhere. */
gsl_rng *fb_rng_stream(uint64_t seed, const char *stream);
/* The start of an FNV-1a hash. */
#define FB_HASH_INIT 0xcbf29ce484222325ULL
/* FNV-1a over n bytes at p, going on from h. */
uint64_t fb_hash_bytes(uint64_t h, const void *p, size_t n);
/* Uniform integer in [0, n) from r (n >= 1). */
size_t fb_rng_index(gsl_rng *r, size_t n);
/* Shuffle the n entries of idx in place (Fisher-Yates, from r). */
void fb_rng_shuffle(gsl_rng *r, size_t *idx, size_t n);

/* In a child process just forked from parent (its getpid() taken before the fork): the child
 * is killed when the parent ends, and ends at once when the parent already has. */
void fb_child_tie(pid_t parent);

/* A file written atomically: writes go to a temporary file in the same folder, which
 * replaces the target only on commit.  An abandoned or failed write leaves nothing behind;
 * a program killed while writing leaves "TARGET.fedbn-tmp-PID-XXXXXX" beside the target (PID
 * the writer's process id), which the next write to the same target removes once no process
 * of that id is alive.  A
 * symbolic link is followed (its target is replaced, the link stays); a device, pipe or
 * socket is written in place; a folder or a link to nothing is refused. */
typedef struct fb_atomic_file {
	FILE *fp;     /* where to write */
	char *path;   /* the file written: path as given, or the end of its links (owned) */
	char *tmp;    /* the temporary path, or NULL when writing in place (owned) */
	char *name;   /* path as given, for messages (owned) */
} fb_atomic_file;

/* What a temporary file's name adds to its target's (then the writer's process id, '-' and
 * six random characters). */
#define FB_ATOMIC_TMP_SUFFIX ".fedbn-tmp-"

/* Open a temporary file beside path (or path itself, see above); FB_OK or FB_ERR with the
 * reason in err. */
int fb_atomic_open(fb_atomic_file *af, const char *path, fb_error *err);
/* Flush, close and rename over the target; on any failure removes the temporary file. */
int fb_atomic_commit(fb_atomic_file *af, fb_error *err);
/* Close and remove the temporary file without touching the target. */
void fb_atomic_abort(fb_atomic_file *af);

#endif
