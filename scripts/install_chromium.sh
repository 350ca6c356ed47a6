#!/usr/bin/env bash
# Headless Chromium for the documentation's screenshot test (tests/test_docs_build.py), from Debian's
# packages.  Installs only where it is missing and apt-get can run as root; elsewhere it says how, and the
# screenshot test is skipped with that reason.
set -u
if command -v chromium >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y -q chromium >/dev/null 2>&1; then
        apt-get update -q >/dev/null 2>&1
        apt-get install -y -q chromium >/dev/null 2>&1 || true
    fi
fi
if ! command -v chromium >/dev/null 2>&1; then
    echo "note: chromium is not installed (apt-get install chromium); the docs screenshot test will be skipped" >&2
fi
exit 0
