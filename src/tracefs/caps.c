// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Capability probe (see caps.h).  Most answers come from which control
 * files exist and what README says the kernel accepts; the few that need a
 * real attempt make it in a private instance.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "caps.h"
#include "tfs.h"
#include "tr.h"
#include "tfs-user-abi.h"
#include "tfs-persist.h"

static const char *const names[CAP__COUNT] = {
	[CAP_TRACEFS] = "tracefs",
	[CAP_ACCESS] = "access",
	[CAP_INSTANCES] = "instances",
	[CAP_TRACERS] = "tracers",
	[CAP_FUNCTION] = "function",
	[CAP_FUNCTION_GRAPH] = "function_graph",
	[CAP_FUNCTION_FILTER] = "function_filter",
	[CAP_LATENCY] = "latency",
	[CAP_EVENTS] = "events",
	[CAP_TRIGGERS] = "triggers",
	[CAP_HIST] = "hist",
	[CAP_SNAPSHOT] = "snapshot",
	[CAP_KPROBES] = "kprobes",
	[CAP_UPROBES] = "uprobes",
	[CAP_EPROBES] = "eprobes",
	[CAP_FPROBES] = "fprobes",
	[CAP_SYNTHETIC] = "synthetic",
	[CAP_USER_EVENTS] = "user_events",
	[CAP_USER_PERSIST] = "user_persist",
	[CAP_USER_MULTI] = "user_multi",
	[CAP_STACK_TRACER] = "stack_tracer",
	[CAP_PROFILER] = "profiler",
	[CAP_MMAP] = "mmap",
	[CAP_CLOCKS] = "clocks",
	[CAP_BUFFERS] = "buffers",
	[CAP_DISABLE_ON_FREE] = "disable_on_free",
	[CAP_PERSISTENT] = "persistent",
	[CAP_SUBBUF] = "subbuf",
};

static struct {
	bool done;
	bool present;
	char *detail;
} caps[CAP__COUNT];

static char *readme;

const char *cap_name(enum tr_cap c)
{
	return c < CAP__COUNT ? names[c] : NULL;
}

