// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr top's terminal UI, the only file that includes curses.
 *
 * Model and view apart, as htop does it: the source builds a table from
 * the model (under its lock), and this file only draws tables and reads
 * keys, through one table of key bindings.  Each frame is drawn into three
 * windows (header, table, footer) with wnoutrefresh() and one doupdate(),
 * so ncurses sends only the cells that changed.  Keys are read without
 * waiting (the session's tick, or a poll() in top_ui_loop()); KEY_RESIZE
 * rebuilds the windows.
 *
 * The terminal is given back on every way out: top_ui_close() on q, on
 * SIGINT/SIGTERM/SIGHUP (the session ends and the caller closes the UI),
 * on errors; and a fatal signal (SIGSEGV, SIGABRT, ...) restores the saved
 * termios and leaves the alternate screen from the handler before the
 * default action runs.  stderr goes to a temp file meanwhile (a warning
 * would otherwise scribble over the screen) and is copied out at close.
 */
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "session.h"
#include "top-local.h"

#define MAX_DEPTH 16
#define HDR_LINES 4
#define ECHO_LINES 1000

enum act {
	K_NONE, K_QUIT, K_HELP, K_NEXT_VIEW, K_MENU, K_UP, K_DOWN, K_PGUP, K_PGDN, K_HOME, K_END,
	K_SORT_LEFT, K_SORT_RIGHT, K_SORT_NEXT, K_REVERSE, K_FILTER, K_ESC, K_ENTER, K_BACK,
	K_ECHO, K_PAUSE, K_ZERO, K_FASTER, K_SLOWER, K_PER_TASK, K_STEP_NEXT, K_STEP_PREV,
	K_GOTO, K_VIEW, K_BATCH,
};

/* The key table: letters and F-keys both work (htop's keys[] = action). */
static const struct {
	int key;
	enum act act;
} bindings[] = {
	{ 'q', K_QUIT }, { KEY_F(10), K_QUIT }, { 'h', K_HELP }, { '?', K_HELP },
	{ KEY_F(1), K_HELP }, { '\t', K_NEXT_VIEW }, { KEY_F(2), K_MENU }, { KEY_UP, K_UP },
	{ KEY_DOWN, K_DOWN }, { KEY_PPAGE, K_PGUP }, { KEY_NPAGE, K_PGDN }, { KEY_HOME, K_HOME },
	{ KEY_END, K_END }, { '<', K_SORT_LEFT }, { '>', K_SORT_RIGHT }, { KEY_F(6), K_SORT_NEXT },
	{ 'r', K_REVERSE }, { '/', K_FILTER }, { KEY_F(3), K_FILTER }, { 27, K_ESC },
	{ '\n', K_ENTER }, { '\r', K_ENTER }, { KEY_ENTER, K_ENTER }, { KEY_BACKSPACE, K_BACK },
	{ 127, K_BACK }, { 8, K_BACK }, { 'e', K_ECHO }, { 'p', K_PAUSE }, { ' ', K_PAUSE },
	{ 'z', K_ZERO }, { '+', K_SLOWER }, { '-', K_FASTER }, { 't', K_PER_TASK },
	{ 'n', K_STEP_NEXT }, { 'N', K_STEP_PREV }, { 'g', K_GOTO }, { 'b', K_BATCH },
};

static const char *const help_text[] = {
	"tr top keys",
	"",
	"  1-7, Tab, F2      views: tasks, syscalls, events, cpus, irqs, custom, latency",
	"  Up Down PgUp PgDn Home End     move",
	"  < > F6            choose the sort column      r   reverse the order",
	"  / F3              filter rows by text         Esc clear the filter",
	"  Enter             drill down (a task: its syscalls and events; an event or a",
	"                    syscall: its tasks)         Backspace  back",
	"  e                 echo the raw events of the row, as tr report prints them",
	"  p Space           pause the display (counting goes on)",
	"  z                 zero the counters           + -  refresh slower, faster",
	"  t                 latency view: per task or per CPU",
	"  n N g             replay (-i): next, previous interval; go to a time",
	"  b                 replay (-i): leave, and print this view of every interval",
	"  h ? F1            this help                   q F10  quit",
	"",
	"CPU%, BUSY% and rates are over the last interval; counts and times since the",
	"start (or z).  Any key closes this help.",
	NULL
};

static const uint64_t delays[] = { 100000000ULL, 250000000ULL, 500000000ULL, 1000000000ULL,
				   2000000000ULL, 5000000000ULL, 10000000000ULL, 30000000000ULL,
				   60000000000ULL };

struct level {
	struct top_state st;
	size_t sel;
};

struct top_ui {
	struct top_source *s;
	/*
	 * TR_TOP_KEY_LOG=FILE: one line per key, the CLOCK_REALTIME
	 * nanoseconds when the screen showed its effect, so a test can time
	 * keys from send-keys to the screen (t1310-top-ui.sh).
	 */
	FILE *keylog;
	const struct top_opts *o;
	WINDOW *hdr, *tbl, *foot;
	bool color;
	struct top_state st;
	struct level stack[MAX_DEPTH];
	int depth;
	struct top_table t;
	bool have_table;
	size_t sel, first;
	uint64_t sel_key;
	bool paused, help, menu, echo, quit, per_task;
	bool batch;		/* replay: b was pressed, print the whole file on leaving */
	SCREEN *scr;
	enum { IN_NONE, IN_FILTER, IN_GOTO } input;
	char buf[64];
	uint64_t delay, next_due, next_echo;
	char msg[160];
	int saved_stderr;
	FILE *held;
	bool dirty;
};

/* ---- giving the terminal back, even from a crash ---- */

static struct termios saved_tio;
static bool have_tio;
static const char *rmcup, *cnorm, *sgr0;
static volatile sig_atomic_t ui_saved_stderr = -1;
static int ui_fd = STDOUT_FILENO;	/* the terminal drawn on */
static const int fatal_sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

static void put_cap(const char *s)
{
	if (s && s != (const char *)-1 && write(ui_fd, s, strlen(s)) < 0) {
		/* Nothing left to do from here. */
	}
}

/* Only async-signal-safe calls: termios back, leave the alternate screen, die as we would. */
static void on_fatal(int sig)
{
	if (have_tio)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_tio);
	put_cap(sgr0);
	put_cap(cnorm);
	put_cap(rmcup);
	if (ui_saved_stderr >= 0)
		dup2(ui_saved_stderr, STDERR_FILENO);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void fatal_handlers(bool on)
{
	struct sigaction sa = { .sa_handler = SIG_DFL };

	if (on) {
		sa.sa_handler = on_fatal;
		sa.sa_flags = SA_RESETHAND;
	}
	for (size_t i = 0; i < ARRAY_SIZE(fatal_sigs); i++)
		sigaction(fatal_sigs[i], &sa, NULL);
}

/* ---- drawing ---- */

enum { C_BAR = 1, C_HEAD, C_WARN, C_SEL };

static int attr(struct top_ui *u, int pair, int fallback)
{
	return u->color ? (int)COLOR_PAIR(pair) : fallback;
}

static void make_windows(struct top_ui *u)
{
	if (u->hdr)
		delwin(u->hdr), delwin(u->tbl), delwin(u->foot);
	u->hdr = newwin(HDR_LINES, COLS, 0, 0);
	u->tbl = newwin(LINES > HDR_LINES + 1 ? LINES - HDR_LINES - 1 : 1, COLS, HDR_LINES, 0);
	u->foot = newwin(1, COLS, LINES - 1, 0);
	u->dirty = true;
}

static bool field_in(const struct top_view *v, enum top_field f)
{
	switch (f) {
	case TF_PID: return v->src == TS_SYSCALLS || v->src == TS_EVENTS || v->src == TS_TASKS;
	case TF_NR: return v->src == TS_SYSCALLS;
	case TF_EVENT: return v->src == TS_EVENTS;
	default: return false;
	}
}

static void draw_header(struct top_ui *u)
{
	const struct top_header *h = &u->s->h;
	const struct top_view *v = u->st.view;
	char el[16];
	WINDOW *w = u->hdr;

	werase(w);
	top_time_text((double)h->elapsed_ns, el, sizeof(el));
	wattron(w, attr(u, C_BAR, A_REVERSE));
	mvwhline(w, 0, 0, ' ', COLS);
	mvwprintw(w, 0, 0, " tr top  %s  %s  %d CPUs  %.0f events/s  ", h->source ? h->source : "",
		  el, h->ncpus, h->events_s);
	wattroff(w, attr(u, C_BAR, A_REVERSE));
	if (h->lost_s > 0 || h->lost)
		wattron(w, attr(u, C_WARN, A_BOLD));
	else
		wattron(w, attr(u, C_BAR, A_REVERSE));
	wprintw(w, "%.0f lost/s", h->lost_s);
	wattroff(w, attr(u, C_WARN, A_BOLD));
	wattron(w, attr(u, C_BAR, A_REVERSE));
	if (h->buffer_kb)
		wprintw(w, "  %llu KiB/CPU", (unsigned long long)h->buffer_kb);
	wprintw(w, "  every %.2gs  %s%s", u->s->replay ? h->interval_s : u->delay / 1e9,
		h->state ? h->state : "", u->paused ? "  PAUSED" : "");
	wattroff(w, attr(u, C_BAR, A_REVERSE));
	mvwprintw(w, 1, 0, "enabled: %.*s", COLS > 10 ? COLS - 10 : 0,
		  h->enabled && *h->enabled ? h->enabled : "(nothing)");
	wmove(w, 2, 0);
	wattron(w, A_BOLD);
	wprintw(w, "%c %s", v->key ? v->key : '>', v->title);
	wattroff(w, A_BOLD);
	if (u->st.drill_field != TF_NONE)
		wprintw(w, " of %s", u->st.drill_label);
	if (u->st.filter[0])
		wprintw(w, "  [filter: %s]", u->st.filter);
	if (u->have_table && u->t.sort >= 0 && (size_t)u->t.sort < u->t.ncols)
		wprintw(w, "  by %s%s", u->t.cols[u->t.sort].name, u->t.sort_asc ? "" : " desc");
	if (u->echo)
		wprintw(w, "  ECHO (e or Esc: back)");
	if (u->have_table && u->t.missing && *u->t.missing) {
		wattron(w, attr(u, C_WARN, A_BOLD));
		mvwprintw(w, 3, 0, "%s: %.*s", u->t.unavailable ? "not on this kernel" : "missing",
			  COLS > 24 ? COLS - 24 : 0, u->t.missing);
		wattroff(w, attr(u, C_WARN, A_BOLD));
	} else {
		mvwprintw(w, 3, 0, "%.*s", COLS, v->src == TS_LATENCY && h->pair ? h->pair : v->help);
	}
	wnoutrefresh(w);
}

static int visible_rows(struct top_ui *u)
{
	int n = getmaxy(u->tbl) - 1;

	if (u->have_table && u->t.has_hist && u->t.hist.hi >= u->t.hist.lo)
		n -= u->t.hist.hi - u->t.hist.lo + 3;
	return n < 1 ? 1 : n;
}

static void draw_hist(struct top_ui *u, int y)
{
	const struct top_hist *h = &u->t.hist;
	uint64_t max = 0;
	int barw = COLS - 36;

	for (int b = h->lo; b <= h->hi; b++)
		if (h->count[b] > max)
			max = h->count[b];
	if (u->t.note)
		mvwprintw(u->tbl, y++, 0, "%.*s", COLS, u->t.note);
	for (int b = h->lo; b <= h->hi && y < getmaxy(u->tbl); b++, y++) {
		char label[48];
		int n = max && barw > 0 ? (int)(h->count[b] * (uint64_t)barw / max) : 0;

		top_hist_label(b, label, sizeof(label));
		mvwprintw(u->tbl, y, 0, "%22s %10llu ", label, (unsigned long long)h->count[b]);
		wattron(u->tbl, attr(u, C_HEAD, A_REVERSE));
		for (int i = 0; i < n; i++)
			waddch(u->tbl, ' ');
		wattroff(u->tbl, attr(u, C_HEAD, A_REVERSE));
	}
}

static void draw_table(struct top_ui *u)
{
	WINDOW *w = u->tbl;
	const struct top_table *t = &u->t;
	int rows = visible_rows(u), x;

	werase(w);
	if (!u->have_table) {
		wnoutrefresh(w);
		return;
	}
	if (t->unavailable) {
		wattron(w, attr(u, C_WARN, A_BOLD));
		mvwprintw(w, 1, 2, "This view needs events this kernel does not have:");
		mvwprintw(w, 2, 4, "%.*s", COLS > 6 ? COLS - 6 : 0, t->missing);
		wattroff(w, attr(u, C_WARN, A_BOLD));
		wnoutrefresh(w);
		return;
	}
	wattron(w, attr(u, C_HEAD, A_REVERSE));
	mvwhline(w, 0, 0, ' ', COLS);
	x = 0;
	for (size_t c = 0; c < t->ncols && x < COLS; c++) {
		int cw = abs(t->cols[c].width);

		if ((int)c == t->sort)
			wattron(w, A_BOLD | A_UNDERLINE);
		mvwprintw(w, 0, x, "%*.*s", t->cols[c].width, cw, t->cols[c].name);
		if ((int)c == t->sort)
			wattroff(w, A_BOLD | A_UNDERLINE);
		x += cw + 1;
	}
	wattroff(w, attr(u, C_HEAD, A_REVERSE));
	if (u->sel >= t->nrows)
		u->sel = t->nrows ? t->nrows - 1 : 0;
	if (u->sel < u->first)
		u->first = u->sel;
	if (u->sel >= u->first + rows)
		u->first = u->sel - rows + 1;
	for (int i = 0; i < rows && u->first + i < t->nrows; i++) {
		size_t r = u->first + i;
		bool sel = r == u->sel;

		if (sel) {
			wattron(w, attr(u, C_SEL, A_REVERSE));
			mvwhline(w, i + 1, 0, ' ', COLS);
		}
		x = 0;
		for (size_t c = 0; c < t->ncols && x < COLS; c++) {
			char cell[128];
			int cw = abs(t->cols[c].width);

			top_cell_text(&t->cols[c], top_tcell(t, r, c), cell, sizeof(cell));
			mvwprintw(w, i + 1, x, "%*.*s", t->cols[c].width, cw, cell);
			x += cw + 1;
		}
		if (sel)
			wattroff(w, attr(u, C_SEL, A_REVERSE));
	}
	if (!t->nrows)
		mvwprintw(w, 2, 2, "%s", u->st.filter[0] ? "no row matches the filter"
							 : "nothing yet");
	if (t->has_hist && t->hist.hi >= t->hist.lo)
		draw_hist(u, rows + 2);
	else if (t->note)
		mvwprintw(w, getmaxy(w) - 1, 0, "%.*s", COLS, t->note);
	wnoutrefresh(w);
}

static void draw_echo(struct top_ui *u)
{
	int rows = getmaxy(u->tbl);
	char **txt = xcalloc(rows + 1, sizeof(char *));
	size_t n = u->s->ops->echo_lines(u->s, txt, rows);

	werase(u->tbl);
	if (!n)
		mvwprintw(u->tbl, 0, 2, "waiting for events of the row...");
	for (size_t i = 0; i < n; i++) {
		mvwprintw(u->tbl, (int)i, 0, "%.*s", COLS, txt[i]);
		free(txt[i]);
	}
	free(txt);
	wnoutrefresh(u->tbl);
}

static void draw_overlay(const char *const *text, int n)
{
	int wd = 0, h = n + 2, y0, x0;
	WINDOW *w;

	for (int i = 0; i < n; i++)
		if ((int)strlen(text[i]) > wd)
			wd = (int)strlen(text[i]);
	wd += 4;
	if (wd > COLS)
		wd = COLS;
	if (h > LINES)
		h = LINES;
	y0 = (LINES - h) / 2;
	x0 = (COLS - wd) / 2;
	w = newwin(h, wd, y0 > 0 ? y0 : 0, x0 > 0 ? x0 : 0);
	if (!w)
		return;
	werase(w);
	box(w, 0, 0);
	for (int i = 0; i < n && i + 1 < h - 1; i++)
		mvwprintw(w, i + 1, 2, "%.*s", wd - 4, text[i]);
	wnoutrefresh(w);
	delwin(w);
}

static void draw_footer(struct top_ui *u)
{
	WINDOW *w = u->foot;

	werase(w);
	if (u->input == IN_FILTER)
		mvwprintw(w, 0, 0, "filter: %s", u->st.filter);
	else if (u->input == IN_GOTO)
		mvwprintw(w, 0, 0, "go to time (seconds): %s", u->buf);
	else if (u->msg[0])
		mvwprintw(w, 0, 0, "%.*s", COLS, u->msg);
	else
		mvwprintw(w, 0, 0, "%.*s", COLS,
			  u->s->replay ? "1-7 views  n N g interval  Enter drill  e echo  / filter"
					 "  < > sort  h help  q quit"
				       : "1-7 views  Enter drill  Bksp back  e echo  / filter  < > sort"
					 "  p pause  z zero  + - delay  h help  q quit");
	wnoutrefresh(w);
}

static void draw(struct top_ui *u)
{
	const char *menu[9];
	char txt[8][48];

	draw_header(u);
	if (u->echo)
		draw_echo(u);
	else
		draw_table(u);
	draw_footer(u);
	if (u->help) {
		int n = 0;

		while (help_text[n])
			n++;
		draw_overlay(help_text, n);
	} else if (u->menu) {
		int n = 0;

		menu[n++] = "views (1-7, Esc closes)";
		for (size_t i = 0; i < top_nviews && n < 9; i++) {
			if (!top_views[i].key)
				continue;
			snprintf(txt[n - 1], sizeof(txt[0]), "%c  %s%s", top_views[i].key,
				 top_views[i].title, &top_views[i] == u->st.view ? "  *" : "");
			menu[n] = txt[n - 1];
			n++;
		}
		draw_overlay(menu, n);
	}
	/* The cursor stays where typing happens, hidden otherwise. */
	doupdate();
	u->dirty = false;
}

/* ---- state changes ---- */

/* Rebuild the table from the source; advance: close an interval first. */
static void refresh_table(struct top_ui *u, bool advance)
{
	struct top_table t;

	if (u->s->ops->frame(u->s, &u->st, advance, &t)) {
		snprintf(u->msg, sizeof(u->msg), "%s", tr_failure() ? tr_failure() : "error");
		tr_detail_clear();
		return;
	}
	if (u->paused && u->have_table) {
		top_table_free(&t);
		return;
	}
	if (u->have_table)
		top_table_free(&u->t);
	u->t = t;
	u->have_table = true;
	/* The selection follows its row as rows re-sort. */
	for (size_t i = 0; i < u->t.nrows; i++)
		if (u->t.keys[i] == u->sel_key) {
			u->sel = i;
			break;
		}
	if (u->t.nrows && u->sel < u->t.nrows)
		u->sel_key = u->t.keys[u->sel];
	u->dirty = true;
}

static void set_view(struct top_ui *u, const struct top_view *v)
{
	if (v == u->st.view)
		return;
	u->s->ops->need(u->s, v);
	if (!field_in(v, u->st.drill_field)) {
		u->st.drill_field = TF_NONE;
		u->st.drill_label[0] = '\0';
	}
	u->st.view = v;
	u->st.sort = -1;
	u->st.sort_name = NULL;
	u->st.reverse = false;
	u->sel = u->first = 0;
	u->sel_key = 0;
	refresh_table(u, false);
}

static void drill(struct top_ui *u)
{
	const struct top_view *v = u->st.view, *to;
	char text[40] = "";
	uint64_t key;

	if (!v->drill || !u->have_table || !u->t.nrows) {
		snprintf(u->msg, sizeof(u->msg), "no drill-down from the %s view", v->id);
		return;
	}
	if (u->depth == MAX_DEPTH)
		return;
	to = top_view_find(v->drill);
	key = u->t.keys[u->sel];
	u->stack[u->depth++] = (struct level){ u->st, u->sel };
	for (size_t c = 0; c < u->t.ncols; c++)
		if (u->t.cols[c].agg == TA_KEY || u->t.cols[c].agg == TA_TEXT) {
			top_cell_text(&u->t.cols[c], top_tcell(&u->t, u->sel, c), text, sizeof(text));
			break;
		}
	u->s->ops->need(u->s, to);
	u->st = (struct top_state){ .view = to, .sort = -1, .drill_field = v->group,
				    .drill_value = key };
	if (v->group == TF_PID)
		snprintf(u->st.drill_label, sizeof(u->st.drill_label), "pid %lld (%.16s)",
			 (long long)key, text);
	else
		snprintf(u->st.drill_label, sizeof(u->st.drill_label), "%.39s", text);
	u->sel = u->first = 0;
	u->sel_key = 0;
	refresh_table(u, false);
}

static void back(struct top_ui *u)
{
	if (u->echo) {
		u->echo = false;
		u->s->ops->echo(u->s, false, TF_NONE, 0, TF_NONE, 0);
		u->dirty = true;
		return;
	}
	if (!u->depth)
		return;
	u->depth--;
	u->st = u->stack[u->depth].st;
	u->sel = u->stack[u->depth].sel;
	u->sel_key = 0;
	refresh_table(u, false);
	if (u->sel < u->t.nrows)
		u->sel_key = u->t.keys[u->sel];
}

static void toggle_echo(struct top_ui *u)
{
	if (u->echo) {
		back(u);
		return;
	}
	if (!u->have_table || !u->t.nrows || u->st.view->src == TS_CUSTOM) {
		snprintf(u->msg, sizeof(u->msg), "no row to echo");
		return;
	}
	u->echo = true;
	u->s->ops->echo(u->s, true, u->st.view->group, u->t.keys[u->sel], u->st.drill_field,
			u->st.drill_value);
	u->next_echo = 0;
	u->dirty = true;
}

static void sort_by(struct top_ui *u, int delta)
{
	int n = (int)u->t.ncols, c;

	if (!u->have_table || !n)
		return;
	c = (u->t.sort < 0 ? 0 : u->t.sort) + delta;
	u->st.sort = (c % n + n) % n;
	u->st.sort_name = NULL;
	u->st.reverse = false;
	refresh_table(u, false);
}

static void move_sel(struct top_ui *u, long d)
{
	long n = u->have_table ? (long)u->t.nrows : 0, s = (long)u->sel + d;

	if (s >= n)
		s = n - 1;
	if (s < 0)
		s = 0;
	u->sel = (size_t)s;
	if (u->sel < (size_t)n)
		u->sel_key = u->t.keys[u->sel];
	u->dirty = true;
}

static void change_delay(struct top_ui *u, int d)
{
	size_t i = 0;

	while (i + 1 < ARRAY_SIZE(delays) && delays[i] < u->delay)
		i++;
	if (d < 0 && i > 0)
		i--;
	else if (d > 0 && i + 1 < ARRAY_SIZE(delays) && delays[i] <= u->delay)
		i++;
	u->delay = delays[i];
	u->next_due = tr_now_ns() + u->delay;
	snprintf(u->msg, sizeof(u->msg), "refresh every %.2gs", u->delay / 1e9);
	u->dirty = true;
}

static void step(struct top_ui *u, long n)
{
	if (!u->s->replay) {
		snprintf(u->msg, sizeof(u->msg), "n, N and g step through a file (-i)");
		return;
	}
	if (u->s->ops->step(u->s, n))
		snprintf(u->msg, sizeof(u->msg), "%s", tr_failure());
	refresh_table(u, false);
}

/* A key while typing a filter or a time. */
static void type_key(struct top_ui *u, int ch)
{
	char *b = u->input == IN_FILTER ? u->st.filter : u->buf;
	size_t cap = u->input == IN_FILTER ? sizeof(u->st.filter) : sizeof(u->buf), n = strlen(b);

	if (ch == 27) {
		if (u->input == IN_FILTER)
			u->st.filter[0] = '\0';
		u->input = IN_NONE;
	} else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
		if (u->input == IN_GOTO) {
			char *end;
			double ts = strtod(u->buf, &end);

			if (end == u->buf || *end)
				snprintf(u->msg, sizeof(u->msg), "not a time: '%s'", u->buf);
			else if (u->s->ops->go(u->s, ts))
				snprintf(u->msg, sizeof(u->msg), "%s", tr_failure());
		}
		u->input = IN_NONE;
	} else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
		if (n)
			b[n - 1] = '\0';
	} else if (ch >= ' ' && ch < 127 && n + 1 < cap) {
		b[n] = (char)ch;
		b[n + 1] = '\0';
	}
	refresh_table(u, false);
}

