#!/bin/bash
# tr top's terminal UI, driven in tmux (send-keys, capture-pane): it draws,
# keys do what they say, resizing redraws, and q or SIGTERM give the
# terminal back sane with nothing left in tracefs.
. "$(dirname "$0")/lib.sh"

test_requires events instances
command -v tmux >/dev/null || test_skip_all="no tmux (make deps installs it)"
# Emulated guests are too slow for keystroke timing: the host tier checks the UI.
[ -n "${TR_VM:-}" ] && test_skip_all="the UI is checked on the host tier"

# A tmux server per test: a server just told to exit can refuse the next session.
tmx() { tmux -L trui$$.$test_count "$@"; }
trap 'for s in $(seq $test_count); do tmux -L trui$$.$s kill-server 2>/dev/null; done
      rm -rf "$TEST_TMP"' EXIT

# ui_start ARGS...: tr top ARGS in a fresh 120x40 tmux window; when it ends,
# its status goes to rc and the terminal's settings to stty.
ui_start() {
	rm -f rc stty pid
	cat >run.sh <<-EOF
	echo \$\$ >pid
	${UI_ENV:-} "$TR" top $* 2>err
	echo \$? >rc.tmp
	stty -a >stty
	mv rc.tmp rc
	sleep 60
	EOF
	test_when_finished ui_cleanup
	tmx new-session -d -s ui -x 120 -y 40 "exec bash run.sh"
	ui_wait "CPU%\|SYSCALL\|EVENT\|BUSY%\|IRQ\|COUNT" 15
}

screen() { tmx capture-pane -t ui -p; }

# A test that failed half-way: its tr top gets SIGHUP and must clean up.
ui_cleanup() {
	local i
	tmx kill-server 2>/dev/null || :
	for i in $(seq 50); do
		ls $TRACEFS/instances | grep -q "^tr-top-" || return 0
		sleep 0.1
	done
}

# ui_wait PATTERN SECONDS: until the screen shows PATTERN.
ui_wait() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		screen >scr 2>/dev/null && grep -q -- "$1" scr && return 0
		sleep 0.1
	done
	echo "ui_wait: no '$1' on the screen after $2 s:" >&2
	cat scr >&2
	return 1
}

# keys KEY...: type them; tr top reads them in order (what they do, the
# test waits for on the screen).
keys() { tmx send-keys -t ui "$@"; }

# The PID column of the table's rows.
pids() { sed -n '/^ *PID COMM/,$p' scr | sed 1d | awk '$1 ~ /^[0-9]+$/ {print $1}'; }

# For wait_for, each on a fresh capture of the screen (in scr):
# sorted_rows [-r]: at least 3 rows, their PIDs in order (-r: descending).
sorted_rows() {
	screen >scr && pids >got && [ $(wc -l <got) -ge 3 ] && sort -n ${1:-} -c got
}
# only_rows NAME: rows are shown, and every one is NAME's.
only_rows() {
	screen >scr && sed -n "/^ *PID COMM/,\$p" scr | grep "^ \+[0-9]\+ " >rows &&
		[ -s rows ] && ! grep -v -- "$1" rows
}
# screen_lacks TEXT: the screen does not show TEXT.
screen_lacks() { screen >scr && ! grep -q -- "$1" scr; }
# redrawn W H: the screen is H lines, none wider than W, one header.
redrawn() {
	screen >scr && [ $(wc -l <scr) = "$2" ] && [ $(awk -v w="$1" "length > w" scr | wc -l) = 0 ] &&
		[ $(grep -c "^ tr top" scr) = 1 ] && [ $(grep -c "PID COMM" scr) = 1 ]
}

# ui_end: wait for tr top to exit; the terminal must be sane after it.
ui_end() {
	local i
	for ((i = 0; i < ${1:-10} * 10; i++)); do
		[ -f rc ] && break
		sleep 0.1
	done
	test -f rc || { echo "tr top still running" >&2; return 1; }
	test "$(cat rc)" = 0 || { echo "status $(cat rc)"; cat err; return 1; }
	grep -qw -- "-echo" stty && { echo "echo left off"; return 1; }
	grep -qw -- "-icanon" stty && { echo "icanon left off"; return 1; }
	test -z "$(ls $TRACEFS/instances | grep '^tr-top-')" &&
	tmx kill-server
}

