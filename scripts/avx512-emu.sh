#!/usr/bin/env bash
# avx512-emu.sh: the noise core's unit tests on the AVX-512 path, on a
# machine without AVX-512: in bochs (Debian's 2.7 emulates AVX-512; qemu 7.2
# does not). `make test-avx512-emu` runs it; it is slow (hours), so
# `make test` does not (docs/development.md, "Instruction-set paths";
# BENCHMARKS.md, "The AVX-512 path under emulation").
#
# What it does, all under $BUILD/avx512-emu:
#  1. builds the noise tests statically without sanitizers: the core at
#     $OPT (-O2, as the release build), each test file at -O1 (as make test);
#  2. an initramfs: busybox-static, the tests, an /init that prints the
#     guest's AVX-512 flags, runs each test with NOISE_TEST_PATHS=avx512
#     (tests/unit/test_noise_util.h: the AVX-512 path only, and the scalar
#     reference of the "paths agree" tests) and powers off;
#  3. a Debian kernel (apt-get download, cached), an isolinux CD image;
#  4. bochs, CPU model $EMU_CPU, serial port to serial.log, under nice and
#     timeout; prints each test's lines as they arrive, with the wall time.
# Then it checks each test: exit status 0, no "not ok", as many
# "ok - NAME [avx512]" lines as the test has RUN_PATHS, no AVX-512 line
# skipped, the guest's flags show avx512f and avx512vl. Exit status 0 only if
# all of that holds.
#
# Usage: scripts/avx512-emu.sh [TEST...]   (default: every noise test below)
# Environment: BUILD (build), OPT (-O2), EMU_CPU (corei7_skylake_x),
#   EMU_TIMEOUT (seconds for the emulator, 21600), EMU_NICE (10: at 15 the
#   emulator got almost no CPU beside a few nice-10 builds),
#   EMU_PATHS (NOISE_TEST_PATHS in the guest: avx512), EMU_BUILD_ONLY=1
#   (stop once the CD image is made).
#
# Bochs details: Debian's bochs has no "nogui" display and stops in its
# debugger at the first instruction, so it runs with a debugger script that
# says "continue" and the term display, which (the debugger having the
# terminal) draws the screen into a pseudo-terminal of its own ("Bochs
# connected to screen /dev/pts/N") and blocks once that is full: a small
# python3 loop gives bochs a terminal and reads and drops both.
# The kernel gets "noxsaves clearcpuid=321,323" (XSAVEC, XSAVES): bochs 2.7
# reports the compacted XSAVE size with the standard layout's offsets (2688
# bytes, where the sum of the components is 2432); Linux 6.1 checks it, and on
# a mismatch turns XSAVE off, hence AVX and AVX-512. Without the compacted
# format it uses the standard one, whose size bochs reports right.
# noise_avx512.c is compiled with -ffixed-xmm16 ... -ffixed-xmm31: bochs 2.7
# raises #UD (the test dies of SIGILL) on an AVX-512 gather whose index
# register is zmm16-31 (EVEX.V'), which hardware runs; GCC gave such an index
# to simplex falloff=quartic's table gathers. Without those registers the
# same source compiles to the same operations in other registers. The guest
# runs a probe of that gather first and prints what it does.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'avx512-emu: %s\n' "$*"; }
die() { printf 'avx512-emu: %s\n' "$*" >&2; exit 1; }

