/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tr record's guests (-A NAME@ADDR:PORT, record-guests.c): what cmd-record.c
 * parses for each, the checks at the end of the line, the files opened
 * before recording and the lines printed after it.
 */
#ifndef TR_RECORD_LOCAL_H
#define TR_RECORD_LOCAL_H

#include <argp.h>
#include <stdbool.h>
#include <stdint.h>

#include "cmd.h"
#include "live-record.h"
#include "rec.h"
#include "setup.h"

struct guest_args {
	const char *spec;	/* as given */
	char *name, *host;
	uint16_t port;
	bool vsock;		/* NAME@CID[:PORT]: host is the CID */
	struct opt_events ev;	/* the options after its -A */
	struct tr_setup setup;
	struct strv argv;	/* what the agent is asked to record with */
	char *path;		/* OUTPUT with -NAME before its extension */
	bool created;
};

/* -A's argument: NAME@ADDR:PORT, NAME a file name's part; a usage error otherwise. */
void guest_spec(struct argp_state *state, struct guest_args *g, const char *spec);
/*
 * At the end of the line: names unique, nothing but -e, -f and -C after an
 * -A, a guest without events gets the host's (host_ev), and every buffer of
 * the host and every guest the same readable clock (mono unless -C says
 * otherwise; host[] are the host's buffers' set-ups).
 */
void guests_check(struct argp_state *state, struct guest_args *g, size_t n,
		  const struct evsel_list *host_ev, struct tr_setup **host, size_t nhost);
/* Open each guest's file beside output and fill rg[] for live_record().  0 or -errno, said. */
int guests_open(struct guest_args *g, size_t n, const char *output, const char *tmp_dir,
		const char *psk, unsigned interval_ms, uint64_t trace_id, struct live_guest *rg);
/* A line per guest written, a warning per guest failed; false if one failed. */
bool guests_report(const struct guest_args *g, const struct live_guest *rg, size_t n, bool quiet);
/* Close the files (removing those created when the recording failed) and free. */
void guests_free(struct guest_args *g, struct live_guest *rg, size_t n, bool failed);

#endif