int cap_from_name(const char *name)
{
	for (int i = 0; i < CAP__COUNT; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

static void set(enum tr_cap c, bool present, char *detail)
{
	caps[c].done = true;
	caps[c].present = present;
	free(caps[c].detail);
	caps[c].detail = detail ? detail : xstrdup("");
}

static bool readme_has(const char *s)
{
	if (!readme && tfs_read(NULL, "README", &readme))
		readme = xstrdup("");
	return strstr(readme, s) != NULL;
}

static bool tracer_listed(const char *name)
{
	char *buf = NULL, *tok, *save = NULL;
	bool found = false;

	if (tfs_read(NULL, "available_tracers", &buf))
		return false;
	for (tok = strtok_r(buf, " \n", &save); tok && !found; tok = strtok_r(NULL, " \n", &save))
		found = !strcmp(tok, name);
	free(buf);
	return found;
}

/* A file's presence decides the capability. */
static void by_file(enum tr_cap c, const char *file, const char *why_absent)
{
	bool ok = tfs_exists(NULL, file);

	set(c, ok, ok ? xasprintf("%s/%s", tfs_root(), file) : xstrdup(why_absent));
}

static void probe_access(void)
{
	char *p = tfs_path(NULL, "tracing_on");
	struct stat st;

	if (geteuid() == 0) {
		set(CAP_ACCESS, true, xstrdup("running as root"));
	} else if (access(p, W_OK) == 0 && stat(tfs_root(), &st) == 0) {
		struct group *g = getgrgid(st.st_gid);

		set(CAP_ACCESS, true,
		    g ? xasprintf("through the tracefs group '%s'", g->gr_name)
		      : xasprintf("through the tracefs group %u", (unsigned)st.st_gid));
	} else {
		set(CAP_ACCESS, false, xstrdup("not root, and tracefs is not writable by this user"));
	}
	free(p);
}

static void probe_events(void)
{
	struct strv ev = { 0 }, sys = { 0 };
	int r = tfs_events(NULL, &ev);

	if (r) {
		set(CAP_EVENTS, false, xasprintf("available_events: %s", strerror(-r)));
		return;
	}
	for (size_t i = 0; i < ev.n; i++) {
		char *c = strchr(ev.v[i], ':');
		char *s = c ? xasprintf("%.*s", (int)(c - ev.v[i]), ev.v[i]) : xstrdup(ev.v[i]);

		if (!sys.n || strcmp(sys.v[sys.n - 1], s))
			strv_push_owned(&sys, s);
		else
			free(s);
	}
	set(CAP_EVENTS, ev.n > 0, xasprintf("%zu events in %zu systems", ev.n, sys.n));
	strv_free(&ev);
	strv_free(&sys);
}

/*
 * The tests that must try something: select the function tracer, open the
 * filter file for writing (appending nothing changes nothing) and map a
 * per-CPU buffer, all inside an instance nobody else uses.
 */
static void probe_by_trying(void)
{
	char name[64];
	struct tfs_inst *in;
	int r;

	snprintf(name, sizeof(name), "tr-probe-%d", (int)getpid());
	r = caps_has(CAP_INSTANCES) ? tfs_inst_get(name, true, &in) : -EOPNOTSUPP;
	if (r)
		in = NULL;

	/* The function tracer. */
	if (!tracer_listed("function")) {
		set(CAP_FUNCTION, false, xstrdup("'function' is not in available_tracers"));
	} else {
		char *en = NULL;

		if (!read_file("/proc/sys/kernel/ftrace_enabled", &en, NULL) && en[0] == '0')
			set(CAP_FUNCTION, false, xstrdup("/proc/sys/kernel/ftrace_enabled is 0"));
		else if (!in)
			set(CAP_FUNCTION, true, xstrdup("listed in available_tracers (not tried: no instances)"));
		else if ((r = tfs_write(in, "current_tracer", "function", false)))
			set(CAP_FUNCTION, false,
			    xasprintf("current_tracer refuses 'function': %s", strerror(-r)));
		else
			set(CAP_FUNCTION, true, xstrdup("selected in a scratch instance"));
		if (in && !r)
			tfs_write(in, "current_tracer", "nop", false);
		free(en);
		tr_detail_clear();
	}

	/* The function-filter files. */
	{
		static const char *const files[] = { "available_filter_functions", "set_ftrace_filter" };
		char *why = NULL;

		for (size_t i = 0; i < ARRAY_SIZE(files) && !why; i++) {
			char *p = tfs_path(NULL, files[i]);
			int fd = open(p, O_RDONLY | O_CLOEXEC);

			if (fd < 0)
				why = xasprintf("%s: %s", files[i], strerror(errno));
			else
				close(fd);
			free(p);
		}
		if (!why && in) {
			char *p = tfs_path(in, "set_ftrace_filter");
			int fd = open(p, O_WRONLY | O_APPEND | O_CLOEXEC);

			if (fd < 0 && errno != ENOENT)
				why = xasprintf("set_ftrace_filter refuses writing: %s", strerror(errno));
			if (fd >= 0)
				close(fd);
			free(p);
		}
		if (!why) {
			char *funcs = NULL;
			size_t n = 0;

			/* The count is the range of the index entries (-l N) the kernel takes. */
			if (!tfs_read(NULL, "available_filter_functions", &funcs))
				for (const char *p = funcs; *p; p++)
					n += *p == '\n' || !p[1];
			free(funcs);
			why = xasprintf("%zu functions in available_filter_functions; "
					"set_ftrace_filter writable", n);
			set(CAP_FUNCTION_FILTER, true, why);
		} else {
			set(CAP_FUNCTION_FILTER, false, why);
		}
	}

	/* Memory-mapped ring buffer (Linux 6.10+): map the meta page of cpu0. */
	{
		struct tfs_inst *where = in ? in : tfs_top();
		char *p = tfs_path(where, "per_cpu/cpu0/trace_pipe_raw");
		int fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

		if (fd < 0) {
			set(CAP_MMAP, false, xasprintf("trace_pipe_raw: %s", strerror(errno)));
		} else {
			long pg = sysconf(_SC_PAGESIZE);
			void *m = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, 0);

			if (m == MAP_FAILED)
				set(CAP_MMAP, false,
				    xasprintf("trace_pipe_raw cannot be mapped: %s (needs Linux 6.10+)",
					      strerror(errno)));
			else
				set(CAP_MMAP, true, xstrdup("trace_pipe_raw can be mapped"));
			if (m != MAP_FAILED)
				munmap(m, pg);
			close(fd);
		}
		free(p);
	}

	/*
	 * Sub-buffers of another size (6.8+): a kernel may list the file and
	 * refuse every write (EPERM on a locked-down host), so write one.
	 */
	{
		char *sub = NULL;

		if (tfs_read(NULL, "buffer_subbuf_size_kb", &sub))
			set(CAP_SUBBUF, false, xstrdup("no buffer_subbuf_size_kb (Linux 6.8 and later "
						       "have it)"));
		else if (!in)
			set(CAP_SUBBUF, true, xstrdup("buffer_subbuf_size_kb (not tried: no instances)"));
		else if ((r = tfs_write(in, "buffer_subbuf_size_kb", "8", false)))
			set(CAP_SUBBUF, false, xasprintf("buffer_subbuf_size_kb refuses a new size: %s",
							 strerror(-r)));
		else
			set(CAP_SUBBUF, true, xstrdup("a sub-buffer of 8 KiB taken in a scratch instance"));
		free(sub);
		tr_detail_clear();
	}
	if (in)
		tfs_inst_destroy(name);
}

/*
 * README lists 'e:' wherever dynamic events exist, even where creating one
 * fails, so try: an eprobe on sched_switch in a group of our own, removed at
 * once.  Nothing is enabled, so nothing is traced.
 */
static void probe_eprobes(void)
{
	char *def, *undo;
	int r;

	if (!readme_has("e[:[<group>/][<event>]]") || !tfs_exists(NULL, "dynamic_events")) {
		set(CAP_EPROBES, false, xstrdup("dynamic_events does not list 'e:' probes (needs Linux 5.15+)"));
		return;
	}
	def = xasprintf("e:trprobe%d/check sched.sched_switch", (int)getpid());
	undo = xasprintf("-:trprobe%d/check", (int)getpid());
	r = tfs_write(NULL, "dynamic_events", def, true);
	if (r) {
		const char *why = tr_detail();

		set(CAP_EPROBES, false,
		    xasprintf("dynamic_events refuses an eprobe on sched:sched_switch: %s%s%s",
			      strerror(-r), why ? ": " : "", why ? why : ""));
	} else {
		tfs_write(NULL, "dynamic_events", undo, true);
		set(CAP_EPROBES, true, xstrdup("an eprobe on sched:sched_switch was accepted"));
	}
	tr_detail_clear();
	free(def);
	free(undo);
}

/*
 * Does the kernel take these registration flags?  Asked without registering
 * anything: the kernel checks the flags (EINVAL for unknown ones) before it
 * checks that the enable word is in user space (EFAULT), so an address in
 * kernel space gets EFAULT exactly when everything else was accepted.  A
 * kernel with the pre-6.4 draft of the ABI answers otherwise (E2BIG or
 * EINVAL for our larger struct).  0 if accepted, else the -errno seen.
 */
static int user_flags_known(unsigned flags)
{
	char *path = tfs_path(NULL, "user_events_data");
	struct user_reg reg = {
		.size = sizeof(reg), .enable_bit = 0, .enable_size = 4, .flags = (uint16_t)flags,
		.enable_addr = (uint64_t)1 << 63, .name_args = (uintptr_t)"tr_check u32 x",
	};
	int fd = open(path, O_RDWR | O_CLOEXEC), r;

	free(path);
	if (fd < 0)
		return -errno;
	r = ioctl(fd, DIAG_IOCSREG, &reg) < 0 ? -errno : -EPROTO;
	close(fd);
	return r == -EFAULT ? 0 : r;
}

/* CAP_PERFMON (38) or CAP_SYS_ADMIN (21) in this process's effective set. */
static bool perfmon_capable(void)
{
	char *st = NULL, *l;
	unsigned long long eff = 0;

	if (read_file("/proc/self/status", &st, NULL))
		return geteuid() == 0;
	l = strstr(st, "\nCapEff:");
	if (l)
		eff = strtoull(l + 8, NULL, 16);
	free(st);
	return (eff >> 38 & 1) || (eff >> 21 & 1);
}

static void probe_user_events(enum tr_cap c)
{
	int r;

	if (!tfs_exists(NULL, "user_events_data")) {
		set(CAP_USER_EVENTS, false,
		    xstrdup("no 'user_events_data' file (kernel built without CONFIG_USER_EVENTS)"));
		set(CAP_USER_PERSIST, false, xstrdup("no user_events (CONFIG_USER_EVENTS)"));
		set(CAP_USER_MULTI, false, xstrdup("no user_events (CONFIG_USER_EVENTS)"));
		return;
	}
	if (c != CAP_USER_EVENTS && !caps_has(CAP_USER_EVENTS)) {
		set(c, false, xasprintf("no user_events: %s", caps_detail(CAP_USER_EVENTS)));
		return;
	}
	switch (c) {
	case CAP_USER_EVENTS:
		r = user_flags_known(0);
		if (r)
			set(c, false, xasprintf("user_events_data does not take a registration: %s%s",
						strerror(-r), r == -EINVAL || r == -E2BIG
						? " (an ABI before Linux 6.4)" : ""));
		else
			set(c, true, xasprintf("%s/user_events_data", tfs_root()));
		break;
	case CAP_USER_PERSIST:
		r = user_flags_known(USER_EVENT_REG_PERSIST);
		if (r == -EINVAL)
			set(c, false, xstrdup("the kernel does not know USER_EVENT_REG_PERSIST (needs Linux 6.5+)"));
		else if (r)
			set(c, false, xasprintf("USER_EVENT_REG_PERSIST: %s", strerror(-r)));
		else if (!perfmon_capable())
			set(c, false, xstrdup("persistent events need CAP_PERFMON, which this process lacks"));
		else
			set(c, true, xstrdup("USER_EVENT_REG_PERSIST, and CAP_PERFMON"));
		break;
	default:
		r = user_flags_known(USER_EVENT_REG_MULTI_FORMAT);
		if (r == -EINVAL)
			set(c, false, xstrdup("the kernel does not know USER_EVENT_REG_MULTI_FORMAT (needs Linux 6.10+)"));
		else if (r)
			set(c, false, xasprintf("USER_EVENT_REG_MULTI_FORMAT: %s", strerror(-r)));
		else
			set(c, true, xstrdup("USER_EVENT_REG_MULTI_FORMAT (user_events_multi)"));
		break;
	}
}

/*
 * Persistent instances are made at boot only: name those there are and
 * what each holds; with none, say whether this kernel could have one
 * (Linux 6.12 brought them) and the boot line that makes one.
 */
static void probe_persistent(void)
{
	struct tfs_persist *p;
	struct utsname u;
	char *d = NULL;
	size_t n;
	int maj = 0, min = 0;

	if (!tfs_persist_list(&p, &n) && n) {
		for (size_t i = 0; i < n; i++) {
			xstrcatf(&d, "%s%s: %s%s", i ? "; " : "", p[i].name, tfs_persist_what(&p[i]),
				 p[i].backup ? " (a read-only backup)" : "");
		}
		tfs_persist_free(p, n);
		set(CAP_PERSISTENT, true, d);
		return;
	}
	if (!uname(&u) && sscanf(u.release, "%d.%d", &maj, &min) == 2 &&
	    (maj < 6 || (maj == 6 && min < 12))) {
		set(CAP_PERSISTENT, false, xasprintf("Linux %d.%d keeps no ring buffer across boots "
						     "(6.12 and later do)", maj, min));
		return;
	}
	set(CAP_PERSISTENT, false,
	    xstrdup("no persistent instance: boot with reserve_mem=12M:4096:trace "
		    "trace_instance=NAME^traceoff@trace (tr persist prints such a line)"));
}

static void probe_one(enum tr_cap c)
{
	char *buf = NULL;

	switch (c) {
	case CAP_TRACEFS:
		set(c, true, xasprintf("%s (%s)", tfs_root(), tfs_origin()));
		break;
	case CAP_ACCESS:
		probe_access();
		break;
	case CAP_INSTANCES:
		by_file(c, "instances", "no 'instances' directory");
		break;
	case CAP_TRACERS:
		if (tfs_read(NULL, "available_tracers", &buf))
			set(c, false, xstrdup("available_tracers is unreadable"));
		else
			set(c, true, str_rstrip(buf)), buf = NULL;
		break;
	case CAP_FUNCTION:
	case CAP_FUNCTION_FILTER:
	case CAP_MMAP:
	case CAP_SUBBUF:
		probe_by_trying();
		break;
	case CAP_FUNCTION_GRAPH:
		if (!tracer_listed("function_graph"))
			set(c, false, xstrdup("'function_graph' is not in available_tracers"));
		else if (!caps_has(CAP_FUNCTION))
			set(c, false, xasprintf("listed, but %s", caps_detail(CAP_FUNCTION)));
		else
			set(c, true, xstrdup("in available_tracers"));
		break;
	case CAP_LATENCY: {
		static const char *const lat[] = { "irqsoff", "preemptoff", "preemptirqsoff", "wakeup",
						   "wakeup_rt", "wakeup_dl", "hwlat", "osnoise",
						   "timerlat" };
		char *have = xstrdup("");

		for (size_t i = 0; i < ARRAY_SIZE(lat); i++)
			if (tracer_listed(lat[i])) {
				char *n = xasprintf("%s%s%s", have, *have ? " " : "", lat[i]);

				free(have);
				have = n;
			}
		if (*have)
			set(c, true, have);
		else
			set(c, false, xstrdup("no latency tracer in available_tracers")), free(have);
		break;
	}
	case CAP_EVENTS:
		probe_events();
		break;
	case CAP_TRIGGERS:
		if (readme_has("trigger\t") || tfs_exists(NULL, "events/sched/sched_switch/trigger"))
			set(c, true, xstrdup("events/*/*/trigger"));
		else
			set(c, false, xstrdup("no event trigger files"));
		break;
	case CAP_HIST:
		if (readme_has("hist trigger") || tfs_exists(NULL, "events/sched/sched_switch/hist"))
			set(c, true, xstrdup("events/*/*/hist"));
		else
			set(c, false, xstrdup("no hist triggers (kernel built without CONFIG_HIST_TRIGGERS)"));
		break;
	case CAP_SNAPSHOT:
		by_file(c, "snapshot", "no 'snapshot' file (kernel built without CONFIG_TRACER_SNAPSHOT)");
		break;
	case CAP_KPROBES:
		by_file(c, "kprobe_events", "no 'kprobe_events' file (kernel built without CONFIG_KPROBE_EVENTS)");
		break;
	case CAP_UPROBES:
		by_file(c, "uprobe_events", "no 'uprobe_events' file (kernel built without CONFIG_UPROBE_EVENTS)");
		break;
	case CAP_EPROBES:
		probe_eprobes();
		break;
	case CAP_FPROBES:
		if (readme_has("f[:[<group>/][<event>]]") || readme_has("f[%return]"))
			set(c, true, xstrdup("dynamic_events accepts 'f:' probes"));
		else
			set(c, false, xstrdup("dynamic_events does not list 'f:' probes (CONFIG_FPROBE_EVENTS)"));
		break;
	case CAP_SYNTHETIC:
		by_file(c, "synthetic_events", "no 'synthetic_events' file (kernel built without CONFIG_SYNTH_EVENTS)");
		break;
	case CAP_USER_EVENTS:
	case CAP_USER_PERSIST:
	case CAP_USER_MULTI:
		probe_user_events(c);
		break;
	case CAP_STACK_TRACER:
		by_file(c, "stack_trace", "no 'stack_trace' file (kernel built without CONFIG_STACK_TRACER)");
		break;
	case CAP_PROFILER:
		/* The profiler hooks every function as the function tracer does: refused where it is. */
		if (!tfs_exists(NULL, "function_profile_enabled"))
			set(c, false, xstrdup("no 'function_profile_enabled' file (kernel built "
					      "without CONFIG_FUNCTION_PROFILER)"));
		else if (!caps_has(CAP_FUNCTION))
			set(c, false, xasprintf("the function tracer is not usable: %s",
						caps_detail(CAP_FUNCTION)));
		else
			by_file(c, "function_profile_enabled", "");
		break;
	case CAP_CLOCKS:
		if (tfs_read(NULL, "trace_clock", &buf)) {
			set(c, false, xstrdup("trace_clock is unreadable"));
		} else {
			char *cur = tfs_normalize("trace_clock", buf);

			set(c, true, xasprintf("%s (current: %s)", str_rstrip(buf), cur));
			free(cur);
		}
		break;
	case CAP_DISABLE_ON_FREE:
		if (!tfs_exists(NULL, "free_buffer"))
			set(c, false, xstrdup("no 'free_buffer' file: a tr that dies leaves tracing on "
					      "and its buffer as large as it made it"));
		else if (!tfs_exists(NULL, "options/disable_on_free"))
			set(c, false, xstrdup("no disable_on_free option: a tr that dies leaves tracing "
					      "on (free_buffer still frees its buffer)"));
		else
			set(c, true, xstrdup("a tr that dies stops tracing and frees its buffer "
					     "(free_buffer, disable_on_free)"));
		break;
	case CAP_BUFFERS: {
		char *kb = NULL, *sub = NULL, *norm;

		if (tfs_read(NULL, "buffer_size_kb", &kb)) {
			set(c, false, xstrdup("buffer_size_kb is unreadable"));
			break;
		}
		norm = tfs_normalize("buffer_size_kb", kb);
		if (!tfs_read(NULL, "buffer_subbuf_size_kb", &sub))
			set(c, true, xasprintf("%s KiB per cpu, sub-buffers of %s KiB", norm, str_rstrip(sub)));
		else
			set(c, true, xasprintf("%s KiB per cpu, fixed page-sized sub-buffers", norm));
		free(kb);
		free(sub);
		free(norm);
		break;
	}
	case CAP_PERSISTENT:
		probe_persistent();
		break;
	case CAP__COUNT:
		break;
	}
	free(buf);
}

bool caps_has(enum tr_cap c)
{
	if (!caps[c].done)
		probe_one(c);
	return caps[c].present;
}

const char *caps_detail(enum tr_cap c)
{
	caps_has(c);
	return caps[c].detail;
}

int caps_require(enum tr_cap c)
{
	if (caps_has(c))
		return 0;
	return tr_fail(-EOPNOTSUPP, "%s is not available on this kernel: %s", names[c], caps[c].detail);
}

void caps_free(void)
{
	for (int i = 0; i < CAP__COUNT; i++) {
		free(caps[i].detail);
		caps[i].detail = NULL;
		caps[i].done = false;
	}
	free(readme);
	readme = NULL;
}
