#!/bin/sh
# Wine 10 for the Windows suite (`PTYPILOT_WINE=10 npm run test:windows-wine`): Debian trixie's
# wine64 in a chroot, since Debian 12 (this project's CI machine) has only Wine 8. Optional:
# CI runs the suite under the host's Wine 8 only.
#
#   scripts/windows/wine10-chroot.sh setup        makes the chroot if it is missing (about 95 s
#                                                 and 1.2 GB: debootstrap --variant=minbase
#                                                 trixie, then apt-get install wine64)
#   scripts/windows/wine10-chroot.sh run CMD...   runs CMD in it, as root, with the project
#                                                 folder, /proc, /dev and /tmp mounted at the
#                                                 same paths (unmounted afterwards)
#
# Needs root (mount, chroot) and debootstrap. The chroot lives in PTYPILOT_WINE10_ROOT
# (default: target/wine10-trixie in the project); delete that folder to start over.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
project=$(cd "$here/../.." && pwd)
chroot_dir=${PTYPILOT_WINE10_ROOT:-$project/target/wine10-trixie}
mirror=${PTYPILOT_DEBIAN_MIRROR:-http://deb.debian.org/debian}

need_root() {
  [ "$(id -u)" = 0 ] || { echo "wine10-chroot: needs root (mount and chroot)" >&2; exit 2; }
}

setup() {
  need_root
  [ -x "$chroot_dir/usr/lib/wine/wine64" ] && return 0
  command -v debootstrap >/dev/null || apt-get -o DPkg::Lock::Timeout=900 install -y -qq debootstrap
  rm -rf "$chroot_dir.partial"
  debootstrap --variant=minbase trixie "$chroot_dir.partial" "$mirror"
  chroot "$chroot_dir.partial" sh -c \
    'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wine64 && apt-get clean'
  rm -rf "$chroot_dir"
  mv "$chroot_dir.partial" "$chroot_dir"
}

run() {
  need_root
  setup
  mounted=""
  cleanup() {
    for m in $mounted; do umount -l "$m" 2>/dev/null || true; done
  }
  trap cleanup EXIT INT TERM
  for dir in /proc /dev /tmp "$project"; do
    mkdir -p "$chroot_dir$dir"
    mount --bind "$dir" "$chroot_dir$dir"
    mounted="$chroot_dir$dir $mounted"
  done
  chroot "$chroot_dir" "$@"
}

case "${1:-}" in
  setup) setup ;;
  run) shift; run "$@" ;;
  *) echo "usage: $0 setup | run CMD..." >&2; exit 2 ;;
esac
