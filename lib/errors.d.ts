/// <reference types="node" />
// Types of the errors every function and method of ptypilot throws or rejects with
// (lib/errors.js decides them): the stable codes and the error's shape.

import type { PtyExit, ScreenSnapshot, WaitReason } from './pty-session.js'

/**
 * The stable error codes carried by `err.code`:
 *
 * - `ERR_INVALID_ARG`: a bad argument or option (wrong type, out of range, unknown key, a getter
 *   that throws); the message names it and the value.
 * - `ERR_SPAWN`: the program could not start (not found, not executable, bad `cwd`), with
 *   `errno`, `errnoName`, `syscall` and `path`.
 * - `ERR_NOT_RUNNING`: the session, shell or process is not running (not started, exited, closed).
 * - `ERR_ALREADY_RUNNING`: `start()` on a running session, a second concurrent `Shell.run()`.
 * - `ERR_TIMEOUT`: a wait ran out of time.
 * - `ERR_ABORTED`: a wait was cancelled by its `AbortSignal`.
 * - `ERR_UNKNOWN_TOOL`, `ERR_UNKNOWN_HANDLE`: a tool call names a tool or handle (or terminal
 *   session) that does not exist; `ToolRegistry.respond()` on a registry without any tool.
 * - `ERR_INVALID_INPUT`: a tool call's input is not JSON or does not match the tool's schema
 *   (the message names the field), or a terminal tool's command is refused by `allow`
 *   (`denied: true`).
 * - `ERR_LIMIT`: a limit was reached (live tool handles, running terminal sessions, queued input).
 * - `ERR_MOUSE_OFF`: a mouse event for a program that has not enabled mouse reporting
 *   (`session.mouse`); nothing was sent, since the report would reach it as typed characters.
 *   Its own code, so a test can wait for a full-screen program to enable the mouse.
 * - `ERR_HOST_CRASHED`: the isolated host process died.
 * - `ERR_SANDBOX_UNAVAILABLE`: a `sandbox` was asked for and this system lacks what it needs
 *   (Landlock, the Landlock ABI a rule needs, `sandbox-exec`), named in the message; the program
 *   was not started. `sandbox: { mode, ifUnavailable: 'warn' }` starts it with what there is.
 * - `ERR_UNSUPPORTED`: the platform cannot do this: on Windows, `runAs` (`uid`/`gid`),
 *   node-pty's `open()` and a `Shell`'s `snapshotPath`.
 * - `ERR_INTERNAL`: an unexpected failure of the operating system or of ptypilot itself (a
 *   contained panic, an argument Node-API could not convert); `cause` holds the original error.
 * - `ERR_NO_BINDING`: thrown by `require('ptypilot')` / `import` when the native addon cannot be
 *   loaded; the message names the platform, architecture and libc, the package looked for, why
 *   each attempt failed (not found, or the load error) and how to fix it.
 */
export type PtypilotErrorCode =
  | 'ERR_INVALID_ARG'
  | 'ERR_SPAWN'
  | 'ERR_NOT_RUNNING'
  | 'ERR_ALREADY_RUNNING'
  | 'ERR_TIMEOUT'
  | 'ERR_ABORTED'
  | 'ERR_UNKNOWN_TOOL'
  | 'ERR_UNKNOWN_HANDLE'
  | 'ERR_INVALID_INPUT'
  | 'ERR_LIMIT'
  | 'ERR_MOUSE_OFF'
  | 'ERR_HOST_CRASHED'
  | 'ERR_SANDBOX_UNAVAILABLE'
  | 'ERR_UNSUPPORTED'
  | 'ERR_INTERNAL'
  | 'ERR_NO_BINDING'

/** The shape of errors thrown or rejected by ptypilot. */
export interface PtypilotError extends Error {
  /** What kind of failure this is; stable across versions. */
  code: PtypilotErrorCode
  /** `ERR_SPAWN` only: the OS error number, negative as in Node (`-2` for ENOENT). */
  errno?: number
  /** `ERR_SPAWN` only: the symbolic errno (`'ENOENT'`, `'EACCES'`, ...). */
  errnoName?: string
  /** `ERR_SPAWN` only: the program or working directory that failed. */
  path?: string
  /** `ERR_SPAWN` only: always `'spawn'`. */
  syscall?: string
  /** `waitFor` and `waitForSettle` failures: the screen when the wait gave up. */
  screen?: ScreenSnapshot
  /** `waitFor` failure because the program exited: how it exited. */
  exit?: PtyExit
  /**
   * A wait's failure: why it ended (`'timeout'` with `ERR_TIMEOUT`, `'aborted'` with
   * `ERR_ABORTED`, `'exit'` when `waitFor`'s program exited first).
   */
  reason?: WaitReason
  /** `ERR_HOST_CRASHED` only: the ids of the handles the isolated host held when it died. */
  lost?: string[]
  /** `ERR_HOST_CRASHED` only: the signal that ended the host (`'SIGKILL'`, `'SIGABRT'`), or `null`. */
  signal?: string | null
  /** `ERR_HOST_CRASHED` only: the host's exit code when it exited, or `null`. */
  exitCode?: number | null
  /** `ERR_HOST_CRASHED` only: the end of the host's error output (a panic message, a native stack), or `''`. */
  stderr?: string
  /** `ERR_UNKNOWN_HANDLE` for a handle that an isolated host lost when it died. */
  lostInCrash?: boolean
  /** `ERR_INVALID_INPUT` for a terminal tool's command that `TerminalToolsOptions.allow` refused. */
  denied?: boolean
  /** `ERR_INTERNAL` (and mapped errors): the original error. */
  cause?: unknown
}
