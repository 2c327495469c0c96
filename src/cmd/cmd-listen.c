// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr listen: receive recordings from tr record -N and trace-cmd record -N
 * (trace-cmd's protocol v3, data over TCP; or -V, all over vsock) and write one trace.dat per
 * client, PREFIX.HOST:PORT.dat in DIR, until interrupted.  Safe when
 * forgotten: loopback unless --bind and --allow say otherwise, bounded
 * clients, bytes and time per client (net.h); a log line on stderr per
 * connection, refusal and end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "net.h"
#include "parse.h"
#include "tfw.h"

struct args {
	int port;
	const char *dir, *prefix, *bind;
	struct net_cidr *allow;
	int nallow;
	int max_clients, max_per_host;
	uint64_t max_size, max_total, min_free;
	unsigned setup_ms, idle_ms;
	struct opt_file_format ff;
	const char *psk;
	bool vsock;
};

enum {
	OPT_BIND = 0x100, OPT_ALLOW, OPT_MAX_CLIENTS, OPT_MAX_SIZE, OPT_PSK, OPT_MAX_PER_HOST,
	OPT_SETUP_TIMEOUT, OPT_IDLE_TIMEOUT, OPT_MAX_TOTAL, OPT_MIN_FREE,
};

static const struct argp_option options[] = {
	{ "port", 'p', "PORT", 0, "Listen on PORT (0: any free port, said in the log)", 0 },
	{ "dir", 'd', "DIR", 0, "Write the files in DIR (default: the current directory)", 0 },
	{ "output", 'o', "PREFIX", 0, "Name the files PREFIX.HOST:PORT.dat (default: trace)", 0 },
	{ "vsock", 'V', NULL, 0, "Listen on vsock (trace-cmd listen -V), for 'tr record -V' and "
				 "'trace-cmd record -V': from guests, or a guest's host", 0 },
	{ "bind", OPT_BIND, "ADDR", 0, "Listen on ADDR (default 127.0.0.1; :: or 0.0.0.0 for all; "
				       "with --vsock a CID, default any of this machine's)", 0 },
	{ "allow", OPT_ALLOW, "CIDR", 0, "Take clients from this address range (default: loopback "
					 "only), with --vsock from this CID (default: 1 and 2, "
					 "this machine and its host). Repeatable", 0 },
	{ "max-clients", OPT_MAX_CLIENTS, "N", 0, "Serve at most N clients at once (default 16)",
	  0 },
	{ "max-per-host", OPT_MAX_PER_HOST, "N", 0, "Serve at most N clients at once from one "
						   "address (default 4)", 0 },
	{ "setup-timeout", OPT_SETUP_TIMEOUT, "TIME", 0, "Give a client TIME, all told, for TLS, "
							 "the handshake and its metadata "
							 "(default 30s)", 0 },
	{ "idle-timeout", OPT_IDLE_TIMEOUT, "TIME", 0, "End a client that sends no whole message "
						       "and no whole sub-buffer for TIME "
						       "(default 60s)", 0 },
	{ "psk", OPT_PSK, "FILE", 0, "TLS 1.3 with the pre-shared key in FILE: only 'tr record -N "
				     "--psk' with the same file gets in", 0 },
	{ "max-size", OPT_MAX_SIZE, "SIZE", 0, "Stop a client after SIZE of events (default 4G); "
					       "its file keeps what came", 0 },
	{ "max-total", OPT_MAX_TOTAL, "SIZE", 0, "Let the clients being received hold at most "
						 "SIZE in DIR at once, a byte they sent counting "
						 "twice until its file is written (default 16G); "
						 "one that would pass it is stopped, its file "
						 "keeping what came", 0 },
	{ "min-free", OPT_MIN_FREE, "SIZE", 0, "Refuse a client while DIR has less than SIZE "
					       "free (default 256M; 0: no check)", 0 },
	{ 0 }
};

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		opt_bind_file_format(state, &a->ff);
		return 0;
	case 'p':
		opt_port(state, arg, &a->port);
		return 0;
	case 'd':
		if (!*arg)
			argp_error(state, "empty directory name");
		a->dir = arg;
		return 0;
	case 'o':
		if (!*arg || strchr(arg, '/'))
			argp_error(state, "bad prefix '%s' (a file name, no '/'; -d for the "
					  "directory)", arg);
		a->prefix = arg;
		return 0;
	case OPT_BIND:
		a->bind = arg;
		return 0;
	case 'V':
		a->vsock = true;
		return 0;
	case OPT_ALLOW:
		opt_allow(state, arg, &a->allow, &a->nallow);
		return 0;
	case OPT_PSK:
		a->psk = arg;
		return 0;
	case OPT_MAX_CLIENTS:
		if (parse_int(arg, 1, 1024, &a->max_clients))
			argp_error(state, "bad --max-clients '%s' (1 to 1024)", arg);
		return 0;
	case OPT_MAX_PER_HOST:
		if (parse_int(arg, 1, 1024, &a->max_per_host))
			argp_error(state, "bad --max-per-host '%s' (1 to 1024)", arg);
		return 0;
	case OPT_SETUP_TIMEOUT:
	case OPT_IDLE_TIMEOUT: {
		uint64_t ns;

		if (parse_duration(arg, &ns) || ns < 1000000 || ns > 3600ULL * 1000000000)
			argp_error(state, "bad --%s '%s' (a time such as 500ms or 2m, up to 1h)",
				   key == OPT_SETUP_TIMEOUT ? "setup-timeout" : "idle-timeout", arg);
		*(key == OPT_SETUP_TIMEOUT ? &a->setup_ms : &a->idle_ms) = ns / 1000000;
		return 0;
	}
	case OPT_MAX_SIZE:
		if (parse_size(arg, &a->max_size) || !a->max_size)
			argp_error(state, "bad --max-size '%s' (a size such as 512M or 2G)", arg);
		return 0;
	case OPT_MAX_TOTAL:
		if (parse_size(arg, &a->max_total) || a->max_total < NET_MIN_ROOM)
			argp_error(state, "bad --max-total '%s' (a size such as 512M or 2G, at "
					  "least 1M)", arg);
		return 0;
	case OPT_MIN_FREE:
		if (parse_size(arg, &a->min_free))
			argp_error(state, "bad --min-free '%s' (a size such as 512M or 2G)", arg);
		return 0;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		return 0;
	case ARGP_KEY_END:
		if (a->port < 0)
			argp_error(state, "give the port to listen on with -p");
		opt_check_vsock(state, a->vsock, a->allow, a->nallow, a->bind);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp_child children[] = {
	{ &opt_file_format_argp, 0, "Files written:", 0 },
	{ 0 }
};

static const struct argp argp = {
	options, parse, NULL,
	"Receive recordings from 'tr record -N' and 'trace-cmd record -N -t' (trace-cmd's "
	"protocol v3), or with --vsock from 'tr record -V' and 'trace-cmd record -V', and write "
	"each client's into its own trace.dat, until interrupted.\v"
	"Files are PREFIX.HOST:PORT.dat, from the client's address and port, never "
	"overwriting one (.1.dat, .2.dat ...); a vsock client's HOST is vsock-CID.  Version 7 "
	"with zstd unless --file-version or --compression say otherwise.  Without --allow only "
	"loopback clients are served (vsock: CIDs 1 and 2).  The "
	"protocol has no authentication: a client that may connect may write files of up to "
	"--max-size into DIR, unless --psk is given (then only tr clients with the same key, "
	"over TLS).  One line per connection, refusal and end goes to stderr.",
	children, NULL, NULL
};

static void ready(void *arg, uint16_t port)
{
	const struct args *a = arg;

	opt_log_listening(a->bind, a->vsock, port);
}

int cmd_listen(int argc, char **argv)
{
	struct args a = { .port = -1, .ff.zip = -1, .min_free = NET_MIN_FREE };
	struct stat st;
	int e;

	argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, &a);
	if (!a.dir)
		a.dir = ".";
	errno = 0;
	if (stat(a.dir, &st) || !S_ISDIR(st.st_mode) || access(a.dir, W_OK)) {
		tr_error("cannot write in '%s': %s", a.dir,
			 errno ? strerror(errno) : "not a directory");
		free(a.allow);
		return EXIT_RUNTIME;
	}
	for (int i = 0; i < a.nallow && !a.psk; i++)
		if (!net_cidr_loopback(&a.allow[i])) {
			tr_warn("--allow lets other machines in without authentication: anyone in "
				"those ranges who reaches the port can write files of up to "
				"--max-size into '%s'", a.dir);
			break;
		}
	e = net_listen(&(struct net_listen_opts){
		.bind = a.bind, .vsock = a.vsock, .port = a.port, .dir = a.dir, .prefix = a.prefix,
		.allow = a.allow, .nallow = a.nallow, .max_clients = a.max_clients,
		.max_per_host = a.max_per_host, .setup_ms = a.setup_ms, .idle_ms = a.idle_ms,
		.max_size = a.max_size, .max_total = a.max_total, .min_free = a.min_free,
		.version = a.ff.version == 6 ? 6 : 7,
		.zip = a.ff.zip < 0 ? TFW_ZIP_ZSTD : a.ff.zip, .psk_file = a.psk,
		.log = opt_log_line, .log_arg = &a,
		.stop = &tr_stop, .ready = ready });
	free(a.allow);
	if (e) {
		tr_report(e, "cannot listen");
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}
