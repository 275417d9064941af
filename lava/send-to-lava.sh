#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# send-to-lava.sh RESULT_FILE: each "NAME pass|fail|skip|unknown
# [MEASUREMENT [UNITS]]" line of a result.txt to LAVA with lava-test-case
# when it is on the PATH (a LAVA job), else printed as the
# <LAVA_SIGNAL_TESTCASE ...> line that Linaro's test-runner.py (and LAVA's
# log parser) read. The same interface as test-definitions' script of that
# name, written for rtlat.
#
# Never silence: a line that is not such a case (a NAME of other than
# letters, digits, ".", "_" and "-", a word too many) is the case
# result-line-N failed, and a missing or empty file the case
# rtlat-results failed, each with one line on stderr.

RESULT_FILE="$1"

if command -v lava-test-case > /dev/null 2>&1; then
	have_lava=1
else
	have_lava=0
fi

# One case: NAME RESULT [MEASUREMENT [UNITS]], all of them checked.
send() {
	if [ "${have_lava}" = 1 ]; then
		if [ -n "$3" ]; then
			lava-test-case "$1" --result "$2" --measurement "$3" ${4:+--units "$4"}
		else
			lava-test-case "$1" --result "$2"
		fi
	elif [ -n "$3" ]; then
		echo "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=$1 RESULT=$2 MEASUREMENT=$3 UNITS=$4>"
	else
		echo "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=$1 RESULT=$2>"
	fi
}

# A result.txt line's words, in shape.
valid() {
	case "$1" in
	'' | *[!A-Za-z0-9._-]*) return 1 ;;
	esac
	case "$2" in
	pass | fail | skip | unknown) ;;
	*) return 1 ;;
	esac
	case "$3" in
	'') [ -z "$4" ] ;;
	*[!0-9.eE+-]*) return 1 ;;
	*[0-9]*) ;;
	*) return 1 ;;
	esac
	case "$4" in
	*[!A-Za-z0-9/%_.-]*) return 1 ;;
	esac
	[ -z "$5" ]
}

if [ ! -r "${RESULT_FILE}" ]; then
	echo "send-to-lava.sh: no result file '${RESULT_FILE}': the case rtlat-results fails" >&2
	send rtlat-results fail
	exit 1
fi

n=0
sent=0
while read -r name result measurement units extra || [ -n "${name}" ]; do
	n=$((n + 1))
	[ -z "${name}${result}" ] && continue
	if valid "${name}" "${result}" "${measurement}" "${units}" "${extra}"; then
		send "${name}" "${result}" "${measurement}" "${units}"
	else
		echo "send-to-lava.sh: line ${n} of ${RESULT_FILE} is not NAME pass|fail|skip|unknown [MEASUREMENT [UNITS]]: the case result-line-${n} fails" >&2
		send "result-line-${n}" fail
	fi
	sent=$((sent + 1))
done < "${RESULT_FILE}"
if [ "${sent}" = 0 ]; then
	echo "send-to-lava.sh: no case in ${RESULT_FILE}: the case rtlat-results fails" >&2
	send rtlat-results fail
fi
