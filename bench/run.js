'use strict'
// `npm run bench`: runs every case in a fresh Node process, one after the
// other, then writes the run and its targets into BENCHMARKS.md (between
// the `<!-- bench:results -->` markers), every table into bench/results.md
// and the raw numbers into bench/results.json.
//
//   node bench/run.js [case ...] [--only=throughput,echo] [--quick] [--no-write] [--json=FILE]
//                     [--impls=ptypilot,ptypilot-baseline,node-pty]
//   node bench/run.js --render   # the two reports again from bench/results.json, nothing run
//
// Case names (`node bench/run.js busy idle`) or `--only` run some cases
// alone, with their full repeats, and write nothing (on a shared machine a
// full run is not always possible). `--quick` runs fewer repeats (for trying
// the harness, not for publishing).
// Nothing here asserts anything about time.

const { spawnSync, execSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { argv, summary: summaryOf } = require('./lib/stats')

const opts = argv()
const ROOT = path.join(__dirname, '..')
const QUICK = Boolean(opts.quick)

const CASES = [
  // Six implementations, three workloads, eleven rounds: over 5 minutes when
  // the peers that lose output are slow.
  { name: 'throughput', args: QUICK ? ['--rounds=2', '--scale=0.25'] : ['--rounds=10'], timeoutMs: 900_000 },
  { name: 'lost-tail', args: QUICK ? ['--runs=100'] : ['--runs=1000'] },
  { name: 'echo', args: QUICK ? ['--rounds=1', '--keys=500'] : ['--rounds=9', '--keys=2000'] },
  // The same on one CPU: without cross-CPU wake-ups (which take from 15 to
  // over 100 µs on this kind of VM, round by round) the cost of the path
  // itself shows.
  { name: 'echo', id: 'echo-1cpu', pin: true, args: QUICK ? ['--rounds=1', '--keys=500'] : ['--rounds=9', '--keys=2000'] },
  { name: 'spawn', args: QUICK ? ['--rounds=1', '--n=50'] : ['--rounds=5', '--n=150'] },
  { name: 'spawn', id: 'spawn-1cpu', pin: true, args: QUICK ? ['--rounds=1', '--n=50'] : ['--rounds=5', '--n=150'] },
  { name: 'sandbox-cost', args: QUICK ? ['--rounds=1', '--n=30'] : ['--rounds=5', '--n=150'] },
  // The network by host name: a download through the proxy against direct, and the spawn cost of the namespace.
  { name: 'network-cost', args: QUICK ? ['--rounds=1', '--n=20', '--mb=20'] : ['--rounds=5', '--n=60'] },
  // Node 20/24, Bun and Deno in fresh processes (scripts/runtimes.js fetches them).
  { name: 'runtimes', args: QUICK ? ['--rounds=1', '--n=10'] : ['--rounds=5', '--n=50'] },
  { name: 'screen', args: [] },
  { name: 'host', args: QUICK ? ['--rounds=1', '--calls=300'] : ['--rounds=5', '--calls=2000'] },
  { name: 'lean', args: QUICK ? ['--rounds=1'] : ['--rounds=2'] },
  { name: 'busy', args: QUICK ? ['--rounds=1', '--n=20'] : ['--rounds=3', '--n=100'] },
  { name: 'input-wait', args: QUICK ? ['--rounds=40', '--silent-steps=4', '--sessions=5'] : ['--rounds=200', '--silent-steps=8', '--sessions=20'] },
  // Mostly waiting (the peer's timeouts): minutes, and a first run installs the peer.
  { name: 'agent-tasks', args: QUICK ? ['--repeats=1'] : ['--repeats=3'], timeoutMs: 900_000 },
  // Last: starting hundreds of shells at once disturbs whatever runs right after.
  { name: 'memory', args: QUICK ? ['--repeats=1', '--n=100'] : ['--repeats=2', '--n=500'] },
  {
    name: 'memory',
    id: 'idle',
    args: QUICK
      ? ['--repeats=1', '--n=100', '--shell=bash', '--case=idle']
      : ['--repeats=2', '--n=1000', '--shell=bash', '--case=idle'],
  },
]

function loadavg() {
  return os.loadavg().map((x) => x.toFixed(2)).join(' ')
}

/** CPU time (busy, total) of the whole machine so far, from /proc/stat; null elsewhere. */
function cpuTimes() {
  try {
    const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number)
    const idle = f[3] + (f[4] || 0)
    const total = f.reduce((a, b) => a + b, 0)
    return { busy: total - idle, total }
  } catch {
    return null
  }
}

/**
 * Waits until the machine is quiet before a case: the share of CPU time
 * spent busy over one second is under 15 % (up to 60 s; what is left of the
 * previous case — a thousand shells exiting, a kernel flushing — otherwise
 * lands on the next case's first implementation). Returns the last share, or
 * null where /proc/stat is not there.
 */
function settle() {
  const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
  let share = null
  for (let i = 0; i < 60; i++) {
    const a = cpuTimes()
    sleep(1000)
    const b = cpuTimes()
    if (!a || !b) return null
    share = (b.busy - a.busy) / Math.max(1, b.total - a.total)
    if (share < 0.15) break
  }
  return share
}

function machine() {
  const cpus = os.cpus()
  let commit = 'unknown'
  try {
    commit = execSync('git rev-parse --short HEAD', { cwd: ROOT, encoding: 'utf8' }).trim()
    if (execSync('git status --porcelain -- src index.js', { cwd: ROOT, encoding: 'utf8' }).trim()) commit += ' (modified)'
  } catch {}
  const version = (name) => {
    try {
      return require(path.join(ROOT, 'node_modules', name, 'package.json')).version
    } catch {
      return '?'
    }
  }
  return {
    cpu: cpus[0] ? cpus[0].model.trim() : 'unknown',
    cores: cpus.length,
    memGb: (os.totalmem() / 2 ** 30).toFixed(1),
    kernel: `${os.type()} ${os.release()}`,
    node: process.version,
    ptypilot: commit,
    peers: {
      '@lydell/node-pty': version('@lydell/node-pty'),
      '@xterm/headless': version('@xterm/headless'),
      '@replit/ruspty': version('@replit/ruspty'),
    },
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  }
}

