/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tr record's guests (-A NAME@ADDR:PORT, record-guests.c): what cmd-record.c
 * parses for each, the checks at the end of the line, what live_record()
 * is given for each and the lines printed after it; and the options -A
 * shares with -N and -V.
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
/*
 * What live_record() needs of each guest (live-record.h): its agent, what
 * it records and with which clock, and the options every guest shares;
 * the files and the temp directory are live_record_files_open()'s.  Freed
 * by live_record_files_close().
 */
struct live_guest *guests_opts(const struct guest_args *g, size_t n, const char *psk,
			       unsigned interval_ms, uint64_t trace_id);
/* A line per guest written, a warning per guest failed; false if one failed. */
bool guests_report(const struct guest_args *g, const struct live_guest *rg, size_t n, bool quiet);
/* The guests' options freed (their files: live_guests_close()). */
void guests_free(struct guest_args *g, size_t n);

/*
 * The options of tr record that reach another machine: -N HOST:PORT or -V
 * CID:PORT (a listener), -A (a guest, its options up to the next -A or -B
 * in rb), --psk and --tsync-interval.  remote_parse() stores key's argument,
 * or returns ARGP_ERR_UNKNOWN for a key of none of them; remote_check() at
 * the end of the line, after bufs_end(): what goes with -N and -A, then
 * guests_check().  Usage errors.
 */
enum { OPT_TSYNC = 0x180, OPT_PSK };
struct record_remote {
	const char *net;	/* -N HOST:PORT as given */
	unsigned nnet;		/* how many -N and -V */
	struct rec_net rn;
	unsigned tsync_ms;
	bool has_tsync;
};
struct record_bufs;
error_t remote_parse(struct argp_state *state, struct record_bufs *rb, struct record_remote *n,
		     int key, const char *arg);
void remote_check(struct argp_state *state, struct record_bufs *rb, struct record_remote *n);

#endif