# All of it in one function, read whole before it runs: editing this file
# while an emulation runs (hours) does not change the running copy.
main() {
BUILD=${BUILD:-build}
OPT=${OPT:--O2}
EMU_CPU=${EMU_CPU:-corei7_skylake_x}
EMU_TIMEOUT=${EMU_TIMEOUT:-21600}
EMU_NICE=${EMU_NICE:-10}
EMU_PATHS=${EMU_PATHS:-avx512}
W=$BUILD/avx512-emu
ALL_TESTS="test_noise_golden test_noise_glsl test_noise_classic test_noise_period test_noise_grad test_noise test_noise_cellular"
TESTS=${*:-$ALL_TESTS}


# ---- what it needs: Debian packages (installed when run as root) ----
need=""
for p in bochs:/usr/bin/bochs-bin bochs-term:/usr/lib/x86_64-linux-gnu/bochs/plugins/libbx_term_gui.so bochsbios:/usr/share/bochs/BIOS-bochs-latest vgabios:/usr/share/vgabios/vgabios.bin \
  busybox-static:/bin/busybox isolinux:/usr/lib/ISOLINUX/isolinux.bin syslinux-common:/usr/lib/syslinux/modules/bios/ldlinux.c32 \
  xorriso:/usr/bin/xorriso cpio:/usr/bin/cpio python3:/usr/bin/python3; do
  [ -e "${p#*:}" ] || need="$need ${p%%:*}"
done
if [ -n "$need" ]; then
  [ "$(id -u)" = 0 ] || die "missing Debian packages:$need (apt-get install$need)"
  say "installing$need"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $need >/dev/null
fi
# Its banner read whole: `busybox | head -1` under pipefail fails whenever
# busybox is still writing its applet list when head exits (SIGPIPE).
bb_banner=$(/bin/busybox 2>&1 || true)
case $bb_banner in BusyBox*) ;; *) die "/bin/busybox is not busybox" ;; esac
file -L /bin/busybox 2>/dev/null | grep -q 'dynamically' && die "/bin/busybox is dynamic: install busybox-static"

for t in $TESTS; do
  [ -f "tests/unit/$t.c" ] || die "no tests/unit/$t.c"
done
mkdir -p "$W/obj" "$W/bin" "$W/root/bin" "$W/root/tests" "$W/root/proc" "$W/root/sys" "$W/root/dev" "$W/iso/isolinux" "$W/kernel"

# ---- 1. the tests, static, no sanitizers ----
# The test files at -O1: GCC 12's -O2 vectorizer drops the (double)(float)
# round trip of two neighbouring values (test_noise_classic's float points
# would no longer be floats, and it fails on every path, in any build).
CSTD="-std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE"
CFLAGS="$CSTD -Wall -Wextra -Werror -ffp-contract=off -fno-fast-math -Inoise"
FIXED_HI=$(for r in $(seq 16 31); do printf -- '-ffixed-xmm%d ' "$r"; done)
say "building the tests (core $OPT, tests -O1, static)"
# objects are rebuilt when a noise/ file or the flags change
printf '%s\n' "$CFLAGS $OPT $FIXED_HI" | cmp -s - "$W/obj/flags" || rm -f "$W"/obj/*.o "$W"/bin/*
printf '%s\n' "$CFLAGS $OPT $FIXED_HI" >"$W/obj/flags"
objs=""
for f in noise/*.c; do
  o=$W/obj/$(basename "$f" .c).o
  objs="$objs $o"
  extra=""
  [ "$f" = noise/noise_avx512.c ] && extra=$FIXED_HI
  if [ ! -e "$o" ] || [ -n "$(find noise -newer "$o" -print -quit)" ]; then
    nice cc $CFLAGS $OPT $extra -c "$f" -o "$o"
  fi
done
rm -f "$W"/root/tests/*
for t in $TESTS; do
  extra=""
  if [ "$t" = test_noise_classic ]; then
    # the article's code as printed: signed-long overflow (see the Makefile)
    extra=$W/obj/wikipedia_perlin.o
    [ "$extra" -nt tests/unit/wikipedia_perlin.inc ] && [ "$extra" -nt tests/unit/wikipedia_perlin.c ] ||
      nice cc $CFLAGS -O1 -Wno-parentheses -c tests/unit/wikipedia_perlin.c -o "$extra"
  fi
  b=$W/bin/$t
  if [ ! -e "$b" ] || [ -n "$(find tests/unit/"$t".c tests/unit/test.h tests/unit/test_noise_util.h $objs $extra -newer "$b" -print -quit)" ]; then
    nice cc $CFLAGS -O1 -Itests/unit -static -o "$b" "tests/unit/$t.c" $extra $objs -lm
  fi
  strip -o "$W/root/tests/$t" "$b"
  # no gather with an index in zmm16-31 (bochs's #UD above)
  if objdump -d --no-show-raw-insn "$b" | grep -qE 'gather.*,%[xyz]mm(1[6-9]|2[0-9]|3[01]),'; then
    die "$b has a gather indexed by a register bochs cannot run (zmm16-31)"
  fi
done
# the probe: a gather indexed by ymm16, which bochs 2.7 does not run
cat >"$W/obj/probe.c" <<'EOF'
#include <stdio.h>
/* Three steps, each printed before the next runs: zmm16 itself, a gather
 * indexed by ymm0, the same gather indexed by ymm16 (SIGILL in bochs 2.7).
 * PROBE_GATHER: the gather of table by index with its index in register IDX
 * ("ymm0"), which clobbers CLOBBER (its name as "xmm0"); prints what it gave. */
