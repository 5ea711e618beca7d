/* Runs under mpirun (rank 0 the server, ranks 1..K the clients).  Every rank simulates the
 * same data and cuts it into the same K contiguous blocks; client k serves its own block.
 *   test-mpi equal: rank 0 runs every federated algorithm (and each combinator over the
 *     fast local learners) both in-process on the blocks and over MPI, and checks that the
 *     traces, the results and the client results agree bit for bit, and that every ledger
 *     entry over MPI is the in-process one plus the frame header plus 8 bytes per control
 *     number (the bytes that crossed MPI), with one more entry, a bare header, for each
 *     client that ran its half undrawn and sent its figure alone; an algorithm not marked
 *     MPI-ready must be refused over MPI with a sentence.  The nonlinear ones run again
 *     with partial participation and dropped replies, and the FedPC family with background
 *     knowledge, which each client rebuilds from the opening of the run.
 *   test-mpi vertical | hybrid: the blocks are the vertical (hybrid) split's; each client
 *     adds a key column "id" to its block, shuffles its rows, and serves them matched by the
 *     key; rank 0 checks the federation's kind and runs fedcircuit and fedcircuit-em over
 *     MPI against the same split in-process (hybrid: the split the sites' files make
 *     in-process, whose variables come in the sites' order), as for equal; the circuits'
 *     log-likelihoods, evaluated by the sites in a last round, are the in-process ones bit
 *     for bit (equal and vertical; hybrid: none is claimed over MPI).
 *   test-mpi discrete PIDFILE: the data cut into levels; rank 0 runs fedc2sl (every client,
 *     then some dropping out) and fedc2sl with secure=yes, without and with dp_epsilon=,
 *     over MPI against the same runs in-process, as for equal; then, with secure=yes, kills client 2 (whose pid it wrote
 *     to PIDFILE) as the last round with a sum goes out: its peers' vectors are masked
 *     against its, it sends none, the survivors' shares remove its masks, and that round's
 *     sum is the in-process one less client 2's own tables, bit for bit, every round before
 *     it the in-process one, and the run finishes without client 2.
 *   test-mpi die: client 2 builds the run and then dies; rank 0 checks that the next round
 *     fails well before the deadline (the link sees the process end on this machine) with
 *     one sentence naming client 2 as ended.
 *   test-mpi die-partial: the same death under gs-feddag drawing 2 of 4 clients a round:
 *     the run goes on without client 2, says so once, and finishes.
 *   test-mpi sanitized: exit status 0 when built with a sanitizer (MPI is not started).
 * Prints "ok ..." or "FAIL ..." lines; exit status 0 when every check held. */
#include "config.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "fedbn/fedmpi.h"
#include "fedbn/serve.h"
#include "fedbn/sites.h"

/* Checks that failed. */
static int failures;

/* Report one check. */
void check(bool ok, const char *what, const char *name)
{
	if (!ok)
		failures++;
	printf("%s %s: %s\n", ok ? "ok" : "FAIL", name, what);
}

/* Every federated learner, every combinator over every local learner, and the FedPC family
 * with knowledge. */
static void compare_all(const fb_dataset *ds, const fb_partition *local,
                        const fb_dataset *schema, const fb_partition *remote,
                        const fb_graph *truth)
{
	/* the fast local learners (the slow ones run the same combinator code) */
	static const char *const learners[] = { "notears", "pc", "ges", "circuit" };

	for (size_t i = 0; fb_algo_table[i] != NULL; i++) {
		const fb_algo *a = fb_algo_table[i];

		if (!(a->accepts & FB_ACCEPTS_SPLITS))
			continue;
		double share;

		if (!(a->flags & FB_ALGO_COMBINATOR)) {
			compare(a->name, 0, ds, local, schema, remote, truth);
			if (small_words(a->name, 1, &share) != NULL)
				compare(a->name, 1, ds, local, schema, remote, truth);
			continue;
		}
		for (size_t j = 0; j < sizeof learners / sizeof *learners; j++) {
			char *name = fb_xasprintf("%s:%s", a->name, learners[j]);

			compare(name, 0, ds, local, schema, remote, truth);
			free(name);
		}
	}
	compare_knowledge_family(ds, local, schema, remote, truth);
}

/* secure=yes over MPI: each algorithm that takes it gives the in-process secure run, and
 * fedpc with dp_epsilon= its noisy one. */
static void compare_secure_all(const fb_dataset *ds, const fb_partition *local,
                               const fb_dataset *schema, const fb_partition *remote)
{
	static const char *const names[] = { "as-feddag-linear", "notears-admm", "gs-feddag",
	                                     "avg:notears", "voting:pc", "fedpc",
	                                     "fedpc-simple1" };
	double share;

	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		compare_secure(names[i], small_words(names[i], 0, &share), ds, local, schema, remote);
	compare_secure_dp("fedpc", NULL, 50, 2, ds, local, schema, remote);
}

