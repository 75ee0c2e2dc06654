#!/bin/bash
# check_arm64.sh — the README's Raspberry Pi install, repeated on an emulated arm64 Debian Bookworm.
#
# What it does (as root, on an x86_64 Debian/Ubuntu host; every step is skipped when already done):
#   1. installs Debian's debootstrap, qemu-user-static and binfmt-support;
#   2. mounts binfmt_misc and registers qemu-aarch64 (if that fails it falls back to calling
#      qemu-aarch64-static explicitly inside the chroot, and says so);
#   3. builds an arm64 Bookworm root with `debootstrap --foreign` + second stage ($ARM64_ROOT,
#      default /work/arm64root: outside the repository), adds a `pi` user with sudo as on Pi OS;
#   4. snapshots this working tree (committed or not, .gitignore respected) into a bare repository
#      inside the root and, as `pi`, follows the README's Pi section from a fresh clone:
#      `sudo apt update && sudo apt install -y git make python3-venv python3-dev`, `git clone`,
#      `HOST=0.0.0.0 make run`;
#   5. from inside the root: GET /api/health, POSTs every fixture photo (tests/fixtures/vision) to
#      /api/recognize and matches the tiles to its label (IoU >= 0.5), POSTs the README's example
#      hand to /api/score (expects 23 台), then tries `make install-service`;
#   6. `pip download`s every runtime package (requirements.txt, requirements-nodeps.txt) as arm64
#      wheels only (proof that none needs compiling on a Pi).
# Times go to $LOG/summary.txt (default /tmp/check_arm64). Emulated times are not Pi figures.
# Usage: sudo tools/pi/check_arm64.sh            (ARM64_ROOT=… PORT=… LOG=… to move things)
#        sudo tools/pi/check_arm64.sh wheels     (only step 6)
set -uo pipefail

ROOT=${ARM64_ROOT:-/work/arm64root}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
PORT=${PORT:-18765}            # the chroot shares the host's network: keep clear of 8000
LOG=${LOG:-/tmp/check_arm64}
REPO=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$LOG"
SUMMARY=$LOG/summary.txt
: > "$SUMMARY"
say() { echo "$*" | tee -a "$SUMMARY"; }
now() { date +%s.%N; }
secs() { printf '%.0f' "$(echo "$(now) - $1" | bc)"; }
fail() { say "FAILED: $*"; exit 1; }
command -v bc >/dev/null || apt-get install -y -qq bc >/dev/null

wheels() {   # the serving install, as the Makefile does it: requirements.txt, then --no-deps
  local t=$(now) out=$LOG/arm64wheels ok=1
  local plat="--only-binary=:all: --platform manylinux2014_aarch64 --platform manylinux_2_28_aarch64
              --platform manylinux_2_17_aarch64 --python-version 3.11 --implementation cp -d $out"
  rm -rf "$out"
  pip download $plat -r "$REPO/requirements.txt" > "$LOG/wheels.log" 2>&1 || ok=
  [ -f "$REPO/requirements-nodeps.txt" ] && \
    { pip download $plat --no-deps -r "$REPO/requirements-nodeps.txt" >> "$LOG/wheels.log" 2>&1 || ok=; }
  if [ -n "$ok" ]; then
    say "wheels: every package of requirements.txt (with its dependencies) and requirements-nodeps.txt has a cp311 arm64 wheel ($(secs "$t") s):"
    ls "$out" | sed 's/^/  /' | tee -a "$SUMMARY"
  else
    say "wheels: pip download failed (see $LOG/wheels.log); one package at a time:"
    cat "$REPO"/requirements.txt "$REPO"/requirements-nodeps.txt 2>/dev/null | sed 's/#.*//' \
      | grep -Ev '^\s*$' | while read -r req; do
      pip download $plat --no-deps "$req" >/dev/null 2>&1 && say "  ok   $req" || say "  NONE $req"
    done
  fi
}
[ "${1:-}" = wheels ] && { wheels; exit; }

say "check_arm64 $(date -u +%Y-%m-%dT%H:%MZ) on $(uname -m), $(nproc) cores, kernel $(uname -r)"
say "repository: $REPO at $(git -C "$REPO" rev-parse --short HEAD)$(git -C "$REPO" diff --quiet HEAD && echo '' || echo ' + uncommitted changes')"

# 1. host packages
dpkg -s debootstrap qemu-user-static binfmt-support >/dev/null 2>&1 || {
  apt-get update -qq && apt-get install -y -qq debootstrap qemu-user-static binfmt-support >/dev/null; } \
  || fail "apt-get install debootstrap qemu-user-static binfmt-support"
