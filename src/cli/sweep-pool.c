/* The sweep's processes: each cell is a forked child that runs the script in a fresh session
 * with its output thrown away, scores the newest run as 'result' does, and writes its
 * record to a pipe; the parent keeps at most 'jobs' children alive and reads each record
 * when its child has ended. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fedbn/algo.h"
#include "fedbn/circuit.h"
#include "fedbn/core.h"
#include "interrupt.h"
#include "session.h"
#include "sweep.h"

/* Where some figures sit in the row. */
enum { FIG_ROUNDS = 11, FIG_TRAIN_LL = 16, FIG_ACCURACY = 18, FIG_NODES = 20 };

/* Set in a cell's process. */
static bool in_cell;

/* Whether this process is a cell. */
bool fb_sweep_in_cell(void)
{
	return in_cell;
}

/* One running child. */
typedef struct sweep_slot {
	pid_t pid;    /* the child, 0 when the slot is free */
	int fd;       /* the read end of its pipe */
	size_t cell;  /* its cell */
	double start; /* when it started (fb_clock_now) */
	bool late;    /* killed for running past the job's cell_timeout */
} sweep_slot;

/* How long the pool sleeps between looks at its children when cells have a deadline. */
#define POOL_POLL_NS 20000000L

/* The first error line of the captured messages, without its "error: " word, into rec. */
static void cell_error_text(const char *msgs, fb_sweep_record *rec)
{
	const char *e = msgs != NULL ? strstr(msgs, "error: ") : NULL;
	const char *start, *end;

	if (e == NULL) {
		snprintf(rec->error, sizeof rec->error, "the script failed without a message");
		return;
	}
	start = e;
	while (start > msgs && start[-1] != '\n')
		start--;
	end = strchr(e, '\n');
	snprintf(rec->error, sizeof rec->error, "%.*s%.*s", (int)(e - start), start,
	         (int)(end != NULL ? end - e - 7 : (long)strlen(e) - 7), e + 7);
}

/* The mean of ll, or NAN when the part has no rows. */
static double cell_ll(const fb_loglik *ll)
{
	return ll->n > 0 ? fb_loglik_mean(ll) : NAN;
}

/* The column of ds that label= names, when it is a discrete variable; else -1 with the
 * reason in err, naming the discrete variables label= may name (every cell's run checks it,
 * a graph learner's too, so that a mistyped name is never passed over). */
static int cell_label(const fb_dataset *ds, const char *label, fb_error *err)
{
	int j = ds != NULL ? fb_dataset_find(ds, label) : -1;
	fb_buf names = { 0 };

	if (j >= 0 && ds->vars[j].kind == FB_DISCRETE)
		return j;
	for (size_t k = 0; ds != NULL && k < ds->d; k++)
		if (ds->vars[k].kind == FB_DISCRETE)
			fb_buf_printf(&names, "%s%s", names.len > 0 ? ", " : "", ds->vars[k].name);
	if (j < 0)
		fb_fail(err, "label: the data have no variable '%s' to classify; %s%s", label,
		        names.len > 0 ? "label= takes one of " : "they have no discrete one",
		        names.len > 0 ? names.data : "");
	else
		fb_fail(err, "label: '%s' is continuous; accuracy needs a discrete one (%s%s)",
		        label, names.len > 0 ? "one of " : "the data have none",
		        names.len > 0 ? names.data : "");
	fb_buf_release(&names);
	return -1;
}

/* The accuracy and F1 of classifying label with a circuit run's circuit into v[0..1];
 * FB_ERR with the reason. */
static int cell_classify(const fb_run *run, const char *label, double *v, fb_error *err)
{
	const fb_dataset *ds = run->whole;
	const fb_circuit *c = fb_run_circuit(run, err);
	int j;
	size_t n, *cm;
	bool all;

	if (c == NULL || (j = cell_label(ds, label, err)) < 0)
		return FB_ERR;
	if ((cm = fb_circuit_confusion(c, ds, (size_t)j, &n, &all, err)) == NULL)
		return FB_ERR;
	fb_confusion_scores(cm, ds->vars[j].nlevels, n, fb_class_positive(ds, (size_t)j), &v[0],
	                    &v[1]);
	free(cm);
	return FB_OK;
}

/* A circuit run's figures into v: train and test log-likelihood, accuracy and F1 of label
 * (when given), nodes, parameters and the circuit's bytes; FB_ERR with the reason. */
static int cell_circuit(const fb_run *run, const char *label, double *v, fb_error *err)
{
	fb_circuit_report rep;

	if (fb_run_circuit_report(run, &rep, err) != FB_OK)
		return FB_ERR;
	v[FIG_TRAIN_LL] = cell_ll(&rep.ll[FB_PART_TRAIN]);
	v[FIG_TRAIN_LL + 1] = cell_ll(&rep.ll[FB_PART_TEST]);
	v[FIG_NODES] = (double)rep.stats.nodes;
	v[FIG_NODES + 1] = (double)rep.stats.params;
	v[FIG_NODES + 2] = (double)rep.stats.bytes;
	return label != NULL ? cell_classify(run, label, v + FIG_ACCURACY, err) : FB_OK;
}

