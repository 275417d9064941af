################################################################################
#
# rtlat
#
################################################################################

RTLAT_VERSION = 0.1.0
RTLAT_SITE = https://example.org/rtlat/releases
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
