// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr marker: annotate a trace from a script.  TEXT goes to trace_marker
 * (an ftrace:print event, "tracing_mark_write: TEXT"); with --raw ID the
 * record goes to trace_marker_raw (an ftrace:raw_data event): the id as a
 * 4-byte integer in the machine's byte order, then the bytes of DATA.
 * Each marker is one write(), so it is one record.  Nothing is changed in
 * tracefs, so there is nothing to restore.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "parse.h"
#include "tfs.h"

struct args {
	struct opt_instance inst;
	const char *raw_id;
	char **words;
	int nwords;
};

enum { OPT_RAW = 0x100 };

static const struct argp_option options[] = {
	{ "raw", OPT_RAW, "ID", 0,
	  "Write a binary record to trace_marker_raw: ID (a 32-bit number, 0x for hex) "
	  "as 4 bytes, then DATA's bytes", 0 },
	{ 0 }
};

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		opt_bind(state, &a->inst, NULL, NULL);
		return 0;
	case OPT_RAW:
		a->raw_id = arg;
		return 0;
	case ARGP_KEY_ARGS:
		a->words = state->argv + state->next;
		a->nwords = state->argc - state->next;
		return 0;
	case ARGP_KEY_END:
		if (!a->nwords && !a->raw_id)
			argp_error(state, "no TEXT to write");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp argp = {
	options, parse, "TEXT...\n--raw ID [DATA...]",
	"Write TEXT (the words joined by spaces) into the trace as a marker, to annotate it "
	"from scripts; it shows as 'tracing_mark_write: TEXT' (event ftrace:print).\v"
	"With --raw, the record goes to trace_marker_raw and shows as '# ID buf: BYTES' "
	"(event ftrace:raw_data), ID in hex.  While tracing is off nothing is recorded, "
	"and tr marker says so.  Examples:\n"
	"  tr marker 'build started'\n"
	"  tr marker -B mine --raw 0x10 payload",
	opt_instance_children, NULL, NULL
};

/* "0x1f" or "31": a 32-bit id, strictly. */
static int parse_id(const char *s, uint32_t *out)
{
	uint64_t v = 0;

	if (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2)) {
		const char *p = s + 2;

		if (!*p || strlen(p) > 8 || strspn(p, "0123456789abcdefABCDEF") != strlen(p))
			return -EINVAL;
		v = strtoull(p, NULL, 16);
	} else if (parse_u64(s, &v) || v > UINT32_MAX) {
		return -EINVAL;
	}
	*out = (uint32_t)v;
	return 0;
}

/* The instance's option "markers" is off: the kernel refuses every marker then. */
static bool markers_off(struct tfs_inst *in)
{
	char *v = NULL;
	bool off = !tfs_read(in, "options/markers", &v) && v[0] == '0';

	free(v);
	return off;
}

static char *join_words(char **w, int n)
{
	size_t len = 0, off = 0;
	char *s;

	for (int i = 0; i < n; i++)
		len += strlen(w[i]) + 1;
	s = xcalloc(1, len + 1);
	for (int i = 0; i < n; i++)
		off += sprintf(s + off, "%s%s", i ? " " : "", w[i]);
	return s;
}

int cmd_marker(int argc, char **argv)
{
	struct args a = { 0 };
	const char *file = "trace_marker";
	struct tfs_inst *in;
	char *text, *buf, *on = NULL;
	size_t len;
	uint32_t id = 0;
	int r;

	argp_parse(&argp, argc, argv, 0, NULL, &a);
	if (a.raw_id && parse_id(a.raw_id, &id)) {
		tr_error("bad marker id '%s' (a 32-bit number)", a.raw_id);
		return EXIT_USAGE;
	}
	text = join_words(a.words, a.nwords);
	len = strlen(text);
	if (a.raw_id) {
		file = "trace_marker_raw";
		buf = xcalloc(1, sizeof(id) + len);
		memcpy(buf, &id, sizeof(id));
		memcpy(buf + sizeof(id), text, len);
		len += sizeof(id);
	} else {
		buf = xstrdup(text);
	}
	r = cmd_instance_open(a.inst.name, false, &in);
	if (!r && !tfs_exists(in, file))
		r = tr_fail(-EOPNOTSUPP, "this kernel has no %s", file);
	if (!r) {
		r = tfs_write_bytes(in, file, buf, len);
		/* The kernel takes at most a page-sized record and refuses or cuts the rest. */
		if (r == -EBADF)
			r = tr_fail(r, "tracing is off%s%s%s: the marker was not recorded",
				    in->name ? " in '" : "", in->name ? in->name : "",
				    in->name ? "'" : "");
		else if (r == -EINVAL && markers_off(in))
			r = tr_fail(r, "trace markers are off (the option 'markers'): the marker was "
				       "not recorded");
		else if (r == -EINVAL || r == -EMSGSIZE)
			r = tr_fail(r, "marker of %zu bytes refused by %s%s%s", len, file,
				    tr_detail() ? ": " : " (too long?)",
				    tr_detail() ? tr_detail() : "");
		else if (r)
			r = tr_fail(r, "cannot write %s: %s", file, strerror(-r));
	}
	/* Older kernels accept the write and drop it when the buffer is off: say so. */
	if (!r && !tfs_read(in, "tracing_on", &on) && on[0] == '0')
		tr_warn("tracing is off%s%s%s: the marker was not recorded", in->name ? " in '" : "",
			in->name ? in->name : "", in->name ? "'" : "");
	free(on);
	free(buf);
	free(text);
	if (r)
		return tr_report(r, "cannot write the marker"), EXIT_RUNTIME;
	return EXIT_OK;
}
