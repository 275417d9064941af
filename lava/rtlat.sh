#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# rtlat in Linaro test-definitions' layout: run as root, results in
# output/ beside this script, one line per case in output/result.txt
# ("NAME pass|fail [MEASUREMENT UNITS]"), which send-to-lava.sh hands to
# LAVA (lava-test-case) or, without LAVA, prints as the signals Linaro's
# test-runner.py reads. So the definition works with and without LAVA.
#
# Cases: per series TEST-SERIES-min|avg|p99|max, per thread (a pair, a
# CPU's sampler) t<N>-min|avg|p99|max-latency as rt-tests' definitions
# (TEST-t<N>-... under the suite), and TEST-run: fail when rtlat is
# missing, crashes, ends with an error, or a threshold or the baseline is
# exceeded. The JSON (and the suite's results directory and report) stay
# in output/ as artifacts.

TEST_DIR=$(dirname "$(realpath "$0")")
OUTPUT="${TEST_DIR}/output"
RESULT_FILE="${OUTPUT}/result.txt"

TEST="suite"
DURATION="30s"
BACKGROUND_CMD=""
ITERATIONS=1
MAX_LATENCY=""
MAX_P99=""
BASELINE=""
TOLERANCE=10
ARGS=""
RTLAT="rtlat"
SKIP_INSTALL="false"

usage() {
	cat >&2 <<EOF
Usage: $0 [-t TEST] [-D DURATION] [-w BACKGROUND_CMD] [-i ITERATIONS]
          [-m MAX_LATENCY] [-p MAX_P99] [-b BASELINE] [-T TOLERANCE]
          [-a ARGS] [-r RTLAT] [-s true|false]
  TEST         suite, or one of rtlat's tests (pmq, timer, cyclictest...)
  DURATION     per test, N[s|m|h|d] (default 30s)
  MAX_LATENCY, MAX_P99
               microseconds: one number for a single test, or per test
               or series: pmq=50,timer=30,sync/blocking=2000
EOF
	exit 2
}

while getopts ":t:D:w:i:m:p:b:T:a:r:s:" opt; do
	case "${opt}" in
	t) TEST="${OPTARG}" ;;
	D) DURATION="${OPTARG}" ;;
	w) BACKGROUND_CMD="${OPTARG}" ;;
	i) ITERATIONS="${OPTARG}" ;;
	m) MAX_LATENCY="${OPTARG}" ;;
	p) MAX_P99="${OPTARG}" ;;
	b) BASELINE="${OPTARG}" ;;
	T) TOLERANCE="${OPTARG}" ;;
	a) ARGS="${OPTARG}" ;;
	r) RTLAT="${OPTARG}" ;;
	s) SKIP_INSTALL="${OPTARG}" ;;
	*) usage ;;
	esac
done

# A case line of result.txt.
result() {
	echo "$*" >> "${RESULT_FILE}"
}

# Nothing could run: one failing case says why, and the script ends well
# so that the definition's next step still reports it.
give_up() {
	echo "ERROR: $1" >&2
	result "${TEST}-run fail"
	exit 0
}

# rtlat on the PATH, or a path; else (unless SKIP_INSTALL) built from the
# source tree this definition belongs to.
find_rtlat() {
	if [ "${RTLAT#*/}" != "${RTLAT}" ]; then
		[ -x "${RTLAT}" ] && return 0
	elif command -v "${RTLAT}" > /dev/null 2>&1; then
		RTLAT=$(command -v "${RTLAT}")
		return 0
	fi
	case "${SKIP_INSTALL}" in
	true|True|yes) return 1 ;;
	esac
	src=$(dirname "${TEST_DIR}")
	[ -f "${src}/Makefile" ] && [ -f "${src}/src/main.c" ] || return 1
	install_build_deps
	make -C "${src}" rtlat > "${OUTPUT}/build.log" 2>&1 || return 1
	RTLAT="${src}/rtlat"
}

install_build_deps() {
	command -v make > /dev/null && command -v cc > /dev/null && return 0
	if command -v apt-get > /dev/null; then
		apt-get update -q && apt-get install -y -q make gcc libc6-dev
	elif command -v dnf > /dev/null; then
		dnf install -y make gcc glibc-devel
	elif command -v yum > /dev/null; then
		yum install -y make gcc glibc-devel
	fi
}

# The background load, in a session of its own so that all of it stops:
# its session leader writes its process group's id first.
BG_PID=""
BG_PGID="${OUTPUT}/background.pgid"
background_start() {
	[ -n "${BACKGROUND_CMD}" ] || return 0
	rm -f "${BG_PGID}"
	# shellcheck disable=SC2016
	setsid sh -c 'echo $$ > "$1"; exec sh -c "$2"' background "${BG_PGID}" \
		"${BACKGROUND_CMD}" > "${OUTPUT}/background.log" 2>&1 &
	BG_PID=$!
	echo "background load started: ${BACKGROUND_CMD}"
}

