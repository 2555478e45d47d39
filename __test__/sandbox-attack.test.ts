// The sandbox against the leaks an outside attack on round two found (notes of that attack:
// each one tried through `ptypilot mcp` as root and as nobody). Each check runs twice: with the
// sandbox off it must find the hole open (so the check can fail), in it closed.
//
// - `.git` renamed away and replaced by one whose `config` sets `core.fsmonitor`: the mounts over
//   `.git/config` and `.git/hooks` move with the renamed folder, and the person's next
//   `git status` outside runs the command. Closed by binding the git folder over itself (a mount
//   point cannot be renamed).
// - A terminal device outside `/dev/pts` (a serial line, a virtual console) opened read-only, as
//   root may anywhere, and its modes or size changed by ioctl (`stty -F`). Closed by Landlock's
//   device-ioctl right, granted only on the terminal's own devices.
// - Root raising its own claim on the machine past every other process: real-time scheduling
//   (`chrt -f`) or a negative nice, which a busy loop turns into starving the whole machine, and
//   memory locked past `RLIMIT_MEMLOCK`, which cannot be swapped out (the OOM killer then takes
//   processes outside). Closed by dropping `CAP_SYS_NICE`, `CAP_IPC_LOCK`, `CAP_SYS_RESOURCE` and
//   `CAP_LEASE` too.
// - Unix sockets bound and removed outside while sandboxed programs start (what test suites and
//   language servers do): a socket listed when the sandbox was planned and gone when its cover was
//   to be mounted failed the start with ERR_SANDBOX_UNAVAILABLE (ENOENT), so any program, a
//   sandboxed one in another workspace included, could keep the sandbox from starting. Closed by
//   taking a socket that is gone as nothing to cover.
// - The private package-cache folder, writable in the sandbox, read and written by ptypilot's own
//   (unconfined) process at the next start: its `cargo` folder made a symlink to another
//   repository's `.git` had that start remove the repository's `config`; its `config.toml` made a
//   symlink had the person's Cargo configuration written over the file it named. Closed by
//   following no symlink there (`O_NOFOLLOW`, `unlinkat`, `openat` with `O_EXCL`).
// - A virtual console or a serial line opened for reading, as root may: whatever is typed there
//   (a password at a console login) goes to the sandboxed reader instead. Closed by a `/dev` of
//   the sandbox's own, holding only the devices that discard or produce bytes and its terminal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PtySession, exec } from '../index.js'

const ROOT = process.getuid?.() === 0
/** Outside the workspace and outside /tmp (which the sandbox replaces). */
const outsideParent = existsSync('/var/lib') ? '/var/lib' : tmpdir()
const base = mkdtempSync(join(tmpdir(), 'ptypilot-attack-'))
const outside = mkdtempSync(join(outsideParent, 'ptypilot-attack-'))
const ws = join(base, 'ws')
const git = (...args: string[]) => execFileSync('git', args, { cwd: ws, stdio: 'pipe', encoding: 'utf8' })

async function sh(script: string, sandbox: 'off' | 'workspace-write') {
  const r = await exec({ command: 'sh', args: ['-c', script], cwd: ws, sandbox, timeoutMs: 20_000 })
  return { code: r.exitCode, output: r.output }
}

beforeAll(() => {
  mkdirSync(ws, { recursive: true })
  git('init', '-q')
  git('config', 'user.email', 'test@example.com')
  git('config', 'user.name', 'test')
  writeFileSync(join(ws, 'a.txt'), 'one\n')
  git('add', 'a.txt')
  git('commit', '-qm', 'first')
})

afterAll(() => {
  rmSync(base, { recursive: true, force: true })
  rmSync(outside, { recursive: true, force: true })
})

describe('.git renamed away and replaced', () => {
  // Moves .git aside, makes a new one with the history and a config that runs a command, then the
  // person runs `git status` outside. The old .git is put back afterwards.
  async function plant(sandbox: 'off' | 'workspace-write', marker: string) {
    const r = await sh(
      'mv .git .git-old && mkdir .git && cp -a .git-old/HEAD .git-old/objects .git-old/refs .git/ && ' +
        `printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = touch ${marker}\\n' > .git/config && echo planted`,
      sandbox,
    )
    spawnSync('git', ['status'], { cwd: ws, stdio: 'pipe' })
    const ran = existsSync(marker)
    if (existsSync(join(ws, '.git-old'))) {
      rmSync(join(ws, '.git'), { recursive: true, force: true })
      execFileSync('mv', [join(ws, '.git-old'), join(ws, '.git')])
    }
    return { ...r, ran }
  }

  it('open with the sandbox off, refused in it (the git folder cannot be moved)', async () => {
    const open = await plant('off', join(outside, 'fsmonitor-off'))
    expect(open.output).toContain('planted')
    expect(open.ran).toBe(true)

    const closed = await plant('workspace-write', join(outside, 'fsmonitor-on'))
    expect(closed.output).toMatch(/Device or resource busy/)
    expect(closed.output).not.toContain('planted')
    expect(closed.ran).toBe(false)
    // The repository is intact and still records in the sandbox.
    const commit = await sh('echo two >> a.txt && git commit -qam second && git log --oneline | wc -l', 'workspace-write')
    expect(commit.code).toBe(0)
    expect(commit.output.trim().split('\n').pop()).toBe('2')
  }, 60_000)
})

