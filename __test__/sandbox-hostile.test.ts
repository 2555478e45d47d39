// The sandbox against what an attacker tried from inside it: daemons reached through their Unix
// sockets (tmux, ssh-agent, a socket server; started before the program or after it, bound by a
// relative path, renamed, hard-linked, in another network namespace, behind a symlink in the
// workspace, datagram servers reached with sendto and sendmsg), other processes changed without a signal
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

/**
 * Each check: open with the sandbox off, closed in it (the Unix-socket ones also with the line the
 * sandbox told); those named 'works: …' work both ways. A check may only skip for a missing program.
 */
function expectClosed(results: Record<string, [boolean, boolean] | string>) {
  expect(Object.keys(results).length).toBeGreaterThan(35)
  const wrong: string[] = []
  for (const [name, r] of Object.entries(results)) {
    const want = name.startsWith('works: ') ? [true, true] : [true, false]
    if (typeof r === 'string') {
      if (!r.startsWith('skipped')) wrong.push(`${name}: ${r}`)
    } else if (!(r[0] === want[0] && r[1] === want[1])) {
      wrong.push(`${name}: with the sandbox off ${r[0]}, in it ${r[1]} (want ${want.join(', ')})`)
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

describe('class 2: .git, one rule for every tool', () => {
  it("the git tool cannot write .git/config (--output) or plant a hook; git add -p, commit and stash work through pty_start and pty_exec", async () => {
    const config = readFileSync(join(ws, '.git', 'config'), 'utf8')
    const tools = new ToolRegistry({ cwd: ws, sandbox: 'workspace-write' })
    tools.register(gitTool())
    const log = await tools.respond('git', { action: 'spawn', command: 'log', args: ['--output=.git/config', '--format=[core]%n  fsmonitor = touch planted'] })
    expect(log.text).toMatch(/\.git\/config.*(Read-only file system|Device or resource busy)/s)
    expect(readFileSync(join(ws, '.git', 'config'), 'utf8')).toBe(config)
    await tools.abortAll()
    // The same with the sandbox off: --output writes .git/config (so the check can fail).
    const open = new ToolRegistry({ cwd: ws })
    open.register(gitTool())
    await open.respond('git', { action: 'spawn', command: 'log', args: ['--output=.git/config', '--format=%s'] })
    expect(readFileSync(join(ws, '.git', 'config'), 'utf8')).not.toBe(config)
    writeFileSync(join(ws, '.git', 'config'), config)
    await open.abortAll()

    writeFileSync(join(ws, 'a.txt'), 'one\ntwo, changed\n')
    const r = new ToolRegistry()
    r.register(terminalTools({ cwd: ws, sandbox: 'workspace-write' }))
    await r.respond('pty_start', { command: 'git', args: ['add', '-p'] })
    const asked = await r.respond('pty_read', { id: 'pty1', wait_ms: 10_000 })
    expect(asked.text).toMatch(/Stage this hunk/)
    await r.respond('pty_send', { id: 'pty1', input: 'y<enter>', wait_ms: 10_000 })
    await expect.poll(() => execFileSync('git', ['diff', '--cached', '--name-only'], { cwd: ws, encoding: 'utf8' }), { timeout: 10_000 }).toBe('a.txt\n')
    const done = await r.respond('pty_exec', {
      command: 'sh',
      args: ['-c', "git commit -qm staged && { GIT_SEQUENCE_EDITOR=true git rebase -q -i -x 'echo \"#!/bin/sh\" > .git/hooks/post-commit' HEAD~1; " +
        'git rebase --abort; } ; echo three >> a.txt && git stash -q && git stash pop -q && git log --oneline | wc -l'],
    })
    expect(done.text).toMatch(/^2$/m)
    expect(done.text).toMatch(/post-commit: Read-only file system/)
    expect(existsSync(join(ws, '.git', 'hooks', 'post-commit'))).toBe(false)
    expect(execFileSync('git', ['status', '--short'], { cwd: ws, encoding: 'utf8' })).toBe(' M a.txt\n')
    await r.abortAll()
  }, 60_000)

  it("readOnly: ['.git'] keeps .git wholly read-only; a commondir made in the sandbox is gone when it ends", async () => {
    const strict = await exec({ command: 'sh', args: ['-c', 'git add a.txt'], cwd: ws, sandbox: { mode: 'workspace-write', readOnly: ['.git'] } })
    expect(strict.output).toMatch(/index\.lock.*Read-only file system/)
    const planted = await exec({ command: 'sh', args: ['-c', 'echo /elsewhere > .git/commondir && cat .git/commondir'], cwd: ws, sandbox: 'workspace-write' })
    expect(planted.output).toContain('/elsewhere')
    // Removed with the session's temporary folder, just after the exit is published.
    await expect.poll(() => existsSync(join(ws, '.git', 'commondir'))).toBe(false)
  })
})

describe("ptypilot's own features in the sandbox", () => {
  const WRITE = 'workspace-write' as const

  it('input-wait detection, exit codes, Ctrl+C and the signal that ended a program', async () => {
    const s = PtySession.spawn({ command: 'python3', args: ['-c', 'import sys; input("name? "); sys.exit(3)'], cwd: ws, sandbox: WRITE })
    const wait = await s.waitForInput({ timeoutMs: 15_000 })
    expect(wait.reason).toBe('input')
    s.write('x\r')
    expect((await s.exited).exitCode).toBe(3)
    const c = PtySession.spawn({ command: 'sh', args: ['-c', 'echo ready; exec sleep 30'], cwd: ws, sandbox: WRITE })
    await c.waitFor('ready', { timeoutMs: 10_000 })
    await new Promise((r) => setTimeout(r, 200))
    c.sendKeys('ctrl+c')
    expect(await c.exited).toMatchObject({ exitCode: null, signal: 'SIGINT' })
  })

  it('tree kill reaches what the program started; a Shell keeps job control', async () => {
    const s = PtySession.spawn({ command: 'sh', args: ['-c', 'sleep 300 & sleep 301 & echo started; wait'], cwd: ws, sandbox: WRITE })
    await s.waitFor('started', { timeoutMs: 10_000 })
    const children = readFileSync(`/proc/${s.pid}/task/${s.pid}/children`, 'utf8').trim().split(/\s+/).map(Number)
    expect(children.length).toBe(2)
    await s.terminate({ graceMs: 500 })
    await expect.poll(() => children.filter((pid) => existsSync(`/proc/${pid}`)), { timeout: 5000 }).toEqual([])

    const { Shell } = await import('../index.js')
    const shell = new Shell({ cwd: ws, sandbox: WRITE })
    try {
      const r = await shell.run({ command: 'sleep 30 & jobs; kill %1; wait; echo job-done', timeoutMs: 15_000 })
      expect(r.output).toMatch(/\[1\]\+?\s+Running\s+sleep 30/)
      expect(r.output).toContain('job-done')
    } finally {
      await shell.close()
    }
  })
})

describe('a sandbox for a program run as another user (root starts it; node-pty uid/gid)', () => {
  it.skipIf(!ROOT)('makes the namespaces as root, then runs the program as that user', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ptypilot-hostile-runas-'))
    execFileSync('chown', ['65534:65534', dir])
    try {
      const nodePty = await import('../lib/node-pty.js')
      const term = nodePty.spawn('sh', ['-c', `id -u; echo x > f && echo wrote-f; echo y > "$TMPDIR/t" && echo wrote-tmp; echo z > ${outside}/runas; chmod 777 /etc/hostname`], { cwd: dir, uid: 65534, gid: 65534, sandbox: 'workspace-write' })
      let out = ''
      term.onData((d: string) => (out += d))
      await new Promise((r) => term.onExit(r))
      expect(out).toMatch(/^65534\r?\nwrote-f\r?\nwrote-tmp/)
      expect(out).toMatch(/runas: (Permission denied|Read-only file system)/)
      expect(out).toMatch(/hostname.*(Read-only file system|Operation not permitted)/)
      expect(existsSync(join(outside, 'runas'))).toBe(false)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('missing system support (simulated)', () => {
  // PTYPILOT_TEST_NO_NAMESPACES=1 makes the sandbox find no namespaces (a test hook, not an option),
  // as where unprivileged user namespaces are switched off.
  it("is ERR_SANDBOX_UNAVAILABLE naming it; ifUnavailable: 'warn' starts and lists what stays open", () => {
    const script = `
      const { exec, PtySession } = require(${JSON.stringify(join(root, 'index.js'))})
      exec({ command: 'true', sandbox: 'workspace-write' }).then(
        () => console.log(JSON.stringify({ refused: null })),
        async (e) => {
          const s = PtySession.spawn({ command: 'sh', args: ['-c', 'echo ran'], sandbox: { mode: 'workspace-write', ifUnavailable: 'warn' } })
          await s.exited
          console.log(JSON.stringify({ refused: [e.code, e.message], missing: s.sandbox.missing, ran: s.read().text.includes('ran') }))
        })
    `
    const run = spawnSync(process.execPath, ['-e', script], { cwd: ws, encoding: 'utf8', timeout: 30_000, env: { ...process.env, PTYPILOT_TEST_NO_NAMESPACES: '1' } })
    const out = JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}')
    expect(out.refused?.[0], run.stderr).toBe('ERR_SANDBOX_UNAVAILABLE')
    expect(out.refused[1]).toContain('PTYPILOT_TEST_NO_NAMESPACES')
    expect(out.missing.join('\n')).toMatch(/Unix sockets outside the writable roots stay reachable/)
    expect(out.ran).toBe(true)
  })
})