say "host: $(dpkg-query -W -f '${Package} ${Version}, ' debootstrap qemu-user-static binfmt-support)"

# 2. binfmt_misc
EXPLICIT_QEMU=
if ! mountpoint -q /proc/sys/fs/binfmt_misc; then
  mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>"$LOG/binfmt.err" \
    || say "binfmt: mount failed: $(cat "$LOG/binfmt.err")"
fi
update-binfmts --enable qemu-aarch64 2>>"$LOG/binfmt.err" || true
# Debian registers qemu-aarch64 with flags PF, without C ("credentials"): then the kernel runs a
# setuid binary through qemu with the caller's uid, and the README's `sudo` fails in the root with
# "sudo: effective uid is not 0, is /usr/bin/sudo on a file system with the 'nosuid' option set…".
# Register it again with C (the interpreter is the static qemu, so F keeps it usable in the chroot).
if grep -q '^enabled' /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null \
    && ! grep -q '^flags: .*C' /proc/sys/fs/binfmt_misc/qemu-aarch64; then
  echo -1 > /proc/sys/fs/binfmt_misc/qemu-aarch64
  printf '%s' ':qemu-aarch64:M:0:\x7f\x45\x4c\x46\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00:\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff:/usr/libexec/qemu-binfmt/aarch64-binfmt-P:POCF' \
    > /proc/sys/fs/binfmt_misc/register 2>>"$LOG/binfmt.err" || say "binfmt: re-registering with C failed"
fi
if grep -q '^enabled' /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null; then
  say "binfmt: qemu-aarch64 registered ($(grep flags /proc/sys/fs/binfmt_misc/qemu-aarch64))"
else
  EXPLICIT_QEMU=/usr/bin/qemu-aarch64-static
  say "binfmt: qemu-aarch64 NOT registered ($(tr '\n' ' ' < "$LOG/binfmt.err")); calling qemu explicitly"
fi

# 3. the arm64 root
if [ ! -e "$ROOT/.stamp-debootstrap" ]; then
  rm -rf "$ROOT"
  t=$(now)
  debootstrap --arch=arm64 --foreign --include=ca-certificates bookworm "$ROOT" "$MIRROR" \
    > "$LOG/debootstrap1.log" 2>&1 || fail "debootstrap first stage: $(tail -3 "$LOG/debootstrap1.log")"
  say "debootstrap first stage: $(secs "$t") s"
  cp /usr/bin/qemu-aarch64-static "$ROOT/usr/bin/"
  t=$(now)
  chroot "$ROOT" $EXPLICIT_QEMU /bin/bash /debootstrap/debootstrap --second-stage \
    > "$LOG/debootstrap2.log" 2>&1 || fail "debootstrap second stage: $(tail -3 "$LOG/debootstrap2.log")"
  say "debootstrap second stage (emulated): $(secs "$t") s"
  touch "$ROOT/.stamp-debootstrap"
fi
cp -n /usr/bin/qemu-aarch64-static "$ROOT/usr/bin/" 2>/dev/null || true

mounts() {
  for m in proc sys dev dev/pts; do
    mountpoint -q "$ROOT/$m" || mount --bind "/$m" "$ROOT/$m"
  done
}
unmounts() {
  for m in dev/pts dev sys proc; do mountpoint -q "$ROOT/$m" && umount -l "$ROOT/$m"; done
}
SERVER_STARTED=
cleanup() {
  # make run was started under setsid: its process group is make and the app it runs
  [ -n "$SERVER_STARTED" ] && [ -s "$ROOT/home/pi/mahjong/run.pid" ] \
    && kill -- "-$(cat "$ROOT/home/pi/mahjong/run.pid")" 2>/dev/null
  unmounts
}
trap cleanup EXIT
mounts
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
grep -qw "$(hostname)" "$ROOT/etc/hosts" || echo "127.0.1.1 $(hostname)" >> "$ROOT/etc/hosts"  # quiets sudo
[ -f /etc/pip.conf ] && cp /etc/pip.conf "$ROOT/etc/pip.conf"   # the host's index and certificates
# The host's own CAs (where its network re-signs TLS, pip in the root fails without them with
# "CERTIFICATE_VERIFY_FAILED … self-signed certificate in certificate chain"); a Pi needs none.
if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
  mkdir -p "$ROOT/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$ROOT/usr/local/share/ca-certificates/"
  cp /etc/ssl/certs/ca-certificates.crt "$ROOT/etc/ssl/certs/ca-certificates.crt"