/** `taskset` pins a case (and the programs it starts) to CPU 0, when available. */
function pinPrefix() {
  const which = spawnSync('sh', ['-c', 'command -v taskset'], { encoding: 'utf8' })
  return which.status === 0 ? [which.stdout.trim(), '-c', '0'] : null
}

function runCase(c) {
  const script = path.join(__dirname, 'cases', `${c.name}.js`)
  const id = c.id || c.name
  const busy = settle()
  const load = loadavg()
  const t0 = Date.now()
  const busyText = busy === null ? '' : `, CPU busy ${(busy * 100).toFixed(0)} % over the last second`
  process.stderr.write(`\n== ${id} (load ${load}${busyText})\n`)
  // `--impls=a,b` reaches the cases that compare implementations (with
  // `ptypilot-baseline` and PTYPILOT_BASELINE: before and after in one run).
  const impls = opts.impls ? [`--impls=${opts.impls}`] : []
  let argv = [process.execPath, '--expose-gc', script, ...c.args, ...impls]
  if (c.pin) {
    const prefix = pinPrefix()
    if (!prefix) {
      process.stderr.write('taskset not found: skipped\n')
      return null
    }
    argv = [...prefix, ...argv]
  }
  const out = spawnSync(argv[0], argv.slice(1), {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: c.timeoutMs ?? 300_000,
  })
  const line = (out.stdout || '').split('\n').find((l) => l.startsWith('@@RESULT '))
  if (out.status !== 0 || !line) {
    throw new Error(`case ${c.name} failed (status ${out.status}${out.error ? `, ${out.error.message}` : ''})`)
  }
  const result = JSON.parse(line.slice(9))
  return { ...result, case: id, loadBefore: load, busyBefore: busy, loadAfter: loadavg(), seconds: (Date.now() - t0) / 1000 }
}

// ---------- formatting ----------

const f0 = (x) => (x === null || Number.isNaN(x) ? '–' : x.toFixed(0))
const f1 = (x) => (x === null || Number.isNaN(x) ? '–' : x.toFixed(1))
const f2 = (x) => (x === null || Number.isNaN(x) ? '–' : x.toFixed(2))
const spread = (s, f) => `${f(s.median)} (${f(s.min)}–${f(s.max)})`
const LABEL = {
  ptypilot: 'ptypilot (screen model on)',
  'node-pty': 'node-pty',
  'ptypilot/node-pty': 'ptypilot/node-pty (node-pty API, no screen model)',
  'node-pty+xterm': 'node-pty + @xterm/headless',
  ruspty: '@replit/ruspty',
  bare: 'bare read loop in Python, no JS (informative: the pty ceiling)',
  'ptypilot-baseline': 'ptypilot at PTYPILOT_BASELINE (before)',
}
const mark = (ok) => (ok ? '**met**' : '**missed**')

function byImpl(rows, key = 'impl') {
  return Object.fromEntries(rows.map((r) => [r[key], r]))
}

/** The run: when, on what machine, which build and peers, how loaded. */
function runHeader(results, info) {
  const out = []
  out.push(`Run ${info.date} on ${info.cores} × ${info.cpu}, ${info.memGb} GiB RAM, ${info.kernel}, Node ${info.node};`)
  out.push(
    `ptypilot ${info.ptypilot}, ${Object.entries(info.peers)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}.`,
  )
  out.push(`Load average (1/5/15 min) before each case: ${results.map((x) => `${x.case} ${x.loadBefore}`).join('; ')}.`)
  if (results.some((x) => x.busyBefore != null)) {
    out.push('')
    out.push(
      `Each case starts once the machine is quiet (under 15 % of its CPU time busy over one second, waiting up to 60 s); the share over the last second before each case: ${results
        .map((x) => `${x.case} ${x.busyBefore == null ? '–' : `${(x.busyBefore * 100).toFixed(0)} %`}`)
        .join('; ')}.`,
    )
  }
  out.push(`Total time ${f0(results.reduce((a, x) => a + x.seconds, 0))} s.`)
  return out
}

/** The targets, each with what was measured and whether it is met. */
function targetsTable(targets) {
  const out = []
  out.push('| target | measured | ratio | |')
  out.push('| --- | --- | --- | --- |')
  for (const t of targets) out.push(`| ${t.what} | ${t.measured} | ${t.ratio} | ${mark(t.ok)} |`)
  return out
}

/** Everything a run measured: the run, the targets, then a table (or several) per case. */
function markdown(results, info, targets) {
  const out = [...runHeader(results, info), '', '### Targets', '', ...targetsTable(targets), '']
  out.push(...caseTables(results))
  return out.join('\n')
}

/** The section of BENCHMARKS.md a full run writes: the run and the targets (the per-case tables are in bench/results.md). */
function reportSection(results, info, targets) {
  return [...runHeader(results, info), '', ...targetsTable(targets)].join('\n')
}