describe('terminal devices outside /dev/pts', () => {
  // A serial line's size lives in its tty until someone sets it; stty -F opens it read-only.
  const device = ['/dev/ttyS0', '/dev/ttyS1', '/dev/ttyS2', '/dev/ttyS3'].find(
    (d) => existsSync(d) && spawnSync('stty', ['-F', d, 'size'], { timeout: 5000 }).status === 0,
  )
  const size = () => execFileSync('stty', ['-F', device!, 'size'], { encoding: 'utf8', timeout: 5000 }).trim()

  it.skipIf(!ROOT || device === undefined)(
    `root cannot change another terminal's size or modes (${device ?? 'no serial line here'}; needs root)`,
    async (ctx) => {
      if (!ROOT || device === undefined) ctx.skip()
      const before = size()
      const [rows, cols] = before.split(' ')
      const other = String(Number(rows) === 41 ? 42 : 41)
      try {
        const open = await sh(`stty -F ${device} rows ${other} && echo changed`, 'off')
        expect(open.output).toContain('changed')
        expect(size()).toBe(`${other} ${cols}`)
        execFileSync('stty', ['-F', device!, 'rows', rows], { timeout: 5000 })

        const closed = await sh(`stty -F ${device} rows ${other} && echo changed; stty -F ${device} -echo && echo modes`, 'workspace-write')
        expect(closed.output).not.toContain('changed')
        expect(closed.output).not.toContain('modes')
        expect(size()).toBe(before)
        // The session's own terminal still takes every ioctl.
        const own = await sh('stty rows 30 cols 100 && stty size && stty -F /dev/tty size', 'workspace-write')
        expect(own.code).toBe(0)
        expect(own.output).toContain('30 100')
      } finally {
        execFileSync('stty', ['-F', device!, 'rows', rows, 'cols', cols], { timeout: 5000 })
      }
    },
    60_000,
  )
})

describe('root claiming the machine from inside', () => {
  // Each step prints its name when the kernel let it through: a real-time policy, a negative nice
  // (nice itself runs the command anyway; the niceness it then reports tells),
  // 64 MiB locked in memory (the lock limit is 8 MiB by default; root passes it only with
  // CAP_IPC_LOCK). Nothing runs long: the claims are taken and given back at once.
  const python = ['/usr/bin/python3', 'python3'].find((p) => spawnSync(p, ['-c', ''], { timeout: 5000 }).status === 0)
  const script =
    'chrt -f 1 true && echo realtime; [ "$(nice -n -5 nice 2>/dev/null)" = -5 ] && echo negative-nice; ' +
    `${python} -c "import ctypes,mmap; m=mmap.mmap(-1, 64<<20); l=ctypes.CDLL(None, use_errno=True); ` +
    `print('locked' if l.mlock(ctypes.c_void_p(ctypes.addressof(ctypes.c_char.from_buffer(m))), 64<<20) == 0 else 'not locked')"`

  it.skipIf(!ROOT || python === undefined)(
    'root cannot take real-time scheduling, a negative nice or locked memory past its limit (needs root)',
    async (ctx) => {
      if (!ROOT || python === undefined) ctx.skip()
      const open = await sh(script, 'off')
      expect(open.output).toContain('realtime')
      expect(open.output).toContain('negative-nice')
      expect(open.output).toMatch(/^locked/m)

      const closed = await sh(script, 'workspace-write')
      expect(closed.output).not.toContain('realtime')
      expect(closed.output).not.toContain('negative-nice')
      expect(closed.output).toContain('not locked')
      // Its own priority it may still lower.
      const lower = await sh('echo niceness $(nice -n 5 nice)', 'workspace-write')
      expect(lower.output).toContain('niceness 5')
    },
    60_000,
  )
})