background_stop() {
	[ -n "${BG_PID}" ] || return 0
	n=0
	while [ ! -s "${BG_PGID}" ] && [ "${n}" -lt 50 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	pg=$(cat "${BG_PGID}" 2> /dev/null)
	# "kill -SIG -PGID": dash's kill takes no "--" after -SIG.
	[ -n "${pg}" ] && kill -TERM "-${pg}" 2> /dev/null
	sleep 0.2
	[ -n "${pg}" ] && kill -KILL "-${pg}" 2> /dev/null
	wait "${BG_PID}" 2> /dev/null
	rm -f "${BG_PGID}"
	echo "background load stopped"
	BG_PID=""
}

# DURATION in seconds, for Xenomai's -T.
seconds() {
	n=${1%[smhd]}
	case "$1" in
	*m) echo $((n * 60)) ;;
	*h) echo $((n * 3600)) ;;
	*d) echo $((n * 86400)) ;;
	*) echo "${n}" ;;
	esac
}

# The arguments of one run into "$@" of run_rtlat.
run_rtlat() {
	name="$1"
	out="${OUTPUT}/rtlat-${name}"
	case "${TEST}" in
	suite) set -- suite --duration "${DURATION}" -o "${out}" ;;
	timer) set -- timer -T "$(seconds "${DURATION}")" --json "${out}.json" ;;
	request) set -- request --json "${out}.json" ;;
	*) set -- "${TEST}" -D "${DURATION}" --json "${out}.json" ;;
	esac
	[ "${TEST}" != suite ] && [ "${ITERATIONS}" != 1 ] &&
		set -- "$@" --iterations "${ITERATIONS}"
	[ -n "${MAX_LATENCY}" ] && set -- "$@" --max-latency "${MAX_LATENCY}"
	[ -n "${MAX_P99}" ] && set -- "$@" --max-p99 "${MAX_P99}"
	[ -n "${BASELINE}" ] && set -- "$@" --baseline "${BASELINE}" \
		--tolerance "${TOLERANCE}"
	# ARGS split into words on purpose: "-l 100000 -t 2".
	# shellcheck disable=SC2086
	set -- "$@" ${ARGS} --junit "${out}.junit.xml" --lava
	echo "+ ${RTLAT} $*"
	"${RTLAT}" "$@" > "${out}.txt" 2> "${out}.err"
	status=$?
	cat "${out}.txt" "${out}.err"
	echo "rtlat exit status: ${status}"
	cases "${out}.txt"
	report "${out}"
}

# The report beside the results, where rtlat-report is installed.
report() {
	command -v rtlat-report > /dev/null 2>&1 || return 0
	if [ -d "$1" ]; then
		rtlat-report "$1" -o "$1/report.html"
	elif [ -f "$1.json" ]; then
		rtlat-report "$1.json" -o "$1.html"
	fi
}

# lava-test-case lines into result.txt lines; TEST-run from the exit
# status when rtlat could not say it (bad params, a crash).
cases() {
	sed -n 's/^lava-test-case \([^ ]*\) --result \([a-z]*\)\( --measurement \([^ ]*\) --units \([^ ]*\)\)\{0,1\}$/\1 \2 \4 \5/p' "$1" |
		sed 's/ *$//' | sed "s/^/${PREFIX}/" >> "${RESULT_FILE}"
	if ! grep -q "^lava-test-case ${TEST}-run " "$1"; then
		case "${status}" in
		0) result "${PREFIX}${TEST}-run pass" ;;
		*) result "${PREFIX}${TEST}-run fail" ;;
		esac
	fi
}

# An earlier run's cases are removed first, whatever this run comes to.
mkdir -p "${OUTPUT}"
rm -f "${RESULT_FILE}"
[ "$(id -u)" = 0 ] || give_up "please run this script as root"
find_rtlat || give_up "no rtlat: '${RTLAT}' is not on the PATH nor built (see ${OUTPUT}/build.log)"
"${RTLAT}" --version || give_up "'${RTLAT}' does not run"

trap 'background_stop' EXIT
trap 'background_stop; exit 1' INT TERM
background_start
if [ "${TEST}" = suite ] && [ "${ITERATIONS}" -gt 1 ]; then
	i=1
	while [ "${i}" -le "${ITERATIONS}" ]; do
		PREFIX="iteration-${i}-"
		run_rtlat "suite-${i}"
		i=$((i + 1))
	done
else
	PREFIX=""
	run_rtlat "${TEST}"
fi
background_stop
cat "${RESULT_FILE}"
exit 0
