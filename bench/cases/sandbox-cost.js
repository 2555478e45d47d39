'use strict'
// Case: what the sandbox costs a program's start. Spawn-to-exit time of
// `true` in a pseudo-terminal, unsandboxed (posix_spawn) and in each sandbox
// (a child of this process that makes the mount and IPC namespaces — the
// tree read-only, the roots put back, private /tmp, /var/tmp, /dev/shm and
// /run, the Unix sockets outside covered, its own devpts — and applies
// Landlock, seccomp and the rest before exec; in a git repository the .git
// rule adds its read-only mounts). Exit includes tearing the namespaces down.
// The variants take turns spawn by spawn, in a shuffled order, so load from
// elsewhere hits them alike. Target: a sandboxed spawn at most 2.5 times an
// unsandboxed one (issue 48; 1.5 before the namespaces).
//
//   node --expose-gc bench/cases/sandbox-cost.js [--n=150] [--rounds=5]

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { execFileSync } = require('node:child_process')
const { performance } = require('node:perf_hooks')
const { PtySession } = require('../..')
const { summary, shuffled, collect, emit, log, argv } = require('../lib/stats')

const opts = argv()
const N = Number(opts.n || 150)
const ROUNDS = Number(opts.rounds || 5)

const plain = fs.mkdtempSync(path.join(os.tmpdir(), 'ptypilot-bench-sandbox-'))
const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'ptypilot-bench-sandbox-git-'))
execFileSync('git', ['init', '-q'], { cwd: repo })

const VARIANTS = [
  { name: 'off', cwd: plain, sandbox: 'off' },
  { name: 'read-only', cwd: plain, sandbox: 'read-only' },
  { name: 'workspace-write', cwd: plain, sandbox: { mode: 'workspace-write', network: false } },
  { name: 'workspace-write, .git', cwd: repo, sandbox: 'workspace-write' },
]

async function once(v) {
  const t0 = performance.now()
  const s = PtySession.spawn({ command: 'true', cwd: v.cwd, sandbox: v.sandbox })
  const exit = await s.exited
  if (exit.exitCode !== 0) throw new Error(`true exited ${exit.exitCode} in ${v.name}`)
  return performance.now() - t0
}

/** One round: mean milliseconds per spawn of each variant. */
async function round(n) {
  collect()
  const ms = new Map(VARIANTS.map((v) => [v.name, 0]))
  for (let k = 0; k < n; k++) {
    for (const v of shuffled(VARIANTS, k)) ms.set(v.name, ms.get(v.name) + (await once(v)))
  }
  return new Map([...ms].map(([name, t]) => [name, t / n]))
}

async function main() {
  await round(10) // warm-up
  const per = new Map(VARIANTS.map((v) => [v.name, []]))
  const ratios = new Map(VARIANTS.map((v) => [v.name, []]))
  for (let r = 0; r < ROUNDS; r++) {
    const times = await round(N)
    for (const v of VARIANTS) {
      per.get(v.name).push(times.get(v.name))
      ratios.get(v.name).push(times.get(v.name) / times.get('off'))
    }
  }
  const rows = VARIANTS.map((v) => {
    const ms = summary(per.get(v.name))
    const ratio = summary(ratios.get(v.name))
    log(`${v.name.padEnd(22)} ${ms.median.toFixed(3)} ms [${ms.min.toFixed(3)}–${ms.max.toFixed(3)}]  ${ratio.median.toFixed(2)}× off`)
    return { variant: v.name, ms, ratio }
  })
  emit({ case: 'sandbox-cost', n: N, rounds: ROUNDS, rows })
}

main().then(
  () => {
    fs.rmSync(plain, { recursive: true, force: true })
    fs.rmSync(repo, { recursive: true, force: true })
    process.exit(0)
  },
  (err) => {
    console.error(err)
    process.exit(1)
  },
)
