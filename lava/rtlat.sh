#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# rtlat in Linaro test-definitions' layout: run as root, results in
# output/ in the current directory (as test-definitions' OUTPUT="$(pwd)/
# output"), or in the directory -o OUTPUT names, never beside this script
# (from a package that is /usr/share/rtlat/lava, whose purge would leave
# them behind); one line per case in OUTPUT/result.txt ("NAME pass|fail
# [MEASUREMENT UNITS]"), which send-to-lava.sh hands to LAVA
# (lava-test-case) or, without LAVA, prints as the signals Linaro's
# test-runner.py reads. So the definition works with and without LAVA.
#
# Cases (rtlat --lava's): per series TEST-SERIES-min|avg|p99|p9999|max
# and its verdict TEST-SERIES, per thread (a pair, a CPU's sampler)
# TEST-t<N>-min|avg|p99|p9999|max-latency and its verdict
# TEST-t<N>-latency (the test's name in each: unique across the tests of
# one job), and TEST-run: fail when rtlat is
# missing, crashes, ends with an error, or a threshold or the baseline is
# exceeded. The JSON (and the suite's results directory and report) stay
# in OUTPUT as artifacts.
#
# Every parameter is checked with case patterns before it is used, and
# none is ever evaluated: no eval, no arithmetic on it, no unquoted
# expansion but ARGS' split into words, with globbing off. A bad one: one
# line on stderr naming it and what is accepted, the case TEST-run
# (rtlat-run when TEST is the bad one) failed in result.txt, exit 2 (a bad
# OUTPUT: nothing written at all).
#
# SQUAD (-U URL, with -G GROUP -P PROJECT -B BUILD, optional -E ENV -J
# JOB_ID -K TOKEN_FILE -A ALLOW_HTTP -R RTLAT_REPORT): after the run, its JSON (a single
# test) or results directory (the suite) goes to SQUAD through
# rtlat-report --squad, with the unit us on every metric and every verdict
# a test, which Linaro's test-runner's own push (--qa-reports-*) cannot
# give. One more case, TEST-squad: pass when SQUAD took the run, fail with
# one line in the log when not (bad SQUAD params, no token, no
# rtlat-report, a refused token, a duplicate, an unreachable server). It
# never changes the other cases nor the exit status. The token: the
# environment variable SQUAD_TOKEN or the file -K names, never a value on
# a command line, and never in the log (rtlat-report never prints it). A
# plain http:// URL to another machine would carry it in clear: refused
# by rtlat-report unless -A true. Empty URL (the default): nothing
# submitted, no case.

TEST_DIR=$(dirname "$(realpath "$0")")
# -o: where the results go; made absolute, checked by output_dir.
OUTPUT="output"
OUTPUT_OK=false
RESULT_FILE=""

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
SQUAD_URL=""
SQUAD_GROUP=""
SQUAD_PROJECT=""
SQUAD_BUILD=""
SQUAD_ENV=""
SQUAD_JOB_ID=""
SQUAD_TOKEN_FILE=""
SQUAD_ALLOW_HTTP="false"
RTLAT_REPORT="rtlat-report"
# The run's case: TEST-run once TEST has a test's shape (rtlat-run again
# if rtlat has no such test).
RUN_CASE="rtlat-run"
# The submission's case (-U): TEST-squad, as TEST-run.
SQUAD_CASE="rtlat-squad"
# Whether rtlat ran (its JSON or results directory is this run's).
RAN=false

