#!/usr/bin/env bash
# libmicrohttpd.sh: builds the libmicrohttpd the daemon links, statically:
# Debian 12's source package of 0.9.75 (the upstream tarball and Debian's
# packaging, both pinned by sha256), Debian's patches (debian/patches/series),
# then ours (deps/libmicrohttpd/*.patch, in name order; each says what it
# fixes and why), configured without TLS, docs, examples or curl tests, with
# the configure script the tarball ships (no autoreconf).
# docs/architecture.md, "The HTTP library", says why.
#
# Usage: scripts/libmicrohttpd.sh PREFIX
# Installs PREFIX/include/microhttpd.h and PREFIX/lib/libmicrohttpd.a; the
# work tree and its log are in PREFIX.work. Downloads are kept in
# deps/downloads/ (not in git, kept by make clean): once there, the build
# needs no network. Environment: MHD_MIRROR (default
# http://deb.debian.org/debian: plain HTTP is enough, the files are checked
# against the hashes below), MHD_DOWNLOADS (another download folder), CC,
# MAKE_JOBS.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${1:?usage: scripts/libmicrohttpd.sh PREFIX}
case $prefix in /*) ;; *) prefix=$PWD/$prefix ;; esac

VERSION=0.9.75
DEBIAN_REVISION=6
MIRROR=${MHD_MIRROR:-http://deb.debian.org/debian}
POOL=$MIRROR/pool/main/libm/libmicrohttpd
ORIG=libmicrohttpd_$VERSION.orig.tar.xz
ORIG_SHA256=796e7e217a4802679fcac667a4e98501c53185dcf50ca0583870e84192620131
DEB=libmicrohttpd_$VERSION-$DEBIAN_REVISION.debian.tar.xz
DEB_SHA256=566c247bfbf67e20858705ae695f58db747d50ed8512f2bc46a28bef9086e5af
DL=${MHD_DOWNLOADS:-deps/downloads}
work=$prefix.work
log=$work.log

die() { printf 'libmicrohttpd.sh: %s\n' "$*" >&2; exit 1; }

# fetch FILE SHA256: into $DL, checked; a file already there is checked too.
fetch() {
  local f=$1 sum=$2
  mkdir -p "$DL"
  if [ -f "$DL/$f" ] && echo "$sum  $DL/$f" | sha256sum -c --status; then return 0; fi
  command -v curl >/dev/null || die "curl is missing: run 'make deps' (or: apt-get install curl)"
  echo "libmicrohttpd.sh: downloading $POOL/$f"
  if ! curl -fsSL --retry 2 --connect-timeout 20 --max-time 300 -o "$DL/$f.part" "$POOL/$f"; then
    rm -f "$DL/$f.part"
    die "could not download $POOL/$f
  The daemon is built with libmicrohttpd $VERSION from Debian's source package and our patches.
  Check the network, set MHD_MIRROR to a Debian mirror (now $MIRROR),
  or put $f (sha256 $sum) in $DL/ by hand."
  fi
  if ! echo "$sum  $DL/$f.part" | sha256sum -c --status; then
    rm -f "$DL/$f.part"
    die "$POOL/$f does not have the pinned sha256 $sum: not used"
  fi
  mv "$DL/$f.part" "$DL/$f"
}

fetch "$ORIG" "$ORIG_SHA256"
fetch "$DEB" "$DEB_SHA256"

# A make of our own (not the jobs or flags of the make that called us).
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
for t in patch xz make; do command -v $t >/dev/null || die "'$t' is missing: run 'make deps'"; done
rm -rf "$work" "$prefix"
mkdir -p "$work"
tar -xJf "$DL/$ORIG" -C "$work" --strip-components=1
tar -xJf "$DL/$DEB" -C "$work"
# Debian's patches in their order (quilt's -p1), then ours.
while read -r p; do
  case $p in ''|'#'*) continue ;; esac
  patch -d "$work" -p1 -s --no-backup-if-mismatch <"$work/debian/patches/${p%% *}" || die "Debian's patch $p does not apply"
done <"$work/debian/patches/series"
for p in deps/libmicrohttpd/*.patch; do
  patch -d "$work" -p1 -s --no-backup-if-mismatch <"$p" || die "our patch $p does not apply"
done

# Debian builds it with its hardening flags; these are theirs (dpkg-buildflags
# on Debian 12), without -g's file-prefix map.
echo "libmicrohttpd.sh: configuring and building libmicrohttpd $VERSION-$DEBIAN_REVISION + $(ls deps/libmicrohttpd/*.patch | wc -l) patches (log: $log)"
if ! (cd "$work" &&
      ./configure --prefix="$prefix" --disable-shared --enable-static \
        --disable-https --without-gnutls --disable-doc --disable-examples --disable-curl \
        --disable-nls --disable-dependency-tracking \
        CC="${CC:-cc}" CFLAGS="-g -O2 -fstack-protector-strong -Wformat -Werror=format-security" \
        CPPFLAGS="-D_FORTIFY_SOURCE=2" &&
      make -j"${MAKE_JOBS:-$(nproc 2>/dev/null || echo 1)}" -C src/include install &&
      make -j"${MAKE_JOBS:-$(nproc 2>/dev/null || echo 1)}" -C src/microhttpd install) >"$log" 2>&1; then
  tail -n 30 "$log" >&2
  die "building libmicrohttpd failed (the whole log: $log)"
fi
rm -f "$prefix"/lib/*.la
# What the daemon prints at start-up about its HTTP library (server/net/http.c).
patches=$(for p in deps/libmicrohttpd/*.patch; do basename "$p" .patch; done | paste -sd, - | sed 's/,/, /g')
printf '/* written by scripts/libmicrohttpd.sh */\n#define NOISETILE_MHD_BUILD "Debian %s-%s source, Debian'"'"'s patches and %s; static"\n' \
  "$VERSION" "$DEBIAN_REVISION" "$patches" >"$prefix/include/noisetile_mhd_build.h"
rm -rf "$work"
[ -f "$prefix/lib/libmicrohttpd.a" ] && [ -f "$prefix/include/microhttpd.h" ] || die "no libmicrohttpd.a or microhttpd.h in $prefix"
