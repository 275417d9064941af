#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# guest.sh OUT CHECK...: run inside the test guest (tests/kernels/boot),
# from the checkout, as root. Each check writes OUT/NAME.out, .err, its
# JSON files and the leftovers seen after it (NAME.leaks), and one line
# "NAME EXIT SECONDS" in OUT/times. tests/kernels/test_kernels.py reads them
# on the host. Nothing here judges: the host's tests do.
set -u
out=$1
shift
R=./rtlat
TL_S=${TL_S:-3}
T=/sys/kernel/tracing

now() { cut -d' ' -f1 /proc/uptime; }

# What a freshly booted system lacks and rtlat's runs need.
setup() {
	mkdir -p /dev/mqueue && mount -t mqueue mqueue /dev/mqueue
	mount -t tracefs nodev $T 2>/dev/null
	ulimit -l unlimited 2>/dev/null
	ip link set lo up
	# A task blocked this long is reported on the console with its stack.
	echo 10 > /proc/sys/kernel/hung_task_timeout_secs 2>/dev/null
}

# Objects left behind: message queues, semaphores, rtlat's shm, tracefs
# instances, rtlat processes, temp files.
leaks() {
	ls /dev/mqueue
	ipcs -s | awk '$2 ~ /^[0-9]+$/ { print "sem " $2 }'
	ls /dev/shm | grep rtlat
	ls $T/instances 2>/dev/null | grep rtlat
	pgrep -f "^$R " | sed 's/^/process /'
	ls /tmp | grep -vxF "${ours:-/}" | sed 's/^/tmp /'
}

# A checkout under /tmp (CI's clone) is mounted at its own path by init:
# that top directory of /tmp is the test's, not a leftover.
case "$(pwd -P)/" in
/tmp/?*/) ours=$(pwd -P); ours=${ours#/tmp/}; ours=${ours%%/*} ;;
*) ours= ;;
esac

# A check still running after CHECK_S seconds: what every task is blocked
# in (sysrq w, t) goes to NAME.hung from the kernel log, for the host to
# show, and the guest powers off (the host's bound would otherwise be the
# only end, with nothing said).
watchdog() {
	sleep "${CHECK_S:-90}"
	kill -0 "$2" 2>/dev/null || exit 0
	echo "$1 HUNG ${CHECK_S:-90}" >> "$out/times"
	echo w > /proc/sysrq-trigger
	echo t > /proc/sysrq-trigger
	dmesg > "$out/$1.hung"
	sync
	echo o > /proc/sysrq-trigger
}

check() {
	name=$1
	shift
	t0=$(now)
	"$@" > "$out/$name.out" 2> "$out/$name.err" &
	pid=$!
	watchdog "$name" "$pid" &
	wd=$!
	wait "$pid"
	rc=$?
	kill "$wd" 2>/dev/null
	wait "$wd" 2>/dev/null
	echo "$name $rc $(echo "$(now) $t0" | awk '{ printf "%.1f", $1 - $2 }')" >> "$out/times"
	leaks > "$out/$name.leaks" 2>&1
}

# The kernel, and the tracefs formats the explain reader uses (fixtures).
c_info() {
	uname -r; uname -v; cat /sys/kernel/realtime 2>/dev/null || echo none
	cat $T/available_tracers
	mkdir -p "$out/tracefs/events"
	cp $T/events/header_page $T/events/header_event "$out/tracefs/events/"
	for e in sched/sched_switch sched/sched_wakeup irq/irq_handler_entry \
		 irq/irq_handler_exit irq/softirq_entry irq/softirq_exit \
		 irq_vectors/local_timer_entry irq_vectors/local_timer_exit; do
		mkdir -p "$out/tracefs/events/$e"
		cp $T/events/$e/format "$out/tracefs/events/$e/"
	done
	# CPU 0's events as text, then the first page of its binary buffer
	# (a consuming read: the oldest events, the text's first).
	i=$T/instances/fixture
	mkdir $i && for e in sched/sched_switch sched/sched_wakeup irq \
		irq_vectors/local_timer_entry irq_vectors/local_timer_exit; do
		echo 1 > $i/events/$e/enable
	done
	sleep 0.3 && echo 0 > $i/tracing_on &&
	cat $i/per_cpu/cpu0/trace > "$out/tracefs/cpu0.trace" &&
	dd if=$i/per_cpu/cpu0/trace_pipe_raw of="$out/tracefs/cpu0.raw" bs=4096 count=1 2>/dev/null
	rmdir $i
	# A few lines of the timerlat tracer as the kernel prints them.
	grep -qw timerlat $T/available_tracers || return 0
	echo 1 > $T/osnoise/cpus && echo timerlat > $T/current_tracer &&
	sleep 0.3 && head -n 40 $T/trace > "$out/tracefs/timerlat.trace"
	echo nop > $T/current_tracer
	echo 0-1 > $T/osnoise/cpus
}

