#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# send-to-lava.sh RESULT_FILE: each "NAME pass|fail|skip|unknown
# [MEASUREMENT [UNITS]]" line of a result.txt to LAVA with lava-test-case
# when it is on the PATH (a LAVA job), else printed as the
# <LAVA_SIGNAL_TESTCASE ...> line that Linaro's test-runner.py (and LAVA's
# log parser) read. The same interface as test-definitions' script of that
# name, written for rtlat.

RESULT_FILE="$1"
if [ ! -r "${RESULT_FILE}" ]; then
	echo "send-to-lava.sh: no result file '${RESULT_FILE}'" >&2
	exit 1
fi

if command -v lava-test-case > /dev/null 2>&1; then
	have_lava=1
else
	have_lava=0
fi

while read -r name result measurement units; do
	case "${result}" in
	pass|fail|skip|unknown) ;;
	*) continue ;;
	esac
	if [ "${have_lava}" = 1 ]; then
		if [ -n "${measurement}" ]; then
			lava-test-case "${name}" --result "${result}" \
				--measurement "${measurement}" ${units:+--units "${units}"}
		else
			lava-test-case "${name}" --result "${result}"
		fi
	elif [ -n "${measurement}" ]; then
		echo "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=${name} RESULT=${result} MEASUREMENT=${measurement} UNITS=${units}>"
	else
		echo "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=${name} RESULT=${result}>"
	fi
done < "${RESULT_FILE}"
