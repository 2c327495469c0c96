#!/bin/bash
# Every JSON output goes through one writer (src/util/json.c): hostile strings
# (control bytes, bytes that are not UTF-8, quotes, backslashes) come out
# as valid JSON that a real parser reads back.
. "$(dirname "$0")/lib.sh"

test_requires instances events
command -v python3 >/dev/null || test_skip_all="no python3 to parse the JSON"

test_expect_success 'report --format json: hostile marker strings parse back' '
	inst=$(test_instance) &&
	tr record -q -B "$inst" -e ftrace:print -o hostile.dat sh -c "
		m=$TRACEFS/instances/$inst/trace_marker
		printf \"q\\\"uote b\\\\\\\\slash\" >\$m
		printf \"ctl \\001\\037\\177 tab\\tend\" >\$m
		printf \"bad \\377\\300\\257 utf8\" >\$m
		printf \"caf\\303\\251 \\342\\202\\254\" >\$m" &&
	tr report -i hostile.dat --format json >out.json &&
	python3 - <<-\PY
	import json
	bufs = []
	for line in open("out.json", encoding="utf-8", errors="strict"):
	    o = json.loads(line)
	    for k, v in o.items():
	        if isinstance(v, dict):
	            bufs += [str(x) for x in v.values()]
	        elif isinstance(v, str):
	            bufs.append(v)
	text = "\n".join(bufs)
	assert "q\"uote b\\slash" in text, text
	assert "ctl \x01\x1f\x7f tab\tend" in text, text
	assert "bad \u00ff\u00c0\u00af utf8" in text, text
	assert "caf\u00e9 \u20ac" in text, text
	PY
'

test_expect_success 'hist --json and check --json parse too' '
	test -f hostile.dat &&
	tr hist -i hostile.dat -e ftrace:print -k buf --json >hist.json 2>/dev/null &&
	tr check --json >check.json &&
	python3 -c "
import json
h = json.load(open(\"hist.json\", encoding=\"utf-8\"))
c = json.load(open(\"check.json\", encoding=\"utf-8\"))
assert any(\"caf\u00e9\" in json.dumps(h, ensure_ascii=False) for _ in [0])
assert isinstance(c, dict)
"
'

test_done
