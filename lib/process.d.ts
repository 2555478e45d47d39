/// <reference types="node" />
// Types of Process: one process found by pid or by executable (lib/process.js).

/** Options of `Process.terminate`. */
export interface ProcessTerminateOptions {
  /**
   * Also send SIGTERM (and later SIGKILL) to the process's process group, and wait for its members:
   * this reaches members that left the tree (a daemonized child of a shell pipeline). The caller's
   * own process group is never signalled, so this is a no-op for a child started without
   * `detached: true`.
   * @default false
   */
  group?: boolean
  /**
   * How long to wait after SIGTERM before sending SIGKILL to whatever is left of the tree.
   * A negative value skips the graceful phase: SIGKILL at once.
   * @default 1000
   */
  gracefulMs?: number
  /**
   * How long to wait for the tree to go after SIGKILL; then resolve `false`.
   * @default 5000
   */
  timeoutMs?: number
  /**
   * Aborting stops the procedure and rejects with `ERR_ABORTED`; signals already sent stay sent
   * (an abort during the grace period means SIGKILL is never sent).
   */
  signal?: AbortSignal
}

/** Options of `Process.waitForExit`. */
export interface ProcessWaitOptions {
  /** Resolve `false` after this long. @default no limit */
  timeoutMs?: number
  /** Aborting rejects the wait with `ERR_ABORTED` (the process is not touched). */
  signal?: AbortSignal
}

/**
 * A process of the system, found by pid or by executable, to inspect, wait for and terminate
 * together with its descendants.
 *
 * A `Process` remembers the process's start time along with its pid, so it never reaches another
 * process that later reuses the pid: once the process is gone, `status()` is `'exited'`, signals
 * go nowhere and waits resolve at once. On Linux signals are sent through a pidfd checked against
 * the start time, so there is no window for a reused pid at all.
 *
 * A zombie (exited, not yet reaped by its parent) counts as exited. Reaping stays the parent's job.
 *
 * ```ts
 * const child = spawn('npm', ['run', 'dev'])
 * const proc = Process.fromPid(child.pid!)!
 * // ... later: the dev server, its workers and anything they started
 * const gone = await proc.terminate({ gracefulMs: 2000 })
 * ```
 *
 * Only Linux is supported and tested; elsewhere `fromPid` returns `null` and `fromPath` `[]`.
 */
export declare class Process {
  /** Not constructible: use `Process.fromPid()` or `Process.fromPath()`. */
  private constructor()
  /**
   * The process with this pid, or `null` when there is none. A zombie is found (with
   * `status() === 'exited'`). Throws `ERR_INVALID_ARG` when `pid` is not a positive integer.
   */
  static fromPid(pid: number): Process | null
  /**
   * Every process whose executable is `path` (symbolic links resolved, as the kernel reports
   * executables; a relative path is relative to `process.cwd()`). Processes of other users whose
   * executable cannot be read are not found. Throws `ERR_INVALID_ARG` for an empty path.
   */
  static fromPath(path: string): Process[]
  /** Process id. */
  readonly pid: number
  /** Parent process id now (it changes to a reaper when the parent dies first); the last one seen once the process is gone. */
  readonly ppid: number
  /** The program's arguments (`argv`, `argv[0]` first, empty arguments kept); `[]` once it has exited. */
  args(): string[]
  /** Process group id; `null` once it has exited. */
  groupId(): number | null
  /** The direct children that are still running. */
  children(): Process[]
  /** `'running'` until the process exits (a zombie has exited). */
  status(): 'running' | 'exited'
  /**
   * Sends `signal` to the process and all its descendants, children first, including descendants
   * that moved to another process group or session. With `SIGKILL` the tree is first stopped
   * (SIGSTOP, parents first, rescanning), so that a parent cannot fork a child that escapes.
   * A name (`'SIGTERM'`, `'TERM'`, `'sigint'`) or a number (`9`); unknown ones throw
   * `ERR_INVALID_ARG`. Does nothing once the process has exited. The calling process is never
   * signalled unless it is this process.
   * @default 'SIGTERM'
   */
  killTree(signal?: string | number): void
  /**
   * Terminates the process and its tree: SIGTERM to the process group (with `group`) and the
   * process first, so it ends of the signal rather than of a child's death, then to the rest of
   * the tree (children first); waits up to `gracefulMs` for them all to exit; then stops and
   * SIGKILLs what is left (including processes that appeared meanwhile) and waits up to
   * `timeoutMs`. Resolves `true` once every process of the tree has exited, `false` if some are
   * still there after `timeoutMs`; `true` at once when the process is already gone.
   * Rejects with `ERR_INVALID_ARG` for bad options and `ERR_ABORTED` when `signal` aborts.
   */
  terminate(options?: ProcessTerminateOptions): Promise<boolean>
  /**
   * Resolves `true` once the process has exited (whether or not it is our child), `false` when
   * `timeoutMs` runs out first. Waits in the addon (a pidfd on Linux), not by polling from JS.
   * Rejects with `ERR_INVALID_ARG` for bad options and `ERR_ABORTED` when `signal` aborts.
   */
  waitForExit(options?: ProcessWaitOptions): Promise<boolean>
}