#define PROBE_GATHER(IDX, CLOBBER)                                                                    \
    do {                                                                                              \
        __asm__ volatile("vmovdqu32 %1, %%" IDX "\n\t"                                                \
                         "kxnorw %%k1, %%k1, %%k1\n\t"                                                \
                         "vgatherdpd (%2,%%" IDX ",8), %%zmm1%{%%k1%}\n\t"                            \
                         "vmovupd %%zmm1, %0"                                                         \
                         : "=m"(out)                                                                  \
                         : "m"(index), "r"(table)                                                     \
                         : "xmm1", CLOBBER, "k1", "memory");                                          \
        printf("probe: vgatherdpd indexed by " IDX ": %s\n", out[0] == 17 && out[7] == 10 ? "ok" : "WRONG"); \
        fflush(stdout);                                                                               \
    } while (0)
int main(void)
{
    static const double table[8] = { 10, 11, 12, 13, 14, 15, 16, 17 };
    static const int index[8] = { 7, 6, 5, 4, 3, 2, 1, 0 };
    int back[8];
    double out[8];
    __asm__ volatile("vmovdqu32 %1, %%ymm16\n\t"
                     "vmovdqu32 %%ymm16, %0"
                     : "=m"(back)
                     : "m"(index)
                     : "xmm16", "memory");
    printf("probe: ymm16 load and store: %s\n", back[0] == 7 && back[7] == 0 ? "ok" : "WRONG");
    fflush(stdout);
    PROBE_GATHER("ymm0", "xmm0");
    PROBE_GATHER("ymm16", "xmm16");
    return 0;
}
EOF
nice cc -O1 -mavx512f -mavx512vl -static -o "$W/bin/probe" "$W/obj/probe.c"
strip -o "$W/root/probe" "$W/bin/probe"

# ---- 2. the initramfs ----
cp /bin/busybox "$W/root/bin/busybox"
printf '%s\n' $TESTS >"$W/root/tests/list"
cat >"$W/root/init" <<EOF
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
echo "@@ kernel \$(uname -r)"
echo "@@ cpu \$(grep -m1 'model name' /proc/cpuinfo)"
echo "@@ avx512 flags: \$(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep '^avx512' | tr '\n' ' ')"
/probe 2>&1; echo "@@ probe rc=\$?"
for t in \$(cat /tests/list); do
  echo "@@ begin \$t"
  NOISE_TEST_PATHS=$EMU_PATHS /tests/\$t 2>&1
  echo "@@ end \$t rc=\$?"