static void key(struct top_ui *u, int ch)
{
	enum act a = K_NONE;

	u->msg[0] = '\0';
	if (ch == KEY_RESIZE) {
		make_windows(u);
		clearok(curscr, TRUE);
		return;
	}
	if (u->input != IN_NONE) {
		type_key(u, ch);
		return;
	}
	if (u->help) {
		u->help = false;
		u->dirty = true;
		return;
	}
	if (u->menu) {
		u->menu = false;
		u->dirty = true;
		if (ch >= '1' && ch <= '7')
			ungetch(ch);
		return;
	}
	if (ch >= '1' && ch <= '7')
		a = K_VIEW;
	for (size_t i = 0; i < ARRAY_SIZE(bindings) && a == K_NONE; i++)
		if (bindings[i].key == ch)
			a = bindings[i].act;
	u->dirty = true;
	switch (a) {
	case K_QUIT: u->quit = true; break;
	case K_HELP: u->help = true; break;
	case K_MENU: u->menu = true; break;
	case K_VIEW:
		for (size_t i = 0; i < top_nviews; i++)
			if (top_views[i].key == ch) {
				if (u->echo)
					back(u);
				set_view(u, &top_views[i]);
			}
		break;
	case K_NEXT_VIEW: {
		char k = u->st.view->key ? u->st.view->key : '0';

		k = k >= '7' ? '1' : k + 1;
		if (u->echo)
			back(u);
		for (size_t i = 0; i < top_nviews; i++)
			if (top_views[i].key == k)
				set_view(u, &top_views[i]);
		break;
	}
	case K_UP: move_sel(u, -1); break;
	case K_DOWN: move_sel(u, 1); break;
	case K_PGUP: move_sel(u, -visible_rows(u)); break;
	case K_PGDN: move_sel(u, visible_rows(u)); break;
	case K_HOME: move_sel(u, -(long)u->t.nrows); break;
	case K_END: move_sel(u, (long)u->t.nrows); break;
	case K_SORT_LEFT: sort_by(u, -1); break;
	case K_SORT_RIGHT:
	case K_SORT_NEXT: sort_by(u, 1); break;
	case K_REVERSE:
		u->st.reverse = !u->st.reverse;
		refresh_table(u, false);
		break;
	case K_FILTER: u->input = IN_FILTER; break;
	case K_ESC:
		if (u->echo) {
			back(u);
		} else if (u->st.filter[0]) {
			u->st.filter[0] = '\0';
			refresh_table(u, false);
		}
		break;
	case K_ENTER:
		if (!u->echo)
			drill(u);
		break;
	case K_BACK: back(u); break;
	case K_ECHO: toggle_echo(u); break;
	case K_PAUSE:
		u->paused = !u->paused;
		break;
	case K_ZERO:
		u->s->ops->zero(u->s);
		refresh_table(u, false);
		snprintf(u->msg, sizeof(u->msg), "counters zeroed");
		break;
	case K_FASTER: change_delay(u, -1); break;
	case K_SLOWER: change_delay(u, 1); break;
	case K_PER_TASK:
		u->per_task = !u->per_task;
		u->s->ops->lat_by_task(u->s, u->per_task);
		u->sel = u->first = 0;
		refresh_table(u, false);
		snprintf(u->msg, sizeof(u->msg), "latency per %s", u->per_task ? "task" : "CPU");
		break;
	case K_BATCH:
		if (!u->s->replay) {
			snprintf(u->msg, sizeof(u->msg), "b prints a file's intervals (-i)");
			break;
		}
		u->batch = u->quit = true;
		break;
	case K_STEP_NEXT: step(u, 1); break;
	case K_STEP_PREV: step(u, -1); break;
	case K_GOTO:
		if (u->s->replay) {
			u->input = IN_GOTO;
			u->buf[0] = '\0';
		} else {
			step(u, 0);
		}
		break;
	default:
		break;
	}
}

