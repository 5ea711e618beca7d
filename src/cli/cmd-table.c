/* The command table: the order here is the order of 'help' and the man page. */
#include "config.h"

#include <stddef.h>

#include "cmd.h"

/* Every command. */
const fb_cmd_entry *const fb_cmd_table[] = {
	&fb_cmd_help,
	&fb_cmd_load,
	&fb_cmd_save,
	&fb_cmd_gen,
	&fb_cmd_sample,
	&fb_cmd_fit,
	&fb_cmd_bootstrap,
	&fb_cmd_info,
	&fb_cmd_head,
	&fb_cmd_truth,
	&fb_cmd_graph,
	&fb_cmd_knowledge,
	&fb_cmd_split,
	&fb_cmd_clients,
	&fb_cmd_algos,
	&fb_cmd_algo,
	&fb_cmd_set,
	&fb_cmd_params,
	&fb_cmd_run,
	&fb_cmd_step,
	&fb_cmd_watch,
	&fb_cmd_result,
	&fb_cmd_compare,
	&fb_cmd_ledger,
	&fb_cmd_query,
	&fb_cmd_classify,
	&fb_cmd_circuit,
	&fb_cmd_export,
	&fb_cmd_sweep,
	&fb_cmd_plot,
	&fb_cmd_report,
	&fb_cmd_seed,
	&fb_cmd_source,
	&fb_cmd_history,
	&fb_cmd_session,
	&fb_cmd_echo,
	&fb_cmd_demo,
	&fb_cmd_quit,
	NULL,
};