test_expect_success 'the screen draws: header, views, key hints' '
	ui_start &&
	test_grep "^ tr top  live .* CPUs .* events/s .* lost/s" scr &&
	test_grep "^1 Tasks" scr &&
	test_grep "PID COMM  *CPU%  *TIME" scr &&
	test_grep "q quit" scr &&
	keys q && ui_end
'

test_expect_success 'sort column and reverse reorder the rows' '
	ui_start &&
	keys "<" && keys "<" &&
	ui_wait "by PID desc" 5 &&
	wait_for 10 sorted_rows -r &&
	pids >got && test $(wc -l <got) -ge 3 &&
	sort -rn got >want && test_cmp want got &&
	keys r &&
	ui_wait "by PID$" 5 &&
	# The header is drawn before the rows: a capture between the two has
	# the old order below the new one.
	wait_for 10 sorted_rows &&
	pids >got && sort -n got >want && test_cmp want got &&
	keys q && ui_end
'

test_expect_success '/ filters rows, Esc clears; Enter drills down, Backspace comes back' '
	name=trui$$ &&
	cp /bin/sh ./$name &&
	ui_start -- ./$name -c "\"while :; do sleep 0.05; done\"" &&
	keys / && keys "$name" && keys Enter &&
	ui_wait "\[filter: $name\]" 5 &&
	wait_for 10 only_rows "$name" &&
	sed -n "/^ *PID COMM/,\$p" scr | grep "^ \+[0-9]\+ " >rows &&
	cat rows &&
	test_must_fail grep -v "$name" rows &&
	keys Enter &&
	ui_wait "^2 System calls of pid [0-9]* ($name)" 5 &&
	ui_wait "nanosleep\|wait4\|clock_nanosleep\|SYSCALL" 5 &&
	keys 3 &&
	ui_wait "^3 Events of pid [0-9]* ($name)" 5 &&
	keys BSpace &&
	ui_wait "^1 Tasks  \[filter: $name\]" 5 &&
	keys Escape &&
	ui_wait "^1 Tasks  by" 5 &&
	keys q && ui_end
'

test_expect_success 'e echoes the row'"'"'s raw events, formatted as tr report prints them' '
	name=trecho$$ &&
	cp /bin/sh ./$name &&
	ui_start -- ./$name -c "\"while :; do sleep 0.05; done\"" &&
	keys / && keys "$name" && keys Enter &&
	wait_for 10 only_rows "$name" &&
	keys e &&
	ui_wait "ECHO" 5 &&
	ui_wait "^ *$name-[0-9]* *\[[0-9]\{3\}\] *[0-9]*\.[0-9]\{6\}: sched_" 10 &&
	keys e &&
	ui_wait "PID COMM" 5 &&
	keys q && ui_end
'

test_expect_success 'a resized window is redrawn without leftovers' '
	ui_start &&
	tmx resize-window -t ui -x 70 -y 15 &&
	wait_for 10 redrawn 70 15 &&
	test $(wc -l <scr) = 15 &&
	test $(awk "length > 70" scr | wc -l) = 0 &&
	test $(grep -c "^ tr top" scr) = 1 &&
	test $(grep -c "PID COMM" scr) = 1 &&
	test_grep "CPU%" scr &&
	tmx resize-window -t ui -x 120 -y 40 &&
	ui_wait "WAKEUPS" 5 &&
	keys q && ui_end
'

test_expect_success 'views switch with digits, Tab and F2; help shows and closes' '
	ui_start &&
	keys 4 && ui_wait "^4 CPUs" 5 && ui_wait "BUSY%" 5 &&
	keys Tab && ui_wait "^5 Interrupts" 5 &&
	keys F2 && ui_wait "views (1-7, Esc closes)" 5 &&
	keys 7 && ui_wait "^7 Latency" 5 &&
	keys h && ui_wait "tr top keys" 5 &&
	keys x && wait_for 5 screen_lacks "tr top keys" &&
	keys q && ui_end
'