fi
in_root() { chroot "$ROOT" $EXPLICIT_QEMU /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }
as_pi() { in_root /bin/su - pi -c "$1"; }
say "chroot: $(in_root /bin/uname -m), $(in_root /bin/sh -c '. /etc/os-release; echo $PRETTY_NAME')"

# A current Bookworm, as Pi OS has: updates and security, sudo, and a pi user with sudo.
cat > "$ROOT/etc/apt/sources.list" <<EOF
deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
EOF
if ! in_root id pi >/dev/null 2>&1; then
  in_root apt-get update -qq >/dev/null 2>&1 && in_root apt-get install -y -qq sudo curl >/dev/null 2>&1 \
    || fail "apt-get install sudo curl in the root"
  in_root useradd -m -s /bin/bash -G sudo pi
  echo 'pi ALL=(ALL) NOPASSWD: ALL' > "$ROOT/etc/sudoers.d/010_pi-nopasswd"
fi

# 4. a fresh clone of this working tree, committed or not
SNAP_INDEX=$(mktemp)
commit=$(cd "$REPO" && export GIT_INDEX_FILE=$SNAP_INDEX && git read-tree HEAD && git add -A \
  && git commit-tree "$(git write-tree)" -p HEAD -m "working tree for check_arm64")
rm -f "$SNAP_INDEX"
rm -rf "$ROOT/srv/mahjong.git" && git init -q --bare "$ROOT/srv/mahjong.git"
git -C "$REPO" push -q "$ROOT/srv/mahjong.git" "$commit:refs/heads/main" || fail "snapshot push"
git -C "$ROOT/srv/mahjong.git" symbolic-ref HEAD refs/heads/main
in_root chown -R pi:pi /srv/mahjong.git

t=$(now)
as_pi 'sudo apt update -qq && sudo apt install -y -qq git make python3-venv python3-dev' \
  > "$LOG/apt.log" 2>&1 || fail "README apt line: $(tail -3 "$LOG/apt.log")"
say "README: sudo apt update && sudo apt install -y git make python3-venv python3-dev: $(secs "$t") s ($(as_pi 'python3 --version'))"
t=$(now)
as_pi 'rm -rf mahjong && git clone -q /srv/mahjong.git mahjong' > "$LOG/clone.log" 2>&1 \
  || fail "git clone: $(cat "$LOG/clone.log")"
say "README: git clone: $(secs "$t") s"

t=$(now)
as_pi "cd mahjong && { HOST=0.0.0.0 PORT=$PORT setsid make run > run.log 2>&1 < /dev/null & echo \$! > run.pid; }"
SERVER_STARTED=1
up=
for _ in $(seq 1 720); do    # up to an hour: the pip install runs emulated
  if as_pi "curl -sf http://127.0.0.1:$PORT/api/health" > "$LOG/health.json" 2>/dev/null; then up=1; break; fi
  as_pi 'cd mahjong && grep -qiE "^make: \*\*\*|error:" run.log' && break
  sleep 5
done
cp "$ROOT/home/pi/mahjong/run.log" "$LOG/run.log"
[ -n "$up" ] || fail "make run did not serve: $(tail -5 "$LOG/run.log")"
say "README: HOST=0.0.0.0 make run, fresh clone to serving (venv + pip wheels + start, emulated): $(secs "$t") s"
say "GET /api/health: $(cat "$LOG/health.json")"
say "venv: $(as_pi 'du -sh mahjong/.venv | cut -f1'); torch installed: $(as_pi 'ls mahjong/.venv/lib/python3.11/site-packages | grep -qx torch && echo yes || echo no')"
grep -m3 -iE "http://|QR" "$LOG/run.log" | sed 's/^/  run.log: /' | tee -a "$SUMMARY"

# 5. photos and a hand, from inside the root
cat > "$ROOT/home/pi/compare.py" <<'EOF'
"""Match /api/recognize's tiles to a YOLO label (IoU >= 0.5, greedy); prints found/right/total."""
import json, sys
from PIL import Image
from vision.classes import tile_notation
photo, label, answer = sys.argv[1:]
w, h = Image.open(photo).size
ans = json.load(open(answer))
names = tile_notation(ans["tileset"])
gts = []
for line in open(label):
    c, x, y, bw, bh = line.split()
    x, y, bw, bh = float(x) * w, float(y) * h, float(bw) * w, float(bh) * h
    gts.append((names[int(c)], (x - bw / 2, y - bh / 2, x + bw / 2, y + bh / 2)))
def iou(a, b):
    ix = max(0, min(a[2], b[2]) - max(a[0], b[0])); iy = max(0, min(a[3], b[3]) - max(a[1], b[1]))
    u = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - ix * iy
    return ix * iy / u if u else 0
