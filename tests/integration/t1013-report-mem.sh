#!/bin/bash
# tr report --mem: slab allocations per call site, checked against a
# model of the same events as trace-cmd report (or tr report) prints them.
. "$(dirname "$0")/lib.sh"

test_requires instances events

# The --mem table from report text on stdin: per function, allocs, bytes
# requested and allocated, frees, still live and live bytes; then the
# frees of older memory.  Sorted by name, as "NAME A R B F L LB".
model() {
	awk '
	function val(k,   i) { for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2); return "" }
	function hex(p) { if (p ~ /nil/) return ""; sub(/^0x/, "", p); sub(/^0+/, "", p); return p }
	/ kmalloc: / {
		f = val("call_site"); sub(/\+.*/, "", f); p = hex(val("ptr"))
		n[f]++; rq[f] += val("bytes_req"); al[f] += val("bytes_alloc")
		if (p != "") {
			if (p in owner) { live[owner[p]]--; lb[owner[p]] -= sz[p] }
			owner[p] = f; sz[p] = val("bytes_alloc"); live[f]++; lb[f] += sz[p]
		}
		next
	}
	/ kfree: / {
		p = hex(val("ptr")); if (p == "") next
		if (!(p in owner)) { unknown++; next }
		f = owner[p]; fr[f]++; live[f]--; lb[f] -= sz[p]; delete owner[p]
	}
	END {
		for (f in n) printf "%s %d %d %d %d %d %d\n", f, n[f], rq[f], al[f], fr[f], live[f], lb[f]
		printf "~unknown %d\n", unknown
	}' | sort
}

# The same columns from tr report --mem.
table() {
	awk '$1 == "call" || $1 == "total" { next }
	/^frees of memory allocated before/ { printf "~unknown %d\n", $NF; next }
	{ printf "%s %d %d %d %d %d %d\n", $1, $2, $3, $4, $6, $7, $8 }' | sort
}

test_expect_success 'allocations, frees and what is left, per call site, as the events say' '
	inst=$(test_instance) &&
	tr record -q -B "$inst" -e kmem:kmalloc -e kmem:kfree -o mem.dat \
		sh -c "ls -R /usr/share >/dev/null 2>&1; cat /etc/passwd >/dev/null" &&
	tr report --mem -i mem.dat >mem &&
	test_grep -E "^call site +allocs +bytes req +bytes alloc +waste +frees +live +live bytes$" mem &&
	test $(grep -c "" mem) -gt 3 &&
	table <mem >actual &&
	if command -v trace-cmd >/dev/null; then
		trace-cmd report -i mem.dat 2>/dev/null | model >expect
	else
		tr report -i mem.dat | model >expect
	fi &&
	test_cmp expect actual
'

test_expect_success 'waste is what was allocated beyond the request; the total adds up' '
	awk "\$1 != \"call\" && \$1 != \"frees\" && \$5 != \$4 - \$3 { print; bad = 1 } END { exit bad }" mem &&
	awk "\$1 != \"call\" && \$1 != \"total\" && \$1 != \"frees\" { a += \$2 } \$1 == \"total\" { t = \$2 }
		END { exit !(a == t && t > 0) }" mem
'

test_expect_success 'a file without kmem events, and bad combinations' '
	inst=$(test_instance) &&
	tr record -q -B "$inst" -e sched:sched_process_exec -o nomem.dat /bin/true &&
	test_expect_code 1 tr report --mem -i nomem.dat 2>err &&
	test_grep "no kmem allocation events" err &&
	test_expect_code 64 tr report --mem --stat -i mem.dat &&
	test_expect_code 64 tr report --mem -i mem.dat -i nomem.dat
'

test_done
