# SPDX-License-Identifier: GPL-2.0-or-later
"""Exports to the engines a lab already runs: KernelCI's KCIDB and
Linaro's SQUAD."""