pairs = sorted(((iou(t["box"], g[1]), i, j) for i, t in enumerate(ans["tiles"]) for j, g in enumerate(gts)), reverse=True)
used_p, used_g, found, right = set(), set(), 0, 0
for v, i, j in pairs:
    if v < 0.5: break
    if i in used_p or j in used_g: continue
    used_p.add(i); used_g.add(j); found += 1; right += ans["tiles"][i]["tile"] == gts[j][0]
print(found, right, len(gts), len(ans["tiles"]))
EOF
in_root chown pi:pi /home/pi/compare.py
tot_f=0; tot_r=0; tot_n=0
# The first photo also loads the models (minutes under emulation). PHOTOS=n reads only the first n.
for img in $(ls "$ROOT"/home/pi/mahjong/tests/fixtures/vision/images/*.jpg | head -n "${PHOTOS:-99}"); do
  name=$(basename "$img" .jpg); rel=mahjong/tests/fixtures/vision; ans=/tmp/answer-${name:0:12}.json
  read -r code dt < <(as_pi "curl -s -o $ans -w '%{http_code} %{time_total}' \
      -H 'X-Requested-With: fetch' -F photo=@$rel/images/$name.jpg http://127.0.0.1:$PORT/api/recognize")
  [ "$code" = 200 ] || { say "POST /api/recognize $name: HTTP $code $(head -c 300 "$ROOT$ans")"; continue; }
  cp "$ROOT$ans" "$LOG/"
  read -r f r n p < <(as_pi "cd mahjong && PYTHONPATH=. .venv/bin/python ../compare.py ${rel#mahjong/}/images/$name.jpg ${rel#mahjong/}/labels/$name.txt $ans")
  say "POST /api/recognize ${name:0:24}…: $dt s, $n labelled tiles, $p read, $f found, $r right"
  tot_f=$((tot_f + f)); tot_r=$((tot_r + r)); tot_n=$((tot_n + n))
done
say "photos: $tot_r of $tot_n labelled tiles read right, $tot_f found (x86_64 reference in tests/test_vision_model.py: 97.9% right, 98.9% found)"
[ "$tot_n" -gt 0 ] && [ $((tot_r * 100)) -ge $((tot_n * 95)) ] || say "FAILED: fewer than 95% of the tiles read right"

hand='{"rules": "tw-standard", "concealed": "EEESSSWWWNN123m55p", "winning_tile": "5p", "self_drawn": true, "seat_wind": "E", "round_wind": "E", "streak": 2, "flowers": "1f5f"}'
dt=$(as_pi "curl -s -o /tmp/score.json -w '%{time_total}' -H 'X-Requested-With: fetch' \
  -H 'Content-Type: application/json' -d '$hand' http://127.0.0.1:$PORT/api/score")
cp "$ROOT/tmp/score.json" "$LOG/score.json"
say "POST /api/score (README example hand): $dt s, $(head -c 120 "$LOG/score.json")…"
grep -q '"tai": *23' "$LOG/score.json" && grep -q '"win": *true' "$LOG/score.json" \
  && say "score: win, 23 台 as in the README" || say "FAILED: the README hand did not score 23 台"

# make install-service: a chroot has no systemd as PID 1, so `systemctl daemon-reload` fails there
# ("System has not been booted with systemd as init system (PID 1). Can't operate."); the unit it
# wrote is then checked offline: systemd-analyze verify, and systemctl enable/disable (which work
# on the files alone).
as_pi "cd mahjong && make install-service" > "$LOG/install-service.log" 2>&1
say "make install-service: exit $?; $(grep -vE '^(sed|sudo|  tools)' "$LOG/install-service.log" | tr '\n' ' ' | head -c 300)"
unit=/etc/systemd/system/table-companion.service
if [ -f "$ROOT$unit" ]; then
  say "  unit written: $(grep -E '^(User|WorkingDirectory|ExecStart|Restart|RestartSec)=' "$ROOT$unit" | tr '\n' ' ')"
  in_root systemd-analyze verify "$unit" > "$LOG/verify.log" 2>&1; v=$?
  say "  systemd-analyze verify: exit $v $(head -c 200 "$LOG/verify.log")"
  in_root systemctl enable table-companion > "$LOG/enable.log" 2>&1
  say "  systemctl enable (offline): $(in_root systemctl is-enabled table-companion 2>&1)"
  in_root systemctl disable table-companion > /dev/null 2>&1; in_root rm -f "$unit"
else
  say "FAILED: make install-service wrote no $unit"
fi

# 6. wheels
wheels
say "done $(date -u +%Y-%m-%dT%H:%MZ)"