/* Fill rec's figures from the cell's newest run: a graph's accuracy against the truth, a
 * circuit's figures, and every run's rounds, time and bytes. */
static void cell_score(const fb_run *run, double wall, const char *label,
                       fb_sweep_record *rec)
{
	size_t up = fb_run_bytes(run, FB_UP), down = fb_run_bytes(run, FB_DOWN);
	double v[FB_SWEEP_NFIGS];
	bool scored = false;
	fb_error err = { { 0 } };
	fb_score s;

	for (size_t f = 0; f < FB_SWEEP_NFIGS; f++)
		v[f] = NAN;
	if (fb_run_is_circuit(run) ? cell_circuit(run, label, v, &err) != FB_OK
	                           : label != NULL && cell_label(run->whole, label, &err) < 0) {
		rec->failed = true;
		snprintf(rec->error, sizeof rec->error, "%s", err.msg);
		return;
	}
	if (!fb_run_is_circuit(run) && run->truth != NULL && fb_run_score(run, &s, &err) == FB_OK) {
		double sv[] = { s.shd, s.shd_dag, s.shd_cpdag, s.extra, s.missing, s.reversed,
			        s.tpr, s.fdr, s.precision, s.f1, s.nnz };

		memcpy(v, sv, sizeof sv);
		scored = true;
	}
	v[FIG_ROUNDS] = (double)fb_run_rounds(run);
	v[FIG_ROUNDS + 1] = run->seconds;
	v[FIG_ROUNDS + 2] = (double)up;
	v[FIG_ROUNDS + 3] = (double)down;
	v[FIG_ROUNDS + 4] = (double)(up + down);
	v[FB_SWEEP_NFIGS - 1] = wall;
	for (size_t f = 0; f < FB_SWEEP_NFIGS; f++) /* a graph's scores as they are */
		if (!isnan(v[f]) || (scored && f < FIG_ROUNDS))
			fb_format_double(v[f], rec->fig[f], sizeof rec->fig[f]);
}

/* Run the script of cell in a fresh session; fills rec. */
static void cell_run(fb_cmd_ctx *parent, const fb_sweep_job *job, size_t cell,
                     fb_sweep_record *rec)
{
	fb_session s;
	char *msgs = NULL, *text = fb_grid_expand(job->grid, cell, job->script);
	size_t mlen = 0;
	FILE *null = fopen("/dev/null", "w"), *err = open_memstream(&msgs, &mlen);
	FILE *in = fmemopen(text, strlen(text), "r");
	fb_cmd_ctx c = { .s = &s, .out = null, .err = err, .bail = true,
		         .depth = parent->depth + 1 };
	double t0 = fb_clock_now();
	int ret;

	if (null == NULL || err == NULL || in == NULL)
		_exit(126);
	fb_session_init(&s);
	ret = fb_cmd_run_stream(&c, in, job->source);
	fflush(err);
	if (ret == FB_CMD_ERROR) { /* quit ends a cell's script as it ends a script */
		rec->failed = true;
		cell_error_text(msgs, rec);
	} else if (fb_session_last_run(&s) == NULL) {
		rec->failed = true;
		snprintf(rec->error, sizeof rec->error, "the script made no run");
	} else {
		cell_score(fb_session_last_run(&s), fb_clock_now() - t0, job->label, rec);
	}
}

