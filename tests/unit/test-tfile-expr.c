// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The print fmt's one parser (tfile-expr.h): the trees it gives the
 * checker and the kernel printer, each reader's reading of type names, and
 * its limits.
 */
#include <stdlib.h>
#include <string.h>

#include "tfile-expr.h"
#include "tr.h"
#include "unit.h"

/* The tree as a string: kinds and what each holds, for CHECK_STR. */
static void show(const struct tfile_expr *e, char *out, size_t n)
{
	size_t k = strlen(out);

	switch (e->k) {
	case TX_NUM: snprintf(out + k, n - k, "%llu", (unsigned long long)e->num); return;
	case TX_STR: snprintf(out + k, n - k, "S[%.*s]", (int)e->n, e->s); return;
	case TX_CHAR: snprintf(out + k, n - k, "C[%.*s]", (int)e->n, e->s); return;
	case TX_NAME: snprintf(out + k, n - k, "%.*s", (int)e->n, e->s); return;
	case TX_REC: snprintf(out + k, n - k, "REC"); return;
	case TX_FIELD:
		snprintf(out + k, n - k, "%s%.*s", e->paren ? "(REC)->" : e->dot ? "REC." : "REC->",
			 (int)e->n, e->s);
		return;
	case TX_CAST: snprintf(out + k, n - k, "cast[%.*s](", (int)e->tn, e->ts); break;
	case TX_SIZEOF:
		snprintf(out + k, n - k, "sizeof[%.*s](", (int)e->tn, e->ts ? e->ts : "");
		break;
	case TX_UNARY: snprintf(out + k, n - k, "%s(", e->op); break;
	case TX_BINARY: snprintf(out + k, n - k, "%s(", e->op); break;
	case TX_COND: snprintf(out + k, n - k, "?("); break;
	case TX_INDEX: snprintf(out + k, n - k, "[](");  break;
	case TX_MEMBER: snprintf(out + k, n - k, "%s%.*s(", e->op, (int)e->n, e->s); break;
	case TX_CALL: snprintf(out + k, n - k, "%.*s/%d(", (int)e->n, e->s, e->h); break;
	case TX_ENTRY: snprintf(out + k, n - k, "{("); break;
	case TX_STMT: snprintf(out + k, n - k, "({("); break;
	case TX_DECL: snprintf(out + k, n - k, "decl[%.*s]%.*s(", (int)e->tn, e->ts, (int)e->n, e->s);
		break;
	}
	{
		const struct tfile_expr *kids[] = { e->a, e->b, e->c };
		bool first = true;

		for (size_t i = 0; i < 3; i++)
			if (kids[i]) {
				if (!first)
					strncat(out, ",", n - strlen(out) - 1);
				show(kids[i], out, n);
				first = false;
			}
		for (int i = 0; i < e->nargs; i++) {
			if (!first)
				strncat(out, ",", n - strlen(out) - 1);
			show(e->args[i], out, n);
			first = false;
		}
	}
	strncat(out, ")", n - strlen(out) - 1);
}

/* The print fmt's arguments as one string, or "FAIL: why". */
static const char *tree(const char *print, const struct tfile_expr_opts *o)
{
	static char out[4096];
	struct tfile_print pr;
	size_t n = strlen(print);
	char *copy = malloc(n);

	memcpy(copy, print, n);		/* no NUL after it */
	out[0] = '\0';
	if (tfile_print_parse(copy, n, o, &pr)) {
		snprintf(out, sizeof(out), "FAIL: %s", pr.why);
	} else {
		snprintf(out, sizeof(out), "[%.*s]", (int)pr.fmt_len, pr.fmt);
		for (int i = 0; i < pr.nargs; i++) {
			strcat(out, " ");
			show(pr.args[i], out, sizeof(out));
		}
	}
	tfile_print_free(&pr);
	free(copy);
	return out;
}

/* A reader of type names: "int", "u32", "struct X" and '*'s. */
static bool types(void *ctx, struct tfile_lex *l)
{
	(void)ctx;
	if (l->t != TFILE_TOK_IDENT ||
	    !((l->n == 3 && !memcmp(l->s, "int", 3)) || (l->n == 3 && !memcmp(l->s, "u32", 3)) ||
	      (l->n == 6 && !memcmp(l->s, "struct", 6))))
		return false;
	if (l->n == 6) {
		tfile_lex_next(l);
		if (l->t != TFILE_TOK_IDENT) {
			tfile_lex_fail(l, "struct without a name");
			return true;
		}
	}
	tfile_lex_next(l);
	while (tfile_lex_is(l, "*"))
		tfile_lex_next(l);
	return true;
}

static const struct tfile_expr_opts kernel = { .max_depth = 200, .depth_unary = true,
					       .type = types };

