/* The shell's session: replacing its parts keeps them consistent. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "session.h"

/* An empty session. */
void fb_session_init(fb_session *s)
{
	memset(s, 0, sizeof *s);
	s->seed = 1;
}

/* Free everything. */
void fb_session_release(fb_session *s)
{
	fb_dataset_free(s->data);
	fb_graph_free(s->truth);
	fb_partition_free(s->split);
	free(s->data_source);
	free(s->truth_source);
	memset(s, 0, sizeof *s);
}

/* True when the graph's nodes are the dataset's variables in order. */
static int truth_fits(const fb_graph *g, const fb_dataset *ds)
{
	if (g->d != ds->d)
		return 0;
	for (size_t j = 0; j < ds->d; j++)
		if (strcmp(g->names[j], ds->vars[j].name) != 0)
			return 0;
	return 1;
}

/* Replace the current dataset. */
void fb_session_set_data(fb_session *s, fb_dataset *data, const char *source, fb_graph *truth,
                         const char *truth_source, int *dropped_truth)
{
	*dropped_truth = 0;
	fb_dataset_free(s->data);
	free(s->data_source);
	s->data = data;
	s->data_source = fb_xstrdup(source);
	fb_session_set_split(s, NULL);
	if (truth != NULL) {
		fb_session_set_truth(s, truth, truth_source);
	} else if (s->truth != NULL && !truth_fits(s->truth, data)) {
		fb_session_set_truth(s, NULL, NULL);
		*dropped_truth = 1;
	}
}

/* Replace the truth. */
void fb_session_set_truth(fb_session *s, fb_graph *truth, const char *source)
{
	fb_graph_free(s->truth);
	free(s->truth_source);
	s->truth = truth;
	s->truth_source = source != NULL ? fb_xstrdup(source) : NULL;
}

/* Replace the split. */
void fb_session_set_split(fb_session *s, fb_partition *split)
{
	fb_partition_free(s->split);
	s->split = split;
}
