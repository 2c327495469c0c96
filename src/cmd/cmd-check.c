// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr check: one line per capability of this kernel's tracing, with the
 * reason where it is missing; --json for the same as one object, and
 * --has CAP to ask about one (exit 0 if present, 1 if not), for scripts and
 * for the test suite's test_requires.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "json.h"
#include "net.h"
#include "caps.h"
#include "tfs.h"

struct args {
	bool json;
	const char *has;
};

enum { OPT_JSON = 0x100, OPT_HAS };

static const struct argp_option options[] = {
	{ "json", OPT_JSON, NULL, 0, "Print one JSON object", 0 },
	{ "has", OPT_HAS, "CAP", 0, "Exit 0 if CAP is present, 1 (saying why) if not", 0 },
	{ 0 }
};

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case OPT_JSON:
		a->json = true;
		return 0;
	case OPT_HAS:
		if (cap_from_name(arg) < 0 && strcmp(arg, "vsock") && strcmp(arg, "vsock_loopback"))
			argp_error(state, "unknown capability '%s'", arg);
		a->has = arg;
		return 0;
	case ARGP_KEY_ARG:
		argp_error(state, "too many arguments");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp argp = {
	options, parse, NULL,
	"Report what this kernel's tracing can do, one capability per line, with the reason when "
	"something is missing.\vCapabilities: tracefs access instances tracers function "
	"function_graph function_filter latency events triggers hist snapshot kprobes uprobes "
	"eprobes fprobes synthetic user_events user_persist user_multi stack_tracer profiler mmap "
	"clocks buffers disable_on_free persistent subbuf; and, of the machine rather than its tracing, vsock (tr "
	"listen --vsock, tr agent, tr record -V and -A NAME@CID) and vsock_loopback (CID 1 "
	"reaches this machine: what the vsock tests need)",
	NULL, NULL, NULL
};

/*
 * vsock is the machine's, not its tracing's: asked of the network layer.
 * present[0]: vsock, [1]: its loopback; detail[] the reasons.
 */
static void vsock_caps(bool present[2], char detail[2][128])
{
	const char *why = "";
	uint32_t cid;
	bool loop;
	int e = net_vsock_probe(&cid, &loop, &why);

	present[0] = !e;
	present[1] = !e && loop;
	if (e) {
		snprintf(detail[0], 128, "%s", why);
		snprintf(detail[1], 128, "no vsock");
		return;
	}
	if (cid == UINT32_MAX)
		snprintf(detail[0], 128, "this machine's CID unknown (no /dev/vsock)");
	else
		snprintf(detail[0], 128, "this machine is CID %u", cid);
	snprintf(detail[1], 128, loop ? "CID 1 reaches this machine"
				      : "CID 1 does not reach this machine (no vsock_loopback)");
}

static const char *const vsock_names[2] = { "vsock", "vsock_loopback" };

/*
 * Without tracefs, or without the right to use it, there is still something
 * true to say: which of the two it is, and that the rest cannot be known.
 */
static int no_tracefs(const struct args *a, int err)
{
	const char *why = tr_detail() ? tr_detail() : strerror(-err);
	char *reason = xstrdup(why);

	tr_detail_clear();
	if (a->has) {
		printf("%s: %s\n", a->has, err == -EACCES && !strcmp(a->has, "tracefs")
						   ? "present, but not accessible" : reason);
		free(reason);
		return err == -EACCES && !strcmp(a->has, "tracefs") ? EXIT_OK : EXIT_RUNTIME;
	}
	for (int c = 0; c < CAP__COUNT; c++) {
		const char *detail = "unknown: tracefs cannot be used";
		bool ok = false;

		if (c == CAP_TRACEFS) {
			ok = err == -EACCES;
			detail = ok ? tfs_root() : reason;
		} else if (c == CAP_ACCESS && err == -EACCES) {
			detail = reason;
		}
		if (a->json)
			printf("%s\n  \"%s\": {\"present\": %s, \"detail\": ", c ? "," : "{",
			       cap_name(c), ok ? "true" : "false"), json_fputs(stdout, detail), putchar('}');
		else
			printf("%-16s %-4s %s\n", cap_name(c), ok ? "yes" : "no", detail);
	}
	if (a->json)
		puts("\n}");
	free(reason);
	return EXIT_RUNTIME;
}

int cmd_check(int argc, char **argv)
{
	struct args a = { 0 };
	bool vok[2];
	char vdetail[2][128];
	int r;

	argp_parse(&argp, argc, argv, 0, NULL, &a);
	if (a.has && cap_from_name(a.has) < 0) {
		bool ok[2];
		char detail[2][128];
		int i = strcmp(a.has, "vsock") ? 1 : 0;

		vsock_caps(ok, detail);
		if (ok[i])
			return EXIT_OK;
		printf("%s: %s\n", a.has, detail[i]);
		return EXIT_RUNTIME;
	}
	r = tfs_open();
	if (r)
		return no_tracefs(&a, r);
	if (a.has) {
		int c = cap_from_name(a.has);

		if (caps_has(c))
			return EXIT_OK;
		printf("%s: %s\n", a.has, caps_detail(c));
		return EXIT_RUNTIME;
	}
	if (a.json)
		putchar('{');
	for (int c = 0; c < CAP__COUNT; c++) {
		bool ok = caps_has(c);

		if (a.json) {
			printf("%s\n  ", c ? "," : "");
			json_fputs(stdout, cap_name(c));
			printf(": {\"present\": %s, \"detail\": ", ok ? "true" : "false");
			json_fputs(stdout, caps_detail(c));
			putchar('}');
		} else {
			printf("%-16s %-4s %s\n", cap_name(c), ok ? "yes" : "no", caps_detail(c));
		}
	}
	vsock_caps(vok, vdetail);
	for (int i = 0; i < 2; i++) {
		if (a.json) {
			printf(",\n  ");
			json_fputs(stdout, vsock_names[i]);
			printf(": {\"present\": %s, \"detail\": ", vok[i] ? "true" : "false");
			json_fputs(stdout, vdetail[i]);
			putchar('}');
		} else {
			printf("%-16s %-4s %s\n", vsock_names[i], vok[i] ? "yes" : "no", vdetail[i]);
		}
	}
	if (a.json)
		puts("\n}");
	return EXIT_OK;
}
