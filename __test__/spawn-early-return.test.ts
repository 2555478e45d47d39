// Spawning never depends on when `posix_spawn` returns. glibc's waits for the
// child's `execve` (its `clone(CLONE_VM | CLONE_VFORK)`), but one that runs
// that clone as a `fork` (qemu-user's), a tracer or another libc may return
// before the child has run its file actions, and cannot report why an exec
// failed. An LD_PRELOAD shim (fixtures/late-spawn.c, built here with `cc`)
// gives a Node process such a `posix_spawn`, slowed down (each file action
// 30 ms late) so that every window is hit every time:
//
// - if the child let go of the terminal (closed what it inherited) before it
//   had opened its own while the parent had dropped its copy, the master
//   would see the slave closed, the session would end its reading and the
//   program would block on a full terminal;
// - a program that cannot start would seem to start and exit with 127.
import { describe, it, expect, beforeAll } from 'vitest'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, existsSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { userModeEmulator } from './helpers'

const here = fileURLToPath(new URL('.', import.meta.url))
const root = join(here, '..')

/** Why these tests cannot run here, or null when they can. */
function unavailable(): string | null {
  if (process.platform !== 'linux') return 'Linux only: the shim replaces glibc posix_spawn'
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined
  if (!report?.header?.glibcVersionRuntime) return 'glibc only: ptypilot uses posix_spawn with glibc'
  if (spawnSync('cc', ['--version']).status !== 0) return 'no C compiler (cc) to build the LD_PRELOAD shim'
  // There the real thing runs instead (every spawn in the suite), and the
  // host's cc would build the shim for the host's architecture.
  const emulator = userModeEmulator()
  if (emulator) return `${emulator}'s posix_spawn returns early itself; the shim imitates it natively`
  return null
}

const why = unavailable()
let dir = ''
let shim = ''

beforeAll(() => {
  if (why) return
  dir = mkdtempSync(join(tmpdir(), 'ptypilot-late-spawn-'))
  shim = join(dir, 'late-spawn.so')
  const cc = spawnSync('cc', ['-shared', '-fPIC', '-o', shim, join(here, 'fixtures', 'late-spawn.c')], {
    encoding: 'utf8',
  })
  expect(cc.stderr).toBe('')
  expect(cc.status).toBe(0)
})

/**
 * Runs `body` (an async function's body, with `PtySession` and `report(x)`)
 * in a Node process with the shim; returns what it reported and the programs
 * the shim started.
 */
function underShim(name: string, body: string, env: Record<string, string> = {}) {
  const log = join(dir, `${name}.log`)
  const script = `
    const { PtySession } = require(${JSON.stringify(root)})
    const report = (x) => console.log(JSON.stringify(x))
    ;(async () => { ${body} })().catch((e) => { report({ thrown: String(e) }); process.exit(4) })
  `
  const child = spawnSync(process.execPath, ['-e', script], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, ...env, LD_PRELOAD: shim, LATE_SPAWN_LOG: log },
  })
  return {
    reports: child.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line)),
    status: child.status,
    stderr: child.stderr,
    spawned: existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [],
  }
}

// Three runs of `seq 1 5000`, each given 15 s (it takes about 0.2 s); a
// session that stopped reading never ends.
const SEQ_RUNS = `
  const expected = Array.from({ length: 5000 }, (_, i) => (i + 1) + '\\r\\n').join('')
  for (let i = 0; i < 3; i++) {
    const chunks = []
    const timer = setTimeout(() => {
      report({ run: i, stuck: true, got: chunks.join('').length })
      process.exit(3)
    }, 15000)
    const exit = await new PtySession().start({ command: 'seq', args: ['1', '5000'] }, (c) => chunks.push(c))
    clearTimeout(timer)
    const text = chunks.join('')
    report({ run: i, exitCode: exit.exitCode, complete: text === expected, got: text.length })
  }
`

function seqLength(): number {
  let n = 0
  for (let i = 1; i <= 5000; i++) n += String(i).length + 2
  return n
}
const threeComplete = [0, 1, 2].map((run) => ({ run, exitCode: 0, complete: true, got: seqLength() }))

describe('a posix_spawn that returns before the child has its terminal', () => {
  it('and reports exec errors: ptypilot keeps using it and loses nothing (three runs of seq 1 5000)', (ctx) => {
    if (why) ctx.skip(why)
    const run = underShim('checked', SEQ_RUNS, { LATE_SPAWN_CHECK: '1' })
    // Through the shim: the check of `/` (which failed, as it must), then the three.
    expect(run.spawned.filter((p) => p.endsWith('/seq')).length).toBeGreaterThanOrEqual(1)
    expect(run.reports).toEqual(threeComplete)
    expect(run.spawned.filter((p) => p.endsWith('/seq')).length).toBe(3)
    expect(run.status).toBe(0)
  })

  it('and cannot report exec errors: ptypilot starts programs with its own child, which does', (ctx) => {
    if (why) ctx.skip(why)
    const missing = join(dir, 'script')
    writeFileSync(missing, '#!/no/such/interpreter\necho hi\n', { mode: 0o755 })
    const run = underShim(
      'unchecked',
      `${SEQ_RUNS}
      const err = await new PtySession().start({ command: ${JSON.stringify(missing)} }).then(
        (exit) => ({ started: true, exit }),
        (e) => ({ code: e.code, errnoName: e.errnoName, path: e.path }),
      )
      report(err)`,
    )
    expect(run.reports).toEqual([...threeComplete, { code: 'ERR_SPAWN', errnoName: 'ENOENT', path: missing }])
    // The shim saw only ptypilot's check: `/`, which it "started".
    expect(run.spawned).toEqual(['/'])
    expect(run.status).toBe(0)
  })
})
