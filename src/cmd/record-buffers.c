// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr record's buffers: the options of each -B NAME (and each -A guest) as
 * the line gives them, then, at its end, the buffers the recording makes
 * (record-buffers.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record-buffers.h"
#include "session.h"
#include "setup.h"
#include "tfs.h"

/* Nothing but what is the whole recording's (pids, task names): no buffer of its own asked for. */
static bool setup_unused(const struct tr_setup *s)
{
	return !s->tracer && !s->clock && !s->buffer_kb && !s->options.n && !s->triggers.n &&
	       !s->ftrace_filter.n && !s->ftrace_notrace.n && !s->graph_function.n &&
	       !s->graph_notrace.n && !s->tracer_opts.n && !s->has_max_graph_depth &&
	       !s->has_thresh && !s->func_stack && !s->cpus.set;
}

/* The buffer (or guest) read so far moves to done[]; the groups fill a fresh one. */
static void push_buffer(struct record_bufs *rb)
{
	rb->done = xrealloc(rb->done, (rb->ndone + 1) * sizeof(*rb->done));
	rb->done[rb->ndone++] = (struct buf_args){ rb->cur, rb->ev, rb->setup, rb->module,
						   rb->cur_guest };
	rb->module = false;
	rb->cur_guest = NULL;
	memset(&rb->ev, 0, sizeof(rb->ev));
	memset(&rb->setup, 0, sizeof(rb->setup));
}

void bufs_next(struct argp_state *state, struct record_bufs *rb, const char *name)
{
	if (!tfs_inst_valid_name(name))
		argp_error(state, "bad instance name '%s'", name);
	push_buffer(rb);
	rb->cur = name;
}

void bufs_next_guest(struct record_bufs *rb, const char *spec)
{
	push_buffer(rb);
	rb->cur = NULL;
	rb->cur_guest = spec;
}

/* -B names: each once, and none with --instance. */
static void check_names(struct argp_state *state, const struct record_bufs *rb,
			const char *instance)
{
	for (size_t i = 0; i < rb->ndone; i++) {
		if (!rb->done[i].name)
			continue;
		if (instance)
			argp_error(state, "-B and --instance exclude each other");
		for (size_t k = 0; k < i; k++)
			if (rb->done[k].name && !strcmp(rb->done[k].name, rb->done[i].name))
				argp_error(state, "instance '%s' is given twice with -B",
					   rb->done[i].name);
	}
}

void bufs_end(struct argp_state *state, struct record_bufs *rb, const char *instance)
{
	struct tr_setup all = { 0 };

	push_buffer(rb);
	check_names(state, rb, instance);
	/* The guests' options leave done[], which is this machine's buffers. */
	for (size_t i = 0; i < rb->ndone; i++) {
		struct guest_args *g;

		if (!rb->done[i].guest)
			continue;
		rb->guests = xrealloc(rb->guests, (rb->nguests + 1) * sizeof(*rb->guests));
		g = memset(&rb->guests[rb->nguests++], 0, sizeof(*g));
		guest_spec(state, g, rb->done[i].guest);
		g->ev = rb->done[i].ev;
		g->setup = rb->done[i].setup;
		memmove(&rb->done[i], &rb->done[i + 1], (rb->ndone - i - 1) * sizeof(*rb->done));
		rb->ndone--;
		i--;
	}
	if (instance)
		rb->done[0].name = instance;
	for (size_t i = 0; i < rb->ndone; i++) {
		struct tr_setup *s = &rb->done[i].setup;

		for (size_t k = 0; k < s->pids.n; k++)
			strv_push(&all.pids, s->pids.v[k]);
		for (size_t k = 0; k < s->notrace_pids.n; k++)
			strv_push(&all.notrace_pids, s->notrace_pids.v[k]);
		all.children |= s->children;
		if (s->cmdlines_size)
			all.cmdlines_size = s->cmdlines_size;
		opt_setup_check(state, s);
	}
	if (rb->ndone > 1 && !rb->done[0].ev.list.n && !rb->done[0].setup.tracer) {
		if (!setup_unused(&rb->done[0].setup))
			argp_error(state, "the options before the first -B set up the top-level "
					  "buffer, which records nothing: give it events with -e, or "
					  "move them after -B (--instance NAME puts everything in one "
					  "instance)");
		setup_free(&rb->done[0].setup);
		evsel_list_free(&rb->done[0].ev.list);
		memmove(rb->done, rb->done + 1, --rb->ndone * sizeof(*rb->done));
	}
	for (size_t i = 0; i < rb->ndone; i++) {
		struct buf_args *b = &rb->done[i];

		if (!b->ev.list.n && !b->setup.tracer && !rb->as_set) {
			if (b->name)
				argp_error(state, "nothing to record in instance '%s': give it "
						  "events with -e or a tracer with -p after -B %s",
					   b->name, b->name);
			argp_error(state, "nothing to record: give events with -e or a tracer "
					  "with -p (or -K: what is set now)");
		}
		if (setup_latency_tracer(b->setup.tracer) && (b->name || rb->ndone > 1))
			argp_error(state, "latency tracer '%s' works in the top-level buffer only, "
					  "not with -B", b->setup.tracer);
		if (i) {
			strv_free(&b->setup.pids);
			strv_free(&b->setup.notrace_pids);
			for (size_t k = 0; k < all.pids.n; k++)
				strv_push(&b->setup.pids, all.pids.v[k]);
			for (size_t k = 0; k < all.notrace_pids.n; k++)
				strv_push(&b->setup.notrace_pids, all.notrace_pids.v[k]);
			b->setup.children = all.children;
			b->setup.cmdlines_size = 0;	/* one file for the machine: set once */
		} else {
			strv_free(&b->setup.pids);
			strv_free(&b->setup.notrace_pids);
			b->setup.pids = all.pids;
			b->setup.notrace_pids = all.notrace_pids;
			all.pids = all.notrace_pids = (struct strv){ 0 };
			b->setup.children = all.children;
			b->setup.cmdlines_size = all.cmdlines_size;
		}
	}
	setup_free(&all);
}

int bufs_drop_missing(struct record_bufs *rb)
{
	struct strv avail = { 0 };
	int r = tfs_events(NULL, &avail);

	if (r) {
		tr_error("cannot list the events: %s", strerror(-r));
		return r;
	}
	for (size_t i = 0; !r && i < rb->ndone; i++) {
		struct strv dropped = { 0 };
		const char *name = rb->done[i].name;

		evsel_keep_existing(&rb->done[i].ev.list, &avail, &dropped);
		for (size_t k = 0; k < dropped.n; k++)
			tr_warn("no such event '%s': left out (-i)", dropped.v[k]);
		strv_free(&dropped);
		if (!rb->done[i].ev.list.n && !rb->done[i].setup.tracer) {
			tr_error("none of the events asked for%s%s%s exists: nothing to record",
				 name ? " in instance '" : "", name ? name : "", name ? "'" : "");
			r = -ENOENT;
		}
	}
	strv_free(&avail);
	return r;
}

int bufs_open(struct record_bufs *rb, struct live_record_opts *o)
{
	int r = 0;

	for (size_t i = 0; !r && i < rb->ndone; i++)
		r = cmd_instance_keeps_last_boot(rb->done[i].name,
						 "arm it with tr start -B NAME --discard");
	if (!r)
		r = cmd_instance_open(rb->done[0].name, true, &o->inst);

	rb->more = xcalloc(rb->ndone, sizeof(*rb->more));
	for (size_t i = 1; !r && i < rb->ndone; i++) {
		rb->more[i - 1] = (struct session_buf){ .setup = &rb->done[i].setup,
							.events = &rb->done[i].ev.list };
		r = cmd_instance_open(rb->done[i].name, true, &rb->more[i - 1].inst);
	}
	o->setup = &rb->done[0].setup;
	o->events = &rb->done[0].ev.list;
	o->more = rb->more;
	o->nmore = rb->ndone - 1;
	return r;
}

void bufs_free(struct record_bufs *rb)
{
	for (size_t i = 0; i < rb->ndone; i++) {
		evsel_list_free(&rb->done[i].ev.list);
		setup_free(&rb->done[i].setup);
	}
	free(rb->done);
	free(rb->more);
}