c_timer() {
	$R timer -t "$1" -c 1 -p 1000 -T "$TL_S" -l 2 --json "$out/$2.json"
}

# -t 3: rtlat's thread on timerlat_fd (6.12 measures; 6.1 refuses in one
# line, exit 2), with 100 us of its own work after each wake-up; on every
# CPU, a thread on each one's timerlat_fd.
c_timerlatu() {
	$R timer -t 3 -c all -p 1000 -T "$TL_S" -l 2 --user-work 100 --json "$out/timerlatu.json"
	rc=$?
	# the tracer as rtlat found it: nop, timerlat's kernel threads on
	{ cat $T/current_tracer; cat $T/osnoise/options 2>/dev/null; } > "$out/timerlatu.after"
	return $rc
}

# Bad input on a fresh machine (tracefs not mounted): rtlat mounts
# tracefs to look for the tracer; the refusal that follows (-t 2 with two
# CPUs where the tracer is, -t itself where it is not) undoes the mount
# and is one line.
c_badinput() {
	umount $T
	$R timer -t 2 -c 0,1 -T 1
	rc=$?
	test -e $T/tracing_on && echo "tracefs left mounted"
	mount -t tracefs nodev $T
	return $rc
}

# The same tracer, CPU and period; 100 us buckets, as rtlat's -h takes.
c_rtla() {
	rtla timerlat hist -c 1 -p 1000 -d "$TL_S" -P f:99 -b 100 -E 100
}

