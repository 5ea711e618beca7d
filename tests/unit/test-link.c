/* Tests of the protocol over a second link: K client processes forked from the test, each
 * joined to it by a socket pair, run the same protocol code as over MPI.  notears-admm,
 * fedpc, gs-feddag (every client, then some drawn and replies dropped) and fedcircuit give
 * the in-process rounds, figures and results bit for bit, and a ledger that is the
 * in-process one plus the frames' headers and control numbers; fedpc, fedpc-simple1 and
 * fedpc-simple2 with background knowledge too, each client rebuilding it; a client that dies
 * once its run is built is named at the deadline in the sentence MPI gives, or, where the
 * algorithm draws some clients a round, left out while the run goes on; a frame of every size
 * comes through the link whole. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../mpi/compare.h"
#include "fedbn/link.h"

/* Clients of every study here. */
#define K 4

/* Checks that failed. */
static int failures;

/* Report one check. */
void check(bool ok, const char *what, const char *name)
{
	if (!ok)
		failures++;
	printf("%s %s: %s\n", ok ? "ok" : "FAIL", name, what);
}

/* The studies' shared data, its truth and its K blocks. */
static fb_dataset *ds;
static fb_graph *truth;
static fb_partition *local;

/* Make the data and its blocks. */
static int setup(void **unused)
{
	ds = make_data(&truth);
	local = blocks(ds, K, FB_SPLIT_HORIZONTAL);
	return local != NULL ? 0 : -1;
}

/* Free them. */
static int teardown(void **unused)
{
	fb_partition_free(local);
	fb_dataset_free(ds);
	fb_graph_free(truth);
	return 0;
}

/* Start a study of K clients over the local link with deadline timeout: in the test's
 * process the server's side, connected (*remote, *schema); a client process serves its block
 * (die: client 2 dies once its run is built) and ends. */
static fb_proto *start(double timeout, bool die, fb_partition **remote, fb_dataset **schema)
{
	fb_proto_options o;
	fb_link *link;
	fb_proto *study;
	fb_error err;

	fb_proto_options_init(&o);
	o.timeout = timeout;
	o.idle = 120;
	if (fb_link_local_start(K, &link, &err) != FB_OK)
		fail_msg("%s", err.msg);
	study = fb_proto_new(link, &o);
	if (link->rank > 0) {
		int ret = serve_block(study, local, die, false);

		fb_proto_end(study);
		_exit(ret);
	}
	*schema = NULL;
	*remote = fb_proto_connect(study, schema, &err);
	if (*remote == NULL)
		fail_msg("%s", err.msg);
	assert_string_equal(fb_proto_link(study)->name, "local");
	assert_true(strncmp((*remote)->desc, "local horizontal", 16) == 0);
	return study;
}

/* End the study and free what the server held. */
static void stop(fb_proto *study, fb_partition *remote, fb_dataset *schema)
{
	fb_partition_free(remote);
	fb_dataset_free(schema);
	fb_proto_end(study);
}

/* Three algorithms (and gs-feddag with clients drawn and replies dropped) over the link give
 * the in-process runs bit for bit. */
static void test_equal(void **unused)
{
	static const char *const names[] = { "notears-admm", "fedpc", "gs-feddag", "fedcircuit" };
	fb_partition *remote;
	fb_dataset *schema;
	fb_proto *study = start(60, false, &remote, &schema);
	double share;

	failures = 0;
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		compare(names[i], 0, ds, local, schema, remote, truth);
		if (small_words(names[i], 1, &share) != NULL)
			compare(names[i], 1, ds, local, schema, remote, truth);
	}
	stop(study, remote, schema);
	assert_int_equal(failures, 0);
}

/* FedPC and its ablations with knowledge over the link: compare_knowledge_family. */
static void test_knowledge(void **unused)
{
	fb_partition *remote;
	fb_dataset *schema;
	fb_proto *study = start(60, false, &remote, &schema);

	failures = 0;
	compare_knowledge_family(ds, local, schema, remote, truth);
	stop(study, remote, schema);
	assert_int_equal(failures, 0);
}

/* A study over the link with deadline 1 s in which client 2 dies once its run is built;
 * side plays the server's part. */
static void die_study(void (*side)(const fb_dataset *, const fb_partition *, double))
{
	fb_partition *remote;
	fb_dataset *schema;
	fb_proto *study = start(1, true, &remote, &schema);

	failures = 0;
	side(schema, remote, 1);
	stop(study, remote, schema);
	assert_int_equal(failures, 0);
}

/* A client that dies is named at the deadline, in the sentence MPI gives. */
static void test_die(void **unused)
{
	die_study(server_die);
}

/* A client that dies while gs-feddag draws 2 of 4 a round is left out; the run goes on. */
static void test_die_partial(void **unused)
{
	die_study(server_die_partial);
}

/* A receive from the server's one client: 1 when its deadline (after wait seconds) passed
 * first, FB_ERR at once once the client has ended. */
static int hear(fb_link *link, double wait)
{
	unsigned char *got;
	size_t len;
	int from;
	double t0 = fb_clock_now();
	int ret = link->recv(link, -1, t0 + wait, &got, &len, &from);

	if (ret == FB_OK)
		free(got);
	assert_true(ret != 1 || fb_clock_now() - t0 >= wait);
	return ret;
}

/* The client's side of test_frames: send every frame back; its exit status. */
static int echo(fb_link *link, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char *got;
		size_t len;
		int from, server = 0;
		bool failed;
		fb_error err;

		if (link->recv(link, 0, fb_clock_now() + 30, &got, &len, &from) != FB_OK ||
		    link->send(link, 1, &server, &got, &len, fb_clock_now() + 30, &failed, &err) !=
		    FB_OK)
			return 1;
		free(got);
	}
	link->stop(link, false);
	return 0;
}

/* Frames of 0 bytes up to several megabytes (more than a socket holds) go there and back
 * whole; a receive with nothing sent ends at its deadline, and at once when the client has
 * ended. */
static void test_frames(void **unused)
{
	static const size_t sizes[] = { 0, 1, 7, 8, 65536, 5u << 20 };
	size_t n = sizeof sizes / sizeof *sizes;
	fb_link *link;
	fb_error err;

	if (fb_link_local_start(1, &link, &err) != FB_OK)
		fail_msg("%s", err.msg);
	if (link->rank > 0)
		_exit(echo(link, n));
	assert_int_equal(hear(link, 0.2), 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char *buf = fb_xmalloc(sizes[i] + 1), *got;
		size_t len;
		int from, client = 1;
		bool failed = true;

		for (size_t j = 0; j < sizes[i]; j++)
			buf[j] = (unsigned char)(j * 7 + i);
		assert_int_equal(link->send(link, 1, &client, &buf, &sizes[i], fb_clock_now() + 30,
		                            &failed, &err), FB_OK);
		assert_false(failed);
		assert_int_equal(link->recv(link, 1, fb_clock_now() + 30, &got, &len, &from), FB_OK);
		assert_int_equal(len, sizes[i]);
		assert_int_equal(from, 1);
		assert_memory_equal(got, buf, sizes[i]);
		free(got);
		free(buf);
	}
	assert_int_equal(hear(link, 30), FB_ERR);
	link->stop(link, false);
}

/* Run the tests. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frames),
		cmocka_unit_test(test_equal),
		cmocka_unit_test(test_knowledge),
		cmocka_unit_test(test_die),
		cmocka_unit_test(test_die_partial),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