/** One table (or several) per case, with what it measures. */
function caseTables(results) {
  const out = []
  const r = Object.fromEntries(results.map((x) => [x.case, x]))
  /** ptypilot's rate over `row`'s, round by round: median (min–max), or – for results without rounds. */
  const sameRound = (ours, row) => {
    const a = ours.mbpsPerRound
    const b = row.mbpsPerRound
    if (!a || !b || a.length !== b.length) return '–'
    return spread(summaryOf(a.map((x, i) => x / b[i])), f2)
  }
  if (r.throughput) {
    out.push(`### 1. Output throughput to JS (MiB/s, median (min–max) of ${r.throughput.rounds} runs; higher is better)`)
    out.push('')
    out.push('Timed from spawn until the last character reached the callback and, with a screen model, the screen text was read after parsing finished. A run that lost output counts in "lost runs" and its rate is computed over what arrived. The bare read loop is no library: it reads the pty into nothing, outside Node, and shows what the pty itself delivers here (its "chunks" are reads). "CPU per MiB" is the CPU time (user + system) of the whole Node process over the same span — every thread, so ptypilot\'s session thread too — per MiB delivered (lower is better); for the bare read loop, that of the Python process.')
    out.push('')
    const workloads = [...new Set(r.throughput.rows.map((x) => x.workload))]
    out.push('"Same round" is the ratio of ptypilot\'s run to this implementation\'s in the same round (the runs of a round are back to back), median (min–max) over the rounds: informative, as the machine\'s pace drifts between rounds; the targets use the ratio of the medians.')
    out.push('')
    out.push('| workload | implementation | MiB/s | ptypilot ÷ this | same round | CPU ms per MiB | ptypilot ÷ this | lost runs | chunks per run |')
    out.push('| --- | --- | --- | --- | --- | --- | --- | --- | --- |')
    for (const w of workloads) {
      const rows = r.throughput.rows.filter((x) => x.workload === w)
      const ours = rows.find((x) => x.impl === 'ptypilot')
      for (const row of rows) {
        const self = row.impl.startsWith('ptypilot')
        const cpu = row.cpuMsPerMiB
        out.push(
          `| ${row.title} | ${LABEL[row.impl]} | ${spread(row.mbps, f1)} | ${self ? '' : f2(ours.mbps.median / row.mbps.median)} | ${self ? '' : sameRound(ours, row)} | ` +
            `${cpu ? spread(cpu, f2) : '–'} | ${self || !cpu ? '' : f2(ours.cpuMsPerMiB.median / cpu.median)} | ${row.lost}/${row.runs} | ${f0(row.chunksPerRun)} |`,
        )
      }
    }
    out.push('')
  }
  if (r['lost-tail']) {
    const x = r['lost-tail']
    out.push(`### 2. Lost output at exit (${x.title}; ${x.expected} characters expected; ${x.batch} runs at a time)`)
    out.push('')
    out.push('| implementation | runs that lost the tail | characters missing (min–max) | ms per run |')
    out.push('| --- | --- | --- | --- |')
    for (const row of x.rows) {
      out.push(
        `| ${LABEL[row.impl]} | ${row.lost}/${row.runs} | ${row.missing ? `${row.missing.min}–${row.missing.max}` : '–'} | ${f1(row.msPerRun)} |`,
      )
    }
    out.push('')
  }
  for (const [key, where] of [
    ['echo', ''],
    ['echo-1cpu', ', everything pinned to one CPU'],
  ]) {
    const x = r[key]
    if (!x) continue
    const ours = byImpl(x.rows).ptypilot
    out.push(`### 3${key === 'echo' ? 'a' : 'b'}. Keystroke echo round trip through \`cat\`${where} (µs, ${x.keys} keys per run, median (min–max) of ${x.rounds} runs; lower is better)`)
    out.push('')
    out.push('| implementation | p50 | p99 | p50 ptypilot ÷ this | p99 ptypilot ÷ this |')
    out.push('| --- | --- | --- | --- | --- |')
    for (const row of x.rows) {
      const other = row.impl === 'ptypilot'
      out.push(
        `| ${LABEL[row.impl]} | ${spread(row.p50, f0)} | ${spread(row.p99, f0)} | ${other ? '' : f2(ours.p50.median / row.p50.median)} | ${other ? '' : f2(ours.p99.median / row.p99.median)} |`,
      )
    }
    out.push('')
  }
  for (const [key, where] of [
    ['spawn', ''],
    ['spawn-1cpu', ', everything pinned to one CPU'],
  ]) {
    const x = r[key]
    if (!x) continue
    const ours = byImpl(x.rows).ptypilot
    out.push(`### 4${key === 'spawn' ? 'a' : 'b'}. Spawn-to-exit rate of \`true\`${where} (sessions/s, ${x.n} sequential per run, median (min–max) of ${x.rounds} runs; higher is better)`)
    out.push('')
    out.push('| implementation | sessions/s | ptypilot ÷ this |')
    out.push('| --- | --- | --- |')
    for (const row of x.rows) {
      out.push(`| ${LABEL[row.impl]} | ${spread(row.rate, f0)} | ${row.impl === 'ptypilot' ? '' : f2(ours.rate.median / row.rate.median)} |`)
    }
    out.push('')
  }
  if (r['sandbox-cost']) {
    const x = r['sandbox-cost']
    out.push(`### 4c. What the sandbox costs a start: spawn-to-exit time of \`true\` (ms per session, ${x.n} sequential per run, median (min–max) of ${x.rounds} runs; lower is better)`)
    out.push('')
    out.push('| sandbox | ms per spawn | ÷ unsandboxed (same round) |')
    out.push('| --- | --- | --- |')
    for (const row of x.rows) out.push(`| ${row.variant} | ${spread(row.ms, f2)} | ${row.variant === 'off' ? '' : spread(row.ratio, f2)} |`)
    out.push('')
  }
  if (r.runtimes) {
    const x = r.runtimes
    out.push(`### 4d. Runtimes: ${x.title} (median (min–max) of ${x.rounds} rounds; each runtime in a fresh process, in turns)`)
    out.push('')
    out.push('| runtime | listener MiB/s | ÷ Node 24 (same round) | spawn-to-exit ms | lost runs |')
    out.push('| --- | --- | --- | --- | --- |')
    for (const row of x.rows) {
      out.push(`| ${row.runtime} ${row.version} | ${spread(row.mibps, f1)} | ${row.runtime === 'node24' ? '' : spread(row.vsNode24, f2)} | ${spread(row.spawnMs, f2)} | ${row.lostRuns} |`)
    }
    out.push('')
  }
  if (r.memory) {
    const x = r.memory
    const ours = byImpl(x.rows).ptypilot
    out.push(`### 5. Memory of idle interactive sessions (RSS growth per session with ${x.n} \`sh\` sessions at their prompt; median (min–max) of ${x.repeats} fresh processes; lower is better)`)
    out.push('')
    out.push('| implementation | KB per session | ptypilot ÷ this | baseline RSS (KB) | OS threads before → with the sessions |')
    out.push('| --- | --- | --- | --- | --- |')
    for (const row of x.rows) {
      const threads = row.threadsAfter ? `${f0(row.threadsBefore)} → ${f0(row.threadsAfter.median)}` : '–'
      out.push(
        `| ${LABEL[row.impl]} | ${spread(row.perSessionKb, f0)} | ${row.impl === 'ptypilot' ? '' : f2(ours.perSessionKb.median / row.perSessionKb.median)} | ${f0(row.baselineKb)} | ${threads} |`,
      )
    }
    out.push('')
  }
  if (r.screen) {
    out.push('### 6. Reading state (µs per call, median (min–max) of 7 rounds; lower is better)')
    out.push('')
    out.push('Wall time, and CPU time of the process (the cost without the time other processes held the core). "After one character of output": the program (`cat`, the screen full of text) echoed one key before each call, and each call is timed alone; ptypilot builds the snapshot anew then. "Nothing new since the last call": calls in a row, where ptypilot reuses the strings of the last snapshot and xterm.js reads its rows again.')
    out.push('')
    out.push('| call | ptypilot, wall | ptypilot, CPU | reference: @xterm/headless, text of the visible rows only, wall | same, CPU |')
    out.push('| --- | --- | --- | --- | --- |')
    const us = (x) => (x < 1000 ? f1(x) : `${f0(x / 1000)} ms`)
    for (const row of r.screen.rows) {
      const x = row.xtermUs
      out.push(
        `| ${row.what} | ${spread(row.ptypilotUs, us)} | ${us(row.ptypilotUs.cpu.median)} | ${x ? spread(x, us) : '–'} | ${x ? us(x.cpu.median) : '–'} |`,
      )
    }
    out.push('')
  }
  if (r.host) {
    const x = r.host
    out.push(`### 7. Isolated host: extra latency per tool call (µs, \`call()\` of \`cat\` in a terminal with settleMs 0, ${x.calls} calls per registry per round, median (min–max) of ${x.rounds} rounds; lower is better)`)
    out.push('')
    out.push('The same tool in an in-process registry and in one with `isolation: \'process\'`, calls alternating between the two; "extra" is the isolated quantile minus the in-process one, per round. `fetch` reads a settled screen; `apply` types one key and waits for its echo.')
    out.push('')
    out.push('| call | in-process p50 | isolated p50 | extra p50 | in-process p99 | isolated p99 | extra p99 |')
    out.push('| --- | --- | --- | --- | --- | --- | --- | --- |')
    for (const row of x.rows) {
      out.push(
        `| ${row.op} | ${spread(row.here.p50, f0)} | ${spread(row.there.p50, f0)} | ${spread(row.extra.p50, f0)} | ${spread(row.here.p99, f0)} | ${spread(row.there.p99, f0)} | ${spread(row.extra.p99, f0)} |`,
      )
    }
    out.push('')
  }
  if (r.lean) {
    const x = r.lean
    const pct = (a, b) => `${f1((100 * a) / b)} %`
    out.push('### 8. Lean screens: characters sent to the model over multi-step agent sessions (80×24; lower is better)')
    out.push('')
    out.push(
      'Real programs driven step by step as an agent would (bench/lib/agent-sessions.js), the screen taken after each step. "Full" is the screen text a tool call returns (rows right-trimmed, trailing blank rows dropped); "lean" is what `ScreenViewTracker` sends for the same screens, as `respond()` does (the first one and any with a new size full, then partial views — scrolls, rows as on an earlier numbered view, rows with new text, edits in place — or `[screen unchanged]`); a screen after which the program exited is the final content, sent as a partial view of the last screen when that is shorter, else whole. Every lean view was rebuilt with `rebuildScreen` and matched its screen. "New rows" counts the rows that were nowhere on the previous screen, "unseen rows" those on no screen sent before (what no view of whole rows can leave out). Characters are code points.',
    )
    out.push('')
    out.push('| session | screens | full | lean | lean ÷ full | new rows ÷ full | unseen rows ÷ full | views: full / partial / unchanged / after exit |')
    out.push('| --- | --- | --- | --- | --- | --- | --- | --- |')
    for (const row of x.rows) {
      const k = row.kinds
      out.push(
        `| ${row.title} | ${row.steps} | ${row.full} | ${row.lean} | ${pct(row.lean, row.full)} | ${pct(row.newRows, row.full)} | ${pct(row.unseenRows, row.full)} | ${k.full} / ${k.partial} / ${k.unchanged} / ${k.exited} |`,
      )
    }
    const t = x.total
    out.push(`| all four | ${t.steps} | ${t.full} | ${t.lean} | ${pct(t.lean, t.full)} | ${pct(t.newRows, t.full)} | ${pct(t.unseenRows, t.full)} | |`)
    out.push('')
  }
  if (r.busy) {
    const x = r.busy
    const ours = byImpl(x.rows).ptypilot
    out.push(`### 9. Busy sessions at once (${x.title}; median (min–max) of ${x.rounds} rounds)`)
    out.push('')
    out.push('All sessions of one implementation run at once. "Aggregate" is all output delivered over the wall time from the first spawn until the last session\'s output arrived (and, with a screen model, its screen was read); "slowest ÷ median" compares the sessions\' own rates (output over the time from their spawn to their last character) within a round; "lost" counts sessions that had not delivered everything when their exit was reported; CPU is the Node process\'s per MiB.')
    out.push('')
    out.push('| implementation | aggregate MiB/s | ptypilot ÷ this | slowest ÷ median | sessions that lost the tail | CPU ms per MiB | ptypilot ÷ this |')
    out.push('| --- | --- | --- | --- | --- | --- | --- | --- |')
    for (const row of x.rows) {
      const self = row.impl === 'ptypilot'
      out.push(
        `| ${LABEL[row.impl]} | ${spread(row.aggregate, f1)} | ${self ? '' : f2(ours.aggregate.median / row.aggregate.median)} | ` +
          `${spread(row.slowestOverMedian, f2)} | ${row.lost}/${row.sessions} | ${spread(row.cpuMsPerMiB, f2)} | ${self ? '' : f2(ours.cpuMsPerMiB.median / row.cpuMsPerMiB.median)} |`,
      )
    }
    out.push('')
  }
  if (r.idle) {
    const x = r.idle
    out.push(`### 10. ${x.n} idle \`bash\` sessions (\`bash --norc --noprofile\` at its prompt; median (min–max) of ${x.repeats} fresh processes)`)
    out.push('')
    out.push('RSS growth of the Node process per session, its OS threads (`Threads:` in /proc/self/status) before and with the sessions open, and the time from the first spawn until every prompt had arrived.')
    out.push('')
    out.push('| implementation | KB per session | OS threads before → with the sessions | time to start all (ms) |')
    out.push('| --- | --- | --- | --- |')
    for (const row of x.rows) {
      out.push(
        `| ${LABEL[row.impl]} | ${spread(row.perSessionKb, f0)} | ${f0(row.threadsBefore)} → ${f0(row.threadsAfter.median)} | ${spread(row.startMs, f0)} |`,
      )
    }
    out.push('')
  }
  if (r['agent-tasks']) {
    const x = r['agent-tasks']
    const servers = [...new Set(x.rows.map((row) => row.server))]
    const version = (s) => x.rows.find((row) => row.server === s)?.version ?? '?'
    out.push(`### 11. Agent tasks over MCP (${x.tasks.length} tasks × ${x.repeats} runs per server; median (min–max) per task)`)
    out.push('')
    out.push(
      `The same tasks through \`ptypilot mcp\` (${version('ptypilot')}; in its default sandbox, and with \`--sandbox off\`) and DesktopCommander's MCP server (${DC_LABEL} ${x.dcVersion}), with the same MCP SDK client and a script per server doing what a competent agent would with its tools (bench/cases/agent-tasks.js): it acts on what each reply says, reads again while a program runs, and with DesktopCommander reads until it reports the exit (its replies do not say a program ended otherwise); DesktopCommander's \`start_process\` gets \`timeout_ms: 5000\` and \`interact_with_process\` its default. Wall time is from the task's first call to its last reply, without a model's thinking. "Prompt latency" is from the moment the program blocks on its prompt (it stamps the clock right before its read) to the reply at the client, over the steps that wait for a prompt (the REPL, the delayed and the password prompt).`,
    )
    out.push('')
    out.push('| task | server | succeeded | wall time (ms) | tool calls | characters returned | prompt latency (ms) |')
    out.push('| --- | --- | --- | --- | --- | --- | --- |')
    for (const task of x.tasks) {
      for (const s of servers) {
        const row = x.rows.find((y) => y.server === s && y.task === task)
        const lat = row.promptLatency ? spread(row.promptLatency, f0) : '–'
        out.push(`| ${task} | ${serverLabel(s)} | ${row.ok}/${row.runs} | ${spread(row.ms, f0)} | ${spread(row.calls, f0)} | ${spread(row.chars, f0)} | ${lat} |`)
      }
    }
    for (const s of servers) {
      const rows = x.rows.filter((y) => y.server === s)
      const t = agentTotals(rows)
      out.push(`| **all** | ${serverLabel(s)} | ${t.ok}/${t.runs} | ${f0(t.ms)} | ${f0(t.calls)} | ${f0(t.chars)} | max ${t.maxLatency === null ? '–' : f1(t.maxLatency)} |`)
    }
    out.push('')
    const failures = x.rows.filter((y) => y.failures.length > 0)
    if (failures.length > 0) {
      out.push('Failed runs: ' + failures.map((y) => `${y.server} ${y.task}: ${[...new Set(y.failures)].join('; ')}`).join('. ') + '.')
      out.push('')
    }
  }
  if (r['input-wait']) {
    const x = r['input-wait']
    out.push(`### 12. Knowing when a program waits for input (\`waitForInput\` vs a ${x.quietMs} ms quiet timer; ${x.rounds} prompts of each kind)`)
    out.push('')
    out.push(
      `Each program (bench/lib/input-wait/) works silently for 5 to 40 ms, prints a prompt and stamps CLOCK_MONOTONIC right before it reads; latency is from that stamp to \`waitForInput({ since: 'input' })\` resolving in this process, or to the quiet timer (reset by every output and by the answer) firing, which runs on its own session of the same program. "Wrong kind" counts answers whose \`kind\` was not the one asked; "early" counts reports before the program asked.`,
    )
    out.push('')
    out.push(`| program | ptypilot p50 / p95 / max (ms) | wrong kind, early | ${x.quietMs} ms timer p50 / p95 (ms) | timer early |`)
    out.push('| --- | --- | --- | --- | --- |')
    for (const row of x.rows) {
      out.push(
        `| ${row.title} (${row.kind}) | ${f1(row.ours.p50)} / ${f1(row.ours.p95)} / ${f1(row.ours.max)} | ${row.ours.wrongKind}, ${row.ours.early} | ${f0(row.timer.p50)} / ${f0(row.timer.p95)} | ${row.timer.early} |`,
      )
    }
    out.push('')
    out.push(`False "waiting" reports over programs that pause ${x.silentSteps} times for 0.5 s without waiting for input (both watch the same run):`)
    out.push('')
    out.push('| program | seconds | ptypilot | timer |')
    out.push('| --- | --- | --- | --- |')
    for (const row of x.silent) out.push(`| ${row.title} | ${f1(row.seconds)} | ${row.ourReports} | ${row.timerReports} |`)
    out.push('')
    out.push('CPU time of this process per session (ms per second, i.e. per mille of a core) while the program works silently:')
    out.push('')
    out.push('| program | sessions | nobody waits | `waitForInput` pending | quiet timer pending |')
    out.push('| --- | --- | --- | --- | --- |')
    for (const row of x.cpu) {
      out.push(`| \`${row.program}\` | ${row.sessions} | ${f2(row.idleMsPerSec)} | ${f2(row.waitingMsPerSec)} | ${f2(row.timerMsPerSec)} |`)
    }
    out.push('')
  }
  return out
}

