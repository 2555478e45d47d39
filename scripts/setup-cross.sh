#!/usr/bin/env bash
# Sets up what `npm run build:all` needs to build the Linux arm64 and macOS
# addons on a Debian 12 (bookworm) x86-64 machine, and checks it. Idempotent:
# it installs only what is missing and can run any number of times.
#
#   - Debian's Rust 1.96 (`rustc-web`, `cargo-web`: /usr/bin/rustc and
#     /usr/bin/cargo, beside rustup's toolchain, which stays the one for the
#     Linux x64 build and the tests), its clippy (`rust-web-clippy`), the
#     standard library's source for `-Zbuild-std` on macOS (`rust-web-src`)
#     and LLVM 22's tools (`rust-web-llvm`: `rust-objcopy`, which strips
#     Mach-O files and keeps their ad-hoc code signature valid);
#   - the arm64 architecture and the compiled aarch64 standard library
#     (`libstd-rust-web-dev:arm64`); `gcc-aarch64-linux-gnu` links arm64 test
#     executables (zig's glibc 2.28 stubs lack `gettid`);
#   - mingw-w64, the linker of the Windows addon (and its `dlltool`, which
#     makes the import library napi-build's GNU setup wants: see
#     scripts/windows/cargo.sh);
#   - binutils and LLVM's `llvm-objdump`/`llvm-nm`/`llvm-readobj`, which the
#     binary check reads the built files with;
#   - zig (PyPI's `ziglang`) and `cargo-zigbuild`, which link the Linux
#     addons against glibc 2.28 and the macOS ones without a macOS SDK.
#
# Usage: scripts/setup-cross.sh [--check]
#   --check   install nothing; exit 1 and name what is missing
set -euo pipefail

check_only=false
[ "${1:-}" = "--check" ] && check_only=true

# The Rust the cross builds need: Debian's, at least this version (edition
# 2024 and -Zbuild-std as the build uses them).
RUST_MIN=1.85
DEB_PACKAGES=(rustc-web cargo-web rust-web-src rust-web-clippy rust-web-llvm gcc-aarch64-linux-gnu binutils llvm mingw-w64)
ARM64_PACKAGES=(libstd-rust-web-dev:arm64)

missing=()
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

sudo=()
if [ "$(id -u)" != 0 ]; then sudo=(sudo); fi

if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  if $check_only; then missing+=("the arm64 dpkg architecture"); else
    echo "setup-cross: adding the arm64 architecture"
    "${sudo[@]}" dpkg --add-architecture arm64
  fi
fi

need=()
for p in "${DEB_PACKAGES[@]}" "${ARM64_PACKAGES[@]}"; do installed "$p" || need+=("$p"); done
if [ ${#need[@]} -gt 0 ]; then
  if $check_only; then missing+=("${need[@]}"); else
    echo "setup-cross: installing ${need[*]}"
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=900 install -y -qq "${need[@]}"
  fi
fi

zig_ok() { cargo-zigbuild --help >/dev/null 2>&1 && python3 -m ziglang version >/dev/null 2>&1; }
if ! zig_ok; then
  if $check_only; then missing+=("pip: ziglang cargo-zigbuild"); else
    echo "setup-cross: installing ziglang and cargo-zigbuild (pip)"
    pip=(python3 -m pip install --quiet --disable-pip-version-check ziglang cargo-zigbuild)
    "${pip[@]}" || "${pip[@]}" --break-system-packages # Debian's own python3 refuses without it
  fi
fi

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup-cross: missing: ${missing[*]} (run scripts/setup-cross.sh)" >&2
  exit 1
fi

# The versions: Debian's rustc, its std source and its arm64 std must be one
# release, and new enough.
version=$(/usr/bin/rustc --version | awk '{print $2}')
if ! printf '%s\n%s\n' "$RUST_MIN" "$version" | sort -V -C; then
  echo "setup-cross: /usr/bin/rustc is $version; the cross builds need $RUST_MIN or newer" >&2
  exit 1
fi
for p in rust-web-src libstd-rust-web-dev:arm64; do
  v=$(dpkg-query -W -f='${Version}' "$p")
  if [ "${v%%+*}" != "$version" ]; then
    echo "setup-cross: $p is $v, but /usr/bin/rustc is $version: they must match" >&2
    exit 1
  fi
done
[ -d /usr/lib/rustlib/aarch64-unknown-linux-gnu/lib ] || { echo "setup-cross: no aarch64 std in /usr/lib/rustlib" >&2; exit 1; }
[ -x /usr/lib/rustlib/x86_64-unknown-linux-gnu/bin/rust-objcopy ] || { echo "setup-cross: rust-objcopy missing (rust-web-llvm)" >&2; exit 1; }
echo "setup-cross: ready (Debian rustc $version, zig $(python3 -m ziglang version), $(cargo-zigbuild --version 2>/dev/null || echo cargo-zigbuild))"
