# nooelint: oelint.var.mandatoryvar.HOMEPAGE, oelint.var.suggestedvar.BUGTRACKER
# SPDX-License-Identifier: GPL-2.0-or-later
# rtlat has no public home page or bug tracker: a layer that publishes
# it sets HOMEPAGE (and BUGTRACKER) to its own, never a placeholder.
SUMMARY = "Real-time latency benchmark suite"
DESCRIPTION = "rtlat measures message queue, signal and semaphore hand-off \
               (as rt-tests' pmqtest, sigwaittest, svsematest, ptsematest), periodic \
               timer wake-up on every CPU (as Xenomai's latency and rt-tests' \
               cyclictest), request latency under load \
               (TRLTP), bintime, response, sync, doctor and a suite of them all, in \
               one binary with no dependency beyond the C library. The HTML report \
               (rtlat-report) runs on the host from a results directory copied off \
               the board."
SECTION = "tests"
LICENSE = "GPL-2.0-or-later"
LIC_FILES_CHKSUM = "file://LICENSE;md5=b234ee4d69f5fce4486a80fdaf4a4263"

PV = "0.1.0+git"
# rtlat's git repository: by default the checkout this recipe is in
# (a layer that points into rtlat's tree builds that tree's RTLAT_BRANCH);
# a layer of its own sets RTLAT_GIT to its own server's repository and
# pins SRCREV. To build a working tree as it is: INHERIT += "externalsrc"
# and EXTERNALSRC:pn-rtlat = "/path/to/rtlat" in local.conf.
RTLAT_GIT ??= "git://${THISDIR}/../..;protocol=file"
RTLAT_BRANCH ??= "main"
SRC_URI = "${RTLAT_GIT};branch=${RTLAT_BRANCH};destsuffix=git"
# nooelint: oelint.vars.autorev
SRCREV = "${AUTOREV}"

S = "${UNPACKDIR}/git"

CVE_PRODUCT = "rtlat"

inherit bash-completion

# The man pages and bash completion are written by a build of rtlat for
# the build machine (BUILD_CC), never by the target binary.
EXTRA_OEMAKE = "CC='${CC}' HOSTCC='${BUILD_CC}' HOST_CFLAGS='${BUILD_CFLAGS}' \
                HOST_LDFLAGS='${BUILD_LDFLAGS}' PREFIX=${prefix}"

do_compile() {
    oe_runmake all
}

# What make install-bin and install-compat install: the binary, its man
# pages, bash completion and the rt-tests/Xenomai compatible names (in
# ${PN}-compat, which conflicts with rt-tests).
do_install() {
    oe_runmake install-bin install-compat DESTDIR=${D}
}

PACKAGES =+ "${PN}-compat"
FILES:${PN}-compat += "${bindir}/pmqtest ${bindir}/sigwaittest ${bindir}/svsematest \
                       ${bindir}/ptsematest ${bindir}/latency ${bindir}/trltp \
                       ${bindir}/cyclictest ${bindir}/cyclicdeadline ${bindir}/hwlatdetect \
                       ${datadir}/bash-completion/completions/pmqtest \
                       ${datadir}/bash-completion/completions/sigwaittest \
                       ${datadir}/bash-completion/completions/svsematest \
                       ${datadir}/bash-completion/completions/ptsematest \
                       ${datadir}/bash-completion/completions/latency \
                       ${datadir}/bash-completion/completions/trltp \
                       ${datadir}/bash-completion/completions/cyclictest \
                       ${datadir}/bash-completion/completions/cyclicdeadline \
                       ${datadir}/bash-completion/completions/hwlatdetect"
RDEPENDS:${PN}-compat = "${PN}"
# rtlat qualify's and --load's load engine (meta-oe).
RRECOMMENDS:${PN} = "stress-ng"
RCONFLICTS:${PN}-compat = "rt-tests"