const DC_LABEL = 'DesktopCommander'

/** A server of the agent-tasks case as its tables name it. */
function serverLabel(s) {
  return { ptypilot: 'ptypilot (sandbox on)', 'ptypilot-unsandboxed': 'ptypilot (sandbox off)' }[s] ?? DC_LABEL
}

/** Totals of one server's agent-task rows: runs, successes, and the sums of the per-task medians. */
function agentTotals(rows) {
  const lat = rows.filter((y) => y.promptLatency).map((y) => y.promptLatency.max)
  return {
    runs: rows.reduce((a, y) => a + y.runs, 0),
    ok: rows.reduce((a, y) => a + y.ok, 0),
    ms: rows.reduce((a, y) => a + y.ms.median, 0),
    calls: rows.reduce((a, y) => a + y.calls.median, 0),
    chars: rows.reduce((a, y) => a + y.chars.median, 0),
    maxLatency: lat.length ? Math.max(...lat) : null,
  }
}

function targetsOf(results) {
  const r = Object.fromEntries(results.map((x) => [x.case, x]))
  const t = []
  if (r.throughput) {
    for (const w of [...new Set(r.throughput.rows.map((x) => x.workload))]) {
      const rows = byImpl(r.throughput.rows.filter((x) => x.workload === w))
      const ours = rows.ptypilot
      const needs = w === 'headers' ? [['node-pty', 1.0], ['node-pty', 1.2], ['node-pty+xterm', 2.5]] : [['node-pty', 1.0]]
      for (const [peer, need] of needs) {
        const ratio = ours.mbps.median / rows[peer].mbps.median
        t.push({
          what: `throughput, ${ours.title}: ≥ ${need.toFixed(1)}× ${LABEL[peer]}`,
          measured: `${f1(ours.mbps.median)} vs ${f1(rows[peer].mbps.median)} MiB/s`,
          ratio: `${f2(ratio)}×`,
          ok: ratio >= need,
        })
      }
      if (!ours.cpuMsPerMiB) continue
      for (const [peer, need] of [
        ['node-pty', 1.0],
        ['node-pty+xterm', 0.5],
      ]) {
        const ratio = ours.cpuMsPerMiB.median / rows[peer].cpuMsPerMiB.median
        t.push({
          what: `CPU per MiB, ${ours.title}: ≤ ${need.toFixed(1)}× ${LABEL[peer]}`,
          measured: `${f2(ours.cpuMsPerMiB.median)} vs ${f2(rows[peer].cpuMsPerMiB.median)} ms`,
          ratio: `${f2(ratio)}× (≤ ${need} is met)`,
          ok: ratio <= need,
        })
      }
    }
  }
  t.push(...adapterTargets(r))
  if (r.busy) {
    const rows = byImpl(r.busy.rows)
    const ours = rows.ptypilot
    const ratio = ours.aggregate.median / rows['node-pty+xterm'].aggregate.median
    t.push({
      what: `${r.busy.n} busy sessions: aggregate ≥ 2× ${LABEL['node-pty+xterm']}`,
      measured: `${f1(ours.aggregate.median)} vs ${f1(rows['node-pty+xterm'].aggregate.median)} MiB/s`,
      ratio: `${f2(ratio)}×`,
      ok: ratio >= 2,
    })
    t.push({
      what: `${r.busy.n} busy sessions: the slowest at least half the median`,
      measured: `slowest ÷ median ${f2(ours.slowestOverMedian.median)} (worst round ${f2(ours.slowestOverMedian.min)})`,
      ratio: '',
      ok: ours.slowestOverMedian.median >= 0.5,
    })
    t.push({
      what: `${r.busy.n} busy sessions: nothing lost`,
      measured: `${ours.lost}/${ours.sessions} sessions lost their tail`,
      ratio: '',
      ok: ours.lost === 0,
    })
  }
  if (r.idle) {
    const ours = byImpl(r.idle.rows).ptypilot
    t.push({
      what: `${r.idle.n} idle \`bash\` sessions: under 100 KB each`,
      measured: `${f0(ours.perSessionKb.median)} KB per session, ${f0(ours.threadsAfter.median)} OS threads, all started in ${f0(ours.startMs.median)} ms`,
      ratio: `${f2(ours.perSessionKb.median / 100)} of the budget`,
      ok: ours.perSessionKb.median < 100,
    })
  }
  for (const [key, where] of [
    ['echo', ''],
    ['echo-1cpu', ', one CPU'],
  ]) {
    if (!r[key]) continue
    const rows = byImpl(r[key].rows)
    for (const p of ['p50', 'p99']) {
      const ratio = rows.ptypilot[p].median / rows['node-pty'][p].median
      t.push({
        what: `echo round trip ${p}${where}: no worse than node-pty`,
        measured: `${f0(rows.ptypilot[p].median)} vs ${f0(rows['node-pty'][p].median)} µs`,
        ratio: `${f2(ratio)}× (≤ 1 is met)`,
        ok: ratio <= 1,
      })
    }
  }
  for (const [key, where] of [
    ['spawn', ''],
    ['spawn-1cpu', ', one CPU'],
  ]) {
    if (!r[key]) continue
    const rows = byImpl(r[key].rows)
    const ratio = rows.ptypilot.rate.median / rows['node-pty'].rate.median
    t.push({
      what: `spawn-to-exit rate of \`true\`${where}: ≥ node-pty`,
      measured: `${f0(rows.ptypilot.rate.median)} vs ${f0(rows['node-pty'].rate.median)} /s`,
      ratio: `${f2(ratio)}×`,
      ok: ratio >= 1,
    })
  }
  if (r.runtimes) {
    for (const [name, floor] of [['bun', 0.8], ['deno', 0.5]]) {
      const row = r.runtimes.rows.find((x) => x.runtime === name)
      const node = r.runtimes.rows.find((x) => x.runtime === 'node24')
      if (!row || !node) continue
      t.push({
        what: `throughput to an onData listener under ${name === 'bun' ? 'Bun' : 'Deno'} ${row.version}: ≥ ${floor}× Node ${node.version}'s`,
        measured: `${f1(row.mibps.median)} vs ${f1(node.mibps.median)} MiB/s`,
        ratio: `${f2(row.vsNode24.median)}× (same round)`,
        ok: row.vsNode24.median >= floor,
      })
    }
  }
  if (r['sandbox-cost']) {
    const worst = r['sandbox-cost'].rows.reduce((a, row) => (row.ratio.median > a.ratio.median ? row : a))
    t.push({
      what: 'sandboxed spawn-to-exit of `true` (with the mount and IPC namespaces): at most 2.5× unsandboxed',
      measured: r['sandbox-cost'].rows.map((row) => `${row.variant} ${f2(row.ms.median)} ms`).join(', '),
      ratio: `${f2(worst.ratio.median)}× (${worst.variant})`,
      ok: worst.ratio.median <= 2.5,
    })
  }
  if (r.screen) {
    // The cost after output counts: that is when a caller looks at the screen.
    const row = r.screen.rows.find((x) => x.what === 'screen() 80×24 after one character of output')
    const again = r.screen.rows.find((x) => x.what === 'screen() 80×24, nothing new since the last call')
    const cost = row.ptypilotUs.cpu.median
    t.push({
      what: '`screen()` on 80×24 under 20 µs (CPU time per call, right after output)',
      measured: `${f1(cost)} µs CPU (${f1(row.ptypilotUs.median)} µs wall); ${f1(again.ptypilotUs.cpu.median)} µs CPU with nothing new since the last call`,
      ratio: `${f2(cost / 20)} of the budget`,
      ok: cost < 20,
    })
  }
  if (r.host) {
    const worst = r.host.rows.reduce((a, row) => (row.extra.p50.median > a.extra.p50.median ? row : a))
    const cost = worst.extra.p50.median
    t.push({
      what: 'isolated host: extra latency per tool call p50 under 1 ms (fetch and apply)',
      measured: r.host.rows.map((row) => `${row.op} ${f0(row.extra.p50.median)} µs (p99 ${f0(row.extra.p99.median)} µs)`).join(', '),
      ratio: `${f2(cost / 1000)} of the budget`,
      ok: cost < 1000,
    })
  }
  if (r.lean) {
    const x = r.lean.total
    t.push({
      what: 'lean screens: at most 35 % of the characters of full screens over multi-step agent sessions, every screen rebuilt exactly',
      measured: `${x.lean} of ${x.full} characters (${r.lean.rows.map((row) => `${row.session} ${f0((100 * row.lean) / row.full)} %`).join(', ')})`,
      ratio: `${f1((100 * x.lean) / x.full)} %`,
      ok: x.lean <= 0.35 * x.full,
    })
  }
  if (r['agent-tasks']) {
    const x = r['agent-tasks']
    const ours = agentTotals(x.rows.filter((y) => y.server === 'ptypilot'))
    const peerRows = x.rows.filter((y) => y.server === 'desktop-commander')
    if (ours.runs > 0) t.push({
      what: 'agent tasks over MCP: every task succeeds',
      measured: `ptypilot ${ours.ok}/${ours.runs} runs${peerRows.length ? `; ${DC_LABEL} ${agentTotals(peerRows).ok}/${agentTotals(peerRows).runs}` : ''}`,
      ratio: '',
      ok: ours.ok === ours.runs,
    })
    if (ours.runs > 0 && peerRows.length) {
      const peer = agentTotals(peerRows)
      t.push({
        what: `agent tasks over MCP: total wall time ≤ ⅓ of ${DC_LABEL}'s (sum of the per-task medians)`,
        measured: `${f0(ours.ms)} vs ${f0(peer.ms)} ms`,
        ratio: `${f2(ours.ms / peer.ms)}× (≤ 0.33 is met)`,
        ok: ours.ms * 3 <= peer.ms,
      })
      t.push({
        what: `agent tasks over MCP: no more tool calls than ${DC_LABEL}`,
        measured: `${f0(ours.calls)} vs ${f0(peer.calls)} calls`,
        ratio: `${f2(ours.calls / peer.calls)}×`,
        ok: ours.calls <= peer.calls,
      })
    }
    const unsandboxed = agentTotals(x.rows.filter((y) => y.server === 'ptypilot-unsandboxed'))
    if (ours.runs > 0 && unsandboxed.runs > 0) t.push({
      what: 'agent tasks over MCP: in the default sandbox within 10 % of the time without it (sum of the per-task medians, same run)',
      measured: `${f0(ours.ms)} vs ${f0(unsandboxed.ms)} ms`,
      ratio: `${f2(ours.ms / unsandboxed.ms)}× (≤ 1.10 is met)`,
      ok: ours.ms <= 1.1 * unsandboxed.ms,
    })
    if (ours.runs > 0) t.push({
      what: 'agent tasks over MCP: every step waiting for a prompt ends within 30 ms of the prompt',
      measured: `worst ${ours.maxLatency === null ? '–' : f1(ours.maxLatency)} ms over ${x.rows.filter((y) => y.server === 'ptypilot' && y.promptLatency).reduce((a, y) => a + y.promptLatency.n, 0)} steps`,
      ratio: '',
      ok: ours.maxLatency !== null && ours.maxLatency <= 30,
    })
  }
  if (r['input-wait']) {
    const x = r['input-wait']
    const worst = x.rows.reduce((a, row) => (row.ours.p95 > a.ours.p95 ? row : a))
    t.push({
      what: 'input wait: detection latency p95 ≤ 30 ms from the moment the program blocks, every kind',
      measured: x.rows.map((row) => `${row.id} ${f1(row.ours.p95)}`).join(', ') + ' ms',
      ratio: `worst ${f2(worst.ours.p95 / 30)} of the budget`,
      ok: worst.ours.p95 <= 30 && x.rows.every((row) => row.ours.wrongKind === 0 && row.ours.early === 0),
    })
    const ours = x.silent.reduce((a, row) => a + row.ourReports, 0)
    const timer = x.silent.reduce((a, row) => a + row.timerReports, 0)
    t.push({
      what: `input wait: 0 false reports over silent work (a ${x.quietMs} ms quiet timer reports every pause)`,
      measured: `ptypilot ${ours}, timer ${timer} over ${x.silent.length} programs`,
      ratio: '',
      ok: ours === 0,
    })
    const idle = Math.max(...x.cpu.map((row) => row.idleMsPerSec))
    t.push({
      what: 'input wait: no cost to sessions nobody waits on (≤ 0.1 ms CPU per s per session)',
      measured: `${f2(idle)} ms CPU per s per session with nobody waiting; ${x.cpu.map((row) => `${row.program} ${f2(row.waitingMsPerSec)}`).join(', ')} with a wait pending`,
      ratio: '',
      ok: idle <= 0.1,
    })
  }
  if (r.memory) {
    const rows = byImpl(r.memory.rows)
    const ratio = rows.ptypilot.perSessionKb.median / rows['node-pty+xterm'].perSessionKb.median
    t.push({
      what: `idle session memory (${r.memory.n} sessions): ≤ ½ node-pty + @xterm/headless`,
      measured: `${f0(rows.ptypilot.perSessionKb.median)} vs ${f0(rows['node-pty+xterm'].perSessionKb.median)} KB`,
      ratio: `${f2(ratio)}× (≤ 0.5 is met)`,
      ok: ratio <= 0.5,
    })
  }
  if (r['lost-tail']) {
    const rows = byImpl(r['lost-tail'].rows)
    t.push({
      what: `zero lost tails at exit in ${rows.ptypilot.runs} runs`,
      measured: `ptypilot ${rows.ptypilot.lost}/${rows.ptypilot.runs}; node-pty ${rows['node-pty'].lost}/${rows['node-pty'].runs}`,
      ratio: '',
      ok: rows.ptypilot.lost === 0,
    })
  }
  return t
}