/* The rounds of run a and b before round r (from 0) agree figure for figure. */
static bool same_rounds_before(const fb_run *a, const fb_run *b, size_t r)
{
	if (a->trace.n < r || b->trace.n < r)
		return false;
	for (size_t i = 0; i < r; i++)
		if (memcmp(a->trace.r[i].fig, b->trace.r[i].fig, a->trace.nfig * sizeof(double)))
			return false;
	return true;
}

/* Whether the sum b kept of round r is the sum a kept less client c's own vector, bit for
 * bit (a: in the clear, its messages kept). */
static bool sum_less_client(const fb_run *a, const fb_run *b, size_t r, size_t c)
{
	const fb_trace_rec *x = &a->trace.r[r], *y = &b->trace.r[r];
	bool ok = x->sum != NULL && y->sum != NULL && x->msgs_kept && x->nsum == y->nsum &&
	          x->up[c].nd == x->nsum && y->sum_count + 1 == x->sum_count;

	for (size_t q = 0; ok && q < x->nsum; q++) {
		double want = x->sum[q] - x->up[c].d[q];

		ok = memcmp(&want, &y->sum[q], sizeof want) == 0;
	}
	return ok;
}

/* fedc2sl with secure=yes over MPI, client 2 killed (its pid read from pidfile) as the last
 * round with a sum goes out: that round's masks come off by the survivors' shares, its sum is
 * the in-process one less client 2's tables, the rounds before are the in-process ones, and
 * the run finishes without client 2. */
static void c2_lost(const fb_dataset *ds, const fb_partition *local, const fb_dataset *schema,
                    const fb_partition *remote, const char *pidfile)
{
	fb_fed_options o;
	fb_params p;
	fb_error err = { { 0 } };
	fb_run *a, *b;
	FILE *fp = fopen(pidfile, "r");
	long pid = 0;
	size_t r = 0, recovered = 0;
	int ret = FB_OK;

	check(fp != NULL && fscanf(fp, "%ld", &pid) == 1 && pid > 0, "client 2's pid", pidfile);
	if (fp != NULL)
		fclose(fp);
	fb_fed_options_init(&o);
	params_of("fedc2sl", "depth=2", &p);
	a = fb_run_alloc(&(fb_run_spec){ .algo = "fedc2sl", .params = &p, .fedopt = &o,
	                                 .data = ds, .part = local }, &err);
	if (a == NULL || finish(a, &err) != FB_OK || pid <= 0) {
		check(false, err.msg, "fedc2sl (client 2 lost)");
		fb_run_free(a);
		fb_params_release(&p);
		return;
	}
	for (size_t i = 0; i < a->trace.n; i++)
		if (a->trace.r[i].sum != NULL)
			r = i; /* the last round with a sum */
	o.secure = true;
	b = fb_run_alloc(&(fb_run_spec){ .algo = "fedc2sl", .params = &p, .fedopt = &o,
	                                 .data = schema, .part = remote }, &err);
	fb_params_release(&p);
	for (size_t i = 0; b != NULL && ret == FB_OK && !fb_run_done(b); i++) {
		if (i == r)
			kill((pid_t)pid, SIGKILL);
		if ((ret = fb_run_step(b, &err)) == FB_OK)
			recovered += fb_run_last(b)->say != NULL &&
			             strstr(fb_run_last(b)->say, "masks of the lost clients removed");
	}
	check(b != NULL && ret == FB_OK && fb_run_done(b), b != NULL && ret != FB_OK ? err.msg
	      : "the run finishes without client 2", "fedc2sl (client 2 lost)");
	if (b != NULL && ret == FB_OK) {
		check(recovered == 1 && fb_fed_gone(b->fed, 1),
		      "its masks removed by the survivors' shares, once", "fedc2sl (client 2 lost)");
		check(same_rounds_before(a, b, r), "the rounds before it the in-process ones",
		      "fedc2sl (client 2 lost)");
		check(sum_less_client(a, b, r, 1), "the round's sum the in-process one less client "
		      "2's tables, bit for bit", "fedc2sl (client 2 lost)");
	}
	fb_run_free(a);
	fb_run_free(b);
}

/* The discrete learner over MPI: fedc2sl as compare checks it (every client, then some
 * dropping out), with secure=yes, then client 2 lost mid-run (c2_lost). */
static void compare_discrete(const fb_dataset *ds, const fb_partition *local,
                             const fb_dataset *schema, const fb_partition *remote,
                             const fb_graph *truth, const char *pidfile)
{
	double share;

	compare("fedc2sl", 0, ds, local, schema, remote, truth);
	compare("fedc2sl", 1, ds, local, schema, remote, truth);
	compare_secure("fedc2sl", small_words("fedc2sl", 0, &share), ds, local, schema, remote);
	compare_secure_dp("fedc2sl", small_words("fedc2sl", 0, &share), 50, 2, ds, local, schema,
	                  remote);
	c2_lost(ds, local, schema, remote, pidfile);
}

/* The in-process split the K sites' keyed files make (hybrid: variables in the sites'
 * order) and its variables into *schema. */