usage() {
	cat <<EOF
Usage: $0 [-t TEST] [-D DURATION] [-w BACKGROUND_CMD] [-i ITERATIONS]
          [-m MAX_LATENCY] [-p MAX_P99] [-b BASELINE] [-T TOLERANCE]
          [-a ARGS] [-r RTLAT] [-s true|false] [-o OUTPUT]
          [-U SQUAD_URL -G SQUAD_GROUP -P SQUAD_PROJECT -B SQUAD_BUILD
           [-E SQUAD_ENV] [-J SQUAD_JOB_ID] [-K SQUAD_TOKEN_FILE]
           [-A true|false] [-R RTLAT_REPORT]]
  TEST         suite, or one of rtlat's tests (rtlat --list-plain, the
               first word of each line); its options: ARGS
  DURATION     per test, N[s|m|h|d] with N from 1 (default 30s)
  BACKGROUND_CMD
               a shell command (run by sh -c) during the measurement;
               all of it is stopped after it
  ITERATIONS   1 to 1000 (default 1)
  MAX_LATENCY, MAX_P99
               microseconds: one number for a single test, or per test
               or series: pmq=50,timer=30,sync/blocking=2000
  BASELINE     an earlier run's --json; TOLERANCE: percent (default 10)
  ARGS         more options for the test, separated by spaces: "-l 1000 -t 2"
  RTLAT        rtlat on the PATH, or its path
  OUTPUT       the results' directory: an existing one, or a new one in
               an existing directory (default: output in the current one)
  SQUAD_URL    empty (default): no submission; else the run goes to this
               SQUAD server (rtlat-report --squad) and the case TEST-squad
               says whether SQUAD took it
  SQUAD_GROUP, SQUAD_PROJECT, SQUAD_BUILD
               SQUAD's group and project slugs and the build (needed with
               SQUAD_URL)
  SQUAD_ENV    the environment (default: rtlat-report's, the run's
               machine and host name: x86_64-board7)
  SQUAD_JOB_ID the test run's job_id (default: made from the run's
               identity, so a second submission is refused as a duplicate)
  SQUAD_TOKEN_FILE
               a file holding the token (default: the environment
               variable SQUAD_TOKEN)
  SQUAD_ALLOW_HTTP
               true: the token may go over plain http:// to another
               machine, in clear (rtlat-report --allow-http; default false)
  RTLAT_REPORT rtlat-report's name on the PATH or its path (default:
               rtlat-report on the PATH, else beside rtlat, else in the
               .venv of rtlat's built tree)
EOF
}

# A value as the error line shows it: quoted, on one line.
shown() {
	printf "'%s'" "$1" | tr '[:cntrl:]' '?'
}

# A bad parameter ends the script: $1 names it, $2 is its value, $3 says
# what is accepted. The failed case goes to OUTPUT unless OUTPUT is bad.
bad() {
	echo "rtlat.sh: ${1}: $(shown "$2") is not accepted; accepted: ${3}" >&2
	output_dir && echo "${RUN_CASE} fail" > "${RESULT_FILE}"
	exit 2
}

# A whole number from 1, at most $2 digits, no leading 0.
count() {
	case "$1" in
	'' | 0* | *[!0-9]*) return 1 ;;
	esac
	[ "${#1}" -le "$2" ]
}

printable() {
	case "$1" in
	*[[:cntrl:]]*) return 1 ;;
	esac
	return 0
}