/** `ptypilot/node-pty`: throughput and echo no worse than node-pty, no lost tail. */
function adapterTargets(r) {
  const t = []
  const name = 'ptypilot/node-pty'
  if (r.throughput) {
    for (const w of [...new Set(r.throughput.rows.map((x) => x.workload))]) {
      const rows = byImpl(r.throughput.rows.filter((x) => x.workload === w))
      if (!rows[name]) continue
      const ratio = rows[name].mbps.median / rows['node-pty'].mbps.median
      t.push({
        what: `${name}, throughput, ${rows[name].title}: ≥ node-pty`,
        measured: `${f1(rows[name].mbps.median)} vs ${f1(rows['node-pty'].mbps.median)} MiB/s, lost ${rows[name].lost}/${rows[name].runs}`,
        ratio: `${f2(ratio)}×`,
        ok: ratio >= 1 && rows[name].lost === 0,
      })
    }
  }
  for (const [key, where] of [
    ['echo', ''],
    ['echo-1cpu', ', one CPU'],
  ]) {
    const rows = r[key] && byImpl(r[key].rows)
    if (!rows || !rows[name]) continue
    for (const p of ['p50', 'p99']) {
      const ratio = rows[name][p].median / rows['node-pty'][p].median
      t.push({
        what: `${name}, echo round trip ${p}${where}: no worse than node-pty`,
        measured: `${f0(rows[name][p].median)} vs ${f0(rows['node-pty'][p].median)} µs`,
        ratio: `${f2(ratio)}× (≤ 1 is met)`,
        ok: ratio <= 1,
      })
    }
  }
  const lost = r['lost-tail'] && byImpl(r['lost-tail'].rows)[name]
  if (lost) {
    t.push({
      what: `${name}: zero lost tails at exit in ${lost.runs} runs`,
      measured: `${lost.lost}/${lost.runs}`,
      ratio: '',
      ok: lost.lost === 0,
    })
  }
  return t
}

