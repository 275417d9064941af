################################################################################
#
# rtlat
#
################################################################################

# The release tarball of rtlat's make dist, rtlat-$(RTLAT_VERSION).tar.gz,
# from BR2_PACKAGE_RTLAT_SITE; make dist's copy of this package holds its
# sha256 in rtlat.hash. To build a checkout instead: RTLAT_OVERRIDE_SRCDIR
# in Buildroot's local.mk.
RTLAT_VERSION = 0.1.0
RTLAT_SITE = $(call qstrip,$(BR2_PACKAGE_RTLAT_SITE))
RTLAT_LICENSE = GPL-2.0+
RTLAT_LICENSE_FILES = LICENSE

# The man pages and bash completion are written by a host build of rtlat
# (HOSTCC), never by the target binary.
RTLAT_MAKE_OPTS = \
	CC="$(TARGET_CC)" \
	HOSTCC="$(HOSTCC)" \
	CFLAGS="$(TARGET_CFLAGS)" \
	LDFLAGS="$(TARGET_LDFLAGS)" \
	PREFIX=/usr

define RTLAT_BUILD_CMDS
	$(TARGET_MAKE_ENV) $(MAKE) -C $(@D) $(RTLAT_MAKE_OPTS) all
endef

ifeq ($(BR2_PACKAGE_RTLAT_COMPAT_NAMES),y)
RTLAT_INSTALL_TARGETS = install-bin install-compat
else
RTLAT_INSTALL_TARGETS = install-bin
endif

define RTLAT_INSTALL_TARGET_CMDS
	$(TARGET_MAKE_ENV) $(MAKE) -C $(@D) $(RTLAT_MAKE_OPTS) \
		DESTDIR=$(TARGET_DIR) $(RTLAT_INSTALL_TARGETS)
endef

$(eval $(generic-package))
