/* libFuzzer target: the wire format on arbitrary bytes.  A frame that decodes must encode
 * back to the same bytes but its padding; its payload read as a site's description must
 * give a dataset whose variables are named, distinct and of a known kind. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Stop the fuzzer with a message when cond is false. */
static void check(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "fuzz-wire: broken invariant: %s\n", what);
		abort();
	}
}

/* The payload as a site's description. */
static void check_schema(const fb_msg *m)
{
	size_t rows;
	char *src = NULL;
	fb_error err;
	fb_dataset *ds = fb_wire_schema_decode(m, &rows, &src, &err);

	if (ds == NULL) {
		check(err.msg[0] != '\0', "a refusal says why");
		return;
	}
	check(ds->n == 0 && src != NULL, "no rows travel");
	for (size_t j = 0; j < ds->d; j++) {
		check(ds->vars[j].name[0] != '\0', "named");
		check(fb_dataset_find(ds, ds->vars[j].name) == (int)j, "distinct");
		check((ds->vars[j].kind == FB_DISCRETE) == (ds->vars[j].nlevels > 0), "kind");
	}
	fb_dataset_free(ds);
	free(src);
}

/* One input. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fb_msg m = { 0 };
	fb_wire_head h;
	fb_error err;
	size_t len;
	unsigned char *again;

	if (fb_wire_decode(data, size, &h, &m, &err) != FB_OK) {
		check(err.msg[0] != '\0', "a refusal says why");
		fb_msg_release(&m);
		return 0;
	}
	again = fb_wire_encode(&h, &m, &len);
	check(len == size, "the same length");
	check(memcmp(again, data, 7) == 0 && memcmp(again + 8, data + 8, size - 8) == 0,
	      "the same bytes");
	free(again);
	check_schema(&m);
	fb_msg_release(&m);
	return 0;
}
