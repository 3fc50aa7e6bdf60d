#!/bin/sh
# Bundles the viewer's script: three.js (pinned by package-lock.json, installed with `npm ci`
# when node_modules is missing or older than the lockfile) and src/*.js, minified into one
# script by esbuild. Usage: viewer/build.sh OUT.js
set -eu
cd "$(dirname "$0")"
out="$1"
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
mkdir -p "$(dirname "$out")"
node_modules/.bin/esbuild src/main.js --bundle --minify --format=iife --target=es2020 \
  --legal-comments=eof --log-level=warning --outfile="$out"
