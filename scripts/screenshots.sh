#!/usr/bin/env bash
# Regenerates the pictures of README.md, docs/screenshots/*.png, from the
# clients' real output: terminal.png is the game screen of a Quoridor game
# in progress against bot:easy (TestTerminalScreenshot writes it as
# coloured HTML; Chromium renders it), web.png the web client at the same
# point of the browser test's whole Quoridor game (web/e2e, playwright-core
# and Debian's chromium, against a real `tabuleiro serve`).
#
#   scripts/screenshots.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/services.sh
out=$PWD/docs/screenshots
mkdir -p "$out"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tabuleiro-screenshots.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
chromium=${TABULEIRO_CHROMIUM:-/usr/bin/chromium}

TABULEIRO_SCREENSHOT_DIR=$tmp go test -count=1 -run '^TestTerminalScreenshot$' ./cmd/tabuleiro/internal/command/play/
"$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1000,500 \
  --screenshot="$out/terminal.png" "file://$tmp/terminal.html" 2>/dev/null

go build -o "$tmp/tabuleiro" ./cmd/tabuleiro
(
  cd web
  node build.mjs --e2e
  TABULEIRO_BIN=$tmp/tabuleiro TABULEIRO_DOC_SCREENSHOTS=1 \
    node --test --test-concurrency=1 --test-name-pattern='whole Quoridor game against the easy bot' .build/e2e/web.test.mjs
)
ls -l "$out"
