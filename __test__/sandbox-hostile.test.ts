// The sandbox against what an attacker tried from inside it: daemons reached through their Unix
// sockets (tmux, ssh-agent, a socket server), other processes changed without a signal
// (prlimit, renice, taskset, ionice, chrt), metadata of outside files (chmod, chown, touch -d,
// setfattr), kernel objects shared with the outside (keyrings, SysV IPC, POSIX message queues),
// other terminals (a second pty: a fake prompt, stty, TIOCSETD), an unbounded TMPDIR, and `.git`
// (configuration and hooks planted through the git tool). Each check runs twice, with the sandbox
// off (it must find the hole open: the check can fail) and in it (closed); the process-level ones
// run as root and as nobody (fixtures/sandbox-hostile.cjs, through setpriv).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, chmodSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PtySession, ToolRegistry, exec, gitTool, terminalTools } from '../index.js'

const ROOT = process.getuid?.() === 0
const root = join(__dirname, '..')
const fixture = join(__dirname, 'fixtures', 'sandbox-hostile.cjs')
/** Outside the workspace and outside /tmp (which the sandbox replaces): where the daemons live. */
const outsideParent = existsSync('/var/lib') ? '/var/lib' : tmpdir()
const base = mkdtempSync(join(tmpdir(), 'ptypilot-hostile-'))
const outside = mkdtempSync(join(outsideParent, 'ptypilot-hostile-'))
const ws = join(base, 'ws')

/** Runs the hostile checks as the user `setpriv` args name (none: this process's user). */
function hostile(as: string[], pkg: string, out: string, work: string): Record<string, [boolean, boolean] | string> {
  const cmd = as.length ? 'setpriv' : process.execPath
  const args = as.length ? [...as, process.execPath, fixture, pkg, out, work] : [fixture, pkg, out, work]
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 240_000, env: { ...process.env, TMUX: '' } })
  const last = r.stdout.trim().split('\n').pop() ?? ''
  try {
    return JSON.parse(last)
  } catch {
    throw new Error(`the hostile checks printed no result (status ${r.status}): ${r.stdout}\n${r.stderr}`)
  }
}

/** Each check: open with the sandbox off, closed in it; a check may only skip for a missing program. */
function expectClosed(results: Record<string, [boolean, boolean] | string>) {
  expect(Object.keys(results).length).toBeGreaterThan(20)
  const wrong: string[] = []
  for (const [name, r] of Object.entries(results)) {
    if (typeof r === 'string') {
      if (!r.startsWith('skipped')) wrong.push(`${name}: ${r}`)
    } else if (!(r[0] === true && r[1] === false)) {
      wrong.push(`${name}: open with the sandbox off ${r[0]}, in it ${r[1]}`)
    }
  }
  expect(wrong).toEqual([])
}

beforeAll(() => {
  mkdirSync(ws, { recursive: true })
  const git = (...args: string[]) => execFileSync('git', args, { cwd: ws, stdio: 'pipe' })
  git('init', '-q')
  git('config', 'user.email', 'test@example.com')
  git('config', 'user.name', 'test')
  writeFileSync(join(ws, 'a.txt'), 'one\ntwo\n')
  git('add', 'a.txt')
  git('commit', '-qm', 'first')
})

afterAll(() => {
  rmSync(base, { recursive: true, force: true })
  rmSync(outside, { recursive: true, force: true })
})

describe('classes 1, 3, 4, 5, 6 and 8: open with the sandbox off, closed in it', () => {
  it(`as ${ROOT ? 'root' : 'this user'}`, () => {
    expectClosed(hostile([], join(root, 'index.js'), outside, ws))
  }, 300_000)

  // The package is copied where nobody can read it; the outside side (daemons, processes, files,
  // keys, IPC objects, the pty) is nobody's own, so the holes are open to nobody without a sandbox.
  it.skipIf(!ROOT)('as an unprivileged user (nobody, through a user namespace)', () => {
    const home = mkdtempSync(join(tmpdir(), 'ptypilot-hostile-nobody-'))
    const out = mkdtempSync(join(outsideParent, 'ptypilot-hostile-nobody-'))
    try {
      for (const f of ['index.js', 'package.json', 'lib', ...readdirSync(root).filter((f) => /^ptypilot\..*\.node$/.test(f))]) {
        cpSync(join(root, f), join(home, 'pkg', f), { recursive: true })
      }
      const repo = join(home, 'ws')
      mkdirSync(repo)
      execFileSync('chown', ['-R', '65534:65534', home, out])
      chmodSync(home, 0o755)
      const results = hostile(['--reuid=65534', '--regid=65534', '--clear-groups', '--reset-env'], join(home, 'pkg', 'index.js'), out, repo)
      expectClosed(results)
    } finally {
      rmSync(home, { recursive: true, force: true })
      rmSync(out, { recursive: true, force: true })
    }
  }, 300_000)
})
