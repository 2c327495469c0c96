// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr serve's live tool (include/serve.h).
 *
 * The HTTP server starts before the session, so that its thread is one
 * of tr's own that the events leave out (a scrape's own syscalls are not
 * counted).  Until the session's prepare() has made the aggregator it
 * answers 503.  The readers count into the aggregator under the sink's
 * lock; a scrape takes the same lock to write the registry, after reading
 * what it adds (/proc/stat, the per-CPU ring buffer stats, tr's own usage)
 * without it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <traceevent/event-parse.h>
#include <unistd.h>

#include "evsel.h"
#include "expo.h"
#include "http.h"
#include "rec.h"
#include "serve-local.h"
#include "serve.h"
#include "session.h"
#include "tfs.h"
#include "tr.h"

/* What is counted, first of each "a|b" the kernel has. */
static const char *const wanted[] = {
	"sched:sched_switch", "sched:sched_waking|sched:sched_wakeup", "sched:sched_wakeup_new",
	"raw_syscalls:sys_enter", "raw_syscalls:sys_exit",
	"irq:irq_handler_entry", "irq:irq_handler_exit", "irq:softirq_entry", "irq:softirq_exit",
	"exceptions:page_fault_user", "exceptions:page_fault_kernel",
	"block:block_rq_issue", "block:block_rq_complete",
};

static const char *const cpu_modes[] = {
	"user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal",
};

struct serve {
	const struct serve_opts *o;
	struct session_sink sink;
	struct tep_handle *tep;
	struct top_decoder *dec;
	struct mx *mx;
	struct serve_agg *agg;		/* set by prepare(), under the sink's lock */
	struct serve_user *user;	/* --hist and --latency, made with agg */
	struct serve_comm *comm;	/* --by comm, made with agg */
	struct serve_kern *kern;	/* the counters in the kernel's histograms, or NULL */
	bool kernel;			/* so counted (hist triggers, --engine) */
	struct strv avail;		/* the kernel's events */
	struct session *sess;
	int ncpus;
	struct strv enabled;		/* the events counted, for the info metric */
	struct mx_family *f_cpu, *f_overrun, *f_dropped, *f_proc_cpu, *f_rss, *f_scrapes;
	struct mx_series **cpu_s;	/* ncpus x modes */
	struct mx_series **overrun, **dropped;
	struct mx_series *proc_cpu, *rss, *scrapes;
	struct http_server *http;
	pid_t http_tid;
	char addr[96];		/* "http://127.0.0.1:9464" */
	long clk_tck;
};

static int on_event(void *arg, const struct tfile_event *ev)
{
	struct serve *s = arg;
	struct top_rec r;

	if (!s->agg)
		return 0;
	if (ev->missed)
		serve_agg_lost(s->agg, ev->cpu, ev->missed);
	top_decode(s->dec, ev, &r);
	serve_agg_feed(s->agg, &r);
	if (s->comm)
		serve_comm_feed(s->comm, &r);
	if (s->user)
		serve_user_feed(s->user, ev);
	return 0;
}

static void add_name(void *arg, unsigned nr, const char *name)
{
	serve_agg_syscall_name(arg, nr, name);
}

/* ---- what a scrape reads ---- */

struct scrape {
	double (*cpu)[ARRAY_SIZE(cpu_modes)];	/* ncpus rows, NAN-free: 0 when absent */
	bool *cpu_seen;
	struct rec_kstats *ks;
	bool *ks_ok;
	double proc_cpu, rss;
};

static void read_proc_stat(struct serve *s, struct scrape *x)
{
	char *text = NULL, *line, *save = NULL;
	size_t len;

	if (read_file("/proc/stat", &text, &len))
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long v[ARRAY_SIZE(cpu_modes)] = { 0 };
		int cpu, n;

		if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
			continue;
		n = sscanf(line + 3, "%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0],
			   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
		if (n < 5 || cpu < 0 || cpu >= s->ncpus)
			continue;
		x->cpu_seen[cpu] = true;
		for (size_t m = 0; m < ARRAY_SIZE(cpu_modes); m++)
			x->cpu[cpu][m] = (double)v[m] / (double)s->clk_tck;
	}
	free(text);
}

static void read_usage(struct scrape *x)
{
	struct rusage ru;
	char *text = NULL;
	size_t len;

	if (!getrusage(RUSAGE_SELF, &ru))
		x->proc_cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
			      (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	if (!read_file("/proc/self/statm", &text, &len)) {
		unsigned long long size, res;

		if (sscanf(text, "%llu %llu", &size, &res) == 2)
			x->rss = (double)res * (double)sysconf(_SC_PAGESIZE);
	}
	free(text);
}

static void scrape_read(struct serve *s, struct scrape *x)
{
	x->cpu = xcalloc(s->ncpus, sizeof(*x->cpu));
	x->cpu_seen = xcalloc(s->ncpus, sizeof(bool));
	x->ks = xcalloc(s->ncpus, sizeof(*x->ks));
	x->ks_ok = xcalloc(s->ncpus, sizeof(bool));
	read_proc_stat(s, x);
	for (int i = 0; i < s->ncpus; i++)
		x->ks_ok[i] = !rec_kstats_read(s->o->inst, i, &x->ks[i], NULL);
	read_usage(x);
}

static void scrape_free(struct scrape *x)
{
	free(x->cpu);
	free(x->cpu_seen);
	free(x->ks);
	free(x->ks_ok);
}

/* Under the sink's lock: the values read, into their series. */
static void scrape_set(struct serve *s, const struct scrape *x)
{
	for (int i = 0; i < s->ncpus; i++) {
		for (size_t m = 0; x->cpu_seen[i] && m < ARRAY_SIZE(cpu_modes); m++)
			mx_set(s->cpu_s[i * ARRAY_SIZE(cpu_modes) + m], x->cpu[i][m]);
		if (x->ks_ok[i]) {
			mx_set(s->overrun[i], (double)x->ks[i].overrun);
			mx_set(s->dropped[i], (double)x->ks[i].dropped);
		}
	}
	mx_set(s->proc_cpu, x->proc_cpu);
	mx_set(s->rss, x->rss);
	mx_add(s->scrapes, 1);
}

static const char index_text[] =
	"tr serve: the kernel's activity as metrics.  Scrape /metrics.\n";

static int handle(void *arg, const struct http_req *r, enum http_expo fmt, char **body,
		  size_t *len, const char **ctype)
{
	struct serve *s = arg;
	struct scrape x = { 0 };
	struct serve_user_tables t = { 0 };
	struct serve_kern_tables kt;
	struct expo e;

	if (!strcmp(r->path, "/")) {
		*body = xstrdup(index_text);
		*len = strlen(index_text);
		return 200;
	}
	if (strcmp(r->path, "/metrics"))
		return 404;
	if (!s->agg) {
		*body = xstrdup("tr serve is starting\n");
		*len = strlen(*body);
		return 503;
	}
	scrape_read(s, &x);
	if (s->user)
		serve_user_read(s->user, &t);
	if (s->kern)
		serve_kern_read(s->kern, &kt);
	expo_init(&e, fmt);
	pthread_mutex_lock(&s->sink.lock);
	scrape_set(s, &x);
	if (s->kern)
		serve_kern_set(s->kern, s->agg, &kt);
	serve_agg_rank(s->agg);
	if (s->user)
		serve_user_set(s->user, &t);
	mx_write(s->mx, &e);
	pthread_mutex_unlock(&s->sink.lock);
	expo_end(&e);
	scrape_free(&x);
	serve_user_tables_free(&t);
	if (s->kern)
		serve_kern_tables_free(&kt);
	*body = e.buf;
	*len = e.len;
	*ctype = http_expo_type(fmt);
	return 200;
}

/* ---- the session ---- */

/* The families a scrape fills, and the one that says how tr counts. */
static void make_scrape_families(struct serve *s)
{
	static const char *const l_cpu[] = { "cpu", NULL };
	struct mx_family *info;
	struct utsname u;
	char *events = xstrdup("");

	for (size_t i = 0; i < s->enabled.n; i++)
		xstrcatf(&events, "%s%s", i ? "," : "", s->enabled.v[i]);

	s->f_cpu = mx_family(s->mx, "tr_cpu_seconds", MX_COUNTER, "seconds",
			     "CPU time per CPU and mode (/proc/stat)",
			     (const char *[]){ "cpu", "mode", NULL }, 0);
	s->f_overrun = mx_family(s->mx, "tr_ring_buffer_overrun", MX_COUNTER, NULL,
				 "Events the ring buffer overwrote, per CPU (per_cpu/cpuN/stats)",
				 l_cpu, 0);
	s->f_dropped = mx_family(s->mx, "tr_ring_buffer_dropped", MX_COUNTER, NULL,
				 "Events the ring buffer dropped, per CPU (per_cpu/cpuN/stats)",
				 l_cpu, 0);
	s->f_proc_cpu = mx_family(s->mx, "tr_process_cpu_seconds", MX_COUNTER, "seconds",
				  "CPU time of tr serve itself", NULL, 0);
	s->f_rss = mx_family(s->mx, "tr_process_resident_memory_bytes", MX_GAUGE, "bytes",
			     "Resident memory of tr serve itself", NULL, 0);
	s->f_scrapes = mx_family(s->mx, "tr_scrapes", MX_COUNTER, NULL,
				 "Scrapes of /metrics answered", NULL, 0);
	s->cpu_s = xcalloc((size_t)s->ncpus * ARRAY_SIZE(cpu_modes), sizeof(*s->cpu_s));
	s->overrun = xcalloc(s->ncpus, sizeof(*s->overrun));
	s->dropped = xcalloc(s->ncpus, sizeof(*s->dropped));
	for (int i = 0; i < s->ncpus; i++) {
		char n[16];

		snprintf(n, sizeof(n), "%d", i);
		for (size_t m = 0; m < ARRAY_SIZE(cpu_modes); m++)
			s->cpu_s[i * ARRAY_SIZE(cpu_modes) + m] =
				mx_series(s->f_cpu, (const char *[]){ n, cpu_modes[m] });
		s->overrun[i] = mx_series(s->f_overrun, (const char *[]){ n });
		s->dropped[i] = mx_series(s->f_dropped, (const char *[]){ n });
	}
	s->proc_cpu = mx_series(s->f_proc_cpu, NULL);
	s->rss = mx_series(s->f_rss, NULL);
	s->scrapes = mx_series(s->f_scrapes, NULL);
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "unknown");
	info = mx_family(s->mx, "tr_serve", MX_INFO, NULL,
			 "How tr serve counts: its version, the kernel, where the events are "
			 "aggregated, and which it counts",
			 (const char *[]){ "version", "kernel", "aggregation", "events", NULL }, 0);
	mx_series(info, (const char *[]){ TR_VERSION, u.release, s->kernel ? "kernel" : "user",
					   events });
	free(events);
	if (!s->o->nhists)
		return;
	info = mx_family(s->mx, "tr_hist", MX_INFO, NULL,
			 "Each --hist: its event, the kernel's trigger it is, and where it is "
			 "aggregated (kernel: a hist trigger read at each scrape; user: tr "
			 "counts the events)",
			 (const char *[]){ "name", "event", "trigger", "aggregation", NULL }, 0);
	for (size_t i = 0; i < s->o->nhists; i++) {
		const struct serve_hist *h = &s->o->hists[i];
		char *ev = xasprintf("%s:%s", h->spec.system, h->spec.event);
		char *trig = hist_spec_trigger(&h->spec);

		mx_series(info, (const char *[]){ h->name, ev, trig,
						   s->kernel ? "kernel" : "user" });
		free(ev);
		free(trig);
	}
}

static int serve_prepare(void *arg, struct session *sess)
{
	struct serve *s = arg;
	struct serve_user *user = NULL;
	struct serve_comm *comm = NULL;
	struct serve_agg *agg;
	int r;

	s->sess = sess;
	s->ncpus = rec_ncpus(session_rec(sess));
	agg = serve_agg_new(s->mx, &(struct serve_agg_opts){ .ncpus = s->ncpus,
							      .max_syscalls = s->o->max_syscalls,
							      .kernel_counts = s->kernel });
	syscall_names(add_name, agg);
	if (s->o->by_comm)
		comm = serve_comm_new(s->mx, s->ncpus, s->o->max_comms);
	make_scrape_families(s);
	r = s->kernel ? serve_kern_new(s->o->inst, &s->avail, &s->kern) : 0;
	if (!r)
		r = serve_user_new(&(struct serve_user_opts){ .mx = s->mx, .tep = s->tep,
						     .inst = s->o->inst, .hists = s->o->hists,
						     .nhists = s->o->nhists, .lats = s->o->lats,
						     .nlats = s->o->nlats, .engine = s->o->engine,
						     .max_series = s->o->max_series },
			   &user);
	if (r) {
		serve_agg_free(agg);
		serve_comm_free(comm);
		return r;
	}
	pthread_mutex_lock(&s->sink.lock);
	s->agg = agg;
	s->user = user;
	s->comm = comm;
	pthread_mutex_unlock(&s->sink.lock);
	return 0;
}

/* Tracing is on: a scraper sees what happens from now on. */
static void serve_running(void *arg)
{
	struct serve *s = arg;

	if (s->o->listening)
		s->o->listening(s->o->arg, s->addr);
}

static int serve_finish(void *arg, struct session *sess, struct session_result *res)
{
	struct serve *s = arg;

	(void)sess;
	(void)res;
	/* No scrape after this: the registry goes with the session. */
	http_server_stop(s->http);
	s->http = NULL;
	return 0;
}

/* One more event to read, "sys:event" (its system's formats are loaded). */
static int want_event(struct serve *s, const struct strv *avail, const char *sysev,
		      struct evsel_list *ev, struct strv *systems)
{
	char *sys;

	if (!strv_contains(avail, sysev))
		return tr_fail(-ENOENT, "no such event '%s'", sysev);
	if (!strv_contains(&s->enabled, sysev)) {
		evsel_add(ev, sysev);
		strv_push(&s->enabled, sysev);
	}
	sys = xasprintf("%.*s", (int)strcspn(sysev, ":"), sysev);
	if (!strv_contains(systems, sys))
		strv_push(systems, sys);
	free(sys);
	return 0;
}

/* The events of --hist (counted in user space) and --latency. */
static int pick_user_events(struct serve *s, const struct strv *avail, struct evsel_list *ev,
			    struct strv *systems)
{
	int r = 0;

	for (size_t i = 0; !r && i < s->o->nhists; i++) {
		const struct hist_spec *h = &s->o->hists[i].spec;
		char *e = xasprintf("%s:%s", h->system, h->event);

		if (s->kernel)
			r = strv_contains(avail, e) ? 0 : tr_fail(-ENOENT, "no such event '%s'", e);
		else
			r = want_event(s, avail, e, ev, systems);
		free(e);
	}
	for (size_t i = 0; !r && i < s->o->nlats; i++) {
		r = want_event(s, avail, s->o->lats[i].spec.start, ev, systems);
		if (!r)
			r = want_event(s, avail, s->o->lats[i].spec.end, ev, systems);
	}
	return r;
}

/* The events to count, of those the kernel has. */
static int pick_events(struct serve *s, struct evsel_list *ev, struct strv *systems)
{
	struct strv *avail = &s->avail;
	int r = tfs_events(s->o->inst, avail);

	if (r)
		return tr_fail(r, "cannot read available_events: %s", strerror(-r));
	for (size_t i = 0; i < ARRAY_SIZE(wanted); i++) {
		char *alts = xstrdup(wanted[i]), *save = NULL;

		for (char *a = strtok_r(alts, "|", &save); a; a = strtok_r(NULL, "|", &save)) {
			if (!strv_contains(avail, a))
				continue;
			/* Counted by the kernel and paired with nothing: not read (--by comm reads it). */
			if (!s->kernel || s->o->by_comm || !serve_kern_replaces(a))
				want_event(s, avail, a, ev, systems);
			break;
		}
		free(alts);
	}
	if (!s->enabled.n)
		return tr_fail(-ENOENT, "none of the events tr serve counts is on this kernel "
					"(sched, raw_syscalls, irq)");
	/* --by comm: the names tasks take (an exec, prctl, /proc/PID/comm) as they take them. */
	if (s->o->by_comm && strv_contains(avail, "task:task_rename"))
		r = want_event(s, avail, "task:task_rename", ev, systems);
	if (!r)
		r = pick_user_events(s, avail, ev, systems);
	return r;
}

static void serve_free(struct serve *s)
{
	http_server_stop(s->http);
	serve_user_free(s->user);
	serve_comm_free(s->comm);
	serve_kern_free(s->kern);
	strv_free(&s->avail);
	serve_agg_free(s->agg);
	mx_free(s->mx);
	top_decoder_free(s->dec);
	if (s->tep)
		tep_free(s->tep);
	strv_free(&s->enabled);
	free(s->cpu_s);
	free(s->overrun);
	free(s->dropped);
	session_sink_destroy(&s->sink);
}

int serve_run(const struct serve_opts *o)
{
	struct serve s = { .o = o, .clk_tck = sysconf(_SC_CLK_TCK) };
	struct evsel_list ev = { 0 };
	struct strv systems = { 0 };
	unsigned short port = 0;
	int r;

	if (s.clk_tck <= 0)
		s.clk_tck = 100;
	session_sink_init(&s.sink, on_event, &s);
	s.mx = mx_new();
	s.kernel = serve_engine_kernel(o->engine);
	r = pick_events(&s, &ev, &systems);
	if (!r) {
		s.tep = session_tep(&(struct session_tep_opts){ .systems = &systems });
		if (!s.tep)
			r = tr_fail(-ENOMEM, "cannot load the event formats");
	}
	if (!r)
		r = top_decoder_new(s.tep, NULL, &s.dec);
	/* Stamps in one clock across CPUs: a wakeup and its switch are often on two. */
	if (!r && (r = tfs_set(o->inst, "trace_clock", "mono")))
		r = tr_fail(r, "cannot set trace_clock to mono: %s", strerror(-r));
	if (!r)
		r = http_server_start(&(struct http_server_opts){
					      .bind = o->bind, .port = o->port, .allow = o->allow,
					      .nallow = o->nallow, .handle = handle, .arg = &s,
					      .log = o->log, .log_arg = o->arg,
					      .tls_cert = o->tls_cert, .tls_key = o->tls_key,
					      .auth_file = o->auth_file },
				      &s.http, &port);
	if (!r) {
		const struct session_tool tool = { .prepare = serve_prepare,
						   .on_running = serve_running,
						   .finish = serve_finish };

		s.http_tid = http_server_tid(s.http);
		snprintf(s.addr, sizeof(s.addr), "%s://%s:%u", o->tls_cert ? "https" : "http",
			 o->bind ? o->bind : "127.0.0.1", port);
		/*
		 * Partly filled pages too, so that a scrape sees an idle CPU's
		 * events within a quarter of a second.
		 */
		r = session_tool_run(&(struct session_opts){
					     .inst = o->inst, .command = o->command,
					     .duration_ns = o->duration_ns, .events = &ev,
					     .sink = &s.sink, .own_tids = &s.http_tid, .nown_tids = 1,
					     .rec = { .partial = true, .idle_ms = 250,
						      .wake_percent = 5 } },
				     &tool, &s);
	}
	evsel_list_free(&ev);
	strv_free(&systems);
	serve_free(&s);
	return r;
}
