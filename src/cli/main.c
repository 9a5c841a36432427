/*
 * src/cli/main.c — the cql command: parses the options and hands them to the run.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "base/diag.h"
#include "cli/options.h"
#include "cli/run.h"

int main(int argc, char **argv)
{
    DiagSink diag;
    diag_sink_init(&diag, NULL, NULL);
    CliOptions opts;
    ExitCode rc = cli_parse(argc, argv, &opts, &diag);
    if (rc != EXIT_RAN) return (int)rc;
    return (int)run(&opts, &diag);
}
