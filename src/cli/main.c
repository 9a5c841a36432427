/*
 * src/cli/main.c — the cql command: parses the options and hands them to the run.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/memory.h"
#include "cli/options.h"
#include "cli/run.h"
#include "cql.h"

int main(int argc, char **argv)
{
    CqlMessages messages = {NULL, NULL, 0, 0};   /* standard error */
    CliOptions opts;
    cli_memory_setup();
    ExitCode rc = cli_parse(argc, argv, &opts, &messages);
    if (rc == EXIT_RAN) rc = run(&opts, &messages);
    cli_options_free(&opts);
    return (int)rc;
}
