#!/bin/bash
# Completion in a real interactive bash and zsh, typed on a pseudo-terminal
# (tests/integration/pty-shell.py): not a simulation of COMP_WORDS, so bash's
# own word breaks (':' and '=' in COMP_WORDBREAKS) and quoting are in play.
. "$(dirname "$0")/lib.sh"
test_requires events instances

pty=$TEST_ROOT/tests/integration/pty-shell.py
comp=$TEST_ROOT/completions
[ -n "${TR_VM:-}" ] && test_skip_all="completion is checked on the host tier"

# rc files: tr on PATH is the binary under test; Ctrl-T prints the line.
mkdir -p "$TEST_TMP/rc/bin" "$TEST_TMP/rc/zfunc"
ln -s "$TR" "$TEST_TMP/rc/bin/tr"
cp "$comp/_tr" "$TEST_TMP/rc/zfunc/_tr"
cat >"$TEST_TMP/rc/bashrc" <<EOF
PS1='\$ '
PATH=$TEST_TMP/rc/bin:\$PATH
bind 'set completion-query-items 0'
bind 'set page-completions off'
bind 'set bell-style none'
source $comp/tr.bash
bind -x '"\C-t": printf "\n[LINE:%s]\n[END]\n" "\$READLINE_LINE"'
EOF
cat >"$TEST_TMP/rc/.zshrc" <<EOF
PS1='\$ '
PATH=$TEST_TMP/rc/bin:\$PATH
fpath=($TEST_TMP/rc/zfunc \$fpath)
autoload -Uz compinit && compinit -u -D
unsetopt beep
LISTMAX=10000
show-line() { print -r -- \$'\n'"[LINE:\$BUFFER]"; print -r -- "[END]"; }
zle -N show-line
bindkey '^T' show-line
EOF

# type SHELL KEYS...: run the keys in SHELL, output to "out".
type_keys() {
	local sh=$1
	shift
	python3 "$pty" "$sh" "$TEST_TMP/rc" "$@" >out
}

# The LINE after the keys $1 (a literal string as passed to type_keys).
line_after() {
	K="=== $1" awk '$0 == ENVIRON["K"] { on = 1; next } on && /^LINE: / { sub(/^LINE: /, ""); print; exit }' out
}

# What the terminal showed after the keys $1 (the listing of a double Tab).
shown_after() {
	K="=== $1" awk '$0 == ENVIRON["K"] { on = 1; next } on && /^LINE: / { exit } on { print }' out
}

# expect_line KEYS LINE
expect_line() {
	local got
	got=$(line_after "$1")
	if [ "$got" != "$2" ]; then
		printf 'after %s\n  want: [%s]\n  got:  [%s]\n' "$1" "$2" "$got" >&2
		cat out >&2
		return 1
	fi
}

# expect_listed KEYS WORD...: each WORD is among the candidates shown.
expect_listed() {
	local k=$1 w
	shift
	shown_after "$k" >shown
	for w in "$@"; do
		grep -qw -- "$w" shown || { echo "after $k: '$w' not listed" >&2; cat out >&2; return 1; }
	done
}