function main() {
  if (opts.render) {
    // The reports again from the raw numbers of the last full run, nothing run.
    const { info, results } = JSON.parse(fs.readFileSync(path.join(__dirname, 'results.json'), 'utf8'))
    writeReports(results, info, targetsOf(results))
    return
  }
  const positional = process.argv.slice(2).filter((a) => !a.startsWith('--'))
  const named = [...positional, ...(opts.only ? String(opts.only).split(',') : [])]
  const only = named.length > 0 ? named : null
  const known = CASES.map((c) => c.id || c.name)
  const unknown = (only || []).filter((n) => !known.includes(n))
  if (unknown.length > 0) throw new Error(`unknown case ${unknown.join(', ')}; the cases: ${known.join(', ')}`)
  const cases = CASES.filter((c) => !only || only.includes(c.id || c.name))
  const info = machine()
  const results = []
  for (const c of cases) {
    const result = runCase(c)
    if (result) results.push(result)
  }
  const targets = targetsOf(results)
  const md = markdown(results, info, targets)
  process.stdout.write('\n' + md + '\n')
  // `--json=FILE` keeps a partial run's raw numbers (bench/diag/same-round.js
  // compares several such runs).
  if (opts.json) fs.writeFileSync(String(opts.json), JSON.stringify({ info, results, targets }, null, 2) + '\n')
  if (opts['no-write'] || QUICK || only) {
    process.stderr.write('\n(not written: partial or quick run)\n')
    return
  }
  fs.writeFileSync(path.join(__dirname, 'results.json'), JSON.stringify({ info, results, targets }, null, 2) + '\n')
  writeReports(results, info, targets)
  process.stderr.write('wrote bench/results.json\n')
}

