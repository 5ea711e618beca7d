/* Running gnuplot: a child process that reads the plot's commands from a socket (so that a
 * gnuplot that dies early cannot kill us with SIGPIPE), its output and messages kept in
 * temporary files until it ends. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fedbn/core.h"
#include "fedbn/plot.h"

/* The program. */
#define GNUPLOT "gnuplot"

/* Whether gnuplot is an executable file in a folder of the PATH. */
bool fb_plot_available(void)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL;
	bool found = false;

	copy = fb_xstrdup(path != NULL ? path : "/usr/bin:/bin");
	for (dir = strtok_r(copy, ":", &save); dir != NULL && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		char *file = fb_xasprintf("%s/%s", dir[0] != '\0' ? dir : ".", GNUPLOT);
		struct stat st;

		found = stat(file, &st) == 0 && S_ISREG(st.st_mode) && access(file, X_OK) == 0;
		free(file);
	}
	free(copy);
	return found;
}

/* Append everything in fp (rewound first) to b. */
static void plot_slurp(FILE *fp, fb_buf *b)
{
	char chunk[4096];
	size_t n;

	rewind(fp);
	while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
		fb_buf_append(b, chunk, n);
}

/* In the child: commands from fd in, output to out, messages to msg; never returns. */
static void plot_exec(int in, FILE *out, FILE *msg)
{
	if (dup2(in, STDIN_FILENO) < 0 || dup2(fileno(out), STDOUT_FILENO) < 0 ||
	    dup2(fileno(msg), STDERR_FILENO) < 0)
		_exit(127);
	execlp(GNUPLOT, GNUPLOT, (char *)NULL);
	_exit(127);
}