/* Write all of len bytes at p to fd. */
static void write_all(int fd, const void *p, size_t len)
{
	const char *c = p;

	while (len > 0) {
		ssize_t w = write(fd, c, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		c += w;
		len -= (size_t)w;
	}
}

/* Start cell in a child writing its record to a pipe; FB_ERR when it could not start. */
static int cell_start(fb_cmd_ctx *ctx, const fb_sweep_job *job, size_t cell, sweep_slot *slot)
{
	int fds[2];
	pid_t pid, parent = getpid();

	fflush(NULL);
	if (pipe(fds) != 0)
		return FB_ERR;
	if ((pid = fork()) < 0) {
		close(fds[0]);
		close(fds[1]);
		return FB_ERR;
	}
	if (pid == 0) {
		fb_sweep_record rec;

		memset(&rec, 0, sizeof rec);
		fb_child_tie(parent); /* a cell ends with the sweep */
		setpgid(0, 0); /* out of the terminal's reach: Ctrl-C is the parent's to handle */
		close(fds[0]);
		in_cell = true;
		cell_run(ctx, job, cell, &rec);
		write_all(fds[1], &rec, sizeof rec);
		_exit(0);
	}
	close(fds[1]);
	*slot = (sweep_slot){ .pid = pid, .fd = fds[0], .cell = cell, .start = fb_clock_now() };
	return FB_OK;
}

/* Read the record of a child that ended with status st (none from one killed for running
 * past timeout seconds). */
static void cell_collect(sweep_slot *slot, int st, double timeout, fb_sweep_record *rec)
{
	size_t got = 0;

	memset(rec, 0, sizeof *rec);
	if (slot->late) {
		close(slot->fd);
		rec->failed = true;
		snprintf(rec->error, sizeof rec->error, "the cell ran past cell_timeout=%g seconds "
		         "and was stopped", timeout);
		return;
	}
	while (got < sizeof *rec) {
		ssize_t r = read(slot->fd, (char *)rec + got, sizeof *rec - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(slot->fd);
	if (got == sizeof *rec && WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return;
	memset(rec, 0, sizeof *rec);
	rec->failed = true;
	if (WIFSIGNALED(st))
		snprintf(rec->error, sizeof rec->error, "the cell's process ended on signal %d (%s)",
		         WTERMSIG(st), strsignal(WTERMSIG(st)));
	else
		snprintf(rec->error, sizeof rec->error, "the cell's process ended with status %d "
		         "before giving its result", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/* Kill every running child and wait for it. */
static void cell_kill_all(sweep_slot *slots, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (slots[i].pid == 0)
			continue;
		kill(slots[i].pid, SIGKILL);
		while (waitpid(slots[i].pid, NULL, 0) < 0 && errno == EINTR)
			;
		close(slots[i].fd);
		slots[i].pid = 0;
	}
}

/* Kill, with everything it started, each child that has run past the job's deadline. */
static void pool_expire(const fb_sweep_job *job, sweep_slot *slots)
{
	double now = fb_clock_now();

	for (size_t i = 0; i < job->jobs; i++) {
		if (slots[i].pid == 0 || slots[i].late || now - slots[i].start <= job->cell_timeout)
			continue;
		kill(-slots[i].pid, SIGKILL); /* the cell's process group: its helpers too */
		kill(slots[i].pid, SIGKILL);
		slots[i].late = true;
	}
}

/* Wait for a child to end, as waitpid(-1, st, 0); with a cell deadline, look every
 * POOL_POLL_NS and kill the children past it.  -1 with errno EINTR at Ctrl-C. */
static pid_t pool_wait(const fb_sweep_job *job, sweep_slot *slots, int *st)
{
	const struct timespec nap = { 0, POOL_POLL_NS };
	pid_t pid;

	if (!(job->cell_timeout > 0))
		return waitpid(-1, st, 0);
	while ((pid = waitpid(-1, st, WNOHANG)) == 0) {
		if (fb_interrupted()) {
			errno = EINTR;
			return -1;
		}
		pool_expire(job, slots);
		nanosleep(&nap, NULL);
	}
	return pid;
}

/* The slot of pid, or NULL. */
static sweep_slot *slot_of(sweep_slot *slots, size_t n, pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (slots[i].pid == pid)
			return &slots[i];
	return NULL;
}

/* Fill free slots with the next cells; FB_ERR when a process could not start. */
static int pool_fill(fb_cmd_ctx *ctx, const fb_sweep_job *job, sweep_slot *slots,
                     size_t *next, size_t *running)
{
	for (size_t i = 0; i < job->jobs && *next < job->ncells && !fb_interrupted(); i++) {
		if (slots[i].pid != 0)
			continue;
		if (cell_start(ctx, job, job->cells[*next], &slots[i]) != FB_OK)
			return FB_ERR;
		(*next)++;
		(*running)++;
	}
	return FB_OK;
}

/* Run the cells. */
size_t fb_sweep_run(fb_cmd_ctx *ctx, const fb_sweep_job *job, bool *interrupted)
{
	sweep_slot *slots = fb_xcalloc(job->jobs, sizeof *slots);
	size_t next = 0, running = 0, ended = 0;
	fb_sweep_record rec;

	fb_interrupt_begin();
	while (!fb_interrupted()) {
		int st;
		pid_t pid;
		sweep_slot *slot;

		if (pool_fill(ctx, job, slots, &next, &running) != FB_OK && running == 0) {
			char why[128];

			fb_cmd_warn(ctx, "sweep: cannot start a process: %s",
			            fb_strerror(errno, why, sizeof why));
			break;
		}
		if (running == 0)
			break;
		if ((pid = pool_wait(job, slots, &st)) < 0 && errno == ECHILD)
			break;
		if (pid < 0 || (slot = slot_of(slots, job->jobs, pid)) == NULL)
			continue;
		cell_collect(slot, st, job->cell_timeout, &rec);
		slot->pid = 0;
		slot->late = false;
		running--;
		if (fb_interrupted()) /* a cell cut short by the same Ctrl-C is not a result */
			break;
		ended++;
		job->done(job->ctx, slot->cell, &rec);
	}
	*interrupted = fb_interrupted();
	cell_kill_all(slots, job->jobs);
	fb_interrupt_end();
	free(slots);
	return ended;
}