# Empty, or rtlat's [TEST[/SERIES]=]US,... in shape (which tests and
# series, and the numbers' range, are rtlat's to judge).
limits() {
	rest="$1"
	while [ -n "${rest}" ]; do
		entry="${rest%%,*}"
		rest="${rest#"${entry}"}"
		[ "${rest}" = "," ] && return 1
		rest="${rest#,}"
		case "${entry}" in
		*=*) key="${entry%%=*}" ;;
		*) key="any" ;;
		esac
		count "${entry#"${key}="}" 10 || return 1
		case "${key}" in
		'' | /* | */ | */*/* | *[!A-Za-z0-9_/-]*) return 1 ;;
		esac
	done
	return 0
}

# OUTPUT checked, made absolute and made (one level: a mistyped parent
# creates nothing) once; RESULT_FILE set. Not writable: refused.
output_dir() {
	[ "${OUTPUT_OK}" = true ] && return 0
	case "${OUTPUT}" in
	'' | *[[:cntrl:]]*) return 1 ;;
	/*) dir="${OUTPUT}" ;;
	*) dir="$(pwd)/${OUTPUT}" ;;
	esac
	if [ ! -d "${dir}" ]; then
		mkdir "${dir}" 2> /dev/null || return 1
	fi
	[ -w "${dir}" ] && [ -x "${dir}" ] || return 1
	OUTPUT="${dir}"
	RESULT_FILE="${OUTPUT}/result.txt"
	OUTPUT_OK=true
}

TEST_ACCEPTED="suite, or one of rtlat's tests (rtlat --list-plain); the test's options go in ARGS (-a)"
LIMITS_ACCEPTED="empty, or microseconds: a whole number, or a comma-separated list of [TEST[/SERIES]=]US"
RTLAT_ACCEPTED="rtlat's name on the PATH, or its path"

check_params() {
	output_dir ||
		bad "OUTPUT (-o)" "${OUTPUT}" "a directory this user can write to, or a new one in an existing directory (default: output in the current directory)"
	# its shape here, before anything runs; whether rtlat has it, once
	# rtlat is there (test_known)
	case "${TEST}" in
	'' | *[!a-z]*) bad "TEST (-t)" "${TEST}" "${TEST_ACCEPTED}" ;;
	esac
	RUN_CASE="${TEST}-run"
	SQUAD_CASE="${TEST}-squad"
	count "${DURATION%[smhd]}" 9 ||
		bad "DURATION (-D)" "${DURATION}" "N[s|m|h|d] with N a whole number from 1, no leading 0, at most 9 digits"
	{ count "${ITERATIONS}" 4 && [ "${ITERATIONS}" -le 1000 ]; } ||
		bad "ITERATIONS (-i)" "${ITERATIONS}" "a whole number from 1 to 1000"
	limits "${MAX_LATENCY}" || bad "MAX_LATENCY (-m)" "${MAX_LATENCY}" "${LIMITS_ACCEPTED}"
	limits "${MAX_P99}" || bad "MAX_P99 (-p)" "${MAX_P99}" "${LIMITS_ACCEPTED}"
	[ -z "${BASELINE}" ] ||
		{ printable "${BASELINE}" && [ -f "${BASELINE}" ] && [ -r "${BASELINE}" ]; } ||
		bad "BASELINE (-b)" "${BASELINE}" "empty, or a readable file (an earlier run's --json)"
	[ "${TOLERANCE}" = 0 ] || count "${TOLERANCE}" 5 ||
		bad "TOLERANCE (-T)" "${TOLERANCE}" "a whole number of percent from 0"
	printable "${ARGS}" ||
		bad "ARGS (-a)" "${ARGS}" "the test's options separated by spaces, without control characters"
	case "${RTLAT}" in
	'' | -*) bad "RTLAT (-r)" "${RTLAT}" "${RTLAT_ACCEPTED}" ;;
	esac
	printable "${RTLAT}" || bad "RTLAT (-r)" "${RTLAT}" "${RTLAT_ACCEPTED}"
	case "${SKIP_INSTALL}" in
	true | True | TRUE | yes) SKIP_INSTALL=true ;;
	false | False | FALSE | no | '') SKIP_INSTALL=false ;;
	*) bad "SKIP_INSTALL (-s)" "${SKIP_INSTALL}" "true or false" ;;
	esac
	# BACKGROUND_CMD is shell code by definition: sh -c alone runs it.
}

while getopts ":t:D:w:i:m:p:b:T:a:r:s:o:U:G:P:B:E:J:K:A:R:h" opt; do
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
	o) OUTPUT="${OPTARG}" ;;
	U) SQUAD_URL="${OPTARG}" ;;
	G) SQUAD_GROUP="${OPTARG}" ;;
	P) SQUAD_PROJECT="${OPTARG}" ;;
	B) SQUAD_BUILD="${OPTARG}" ;;
	E) SQUAD_ENV="${OPTARG}" ;;
	J) SQUAD_JOB_ID="${OPTARG}" ;;
	K) SQUAD_TOKEN_FILE="${OPTARG}" ;;
	A) SQUAD_ALLOW_HTTP="${OPTARG}" ;;
	R) RTLAT_REPORT="${OPTARG}" ;;
	h) usage; exit 0 ;;
	:) bad "option -${OPTARG}" "" "a value after it (-h: usage)" ;;
	*) bad "option" "-${OPTARG}" "-t -D -w -i -m -p -b -T -a -r -s -o -U -G -P -B -E -J -K -A -R, -h: usage" ;;
	esac
done
shift $((OPTIND - 1))
check_params
[ "$#" = 0 ] || bad "argument" "$1" "options only (-h: usage)"

# A case line of result.txt.
result() {
	echo "$*" >> "${RESULT_FILE}"
}

# Nothing could run: one failing case says why, and the script ends well
# so that the definition's next step still reports it.
give_up() {
	echo "ERROR: $1" >&2
	result "${RUN_CASE} fail"
	squad_submit
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
	[ "${SKIP_INSTALL}" = true ] && return 1
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

# The background load, in a session of its own whose leader writes its id
# (the session's and its process group's) first; every process of it
# carries BG_MARK in its environment, so that those which leave the
# session (setsid) are found too.
BG_PID=""
BG_PGID="${OUTPUT}/background.pgid"
BG_SID=""
BG_MARK="RTLAT_LAVA_BACKGROUND=$$.$(date +%s)"
background_start() {
	[ -n "${BACKGROUND_CMD}" ] || return 0
	rm -f "${BG_PGID}"
	# shellcheck disable=SC2016
	RTLAT_LAVA_BACKGROUND="${BG_MARK#*=}" \
		setsid sh -c 'echo $$ > "$1"; exec sh -c "$2"' background "${BG_PGID}" \
		"${BACKGROUND_CMD}" > "${OUTPUT}/background.log" 2>&1 &
	BG_PID=$!
	echo "background load started: ${BACKGROUND_CMD}"
}

# The background load's live processes: in its session, or marked.
background_pids() {
	# -z: an entry of the environment at a time (busybox's grep sees a
	# line's first only)
	marked=$(grep -lszxF "${BG_MARK}" /proc/[0-9]*/environ)
	for d in /proc/[0-9]*; do
		{ read -r st < "${d}/stat"; } 2> /dev/null || continue
		st="${st##*) }"
		state="${st%% *}"
		st="${st#* }"
		st="${st#* }"
		st="${st#* }"
		[ "${state}" = Z ] && continue
		if [ "${st%% *}" = "${BG_SID}" ]; then
			echo "${d#/proc/}"
		else
			case "${marked}" in
			*"${d}/environ"*) echo "${d#/proc/}" ;;
			esac
		fi
	done
}