TEST(trees)
{
	CHECK_STR(tree("\"%d %s\", REC->pid, __get_str(name)", NULL),
		  "[\"%d %s\"] REC->pid __get_str/9(name)");
	CHECK_STR(tree("\"a\" \"b\", 1 + 2 * 3 - 4", NULL), "[\"a\" \"b\"] -(+(1,*(2,3)),4)");
	CHECK_STR(tree("\"%d\", a ? b : c ? d : e", NULL), "[\"%d\"] ?(a,b,?(c,d,e))");
	CHECK_STR(tree("\"%s\", __print_flags(REC->f, \"|\", { 1, \"A\" }, { })", NULL),
		  "[\"%s\"] __print_flags/1(REC->f,S[\"|\"],{(1,S[\"A\"]),{())");
	CHECK_STR(tree("\"%d\", (REC)->x[1].y", NULL), "[\"%d\"] .y([]((REC)->x,1))");
	CHECK_STR(tree("\"%lu\", sizeof(struct page *)", NULL),
		  "[\"%lu\"] sizeof[struct page *]()");
	CHECK_STR(tree("\"%d\", -!~*&x", NULL), "[\"%d\"] -(!(~(*(&(x)))))");
	CHECK_STR(tree("\"%c\", 'a'", NULL), "[\"%c\"] C['a']");
}

/* The checker's reading: words and '*' up to the ')', and a value after it. */
TEST(casts_as_the_checker_reads_them)
{
	CHECK_STR(tree("\"%d\", (foo)x", NULL), "[\"%d\"] cast[foo](x)");
	CHECK_STR(tree("\"%d\", (unsigned long)-1", NULL), "[\"%d\"] cast[unsigned long](-(1))");
	CHECK_STR(tree("\"%d\", (foo) * 2", NULL), "[\"%d\"] *(foo,2)");
	CHECK_STR(tree("\"%d\", (REC)", NULL), "[\"%d\"] REC");
	CHECK(strstr(tree("\"%d\", ({ int x = 1; x; })", NULL), "statement expression"));
	CHECK_STR(tree("\"%d\", REC.x", NULL), "FAIL: unexpected '.x' in the print fmt");
}

/* The kernel printer's: the reader says what a type name is. */
TEST(casts_as_a_reader_reads_them)
{
	CHECK_STR(tree("\"%d\", (foo)x", &kernel), "FAIL: unexpected 'x' in the print fmt");
	CHECK_STR(tree("\"%d\", (foo) - 1", &kernel), "[\"%d\"] -(foo,1)");
	CHECK_STR(tree("\"%d\", (int *)x", &kernel), "[\"%d\"] cast[int *](x)");
	CHECK_STR(tree("\"%d\", (struct 1)x", &kernel), "FAIL: expected ')' at '1)x'");
	CHECK_STR(tree("\"%lu\", sizeof(u32) + sizeof(x)", &kernel),
		  "[\"%lu\"] +(sizeof[u32](),sizeof[](x))");
	CHECK_STR(tree("\"%d\", ({ u32 a = REC.x; a + 1; })", &kernel),
		  "[\"%d\"] ({(decl[u32 ]a(REC.x),+(a,1))");
	CHECK_STR(tree("\"%s\", __print_flags(v, \"|\", )", &kernel),
		  "[\"%s\"] __print_flags/1(v,S[\"|\"])");
}

TEST(limits)
{
	char *deep = malloc(100000), *p = deep;
	struct tfile_expr_opts few = { .max_tokens = 5 };

	p += sprintf(p, "\"%%d\", ");
	for (int i = 0; i < 20; i++)
		*p++ = '(';
	p += sprintf(p, "x");
	for (int i = 0; i < 20; i++)
		*p++ = ')';
	*p = '\0';
	/* 20 parentheses are 40 levels to the checker, 20 to a reader counting unary alone. */
	CHECK_STR(tree(deep, NULL), "FAIL: nested more than 32 deep");
	CHECK(strstr(tree(deep, &kernel), "FAIL") == NULL);
	CHECK_STR(tree("\"%d\", 1 + 2 + 3", &few), "FAIL: more than 5 tokens");
	/* A chain as long as the text: its nodes without recursion. */
	p = deep + sprintf(deep, "\"%%d\", 0");
	for (int i = 0; i < 9000; i++)
		p += sprintf(p, "+%d", i % 10);
	{
		struct tfile_print pr;
		const struct tfile_expr **spine;
		int n;

		CHECK(tfile_print_parse(deep, strlen(deep), NULL, &pr) == 0 && pr.nargs == 1);
		n = tfile_expr_spine(pr.args[0], &spine);
		CHECK(n == 9000 && spine[0]->a->k == TX_NUM && spine[n - 1] == pr.args[0]);
		free(spine);
		tfile_print_free(&pr);
	}
	free(deep);
}

UNIT_MAIN(T(trees), T(casts_as_the_checker_reads_them), T(casts_as_a_reader_reads_them),
	  T(limits))
