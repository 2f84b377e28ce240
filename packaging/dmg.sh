#!/bin/sh
# dmg.sh APP OUT.dmg [IDENTITY]: a compressed disk image holding APP and a
# link to /Applications, so the person drags Reins there; signed like the
# app (sign.sh) when IDENTITY is given.
set -eu
app=$1
out=$2
identity=${3:--}
staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
# ditto keeps the signature's extended attributes and the executable bit.
ditto "$app" "$staging/$(basename "$app")"
ln -s /Applications "$staging/Applications"
rm -f "$out"
hdiutil create -volname Reins -srcfolder "$staging" -fs HFS+ -format UDZO -ov "$out"
if [ "$identity" != - ]; then
	"$(dirname "$0")/sign.sh" "$out" "$identity"
fi
hdiutil verify "$out"
