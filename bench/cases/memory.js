'use strict'
// Case 5: memory of idle interactive sessions (and, as the `idle` case, of
// 1000 idle `bash` sessions).
//
// Without --impl it is the driver: for each implementation it starts fresh
// child processes (`node --expose-gc memory.js --impl=X`), alternating, and
// reports the median RSS growth per session. A child loads its library, runs
// one session to the end (so lazily created state — runtimes, thread pools,
// JIT — is in the baseline), collects garbage and reads RSS; then starts N
// interactive shells, waits until every one has printed its prompt (and, for
// xterm.js, until it parsed it), lets them idle, collects garbage and reads
// RSS again. It also counts the process's OS threads (`Threads:` in
// /proc/self/status) before and after, and the time from the first spawn
// until every prompt had arrived.
//
//   node bench/cases/memory.js [--n=500] [--repeats=2] [--shell=sh|bash] [--case=memory]
//
// `--shell=bash` runs `bash --norc --noprofile` (interactive: it is on a
// terminal), so the prompt does not depend on the machine's startup files.

const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const { performance } = require('node:perf_hooks')
const { ALL } = require('../lib/impls')
const { summary, sleep, collect, emit, log, argv } = require('../lib/stats')

const opts = argv()
const N = Number(opts.n || 500)
const SHELL = opts.shell || 'sh'
const SHELL_ARGS = SHELL === 'bash' ? ['--norc', '--noprofile'] : []

/** The soft limit on open descriptors (each session holds up to 3). */
function fdLimit() {
  const m = /^Max open files\s+(\d+|unlimited)/m.exec(fs.readFileSync('/proc/self/limits', 'utf8'))
  return !m || m[1] === 'unlimited' ? Infinity : Number(m[1])
}

function rssKb() {
  // VmRSS from /proc is what the kernel charges; memoryUsage().rss is the same number.
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'))
  return Number(m[1])
}

function threads() {
  return Number(/Threads:\s+(\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1])
}

async function child(impl) {
  // Baseline: the library loaded and one session run to the end.
  const warm = impl.spawn({ command: 'sh', args: ['-c', 'echo warm'] }, () => {})
  await warm.exited
  if (warm.dispose) warm.dispose()
  await sleep(200)
  collect()
  const before = rssKb()
  const threadsBefore = threads()
  const sessions = []
  const prompts = []
  const t0 = performance.now()
  for (let i = 0; i < N; i++) {
    let seen
    prompts.push(new Promise((r) => (seen = r)))
    sessions.push(impl.spawn({ command: SHELL, args: SHELL_ARGS }, () => seen()))
  }
  await Promise.all(prompts)
  const startMs = performance.now() - t0
  // xterm.js parses asynchronously: wait until it parsed the prompts (ptypilot
  // processed them before they reached the callback). Reading screens here
  // would measure the JS garbage of the reads, not the sessions.
  for (const s of sessions) if (s.term) await new Promise((r) => s.term.write('', r))
  await sleep(500)
  collect()
  await sleep(100)
  collect()
  const after = rssKb()
  const result = {
    impl: impl.name,
    n: N,
    beforeKb: before,
    afterKb: after,
    perSessionKb: (after - before) / N,
    threadsBefore,
    threadsAfter: threads(),
    startMs,
  }
  for (const s of sessions) s.kill()
  await Promise.all(sessions.map((s) => s.exited))
  return result
}

function driver() {
  if (fdLimit() < 4 * N + 256) {
    throw new Error(`${N} sessions need about ${4 * N + 256} open files; raise the limit (ulimit -n) or pass --n`)
  }
  const repeats = Number(opts.repeats || 2)
  const names = (opts.impls || 'ptypilot,node-pty+xterm,node-pty,ruspty').split(',')
  const per = new Map(names.map((n) => [n, []]))
  for (let r = 0; r < repeats; r++) {
    for (const name of r % 2 ? [...names].reverse() : names) {
      const out = spawnSync(
        process.execPath,
        ['--expose-gc', __filename, `--impl=${name}`, `--n=${N}`, `--shell=${SHELL}`],
        { encoding: 'utf8', timeout: 300_000 },
      )
      const line = out.stdout.split('\n').find((l) => l.startsWith('@@RESULT '))
      if (!line) throw new Error(`memory child for ${name} failed: ${out.stderr || out.error}`)
      const res = JSON.parse(line.slice(9))
      per.get(name).push(res)
      log(
        `${name.padEnd(15)} ${res.perSessionKb.toFixed(0)} KB/session (${res.beforeKb} → ${res.afterKb} KB), ` +
          `threads ${res.threadsBefore} → ${res.threadsAfter}, all started in ${res.startMs.toFixed(0)} ms`,
      )
    }
  }
  const rows = names.map((name) => ({
    impl: name,
    perSessionKb: summary(per.get(name).map((r) => r.perSessionKb)),
    baselineKb: summary(per.get(name).map((r) => r.beforeKb)).median,
    threadsBefore: summary(per.get(name).map((r) => r.threadsBefore)).median,
    threadsAfter: summary(per.get(name).map((r) => r.threadsAfter)),
    startMs: summary(per.get(name).map((r) => r.startMs)),
  }))
  emit({ case: opts.case || 'memory', n: N, shell: SHELL, repeats, rows })
}

if (opts.impl) {
  child(ALL[opts.impl]).then(
    (res) => {
      emit(res)
      process.exit(0)
    },
    (err) => {
      console.error(err)
      process.exit(1)
    },
  )
} else {
  driver()
}