/* Send all of script to fd, ignoring a peer that went away (its messages say why). */
static void plot_send(int fd, const fb_buf *script)
{
	size_t done = 0;

	while (done < script->len) {
		ssize_t w = send(fd, script->data + done, script->len - done, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		done += (size_t)w;
	}
}

/* Wait for pid; its exit status, or -1 when it did not exit normally. */
static int plot_wait(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The first line of gnuplot's messages that says what went wrong, trimmed, into why. */
static void plot_reason(const fb_buf *msg, char *why, size_t len)
{
	const char *s = msg->data != NULL ? msg->data : "";
	const char *line = strstr(s, "line ");
	const char *start = line != NULL ? line : s, *end;

	while (*start == ' ' || *start == '\n')
		start++;
	end = strchr(start, '\n');
	snprintf(why, len, "%.*s", (int)(end != NULL ? end - start : (long)strlen(start)), start);
	if (why[0] == '\0')
		snprintf(why, len, "it ended without saying why");
}

/* Run gnuplot on script; its standard output appended to text (may be NULL).  FB_ERR with
 * what gnuplot said. */
static int plot_run(const fb_buf *script, fb_buf *text, fb_error *err)
{
	FILE *out = tmpfile(), *msg = tmpfile();
	fb_buf said = { 0 };
	char why[300];
	int sv[2] = { -1, -1 }, status = -1;
	pid_t pid, parent = getpid();

	if (out == NULL || msg == NULL || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0 ||
	    (pid = fork()) < 0) {
		fb_fail(err, "cannot start gnuplot: %s", fb_strerror(errno, why, sizeof why));
		goto out;
	}
	if (pid == 0) {
		fb_child_tie(parent); /* gnuplot ends with fedbn */
		close(sv[0]);
		plot_exec(sv[1], out, msg);
	}
	close(sv[1]);
	sv[1] = -1;
	plot_send(sv[0], script);
	close(sv[0]);
	sv[0] = -1;
	status = plot_wait(pid);
	plot_slurp(msg, &said);
	if (status == 127)
		fb_fail(err, GNUPLOT " could not be started: install the Debian package "
		             FB_PLOT_PACKAGE " (apt-get install " FB_PLOT_PACKAGE ")");
	else if (status != 0) {
		plot_reason(&said, why, sizeof why);
		fb_fail(err, GNUPLOT " failed: %s", why);
		status = -1;
	} else if (text != NULL)
		plot_slurp(out, text);
out:
	for (int i = 0; i < 2; i++)
		if (sv[i] >= 0)
			close(sv[i]);
	if (out != NULL)
		fclose(out);
	if (msg != NULL)
		fclose(msg);
	fb_buf_release(&said);
	return status == 0 ? FB_OK : FB_ERR;
}

/* Check what gnuplot cannot be asked: nothing to draw, x or y <= 0 on a logarithmic axis. */
static int plot_check(const fb_plot *p, fb_error *err)
{
	size_t points = 0;

	for (size_t s = 0; s < p->nseries; s++) {
		for (size_t i = 0; i < p->series[s].n; i++) {
			if (p->logx && !(p->series[s].x[i] > 0))
				return fb_fail(err, "a logarithmic x axis needs x > 0, and '%s' has x = %g",
				               p->series[s].label, p->series[s].x[i]);
			if (p->logy && !(p->series[s].y[i] > 0))
				return fb_fail(err, "a logarithmic y axis needs y > 0, and '%s' has y = %g",
				               p->series[s].label, p->series[s].y[i]);
			if (!isfinite(p->series[s].x[i]) || !isfinite(p->series[s].y[i]))
				return fb_fail(err, "'%s' has a point that is not a finite number",
				               p->series[s].label);
		}
		points += p->series[s].n;
	}
	return points > 0 ? FB_OK : fb_fail(err, "nothing to draw: no point has a number");
}

/* Refuse a file name with a control character: gnuplot would get it intact, but a name with a
 * line end is never what was meant, and a script or a message would break it in two. */
static int plot_check_path(const char *path, fb_error *err)
{
	for (const unsigned char *c = (const unsigned char *)path; *c != '\0'; c++)
		if (*c < 32 || *c == 127)
			return fb_fail(err, "the plot's file name holds a control character (byte 0x%02X "
			               "at position %zu): choose a name without line ends or tabs", *c,
			               (size_t)(c - (const unsigned char *)path) + 1);
	return FB_OK;
}

/* Whether the end of the file fp is that of a whole PNG (its IEND chunk)
 * or SVG (its closing tag, then blanks). */
static bool plot_tail_ok(FILE *fp, enum fb_plot_format format)
{
	static const unsigned char iend[12] = { 0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xAE, 0x42,
		                                0x60, 0x82 };
	char tail[64];
	size_t n;

	if (fseek(fp, -(long)sizeof tail, SEEK_END) != 0)
		rewind(fp);
	n = fread(tail, 1, sizeof tail, fp);
	if (format == FB_PLOT_PNG)
		return n >= sizeof iend && memcmp(tail + n - sizeof iend, iend, sizeof iend) == 0;
	while (n > 0 && (tail[n - 1] == '\n' || tail[n - 1] == '\r' || tail[n - 1] == ' '))
		n--;
	return n >= 6 && memcmp(tail + n - 6, "</svg>", 6) == 0;
}

/* Check that gnuplot wrote a whole file at path (it ends with status 0 when a write fails, on
 * a full disk say): a PNG's signature and last chunk, an SVG's start and closing tag. */
static int plot_check_output(const char *path, const char *name, enum fb_plot_format format,
                             fb_error *err)
{
	static const unsigned char png[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n' };
	FILE *fp = fopen(path, "rb");
	char head[8];
	bool ok;

	if (fp == NULL)
		return fb_fail(err, GNUPLOT " wrote no file for '%s'", name);
	ok = fread(head, 1, sizeof head, fp) == sizeof head;
	if (ok && format == FB_PLOT_PNG)
		ok = memcmp(head, png, sizeof png) == 0;
	else if (ok)
		ok = memcmp(head, "<?xml", 5) == 0 || memcmp(head, "<svg", 4) == 0;
	ok = ok && plot_tail_ok(fp, format);
	fclose(fp);
	return ok ? FB_OK
	          : fb_fail(err, GNUPLOT " did not write all of '%s' (is the disk full?); the "
	                         "file is left as it was", name);
}

/* Draw p into a temporary file, check it, and copy it into af's file, which is written in
 * place (a device, a pipe): gnuplot's own writes there fail without a word. */
static int plot_draw_in_place(const fb_plot *p, fb_atomic_file *af, const char *path,
                              fb_error *err)
{
	const char *dir = getenv("TMPDIR");
	char *tmp = fb_xasprintf("%s/fedbn-plot-XXXXXX", dir != NULL && dir[0] != '\0' ? dir : "/tmp");
	fb_buf script = { 0 }, bytes = { 0 };
	int fd = mkstemp(tmp), ret = FB_ERR;
	FILE *fp;

	if (fd < 0) {
		char why[128];

		fb_fail(err, "cannot make a temporary file for the plot: %s",
		        fb_strerror(errno, why, sizeof why));
		free(tmp);
		return FB_ERR;
	}
	close(fd);
	fb_plot_script(p, tmp, &script);
	if (plot_run(&script, NULL, err) == FB_OK &&
	    plot_check_output(tmp, path, p->format, err) == FB_OK && (fp = fopen(tmp, "rb")) != NULL) {
		plot_slurp(fp, &bytes);
		fclose(fp);
		fwrite(bytes.data, 1, bytes.len, af->fp); /* a failure shows at the commit */
		ret = fb_atomic_commit(af, err);
	} else {
		fb_atomic_abort(af);
	}
	unlink(tmp);
	free(tmp);
	fb_buf_release(&script);
	fb_buf_release(&bytes);
	return ret;
}

/* Draw p into path or text. */
int fb_plot_draw(const fb_plot *p, const char *path, fb_buf *text, fb_error *err)
{
	fb_atomic_file af;
	fb_buf script = { 0 };
	int ret;

	if (!fb_plot_available())
		return fb_fail(err, GNUPLOT " was not found on the PATH: install the Debian package "
		                    FB_PLOT_PACKAGE " (apt-get install " FB_PLOT_PACKAGE ")");
	if (plot_check(p, err) != FB_OK)
		return FB_ERR;
	if (p->format == FB_PLOT_TEXT) {
		fb_plot_script(p, NULL, &script);
		ret = plot_run(&script, text, err);
		fb_buf_release(&script);
		return ret;
	}
	if (plot_check_path(path, err) != FB_OK || fb_atomic_open(&af, path, err) != FB_OK)
		return FB_ERR;
	if (af.tmp == NULL)
		return plot_draw_in_place(p, &af, path, err);
	fb_plot_script(p, af.tmp != NULL ? af.tmp : af.path, &script);
	ret = plot_run(&script, NULL, err);
	fb_buf_release(&script);
	if (ret == FB_OK)
		ret = plot_check_output(af.tmp, path, p->format, err);
	if (ret != FB_OK) {
		fb_atomic_abort(&af);
		return FB_ERR;
	}
	return fb_atomic_commit(&af, err);
}