static fb_partition *sites_split(const fb_partition *p, fb_dataset **schema)
{
	fb_dataset **sites = fb_xcalloc(p->k, sizeof *sites);
	fb_site_keys *keys = fb_xcalloc(p->k, sizeof *keys);
	char **names = fb_xcalloc(p->k, sizeof *names);
	fb_partition *q;
	fb_error err;

	for (size_t c = 0; c < p->k; c++) {
		sites[c] = site_keyed(p, c, &keys[c]);
		names[c] = fb_xasprintf("block %zu", c + 1);
	}
	q = fb_sites_partition((const fb_dataset *const *)sites, NULL, keys, names, p->k, schema,
	                       &err);
	for (size_t c = 0; c < p->k; c++) {
		fb_dataset_free(sites[c]);
		free(names[c]);
	}
	free(sites);
	free(keys);
	free(names);
	return q;
}

/* The keyed federations: their kind, then the circuit learners over MPI against the same
 * split in-process. */
static void compare_keyed(enum fb_split_kind kind, const fb_dataset *ds,
                          const fb_partition *local, const fb_dataset *schema,
                          const fb_partition *remote)
{
	static const char *const names[] = { "fedcircuit", "fedcircuit-em" };
	fb_dataset *ref_schema = NULL;
	fb_partition *ref = kind == FB_SPLIT_HYBRID ? sites_split(local, &ref_schema) : NULL;
	const fb_dataset *data = ref != NULL ? ref_schema : ds;
	size_t held = 0; /* rows the sites hold: a hybrid's rows at several sites count at each */

	for (size_t c = 0; c < local->k; c++)
		held += local->clients[c].data->n;
	check(remote->kind == kind && remote->d == ds->d &&
	      remote->n == (kind == FB_SPLIT_VERTICAL ? local->n : held),
	      "the sites' keys and variables make the federation's kind", remote->desc);
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		if (kind == FB_SPLIT_HYBRID && i == 1) {
			refused_em(schema, remote);
			continue;
		}
		compare(names[i], 0, data, ref != NULL ? ref : local, schema, remote, NULL);
	}
	fb_partition_free(ref);
	fb_dataset_free(ref_schema);
}

/* Write this process's id to path (client 2 of "discrete", which rank 0 kills). */
static void write_pid(const char *path)
{
	FILE *fp = fopen(path, "w");

	if (fp != NULL) {
		fprintf(fp, "%ld\n", (long)getpid());
		fclose(fp);
	}
}

/* Start, split, and play this rank's part. */
int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "equal";
	bool partial = strcmp(mode, "die-partial") == 0;
	bool die = partial || strcmp(mode, "die") == 0;
	bool discrete = strcmp(mode, "discrete") == 0;
	const char *pidfile = discrete && argc > 2 ? argv[2] : "test-mpi.pid";
	enum fb_split_kind kind = strcmp(mode, "vertical") == 0 ? FB_SPLIT_VERTICAL
	                          : strcmp(mode, "hybrid") == 0 ? FB_SPLIT_HYBRID
	                                                        : FB_SPLIT_HORIZONTAL;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_UNDEFINED__)
	bool sanitized = true;
#elif defined(__has_feature)
	bool sanitized = __has_feature(address_sanitizer) != 0;
#else
	bool sanitized = false;
#endif
	fb_proto_options o;
	fb_proto *study;
	fb_link *link;
	fb_error err;
	fb_graph *truth;
	fb_dataset *ds, *schema = NULL;
	fb_partition *local, *remote;
	int ret = 0;

	if (argc > 1 && strcmp(argv[1], "sanitized") == 0)
		return sanitized ? 0 : 1;
	ds = discrete ? make_discrete(&truth) : make_data(&truth);
	fb_proto_options_init(&o);
	o.timeout = die ? 10 : 60; /* die: the deadline well above the link's look */
	if ((link = fb_link_mpi_start(&err)) == NULL || link->size < 3) {
		fprintf(stderr, "test-mpi: needs an MPI job of at least 3 processes\n");
		return 1;
	}
	link_sees_ends = true; /* every rank on this machine */
	study = fb_proto_new(link, &o);
	local = blocks(ds, (size_t)link->size - 1, kind);
	if (link->rank > 0) {
		if (discrete && link->rank == 2)
			write_pid(pidfile);
		ret = serve_block(study, local, die, kind != FB_SPLIT_HORIZONTAL);
	} else if ((remote = fb_proto_connect(study, &schema, &err)) == NULL) {
		check(false, err.msg, "connect");
	} else {
		if (partial)
			server_die_partial(schema, remote, o.timeout);
		else if (die)
			server_die(schema, remote, o.timeout);
		else if (strcmp(mode, "secure") == 0)
			compare_secure_all(ds, local, schema, remote);
		else if (discrete)
			compare_discrete(ds, local, schema, remote, truth, pidfile);
		else if (kind != FB_SPLIT_HORIZONTAL)
			compare_keyed(kind, ds, local, schema, remote);
		else
			compare_all(ds, local, schema, remote, truth);
		fb_partition_free(remote);
		ret = failures > 0;
		printf("%s: %d failed\n", mode, failures);
		fflush(stdout);
	}
	fb_partition_free(local);
	fb_dataset_free(schema);
	fb_dataset_free(ds);
	fb_graph_free(truth);
	fb_proto_end(study);
	return ret;
}