/* ---- the public side ---- */

int top_ui_open(struct top_source *s, const struct top_opts *o, struct top_ui **out)
{
	struct top_ui *u = xcalloc(1, sizeof(*u));
	const char *nc = getenv("NO_COLOR");
	FILE *held;

	u->s = s;
	u->o = o;
	u->delay = o->interval_ns;
	u->st = (struct top_state){ .view = o->view, .sort = -1, .sort_name = o->sort,
				    .reverse = o->reverse };
	u->saved_stderr = -1;
	if (!getenv("TERM") || !*getenv("TERM")) {
		free(u);
		return tr_fail(-ENOTTY, "TERM is not set: tr top cannot draw (use -b)");
	}
	have_tio = !tcgetattr(STDIN_FILENO, &saved_tio);
	u->per_task = o->lat_by_task;
	if (getenv("TR_TOP_KEY_LOG") && *getenv("TR_TOP_KEY_LOG"))
		u->keylog = fopen(getenv("TR_TOP_KEY_LOG"), "ae");
	ui_fd = fileno(o->outf);
	u->scr = newterm(NULL, o->outf, stdin);
	if (!u->scr) {
		if (u->keylog)
			fclose(u->keylog);
		free(u);
		return tr_fail(-ENOTTY, "cannot use the terminal '%s' (use -b)", getenv("TERM"));
	}
	/* What the fatal handler writes: fetched now, it cannot ask terminfo then. */
	rmcup = tigetstr("rmcup");
	cnorm = tigetstr("cnorm");
	sgr0 = tigetstr("sgr0");
	fatal_handlers(true);
	/* Warnings would write over the screen: hold stderr until the end. */
	held = tmpfile();
	if (held) {
		fflush(stderr);
		u->saved_stderr = dup(STDERR_FILENO);
		if (u->saved_stderr >= 0 && dup2(fileno(held), STDERR_FILENO) >= 0) {
			u->held = held;
			ui_saved_stderr = u->saved_stderr;
		} else {
			fclose(held);
		}
	}
	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	if (has_colors() && !(nc && *nc)) {
		start_color();
		use_default_colors();
		init_pair(C_BAR, COLOR_BLACK, COLOR_CYAN);
		init_pair(C_HEAD, COLOR_BLACK, COLOR_GREEN);
		init_pair(C_WARN, COLOR_RED, -1);
		init_pair(C_SEL, COLOR_BLACK, COLOR_CYAN);
		u->color = true;
	}
	make_windows(u);
	s->ops->need(s, u->st.view);
	u->next_due = tr_now_ns() + u->delay;
	refresh_table(u, false);
	draw(u);
	*out = u;
	return 0;
}

