#!/bin/sh
# sign.sh APP-OR-DMG [IDENTITY]: signs Reins.app, or the disk image, for
# `make app`, `make dmg` and the macOS workflow.
#
# With no IDENTITY, or "-", the signature is ad hoc: it lets the bundle run,
# but its identity changes with every build, so macOS forgets the
# Accessibility permission at each update. With an IDENTITY (a "Developer ID
# Application: …" certificate, or a self-signed one made once, see
# packaging/README.md) the app gets the hardened runtime and a secure
# timestamp, which notarization requires. SIGN_TIMESTAMP=none leaves the
# timestamp out, for a self-signed certificate when Apple's timestamp
# service refuses it.
set -eu
target=$1
identity=${2:--}
if [ "$identity" = - ]; then
	codesign --force --sign - "$target"
else
	ts=--timestamp
	if [ "${SIGN_TIMESTAMP:-}" = none ]; then ts=--timestamp=none; fi
	case $target in
	*.app) codesign --force --options runtime "$ts" --sign "$identity" "$target" ;;
	*) codesign --force "$ts" --sign "$identity" "$target" ;;
	esac
fi
codesign --verify --strict --verbose=2 "$target"
codesign --display --verbose=2 "$target" 2>&1 | grep -E '^(Identifier|Authority|Signature|TeamIdentifier|Runtime)' || true