# --explain explains at most 5 spikes a second, first come (one each
# 200 ms): a hog and an interrupt load together leave either out of some
# runs, so each has a run. The hog: SCHED_FIFO 60 on the measuring CPU
# (the sampler's FIFO 40 below it), busy 50 ms every 150 ms, and only
# spikes over 25 ms explained: every hog burst delays the sampler by more
# than that, and the emulated guest's own spikes (2-20 ms seen on a loaded
# host, the guest at nice 19) seldom reach it, so they cannot take every
# turn. rtlat starts once the hog is running (python3 over 9p may take
# seconds to start on a loaded host), and the hog's own count of bursts
# before and after the run (SIGUSR1) says whether it ran in the window.
# hog_says N WORD: wait (60 s at most) for N lines with WORD in hog.pid.
hog_says() {
	i=0
	while [ "$(grep -c "$2" "$out/hog.pid" 2>/dev/null)" -lt "$1" ] && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

c_explain() {
	python3 bench/explain/hog.py 1 60 50000 100 > "$out/hog.pid" &
	hog=$!
	hog_says 1 ready
	kill -USR1 $hog
	hog_says 1 bursts
	# and each explained spike's window as text (--trace-out)
	mkdir -p "$out/windows"
	timeout -s INT 30 $R timer -q -c 1 -P 40 -T "$TL_S" --explain --explain-over 25000 \
		--trace-out "$out/windows" --json "$out/explain.json"
	rc=$?
	kill -USR1 $hog
	hog_says 2 bursts
	kill $hog
	wait $hog 2>/dev/null
	return $rc
}

# Interrupts on the measuring CPU: tests/kernels/boot routes every
# interrupt to CPU 0 from boot (irqaffinity=0; the guest's files are 9p
# over virtio, and moving its interrupts while requests were in flight,
# or starving their handler threads on CPU 1 under timerlat's FIFO 95,
# hung the whole guest). The sampler on CPU 0 then, FIFO 40 below the
# handler threads (irq/N-virtioK-requests, FIFO 50 on RT): one synchronous
# reader on CPU 1 of the results share (no cache: each read is a request)
# keeps a handler busy a part of the time, so the sampler is delayed by
# it, never starved, and it is never starved either. Even so, 1 run in 6-10
# of this check hung the emulated guest whole (no kernel report; a lost
# virtio interrupt is the likely cause): make check's quick stage leaves it
# out, make check-kernels runs it and a hang is a failure after BOOT_TIMEOUT.
c_explainirq() {
	irqs=$(awk '/virtio.*requests/ { sub(":", "", $1); print $1 }' /proc/interrupts)
	echo $irqs > "$out/explain.irqs"
	dd if=/dev/zero of="$out/explain.load" bs=4k count=1 2>/dev/null
	taskset -c 1 python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
while True:
	os.pread(fd, 4096, 0)' "$out/explain.load" &
	load=$!
	sleep 0.5
	timeout -s INT 30 $R timer -q -c 0 -P 40 -T "$TL_S" --explain --explain-over 300 --json "$out/explainirq.json"
	rc=$?
	kill $load
	wait $load 2>/dev/null
	rm -f "$out/explain.load"
	grep -h "^irq/" /proc/[0-9]*/comm > "$out/explain.irqthreads" 2>/dev/null
	return $rc
}

c_pairs() {
	for t in $($R --list-plain | awk '$2 == "pair" {print $1}'); do
		$R $t -q -a -t 2 -p 80 -i 500 -l 400 --json "$out/pair-$t.json" || return $?
	done
}

c_request() { $R request --samples 300 --rounds 1 --json "$out/request.json"; }
c_bintime() { $R bintime -q -a 0-1 -D 1 --json "$out/bintime.json"; }
c_sync() {
	$R sync --test inversion --protocol inherit --rounds 10 --json "$out/sync.json"
}
c_suite() {
	rm -rf /tmp/suite
	# SUITE_ONLY: a subset (make check's quick stage keeps to its time).
	$R suite --duration 1 ${SUITE_ONLY:+--only "$SUITE_ONLY"} -o /tmp/suite &&
		cp -r /tmp/suite "$out/suite"
	rc=$?
	rm -rf /tmp/suite
	return $rc
}

# SCHED_DEADLINE (issue 47): the sampler measures one thread with a job
# longer than its runtime (overruns and misses counted), then a thread
# pinned by -c inside the guest's two-CPU root domain is refused (EPERM,
# its one line and exit status kept for the host).
c_deadline() {
	$R deadline -D 2 -q -p 20000 -r 1000 -w 2000 --json "$out/deadline.json" || return $?
	$R deadline -D 1 -q -c 1 > /dev/null 2> "$out/deadline-pinned.err"
	echo $? > "$out/deadline-pinned.rc"
}

# More CPUs than 64, with holes in their numbers (nosmt or a CPU taken
# offline make them): the "many" stage boots 72 vCPUs (tests/kernels/run)
# and CPUs 5 and 66 go offline first. Every CPU's face must find the
# online ones, never count 0..n-1 nor stop at 64.
c_manycpus() {
	for c in 5 66; do
		echo 0 > /sys/devices/system/cpu/cpu$c/online || return 1
	done
	cat /sys/devices/system/cpu/online > "$out/many.online"
	$R cyclictest -S -m -i 1000 -l 50 -q --json "$out/many-cyc.json" > "$out/many-cyc.out" || return $?
	$R timer -c all -T 1 -q --json "$out/many-timer.json" > "$out/many-timer.out" || return $?
	$R pmq -S -i 1000 -l 50 -q --json "$out/many-pmq.json" > "$out/many-pmq.out" || return $?
	$R timer -c 5 -T 1 -q 2> "$out/many-bad.err"
	echo $? > "$out/many-bad.rc"
}

# The hwlat tracer (rtlat hwlat): QEMU's vCPUs are preempted by the host,
# which the detector sees as gaps in the TSC. 3 s, a 100 ms window of which
# 50 ms sampled, a 10 us threshold, a hard limit no gap reaches (the exit
# is the run's, not the host's load); then the tracer's settings, given
# back. Where the kernel has no hwlat tracer: the one line and exit 0.
c_hwlat() {
	$R hwlat -D 3 --window 100000 --width 50000 --threshold 10 --hardlimit 10000000 \
		--json "$out/hwlat.json" --report "$out/hwlat.report"
	rc=$?
	cat $T/current_tracer $T/tracing_thresh > "$out/hwlat.after"
	return $rc
}

# The osnoise tracer (rtlat osnoise): each CPU's noise by class, 3 s of
# 100 ms periods, 50 ms spun; then the settings, given back.
c_osnoise() {
	$R osnoise -D 3 -c 0-1 --period 100000 --runtime 50000 --json "$out/osnoise.json"
	rc=$?
	cat $T/current_tracer $T/osnoise/period_us $T/osnoise/runtime_us > "$out/osnoise.after"
	return $rc
}

# --explain's cost against rtla's (bench/explain/vs-rtla; issue 47): not
# a check of make check or check-kernels, CHECKS=benchexplain runs it.
c_benchexplain() {
	OUT="$out/benchexplain" && mkdir -p "$OUT" && OUT=$OUT bench/explain/vs-rtla
}

now > "$out/boot_s"
setup
: > "$out/times"
for c in "$@"; do
	case $c in
	info) check info c_info ;;
	timer0) check timer0 c_timer 0 timer0 ;;
	timer1) check timer1 c_timer 1 timer1 ;;
	timer2) check timer2 c_timer 2 timer2 ;;
	timerlatu) check timerlatu c_timerlatu ;;
	badinput) check badinput c_badinput ;;
	rtla) check rtla c_rtla ;;
	doctor) check doctor $R doctor --json "$out/doctor.json" ;;
	explain) check explain c_explain ;;
	explainirq) check explainirq c_explainirq ;;
	pairs) check pairs c_pairs ;;
	request) check request c_request ;;
	bintime) check bintime c_bintime ;;
	sync) check sync c_sync ;;
	suite) check suite c_suite ;;
	manycpus) check manycpus c_manycpus ;;
	deadline) check deadline c_deadline ;;
	hwlat) check hwlat c_hwlat ;;
	osnoise) check osnoise c_osnoise ;;
	benchexplain) check benchexplain c_benchexplain ;;
	*) echo "guest.sh: no check $c" >&2; exit 2 ;;
	esac
done