# Each of the given processes gets signal $1.
signal_all() {
	sig="$1"
	shift
	for p in "$@"; do
		kill "-${sig}" "${p}" 2> /dev/null
	done
}

background_stop() {
	[ -n "${BG_PID}" ] || return 0
	n=0
	while [ ! -s "${BG_PGID}" ] && [ "${n}" -lt 50 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	BG_SID=$(cat "${BG_PGID}" 2> /dev/null)
	# a pid of its own, never 1 or this script's
	if ! count "${BG_SID}" 10 || [ "${BG_SID}" = 1 ] || [ "${BG_SID}" = "$$" ]; then
		BG_SID=""
	fi
	# "kill -SIG -PGID": dash's kill takes no "--" after -SIG.
	[ -n "${BG_SID}" ] && kill -TERM "-${BG_SID}" 2> /dev/null
	# shellcheck disable=SC2046
	signal_all TERM $(background_pids)
	n=0
	while [ -n "$(background_pids)" ] && [ "${n}" -lt 10 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	# what is left, stopped first so that it forks no more, then killed,
	# until none is left
	n=0
	while pids=$(background_pids) && [ -n "${pids}" ] && [ "${n}" -lt 50 ]; do
		# shellcheck disable=SC2086
		signal_all STOP ${pids}
		# shellcheck disable=SC2086
		signal_all KILL ${pids}
		sleep 0.05
		n=$((n + 1))
	done
	wait "${BG_PID}" 2> /dev/null
	rm -f "${BG_PGID}"
	echo "background load stopped"
	BG_PID=""
}

# The arguments of one run into "$@" of run_rtlat.
run_rtlat() {
	name="$1"
	out="${OUTPUT}/rtlat-${name}"
	# an earlier run's JSON is never taken for this one's (-U)
	rm -f "${out}.json"
	RAN=true
	case "${TEST}" in
	suite) set -- suite -o "${out}" ;;
	*) set -- "${TEST}" --json "${out}.json" ;;
	esac
	[ "${LENGTH}" != - ] && set -- "$@" "${LENGTH}" "${DURATION}"
	[ "${TEST}" != suite ] && [ "${ITERATIONS}" != 1 ] &&
		set -- "$@" --iterations "${ITERATIONS}"
	[ -n "${MAX_LATENCY}" ] && set -- "$@" --max-latency "${MAX_LATENCY}"
	[ -n "${MAX_P99}" ] && set -- "$@" --max-p99 "${MAX_P99}"
	[ -n "${BASELINE}" ] && set -- "$@" --baseline "${BASELINE}" \
		--tolerance "${TOLERANCE}"
	# ARGS split into words on purpose ("-l 100000 -t 2"), never globbed.
	set -f
	# shellcheck disable=SC2086
	set -- "$@" ${ARGS} --junit "${out}.junit.xml" --lava
	set +f
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

# rtlat-report for -U: RTLAT_REPORT's path, or its name on the PATH, or
# (the default name only) beside rtlat: make install's BINDIR, or the
# .venv of rtlat's built tree (make venv), as rtlat suite --report finds it.
find_report() {
	case "${RTLAT_REPORT}" in
	'' | -*) return 1 ;;
	*/*)
		[ -f "${RTLAT_REPORT}" ] && [ -x "${RTLAT_REPORT}" ]
		return
		;;
	esac
	found=$(command -v "${RTLAT_REPORT}" 2> /dev/null)
	case "${found}" in
	/*)
		RTLAT_REPORT="${found}"
		return 0
		;;
	esac
	[ "${RTLAT_REPORT}" = rtlat-report ] || return 1
	for bin in "$(dirname "${RTLAT}")" \
		"$(dirname "$(realpath "${RTLAT}" 2> /dev/null || echo "${RTLAT}")")"; do
		for t in "${bin}/rtlat-report" "${bin}/.venv/bin/rtlat-report"; do
			if [ -f "${t}" ] && [ -x "${t}" ]; then
				RTLAT_REPORT="${t}"
				return 0
			fi
		done
	done
	return 1
}

# The case TEST-squad failed, with one line saying why (nothing sent).
squad_fail() {
	echo "rtlat.sh: ${SQUAD_CASE}: not submitted: $1" >&2
	result "${SQUAD_CASE} fail"
}

# -U: this run's JSON (a single test) or results directories (the suite:
# each iteration's is a test run of its own in SQUAD) submitted by
# rtlat-report --squad, the token from SQUAD_TOKEN in the environment or
# the file -K names. The case TEST-squad says whether SQUAD took them; the
# other cases and the exit status stay as the run made them.
squad_submit() {
	[ -n "${SQUAD_URL}" ] || return 0
	for p in "SQUAD_URL (-U)=${SQUAD_URL}" "SQUAD_GROUP (-G)=${SQUAD_GROUP}" \
		"SQUAD_PROJECT (-P)=${SQUAD_PROJECT}" "SQUAD_BUILD (-B)=${SQUAD_BUILD}" \
		"SQUAD_ENV (-E)=${SQUAD_ENV}" "SQUAD_JOB_ID (-J)=${SQUAD_JOB_ID}" \
		"SQUAD_TOKEN_FILE (-K)=${SQUAD_TOKEN_FILE}" "RTLAT_REPORT (-R)=${RTLAT_REPORT}"; do
		name="${p%%=*}"
		value="${p#*=}"
		if ! printable "${value}"; then
			squad_fail "${name}: $(shown "${value}") is not accepted: a control character"
			return 0
		fi
		case "${name}" in
		SQUAD_GROUP* | SQUAD_PROJECT* | SQUAD_BUILD*)
			if [ -z "${value}" ]; then
				squad_fail "${name} is empty; SQUAD_URL needs SQUAD_GROUP, SQUAD_PROJECT and SQUAD_BUILD"
				return 0
			fi
			;;
		esac
	done
	case "${SQUAD_ALLOW_HTTP}" in
	true | True | TRUE | yes) SQUAD_ALLOW_HTTP=true ;;
	false | False | FALSE | no | '') SQUAD_ALLOW_HTTP=false ;;
	*)
		squad_fail "SQUAD_ALLOW_HTTP (-A): $(shown "${SQUAD_ALLOW_HTTP}") is not accepted: true or false"
		return 0
		;;
	esac
	set --
	if [ "${RAN}" = true ]; then
		if [ "${TEST}" != suite ]; then
			[ -f "${OUTPUT}/rtlat-${TEST}.json" ] && set -- "${OUTPUT}/rtlat-${TEST}.json"
		elif [ "${ITERATIONS}" -gt 1 ]; then
			i=1
			while [ "${i}" -le "${ITERATIONS}" ]; do
				[ -d "${OUTPUT}/rtlat-suite-${i}" ] && set -- "$@" "${OUTPUT}/rtlat-suite-${i}"
				i=$((i + 1))
			done
		else
			[ -d "${OUTPUT}/rtlat-suite" ] && set -- "${OUTPUT}/rtlat-suite"
		fi
	fi
	if [ "$#" = 0 ]; then
		squad_fail "nothing to submit: rtlat wrote no results"
		return 0
	fi
	if ! find_report; then
		squad_fail "no rtlat-report: $(shown "${RTLAT_REPORT}") is not on the PATH nor beside rtlat (RTLAT_REPORT, -R: its path)"
		return 0
	fi
	set -- "$@" "--squad=${SQUAD_URL}" "--group=${SQUAD_GROUP}" \
		"--project=${SQUAD_PROJECT}" "--build=${SQUAD_BUILD}"
	[ -n "${SQUAD_ENV}" ] && set -- "$@" "--environment=${SQUAD_ENV}"
	[ -n "${SQUAD_JOB_ID}" ] && set -- "$@" "--job-id=${SQUAD_JOB_ID}"
	[ -n "${SQUAD_TOKEN_FILE}" ] && set -- "$@" "--squad-token-file=${SQUAD_TOKEN_FILE}"
	[ "${SQUAD_ALLOW_HTTP}" = true ] && set -- "$@" --allow-http
	echo "+ ${RTLAT_REPORT} $*"
	if "${RTLAT_REPORT}" "$@" > "${OUTPUT}/squad.txt" 2>&1; then
		cat "${OUTPUT}/squad.txt"
		result "${SQUAD_CASE} pass"
	else
		# rtlat-report's own line: a refused token, a duplicate, an
		# unreachable or too slow server, a redirect elsewhere, plain
		# http to another machine, no token or one not one word (never
		# the token itself)
		cat "${OUTPUT}/squad.txt" >&2
		result "${SQUAD_CASE} fail"
	fi
}

# lava-test-case lines into result.txt lines, but TEST-run's, which comes
# last: fail when rtlat said so or ended otherwise than well (bad params,
# an error, a crash), whatever it printed.
cases() {
	sed -n 's/^lava-test-case \([A-Za-z0-9._-]*\) --result \([a-z]*\)\( --measurement \([^ ]*\) --units \([^ ]*\)\)\{0,1\}$/\1 \2 \4 \5/p' "$1" |
		sed 's/ *$//' | grep -v "^${TEST}-run " | sed "s/^/${PREFIX}/" >> "${RESULT_FILE}"
	if [ "${status}" = 0 ] && ! grep -q "^lava-test-case ${TEST}-run --result fail" "$1"; then
		result "${PREFIX}${RUN_CASE} pass"
	else
		result "${PREFIX}${RUN_CASE} fail"
	fi
}

# TEST is suite or one of rtlat's tests (its registry: rtlat --list-plain,
# "NAME FAMILY SUITE_ORDER LENGTH_OPTION ARGS..."); LENGTH is the option
# that sets how long it runs ("-" where none does). Else refused as a bad
# TEST, and rtlat-run fails.
test_known() {
	if [ "${TEST}" = suite ]; then
		LENGTH=--duration
	else
		registry=$("${RTLAT}" --list-plain) ||
			give_up "'${RTLAT}' does not list its tests (rtlat --list-plain)"
		LENGTH=$(echo "${registry}" | while read -r name _ _ length _; do
			[ "${name}" = "${TEST}" ] && echo "${length}"
		done)
		case "${LENGTH}" in
		- | -? | --[a-z]*) ;;
		*)
			names=$(echo "${registry}" | while read -r name _; do printf ', %s' "${name}"; done)
			RUN_CASE="rtlat-run"
			bad "TEST (-t)" "${TEST}" "suite${names}; the test's options go in ARGS (-a)" ;;
		esac
	fi
}

# An earlier run's cases are removed first, whatever this run comes to.
rm -f "${RESULT_FILE}"
[ "$(id -u)" = 0 ] || give_up "please run this script as root"
find_rtlat || give_up "no rtlat: '${RTLAT}' is not on the PATH nor built (see ${OUTPUT}/build.log)"
"${RTLAT}" --version || give_up "'${RTLAT}' does not run"
test_known

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
squad_submit
cat "${RESULT_FILE}"
exit 0