for sh in bash zsh; do
	# The keys that list the candidates: bash lists on the second Tab, zsh
	# on the first (its second one would start cycling through them).
	L='\\t\\t'
	[ $sh = zsh ] && L='\\t'
	if ! command -v $sh >/dev/null; then
		test_skip "$sh: completion on a pty" "no $sh (scripts/deps --test installs it)"
		continue
	fi

	test_expect_success "$sh: commands, and event names across the colon" '
		type_keys '$sh' "tr rec\t" "tr record -e sched:sched_swi\t" \
			"tr record -e sched:sched_sw'$L'" "tr record --event=sched:sched_swi\t" \
			"tr help rep\t" &&
		expect_line "tr rec\t" "tr record " &&
		expect_line "tr record -e sched:sched_swi\t" "tr record -e sched:sched_switch " &&
		expect_line "tr record -e sched:sched_sw'$L'" "tr record -e sched:sched_sw" &&
		expect_listed "tr record -e sched:sched_sw'$L'" "sched_switch" &&
		expect_line "tr record --event=sched:sched_swi\t" "tr record --event=sched:sched_switch " &&
		expect_line "tr help rep\t" "tr help report "
	'

	test_expect_success "$sh: the sub-actions of each command" '
		type_keys '$sh' "tr instance '$L'" "tr snapshot '$L'" "tr hist '$L'" "tr probe '$L'" \
			"tr trigger '$L'" "tr stack '$L'" "tr instance cr\t" &&
		expect_listed "tr instance '$L'" create destroy list &&
		expect_listed "tr snapshot '$L'" take show clear free &&
		expect_listed "tr hist '$L'" show clear pause cont &&
		expect_listed "tr probe '$L'" add del list &&
		expect_listed "tr trigger '$L'" add del list &&
		expect_listed "tr stack '$L'" start stop show reset &&
		expect_line "tr instance cr\t" "tr instance create "
	'

	test_expect_success "$sh: fields of the -e event after -k, -v, -s and -f" '
		type_keys '$sh' "tr hist -e sched:sched_switch -k next_co\t" \
			"tr hist -e sched:sched_switch -k next_comm.exe\t" \
			"tr hist -e sched:sched_switch -k next_comm,prev_pi\t" \
			"tr hist -e sched:sched_switch -k next_comm -v prev_pr\t" \
			"tr hist -e sched:sched_switch -k next_comm -s hitc\t" \
			"tr record -e sched:sched_switch -f prev_pi\t" \
			"tr record -e sched:sched_switch -f '"'"'prev_pid > 1 && next_pi\t" &&
		expect_line "tr hist -e sched:sched_switch -k next_co\t" \
			"tr hist -e sched:sched_switch -k next_comm " &&
		expect_line "tr hist -e sched:sched_switch -k next_comm.exe\t" \
			"tr hist -e sched:sched_switch -k next_comm.execname " &&
		expect_line "tr hist -e sched:sched_switch -k next_comm,prev_pi\t" \
			"tr hist -e sched:sched_switch -k next_comm,prev_pid " &&
		expect_line "tr hist -e sched:sched_switch -k next_comm -v prev_pr\t" \
			"tr hist -e sched:sched_switch -k next_comm -v prev_prio " &&
		expect_line "tr hist -e sched:sched_switch -k next_comm -s hitc\t" \
			"tr hist -e sched:sched_switch -k next_comm -s hitcount " &&
		expect_line "tr record -e sched:sched_switch -f prev_pi\t" \
			"tr record -e sched:sched_switch -f prev_pid " &&
		expect_line "tr record -e sched:sched_switch -f '"'"'prev_pid > 1 && next_pi\t" \
			"tr record -e sched:sched_switch -f '"'"'prev_pid > 1 && next_pid'"'"' "
	'

	test_expect_success "$sh: tracers, clocks, options, *.dat files and graph options" '
		: >a.dat && : >a.txt && : >b.txt &&
		type_keys '$sh' "tr record -p no\t" "tr record -C glo\t" "tr start -O noprint-pa\t" \
			"tr report -i a\t" "tr report a\t" "tr record -o b\t" \
			"tr report --graph-opt proc,noabs\t" &&
		expect_line "tr record -p no\t" "tr record -p nop " &&
		expect_line "tr record -C glo\t" "tr record -C global " &&
		expect_line "tr start -O noprint-pa\t" "tr start -O noprint-parent " &&
		expect_line "tr report -i a\t" "tr report -i a.dat " &&
		expect_line "tr report a\t" "tr report a.dat " &&
		expect_line "tr record -o b\t" "tr record -o b.txt " &&
		expect_line "tr report --graph-opt proc,noabs\t" "tr report --graph-opt proc,noabstime "
	'

	test_expect_success "$sh: the options of serve and their values" '
		type_keys '$sh' "tr serve --max-ser\t" "tr serve --by \t" "tr serve --engine au\t" \
			"tr serve --hist sched:sched_swi\t" &&
		expect_line "tr serve --max-ser\t" "tr serve --max-series " &&
		expect_line "tr serve --by \t" "tr serve --by comm " &&
		expect_line "tr serve --engine au\t" "tr serve --engine auto " &&
		expect_line "tr serve --hist sched:sched_swi\t" "tr serve --hist sched:sched_switch "
	'

	test_expect_success "$sh: -B offers the instances, and nothing when there are none" '
		inst=$(test_instance)-'$sh' &&
		tr instance create "$inst" &&
		test_when_finished "tr instance destroy $inst" &&
		mkdir -p fake/instances && : >fake/tracing_on && : >zz-a-file &&
		type_keys '$sh' "tr stat -B ${inst%-*}-\t" &&
		expect_line "tr stat -B ${inst%-*}-\t" "tr stat -B $inst " &&
		TR_TRACEFS=$PWD/fake type_keys '$sh' "tr stat -B '$L'" &&
		expect_line "tr stat -B '$L'" "tr stat -B " &&
		shown_after "tr stat -B '$L'" >shown &&
		test_must_fail grep zz-a-file shown
	'

	test_expect_success "$sh: a coreutils tr line completes file names" '
		: >zz-only-file &&
		type_keys '$sh' "tr a-z zz-o\t" &&
		expect_line "tr a-z zz-o\t" "tr a-z zz-only-file "
	'
done

test_done
