/*
 * src/main.c — the cql command: hands argv to the driver and exits with its status.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdio.h>

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("cql: not built yet\n", stderr);
    return 2;
}