int top_ui_tick(struct top_ui *u, bool key_ready)
{
	uint64_t now = tr_now_ns();
	int ch, nkeys = 0;

	(void)key_ready;
	while (!u->quit && (ch = getch()) != ERR) {
		key(u, ch);
		nkeys++;
	}
	if (u->quit)
		return 1;
	if (!u->s->replay && !u->s->ended && now >= u->next_due) {
		u->next_due += u->delay;
		if (u->next_due <= now)
			u->next_due = now + u->delay;
		refresh_table(u, true);
	}
	if (u->echo && now >= u->next_echo) {
		u->next_echo = now + 200000000ULL;
		u->dirty = true;
	}
	if (u->dirty)
		draw(u);
	if (u->keylog && nkeys) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		while (nkeys--)
			fprintf(u->keylog, "%lld%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
		fflush(u->keylog);
	}
	return 0;
}

int top_ui_loop(struct top_ui *u)
{
	refresh_table(u, false);
	u->dirty = true;
	while (!tr_stop) {
		struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };

		if (top_ui_tick(u, false))
			break;
		if (poll(&p, 1, 200) > 0 && (p.revents & (POLLHUP | POLLERR | POLLNVAL)))
			break;
	}
	return 0;
}

bool top_ui_batch(const struct top_ui *u, struct top_state *st)
{
	if (u->batch)
		*st = u->st;
	return u->batch;
}

void top_ui_close(struct top_ui *u)
{
	char buf[4096];
	size_t n;

	if (!u)
		return;
	if (u->keylog)
		fclose(u->keylog);
	if (u->have_table)
		top_table_free(&u->t);
	delwin(u->hdr);
	delwin(u->tbl);
	delwin(u->foot);
	curs_set(1);
	endwin();
	delscreen(u->scr);
	fatal_handlers(false);
	if (have_tio)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_tio);
	if (u->held) {
		fflush(stderr);
		dup2(u->saved_stderr, STDERR_FILENO);
		ui_saved_stderr = -1;
		rewind(u->held);
		while ((n = fread(buf, 1, sizeof(buf), u->held)) > 0)
			if (fwrite(buf, 1, n, stderr) != n)
				break;
		fclose(u->held);
	}
	if (u->saved_stderr >= 0)
		close(u->saved_stderr);
	free(u);
}