# key_latency N: send key 1 N times at random moments; each one's time
# from send-keys to the screen in ms, a line each, into lat.
key_latency() {
	local i j n sent drawn
	: >lat
	for i in $(seq $1); do
		n=$(cat keylog 2>/dev/null | wc -l)
		tmx send-keys -t ui 1 || return 1
		sent=$(date +%s%N)
		for j in $(seq 100); do
			[ "$(cat keylog 2>/dev/null | wc -l)" -gt "$n" ] && break
			sleep 0.01
		done
		drawn=$(sed -n "$((n + 1))p" keylog)
		test -n "$drawn" || return 1
		echo $(((drawn - sent) / 1000000)) >>lat
		sleep 0.$((RANDOM % 9 + 1))
	done
}

# A key is read as soon as it arrives, not on the next tick: the session
# polls stdin.  Timed from the moment tmux's send-keys returned (the key is
# in the terminal by then) to the moment tr top drew its effect (the
# TR_TOP_KEY_LOG line); 7 of 9 keys within 20 ms, so a busy machine's
# odd late one does not fail it, while the 50 ms tick alone would pass
# 7 of 9 about once in 40 runs.
test_expect_success 'a key reaches tr top in under 20 ms' '
	rm -f keylog &&
	UI_ENV="env TR_TOP_KEY_LOG=$PWD/keylog" ui_start -d 5 &&
	sleep 0.5 &&
	key_latency 9 &&
	echo "key to screen, ms: $(paste -sd" " lat)" &&
	test "$(awk "\$1 < 20" lat | wc -l)" -ge 7 &&
	keys q &&
	ui_end
'

test_expect_success 'q exits 0 within a second, the terminal sane' '
	ui_start &&
	start=$(date +%s%N) &&
	tmx send-keys -t ui q &&
	ui_end 5 &&
	test $((($(date +%s%N) - start) / 1000000)) -le 1000
'

test_expect_success 'SIGTERM does the same' '
	ui_start &&
	shpid=$(cat pid) &&
	trpid=$(pgrep -P $shpid -x tr || pgrep -P $shpid) &&
	kill -TERM $trpid &&
	ui_end 5
'

test_expect_success 'a crash (SIGSEGV) still gives the terminal back' '
	ui_start &&
	shpid=$(cat pid) &&
	trpid=$(pgrep -P $shpid -x tr || pgrep -P $shpid) &&
	test_when_finished "rmdir $TRACEFS/instances/tr-top-$trpid 2>/dev/null || :" &&
	kill -SEGV $trpid &&
	for i in $(seq 50); do test -f rc && break; sleep 0.1; done &&
	test "$(cat rc)" = $((128 + 11)) &&
	test_must_fail grep -qw -- "-echo" stty &&
	test_must_fail grep -qw -- "-icanon" stty
'

test_expect_success 'the final view stays after the command ends, until q' '
	ui_start -- sleep 1 &&
	ui_wait "'"'"'sleep'"'"' exited with 0" 10 &&
	sleep 1 && test ! -f rc &&
	keys q && ui_end
'

test_expect_success 'replay: n and N step through intervals' '
	inst=$(test_instance) &&
	timeout 60 "$TR" record -q -B $inst -e sched -o t.dat -- sh -c "sleep 0.5; ls >/dev/null; sleep 0.5" &&
	ui_start -i t.dat -d 0.2 &&
	test_grep "interval 1 of [0-9]" scr &&
	keys n && ui_wait "interval 2 of" 5 &&
	keys n && ui_wait "interval 3 of" 5 &&
	keys N && ui_wait "interval 2 of" 5 &&
	keys q && ui_end
'

test_expect_success 'replay: b leaves the screen and prints the view of every interval' '
	test -f t.dat || exit 0
	"$TR" top -b -i t.dat -d 0.2 --view events >batch &&
	n=$(grep -c "^tr top - .*interval [0-9]* of " batch) &&
	test "$n" -ge 3 &&
	ui_start -i t.dat -d 0.2 &&
	keys 3 && ui_wait "EVENT " 5 &&
	keys n &&
	keys b &&
	for i in $(seq 50); do [ -f rc ] && break; sleep 0.1; done &&
	tmx capture-pane -t ui -p -J -S - >pane &&
	test "$(grep -c "interval [0-9]* of $n," pane)" = "$n" &&
	test_grep "interval 1 of $n," pane &&
	test_grep "^view: events" pane &&
	grep "^sched:" batch | tail -3 >expect &&
	grep "^sched:" pane | tail -3 >actual &&
	test_cmp expect actual &&
	ui_end
'

test_done
