// Spawning never depends on when `posix_spawn` returns. glibc's waits for the
// child's `execve` (its `clone(CLONE_VM | CLONE_VFORK)`), but one that runs
// that clone as a `fork` (qemu-user), a tracer or another libc may return
// before the child has run its file actions. If the child lets go of the
// terminal (closes the descriptors it inherited) before it has opened its own
// while the parent has already dropped its copy, the master sees the slave
// closed, the session ends its reading and the program blocks on a full
// terminal. An LD_PRELOAD shim (fixtures/late-spawn.c, built here with `cc`)
// gives Node such a `posix_spawn`, slowed down so that the window is hit
// every time.
import { describe, it, expect } from 'vitest'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = fileURLToPath(new URL('.', import.meta.url))
const root = join(here, '..')

/** Why this test cannot run here, or null when it can. */
function unavailable(): string | null {
  if (process.platform !== 'linux') return 'Linux only: the shim replaces glibc posix_spawn'
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined
  if (!report?.header?.glibcVersionRuntime) return 'glibc only: ptypilot uses posix_spawn with glibc'
  if (spawnSync('cc', ['--version']).status !== 0) return 'no C compiler (cc) to build the LD_PRELOAD shim'
  return null
}

describe('a posix_spawn that returns before the child has its terminal', () => {
  it('loses nothing: three runs of seq 1 5000 complete, with every line', (ctx) => {
    const why = unavailable()
    if (why) ctx.skip(why)
    const dir = mkdtempSync(join(tmpdir(), 'ptypilot-late-spawn-'))
    const shim = join(dir, 'late-spawn.so')
    const log = join(dir, 'spawns.log')
    const cc = spawnSync('cc', ['-shared', '-fPIC', '-o', shim, join(here, 'fixtures', 'late-spawn.c')], {
      encoding: 'utf8',
    })
    expect(cc.stderr).toBe('')
    expect(cc.status).toBe(0)
    // Each run must finish within 15 s (it takes about 0.2 s: five slowed-down
    // file actions); a session that stopped reading never does.
    const script = `
      const { PtySession } = require(${JSON.stringify(root)})
      const expected = Array.from({ length: 5000 }, (_, i) => (i + 1) + '\\r\\n').join('')
      ;(async () => {
        for (let i = 0; i < 3; i++) {
          const chunks = []
          const session = new PtySession()
          const timer = setTimeout(() => {
            console.log(JSON.stringify({ run: i, stuck: true, got: chunks.join('').length }))
            process.exit(3)
          }, 15000)
          const exit = await session.start({ command: 'seq', args: ['1', '5000'] }, (c) => chunks.push(c))
          clearTimeout(timer)
          const text = chunks.join('')
          console.log(JSON.stringify({ run: i, exitCode: exit.exitCode, complete: text === expected, got: text.length }))
        }
      })()
    `
    const child = spawnSync(process.execPath, ['-e', script], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, LD_PRELOAD: shim, LATE_SPAWN_LOG: log },
    })
    const runs = child.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
    const spawned = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').length : 0)
    // The shim was in the path.
    expect(spawned()).toBeGreaterThanOrEqual(1)
    expect(runs).toEqual([0, 1, 2].map((run) => ({ run, exitCode: 0, complete: true, got: expectedLength() })))
    // Every session's program went through it.
    expect(spawned()).toBe(3)
    expect(child.status).toBe(0)
  })
})

function expectedLength(): number {
  let n = 0
  for (let i = 1; i <= 5000; i++) n += String(i).length + 2
  return n
}
