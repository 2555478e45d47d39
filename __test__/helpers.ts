// Shared helpers for the Vitest suites: real-process checks, fd counting, a git repo to stage from.
import { readdirSync, readFileSync, existsSync, readlinkSync, mkdtempSync, writeFileSync } from 'node:fs'
import { execFileSync, spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Linux, where /proc shows processes and descriptors (the tests' main platform). */
export const onLinux = process.platform === 'linux'

/**
 * Skips the running test, with the reason, off Linux: for a test that
 * reads /proc (`why`) to check what it checks.
 */
export function linuxOnly(ctx: { skip: (note?: string) => void }, why: string): void {
  if (!onLinux) ctx.skip(`Linux only: ${why}`)
}

/**
 * The user-mode emulator this process runs under (qemu-user started through
 * binfmt_misc, as `npm run test:arm64` runs the suite), or null on a CPU that
 * runs it natively. Read from what the process sees: qemu-user answers
 * `/proc/self/exe` (and `/proc/<own pid>/exe`) with the emulated program, but
 * `/proc/thread-self/exe` reaches the kernel, which names the emulator.
 */
export function userModeEmulator(): string | null {
  if (!onLinux) return null
  try {
    const program = readlinkSync('/proc/self/exe')
    const running = readlinkSync('/proc/thread-self/exe')
    if (program === running) return null
    const name = running.slice(running.lastIndexOf('/') + 1)
    return /^qemu-/.test(name) ? 'qemu-user' : `a user-mode emulator (${name})`
  } catch {
    return null
  }
}

/**
 * How much longer a time cap is under user-mode emulation: qemu-user runs
 * every aarch64 program (Node, the addon, arm64 Node children) through its
 * translator, Node starts in about 1.7 s instead of 0.07 s, and a machine
 * shared with other work slows that further. A cap is a bound on a hang,
 * never a speed target, so it grows there instead of the test skipping.
 */
export const EMULATION_SLOWDOWN = userModeEmulator() ? 5 : 1

/** A time cap in ms for this process: `ms` natively, {@link EMULATION_SLOWDOWN} times it under emulation. */
export function capMs(ms: number): number {
  return ms * EMULATION_SLOWDOWN
}

/**
 * Skips the running test under user-mode emulation, naming the emulator and
 * `what` it does not provide (`'emulate Landlock'`): for a test of something
 * the emulator cannot pass through, never for a fault of ptypilot's.
 */
export function notUnderEmulation(ctx: { skip: (note?: string) => void }, what: string): void {
  const emulator = userModeEmulator()
  if (emulator) ctx.skip(`${emulator} does not ${what}`)
}

/**
 * The Landlock ABI version of the running kernel as a program of the host's
 * own architecture sees it (`landlock_create_ruleset` asked for the version,
 * through python3's ctypes: the system call's number, 444, is the same on
 * every architecture), 0 when the kernel says it has none, or null when no
 * such program answers (no python3, or one that is emulated too). Under
 * user-mode emulation this reaches the kernel where the emulated process
 * cannot: qemu-user answers that call with ENOSYS.
 */
export function hostLandlockAbi(): number | null {
  const probe = [
    'import ctypes, json, os',
    'libc = ctypes.CDLL(None, use_errno=True)',
    'abi = libc.syscall(444, None, 0, 1)',
    "native = os.readlink('/proc/self/exe') == os.readlink('/proc/thread-self/exe')",
    "print(json.dumps({'native': native, 'abi': max(abi, 0)}))",
  ].join('\n')
  const r = spawnSync('python3', ['-c', probe], { encoding: 'utf8', timeout: 30_000 })
  if (r.status !== 0) return null
  try {
    const answer = JSON.parse(r.stdout) as { native: boolean; abi: number }
    return answer.native ? answer.abi : null
  } catch {
    return null
  }
}

/**
 * Under user-mode emulation, why the sandbox cannot be had there, or null
 * (natively, or where it can, or where the kernel itself lacks what it
 * needs: then the sandbox's tests fail as they would natively). qemu-user
 * passes no Landlock system call through (`landlock_create_ruleset` is
 * ENOSYS under it on a kernel that has Landlock, see
 * {@link hostLandlockAbi}), so every sandboxed start is
 * `ERR_SANDBOX_UNAVAILABLE`: the reason names the emulator, the kernel's
 * ABI and ptypilot's own message. Checked by starting `true` in the
 * sandbox once.
 */
export async function sandboxMissingUnderEmulation(): Promise<string | null> {
  const emulator = userModeEmulator()
  if (!emulator) return null
  const { exec } = await import('../index.js')
  try {
    await exec({ command: 'true', sandbox: 'workspace-write', timeoutMs: 30_000 })
    return null
  } catch (err) {
    const e = err as { code?: string; message?: string }
    if (e.code !== 'ERR_SANDBOX_UNAVAILABLE') throw err
    const abi = /landlock/i.test(e.message ?? '') ? hostLandlockAbi() : null
    if (!abi) return null
    const said = (e.message ?? '').split('\n')[0]
    return `${emulator} does not emulate Landlock (ENOSYS to the emulated process; the kernel has ABI ${abi}): ${said}`
  }
}

/** Open file descriptors of this process (`/proc/self/fd`; `/dev/fd` on macOS). */
export function fdCount(): number {
  return readdirSync(onLinux ? '/proc/self/fd' : '/dev/fd').length
}

/**
 * Open descriptors of this process of the kinds a pty session uses: the pty
 * master (`/dev/ptmx`), the slave (`/dev/pts/N`, held only while spawning),
 * pidfds and eventfds. Linux only (the `/proc/self/fd` links); tests that use
 * it call {@link linuxOnly}.
 */
export function sessionFds(): Record<'ptmx' | 'pts' | 'pidfd' | 'eventfd', number> {
  const counts = { ptmx: 0, pts: 0, pidfd: 0, eventfd: 0 }
  for (const fd of readdirSync('/proc/self/fd')) {
    let target = ''
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`)
    } catch {
      continue
    }
    if (target === '/dev/ptmx' || target.startsWith('/dev/pts/ptmx')) counts.ptmx++
    else if (/^\/dev\/pts\/\d+$/.test(target)) counts.pts++
    else if (target.includes('[pidfd]') || target === 'anon_inode:pidfd') counts.pidfd++
    else if (target.includes('[eventfd]')) counts.eventfd++
  }
  return counts
}

/**
 * Kernel state letter of a process (`'Z'` for a zombie), or null when it
 * does not exist: `/proc/PID/stat` on Linux, `ps -o stat=` elsewhere (macOS's
 * `I`, idle, reads as `S`).
 */
export function procState(pid: number): string | null {
  if (!onLinux) {
    const ps = spawnSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' })
    const letter = ps.status === 0 ? ps.stdout.trim().charAt(0) : ''
    return letter === '' ? null : letter === 'I' ? 'S' : letter
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3)
  } catch {
    return null
  }
}

/** True while `pid` exists and is not a zombie. */
export function alive(pid: number): boolean {
  const state = procState(pid)
  return state !== null && state !== 'Z' && state !== 'X'
}

/** True when `pid` exists at all (a zombie included). */
export function exists(pid: number): boolean {
  return onLinux ? existsSync(`/proc/${pid}`) : procState(pid) !== null
}

/** Whether a program is installed. */
export function have(program: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${program}`]).status === 0
}

/** Collects chunks and remembers how much had arrived when the exit resolved. */
export function collector() {
  const chunks: string[] = []
  return {
    chunks,
    onData: (chunk: string) => {
      chunks.push(chunk)
    },
    text: () => chunks.join(''),
  }
}

/** Environment for git in a test repo at `home`: no user or system config, a fixed identity. */
export function gitEnv(home: string): Record<string, string> {
  return {
    HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'Test',
    GIT_AUTHOR_EMAIL: 'test@example.com',
    GIT_COMMITTER_NAME: 'Test',
    GIT_COMMITTER_EMAIL: 'test@example.com',
  }
}

/**
 * A temp git repo with `notes.txt` committed ("first commit") and two separate changed
 * hunks (lines 2 and 28). The repo's own config names the user too, since the programs a
 * test starts inherit this process's environment, not gitEnv.
 */
export function repoWithTwoHunks(prefix = 'ptypilot-git-') {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: dir, env: { ...process.env, ...gitEnv(dir) } }).toString()
  git('init', '-q')
  git('config', 'user.name', 'Test')
  git('config', 'user.email', 'test@example.com')
  const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`)
  writeFileSync(join(dir, 'notes.txt'), lines.join('\n') + '\n')
  git('add', 'notes.txt')
  git('commit', '-qm', 'first commit')
  lines[1] = 'line 2, first change'
  lines[27] = 'line 28, second change'
  writeFileSync(join(dir, 'notes.txt'), lines.join('\n') + '\n')
  return { dir, git }
}

/**
 * Skips the running test, with the reason, where one of `programs` is not
 * installed: the suite passes on a machine without them, and CI (.ci/run)
 * installs them all, so there it runs.
 */
export function needs(ctx: { skip: (note?: string) => void }, ...programs: string[]): void {
  const missing = programs.filter((program) => !have(program))
  if (missing.length > 0) ctx.skip(`${missing.join(', ')} not installed`)
}