/**
 * Writes the run into BENCHMARKS.md (between the bench:results markers: the
 * run and the targets) and bench/results.md (all of it, with the per-case
 * tables).
 */
function writeReports(results, info, targets) {
  const details = [
    '# The latest full run of `npm run bench`, case by case',
    '',
    'Written by `bench/run.js` (`npm run bench`, or `node bench/run.js --render` from',
    '`bench/results.json`); do not edit. The report is [BENCHMARKS.md](../BENCHMARKS.md).',
    '',
    markdown(results, info, targets),
  ].join('\n')
  fs.writeFileSync(path.join(__dirname, 'results.md'), details.replace(/\n+$/, '') + '\n')
  const file = path.join(ROOT, 'BENCHMARKS.md')
  const begin = '<!-- bench:results:begin -->'
  const end = '<!-- bench:results:end -->'
  const doc = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : `# Benchmarks\n\n${begin}\n${end}\n`
  const i = doc.indexOf(begin)
  const j = doc.indexOf(end)
  if (i < 0 || j < i) throw new Error('BENCHMARKS.md lacks the bench:results markers')
  fs.writeFileSync(file, doc.slice(0, i + begin.length) + '\n' + reportSection(results, info, targets) + '\n' + doc.slice(j))
  process.stderr.write('\nwrote BENCHMARKS.md and bench/results.md\n')
}
main()
