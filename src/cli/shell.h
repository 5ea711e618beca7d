/* The interactive shell: GNU Readline behind a small adapter. */
#ifndef FEDBN_CLI_SHELL_H
#define FEDBN_CLI_SHELL_H

#include "cmd.h"

/* Read and run commands at the prompt until quit or Ctrl-D; returns FB_CMD_OK. */
int fb_shell_run(fb_cmd_ctx *ctx);

#endif
