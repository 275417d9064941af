#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# rtlat in Linaro test-definitions' own tree: automated/linux/rtlat/ of a
# lab's test-definitions fork, run by the plain setenv.sh flow
# (. ./automated/bin/setenv.sh; test-runner -d
# automated/linux/rtlat/rtlat.yaml) or by LAVA. Results in ./output as
# every definition there (create_out_dir of ../../lib/sh-test-lib moves an
# earlier one aside), handed on by ../../utils/send-to-lava.sh.
#
# The work is rtlat's own definition script (lava/rtlat.sh of rtlat's
# tree, /usr/share/rtlat/lava/rtlat.sh of its package), never a copy: it
# takes the tests from rtlat's registry (rtlat --list-plain), judges the
# parameters, runs rtlat --lava and writes result.txt. Found with rtlat:
# -L PATH, else beside the rtlat that -r names (a built tree: DIR/rtlat
# and DIR/lava/rtlat.sh; an installed one: PREFIX/bin/rtlat and
# PREFIX/share/rtlat/lava/rtlat.sh), else /usr/share or /usr/local/share.
# Where there is none, or no rtlat, the case TEST-run (rtlat-run) fails
# with the reason on stderr: never no-result-found, never a silent pass.
#
# Options: those of rtlat's definition script (-t TEST -D DURATION ...,
# the SQUAD ones -U -G -P -B -E -J -K -A -R, its -h), passed on whole, and
# -L PATH. SQUAD_TOKEN, when the submission is asked (-U), is read from
# the environment by rtlat-report, which the definition script runs.

# shellcheck disable=SC1091
TEST_DIR=$(dirname "$(realpath "$0")")
OUTPUT="$(pwd)/output"
RESULT_FILE="${OUTPUT}/result.txt"
. "${TEST_DIR}/../../lib/sh-test-lib"

TEST="suite"
RTLAT="rtlat"
DEFINITION=""

# -t, -r and -L read; every option but -L passed on as it came.
n=$#
while [ "${n}" -gt 0 ]; do
	opt="$1"
	shift
	n=$((n - 1))
	if [ "${n}" -gt 0 ]; then
		case "${opt}" in
		-t) TEST="$1" ;;
		-r) RTLAT="$1" ;;
		esac
		case "${opt}" in
		-L)
			DEFINITION="$1"
			shift
			n=$((n - 1))
			continue
			;;
		-[tDwimpbTarsoUGPBEJKAR])
			set -- "$@" "${opt}" "$1"
			shift
			n=$((n - 1))
			continue
			;;
		esac
	fi
	set -- "$@" "${opt}"
done

create_out_dir "${OUTPUT}"
RUN_CASE="rtlat-run"
case "${TEST}" in
'' | *[!a-z]*) ;;
*) RUN_CASE="${TEST}-run" ;;
esac

no_definition() {
	warn_msg "$1: the case ${RUN_CASE} fails"
	echo "${RUN_CASE} fail" > "${RESULT_FILE}"
	exit 0
}

if [ -z "${DEFINITION}" ]; then
	case "${RTLAT}" in
	*/*) exe="${RTLAT}" ;;
	*) exe=$(command -v "${RTLAT}") ||
		no_definition "no rtlat: '${RTLAT}' is not on the PATH (-r: rtlat's path)" ;;
	esac
	bin=$(dirname "$(realpath "${exe}" 2> /dev/null || echo "${exe}")")
	for d in "${bin}/lava/rtlat.sh" "${bin}/../share/rtlat/lava/rtlat.sh" \
		/usr/share/rtlat/lava/rtlat.sh /usr/local/share/rtlat/lava/rtlat.sh; do
		if [ -f "${d}" ]; then
			DEFINITION="${d}"
			break
		fi
	done
fi
if ! { [ -n "${DEFINITION}" ] && [ -f "${DEFINITION}" ] && [ -r "${DEFINITION}" ]; }; then
	no_definition "no rtlat definition script (rtlat's lava/rtlat.sh) beside '${RTLAT}' nor in /usr/share/rtlat/lava (-L: its path)"
fi
info_msg "rtlat's definition: ${DEFINITION}"
exec sh "${DEFINITION}" "$@" -o "${OUTPUT}"