describe('terminal devices read from inside', () => {
  // Opening is enough to read what is typed there; the check only opens, non-blocking.
  const devices = ['/dev/tty1', '/dev/tty2', '/dev/ttyS0', '/dev/ttyS1', '/dev/vcs1', '/dev/input/event0'].filter((d) => existsSync(d))
  const python = ['/usr/bin/python3', 'python3'].find((p) => spawnSync(p, ['-c', ''], { timeout: 5000 }).status === 0)
  const script = `${python} -c "
import os
for d in [${devices.map((d) => `'${d}'`).join(', ')}]:
    try:
        os.close(os.open(d, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)); print('opened', d)
    except OSError as e: print('refused', d, e.strerror)
"`

  it.skipIf(!ROOT || python === undefined || devices.length === 0)(
    `root cannot open another terminal for reading (${devices.join(', ') || 'none here'}; needs root)`,
    async (ctx) => {
      if (!ROOT || python === undefined || devices.length === 0) ctx.skip()
      const open = await sh(script, 'off')
      expect(open.output).toMatch(/^opened /m)

      const closed = await sh(script, 'workspace-write')
      expect(closed.output).not.toMatch(/^opened /m)
      expect(closed.output.match(/^refused /gm)?.length).toBe(devices.length)
      // What programs use of /dev still works: the terminal, the null-like devices, the links,
      // shared memory, new ptys.
      const works = await sh(
        'tty && stty size && echo x > /dev/null && head -c 4 /dev/urandom | wc -c && echo out > /dev/stdout && ' +
          'echo shm > /dev/shm/a && cat /dev/shm/a && ls /dev/fd/ | head -1 && script -qc "tty" /dev/null && echo all-good',
        'workspace-write',
      )
      expect(works.output, works.output).toContain('all-good')
      expect(works.output).toContain('/dev/console')
      expect(works.output).toMatch(/\/dev\/pts\/\d+/)
    },
    60_000,
  )
})

describe('Unix sockets that come and go outside', () => {
  it('do not make a sandboxed start fail', async () => {
    // Outside the workspace and outside /tmp: these are covered, so each start plans a cover for
    // whichever of them exist then.
    const dir = mkdtempSync(join(outsideParent, 'ptypilot-attack-churn-'))
    const churn = spawn(process.execPath, [
      '-e',
      `const net = require('node:net'); let i = 0
       const next = () => { const s = net.createServer().listen(require('node:path').join(${JSON.stringify(dir)}, 's' + (i++ % 20)), () => setTimeout(() => s.close(next), 1)) }
       next(); setTimeout(() => process.exit(0), 60000)`,
    ])
    try {
      let failed = 0
      let first = ''
      for (let k = 0; k < 150; k++) {
        try {
          const s = PtySession.spawn({ command: 'true', cwd: ws, sandbox: 'workspace-write' })
          await s.exited
        } catch (e) {
          failed++
          first ||= String(e)
        }
      }
      expect(churn.exitCode, 'the socket churn kept running').toBe(null)
      expect(failed, first).toBe(0)
    } finally {
      churn.kill()
      rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)
})

describe('the private cache folder turned against the next start', () => {
  // A home of the test's own: its ~/.cache holds the private folder, its ~/.cargo a configuration.
  const home = join(base, 'home')
  const victim = join(outside, 'victim-repo', '.git')
  const env = { HOME: home, XDG_CACHE_HOME: join(home, '.cache'), CARGO_HOME: join(home, '.cargo') }
  const start = (script: string) =>
    exec({ command: 'sh', args: ['-c', script], cwd: ws, env, sandbox: 'workspace-write', timeoutMs: 20_000 })

  it('a symlink left in it makes ptypilot remove or write nothing outside', async () => {
    mkdirSync(victim, { recursive: true })
    writeFileSync(join(victim, 'config'), '[remote "origin"]\n\turl = https://example.org/x.git\n')
    writeFileSync(join(outside, 'bashrc'), 'the person\'s shell setup\n')
    mkdirSync(join(home, '.cargo'), { recursive: true })

    // The person has no Cargo configuration: the next start removes cargo/config{,.toml}.
    const planted = await start(`rm -rf "$CARGO_HOME" && ln -s ${victim} "$CARGO_HOME" && echo planted`)
    expect(planted.output).toContain('planted')
    await start('true')
    expect(readFileSync(join(victim, 'config'), 'utf8')).toContain('example.org')

    // The person has one: the next start writes it to cargo/config.toml.
    writeFileSync(join(home, '.cargo', 'config.toml'), '[net]\nretry = 7\n')
    const again = await start('rm -rf "$CARGO_HOME" && mkdir "$CARGO_HOME" && ' + `ln -s ${join(outside, 'bashrc')} "$CARGO_HOME/config.toml" && echo planted`)
    expect(again.output).toContain('planted')
    const next = await start('cat "$CARGO_HOME/config.toml"')
    expect(readFileSync(join(outside, 'bashrc'), 'utf8')).toBe("the person's shell setup\n")
    // The person's configuration still reaches Cargo inside.
    expect(next.output).toContain('retry = 7')
  }, 60_000)
})