done
echo "@@ done"
sync
poweroff -f
EOF
chmod 755 "$W/root/init"
(cd "$W/root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) | gzip -1 >"$W/iso/initrd.img"

# ---- 3. a Debian kernel and a CD image ----
kimg=$(ls "$W"/kernel/vmlinuz-* 2>/dev/null | head -1 || true)
if [ -z "$kimg" ]; then
  pkg=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
  [ -n "$pkg" ] || die "no linux-image-amd64 dependency in apt (apt-get update?)"
  say "downloading $pkg"
  (cd "$W/kernel" && apt-get download "$pkg" >/dev/null 2>&1) || die "apt-get download $pkg failed"
  dpkg-deb --fsys-tarfile "$W"/kernel/"$pkg"_*.deb | tar -x -C "$W/kernel" --wildcards --strip-components=2 './boot/vmlinuz-*'
  rm -f "$W"/kernel/*.deb
  kimg=$(ls "$W"/kernel/vmlinuz-* | head -1)
fi
cp "$kimg" "$W/iso/vmlinuz"
cp /usr/lib/ISOLINUX/isolinux.bin /usr/lib/syslinux/modules/bios/ldlinux.c32 "$W/iso/isolinux/"
cat >"$W/iso/isolinux/isolinux.cfg" <<EOF
DEFAULT emu
PROMPT 0
TIMEOUT 0
LABEL emu
  KERNEL /vmlinuz
  APPEND initrd=/initrd.img console=ttyS0,115200 quiet loglevel=3 panic=-1 mitigations=off nokaslr noxsaves clearcpuid=321,323 tsc=reliable
EOF
xorriso -as mkisofs -quiet -o "$W/boot.iso" -b isolinux/isolinux.bin -c isolinux/boot.cat \
  -no-emul-boot -boot-load-size 4 -boot-info-table "$W/iso" 2>/dev/null
if [ "${EMU_BUILD_ONLY:-0}" = 1 ]; then say "made $W/boot.iso"; exit 0; fi

# ---- 4. bochs ----
cat >"$W/bochsrc" <<EOF
megs: 1024
romimage: file=/usr/share/bochs/BIOS-bochs-latest
vgaromimage: file=/usr/share/vgabios/vgabios.bin
cpu: model=$EMU_CPU, count=1, ips=200000000, reset_on_triple_fault=0
display_library: term
ata0: enabled=1, ioaddr1=0x1f0, ioaddr2=0x3f0, irq=14
ata0-master: type=cdrom, path=$PWD/$W/boot.iso, status=inserted
boot: cdrom
com1: enabled=1, mode=file, dev=$PWD/$W/serial.log
clock: sync=none, time0=1
mouse: enabled=0
log: $PWD/$W/bochs.log
panic: action=fatal
error: action=report
info: action=ignore
debug: action=ignore
speaker: enabled=0
sound: waveoutdrv=dummy, waveindrv=dummy, midioutdrv=dummy
plugin_ctrl: speaker=0, parallel=0, gameport=0, iodebug=0, extfpuirq=0, usb_uhci=0
EOF
printf 'c\nquit\n' >"$W/debugger.rc"
rm -f "$W/serial.log" "$W/bochs.log" "$W/timed.log" "$W/bochs.pid"
: >"$W/serial.log"
say "bochs, $EMU_CPU, NOISE_TEST_PATHS=$EMU_PATHS, at most ${EMU_TIMEOUT}s: $TESTS"
start=$(date +%s)
# bochs in a pseudo-terminal; its output and its screen read and dropped;
# its pid in bochs.pid
PTY_RUN='
import os, pty, re, select, sys
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
with open(sys.argv[1], "w") as f:
    f.write("%d\n" % pid)
fds, seen = [fd], b""
while fd in fds:
    for r in select.select(fds, [], [])[0]:
        try:
            data = os.read(r, 65536)
        except OSError:
            data = b""
        if not data:
            fds.remove(r)
        elif r == fd and len(fds) == 1:
            seen = (seen + data)[-4096:]
            m = re.search(rb"connected to screen \"(/dev/pts/[0-9]+)\"", seen)
            if m:
                fds.append(os.open(m.group(1), os.O_RDONLY | os.O_NOCTTY))
sys.exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
'
TERM=xterm nice -n "$EMU_NICE" timeout "$EMU_TIMEOUT" /usr/bin/python3 -c "$PTY_RUN" "$W/bochs.pid" \
  bochs-bin -q -f "$W/bochsrc" -rc "$W/debugger.rc" </dev/null >"$W/bochs.out" 2>&1 &
emu=$!
# stops bochs itself (by its pid) if this script is interrupted
stop_emu() { [ -s "$W/bochs.pid" ] && kill "$(cat "$W/bochs.pid")" 2>/dev/null; kill "$emu" 2>/dev/null; true; }
trap 'stop_emu; exit 130' INT TERM
seen=0
done_at=""
while kill -0 "$emu" 2>/dev/null; do
  sleep 5
  now=$(( $(date +%s) - start ))
  n=$(wc -l <"$W/serial.log")
  if [ "$n" -gt "$seen" ]; then
    sed -n "$((seen + 1)),${n}p" "$W/serial.log" | tr -d '\r' | while IFS= read -r line; do
      printf '[%5ds] %s\n' "$now" "$line"
    done | tee -a "$W/timed.log"
    seen=$n
  fi
  if [ -z "$done_at" ] && grep -q '^@@ done' "$W/serial.log"; then done_at=$now; fi
  # powered off, or still running 60 s after the last test: stop it
  if [ -n "$done_at" ] && [ $((now - done_at)) -gt 60 ]; then stop_emu; fi
done
wait "$emu" 2>/dev/null || true
trap - INT TERM
elapsed=$(( $(date +%s) - start ))
tr -d '\r' <"$W/serial.log" | sed -n "$((seen + 1)),\$p" | sed "s/^/[${elapsed}s] /" | tee -a "$W/timed.log"
say "emulator ran ${elapsed}s (wall clock; emulated, not a speed figure)"

# ---- 5. the verdict ----
log=$(tr -d '\r' <"$W/serial.log")
bad=0
flags=$(printf '%s\n' "$log" | sed -n 's/^@@ avx512 flags: //p')
case " $flags " in
  *" avx512f "*" avx512vl "*|*" avx512vl "*" avx512f "*) say "guest CPU flags: $flags" ;;
  *) say "FAIL: the guest's /proc/cpuinfo shows no avx512f and avx512vl: '$flags'"; bad=1 ;;
esac
grep -q '^@@ done' <<<"$log" || { say "FAIL: the guest did not finish (timeout ${EMU_TIMEOUT}s? $W/bochs.log)"; bad=1; }
printf '%-22s %8s %8s %8s %8s %8s %6s\n' test avx512ok failed skipped other-ok rc seconds
for t in $TESTS; do
  out=$(printf '%s\n' "$log" | sed -n "/^@@ begin $t\$/,/^@@ end $t rc=/p")
  # wall seconds from the test's first line to its last (5 s resolution)
  secs=$(sed -n "/\] @@ begin $t\$/,/\] @@ end $t rc=/p" "$W/timed.log" | sed -n 's/^\[ *\([0-9]*\)s\].*/\1/p' |
    sed -n '1h; ${H; x; s/\n/ /; p}' | awk '{ print $2 - $1 }')
  rc=$(printf '%s\n' "$out" | sed -n 's/^@@ end .* rc=\([0-9]*\)$/\1/p')
  want=$(grep -c '^[[:space:]]*RUN_PATHS(' "tests/unit/$t.c" || true)
  ok=$(printf '%s\n' "$out" | grep -c "^ok - .* \[avx512\]\$" || true)
  failed=$(printf '%s\n' "$out" | grep -c '^not ok' || true)
  # "# NAME [avx512]: skipped, ..." and "# paths agree: avx512 skipped ..."
  skipped=$(printf '%s\n' "$out" | grep -cE '\[avx512\]: skipped|: avx512 skipped' || true)
  other=$(printf '%s\n' "$out" | grep '^ok - ' | grep -vc ' \[[a-z0-9]*\]$' || true)
  printf '%-22s %4s/%-3s %8s %8s %8s %8s %6s\n' "$t" "$ok" "$want" "$failed" "$skipped" "$other" "${rc:-none}" "${secs:-?}"
  if [ "${rc:-x}" != 0 ] || [ "$failed" != 0 ] || [ "$skipped" != 0 ] || [ "$ok" != "$want" ] ||
    ! grep -q '^# [0-9]* passed, 0 failed$' <<<"$out"; then
    bad=1
    printf '%s\n' "$out" | grep -E '^(not ok|  )|\[avx512\]: skipped|: avx512 skipped|Illegal|Segmentation|Aborted' | head -20 || true
  fi
done
if grep -qw test_noise <<<"$TESTS"; then
  grep -q '^# active path: avx512' <<<"$log" || { say "FAIL: test_noise did not run on the avx512 path by default"; bad=1; }
fi
say "serial log: $W/serial.log (with wall times: $W/timed.log)"
[ "$bad" = 0 ] && say "PASS: every test above passed on the emulated AVX-512 path ($EMU_CPU)" && exit 0
say "FAIL"
exit 1
}
main "$@"
exit
