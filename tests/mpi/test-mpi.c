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

/* secure=yes over MPI: each algorithm that takes it gives the in-process secure run. */
static void compare_secure_all(const fb_dataset *ds, const fb_partition *local,
                               const fb_dataset *schema, const fb_partition *remote)
{
	static const char *const names[] = { "as-feddag-linear", "notears-admm", "gs-feddag",
	                                     "avg:notears", "voting:pc", "fedpc",
	                                     "fedpc-simple1" };
	double share;

	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		compare_secure(names[i], small_words(names[i], 0, &share), ds, local, schema, remote);
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

/* Start, split, and play this rank's part. */
int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "equal";
	bool partial = strcmp(mode, "die-partial") == 0;
	bool die = partial || strcmp(mode, "die") == 0;
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
	ds = make_data(&truth);
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
