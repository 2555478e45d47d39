// ptypilot — drive interactive terminal programs from Node.js.
//
// Every error thrown or rejected by this package is an `Error` with a stable
// `code` (see `PtypilotErrorCode`) and a message that names the offending value.

/** The stable error codes carried by `err.code`. */
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
  /** `waitFor` failures: the screen when the wait gave up. */
  screen?: ScreenSnapshot
  /** `waitFor` failure because the program exited: how it exited. */
  exit?: PtyExit
}

// ---------- PtySession ----------

/** How to start a program in a pseudo-terminal. */
export interface PtyOptions {
  /**
   * The program, looked up on the `PATH` of the program's environment (a name
   * containing `/` is a path, relative to `cwd`). With `shell`, a command line.
   */
  command: string
  /** Arguments, passed as they are (no shell). With `shell`, appended to the command line, quoted. */
  args?: string[]
  /**
   * Run `command` as a command line through a shell with `-lc`:
   * `true` uses `$SHELL` (or `/bin/sh`); a string names the shell (`'bash'`, `'zsh'`, a path).
   * @default false
   */
  shell?: boolean | string
  /** Working directory; must exist. @default process.cwd() */
  cwd?: string
  /**
   * Variables merged over the inherited environment; `undefined` removes one.
   * Variables that describe the parent's terminal (TMUX, TMUX_PANE, STY, WINDOWID,
   * COLUMNS, LINES, TERM_PROGRAM, COLORTERM, ...) are not inherited; set them here if wanted.
   */
  env?: Record<string, string | undefined>
  /** Start from the current process's environment; `false` starts from an empty one. @default true */
  inheritEnv?: boolean
  /** Width, an integer from 2 to 1000. @default 80 */
  cols?: number
  /** Height, an integer from 2 to 500. @default 24 */
  rows?: number
  /** `TERM` for the program. @default 'xterm-256color' (or `env.TERM` when given) */
  term?: string
  /** Lines kept above the screen by the screen model, 0 to 100000. @default 1000 */
  scrollback?: number
  /** Terminate the program (TERM, 2 s grace, KILL) after this many milliseconds; the exit has `timedOut: true`. */
  timeoutMs?: number
  /** Aborting terminates the program (TERM, 2 s grace, KILL); the exit has `cancelled: true`. */
  signal?: AbortSignal
}

/** How a program ended. */
export interface PtyExit {
  /** Exit code of a normal exit; `null` when a signal ended the program. */
  exitCode: number | null
  /** The signal that ended the program, e.g. `'SIGKILL'`; `null` after a normal exit. */
  signal: string | null
  /** The session's `timeoutMs` ran out. */
  timedOut: boolean
  /** `kill()`, `terminate()`, dispose or the `AbortSignal` ended the program. */
  cancelled: boolean
}

/** Where the cursor is (0-based) and whether it is shown. */
export interface CursorPosition {
  row: number
  col: number
  visible: boolean
}

/** What the terminal shows, as plain text. */
export interface ScreenSnapshot {
  /** Visible rows right-trimmed, trailing blank rows dropped, joined with `'\n'`. */
  text: string
  /** Every visible row, right-trimmed (`lines.length === rows`). */
  lines: string[]
  /** Cursor position and visibility. */
  cursor: CursorPosition
  /** Width in columns. */
  cols: number
  /** Height in rows. */
  rows: number
  /** The program is using the alternate screen (vim, less, htop, ...). */
  altScreen: boolean
  /** The window title the program set (OSC 0/2), or `''`. */
  title: string
  /** Output bytes processed so far; grows monotonically. */
  seq: number
}

/** Options of `PtySession.read`. */
export interface ReadOptions {
  /** Only output after this cursor (the `cursor` of an earlier read). */
  since?: number
  /** Only the last N lines. */
  tail?: number
  /** Keep escape sequences and carriage returns as the program wrote them. @default false */
  raw?: boolean
}

/** A slice of a session's output transcript. */
export interface ReadResult {
  /**
   * The output. Unless `raw`: escape sequences removed, `\r\n` as `\n`, and a lone `\r`
   * or backspace applied to the line the way a terminal would (a progress bar reads as its last state).
   */
  text: string
  /** Pass as `since` to the next `read()` to get only what comes after. */
  cursor: number
  /** The program is still running. */
  running: boolean
  /** The exit code once the program exited normally, else `null`. */
  exitCode: number | null
  /** `since` was older than the oldest output still kept (the transcript keeps the last 8 MiB). */
  truncated: boolean
}

/** Options of `PtySession.waitForSettle`. */
export interface SettleOptions {
  /** How long the output must stay quiet. @default 100 */
  quietMs?: number
  /** Give up after this long and return with `settled: false`. @default 10000 */
  timeoutMs?: number
}

/** Options of `PtySession.waitFor`. */
export interface WaitForOptions {
  /** Look at the screen text, or at the whole output (stripped) since the start. @default 'screen' */
  in?: 'screen' | 'output'
  /** Reject with `ERR_TIMEOUT` after this long. @default 10000 */
  timeoutMs?: number
}

/**
 * A program running in a pseudo-terminal, with a screen model of what it drew.
 *
 * ```ts
 * const session = PtySession.spawn({ command: 'python3' })
 * await session.waitFor('>>> ')
 * session.write('1 + 1\r')
 * await session.waitFor(/^2$/m)
 * session.sendKeys('ctrl+d')
 * const exit = await session.exited // { exitCode: 0, signal: null, ... }
 * ```
 */
export declare class PtySession {
  /** A session that has not started; call `start()`. */
  constructor()
  /**
   * Starts the program and resolves with its exit, after every byte of output reached `onData`.
   * Rejects with `ERR_SPAWN` (program not found, not executable, bad `cwd`), `ERR_INVALID_ARG`,
   * or `ERR_ALREADY_RUNNING`. `write`, `resize` and `kill` work as soon as `start` returned.
   * A session can be started again after it exited.
   */
  start(options: PtyOptions, onData?: (chunk: string) => void): Promise<PtyExit>
  /** Creates and starts a session; throws synchronously on bad options or spawn failures. */
  static spawn(options: PtyOptions, onData?: (chunk: string) => void): PtySession
  /** Resolves with the exit of the current run (or of the last run, once it ended). */
  readonly exited: Promise<PtyExit>
  /** Process id of the program; `null` before `start`. */
  readonly pid: number | null
  /** True from `start` until the exit was delivered. */
  readonly running: boolean
  /**
   * Sends text (as UTF-8) or bytes. Never blocks: what the program does not read yet is queued
   * (up to 64 MiB, then `ERR_LIMIT`). Throws `ERR_NOT_RUNNING` after the exit.
   * Enter is `'\r'`, as a terminal sends it.
   */
  write(data: string | Uint8Array): void
  /**
   * Types named keys, e.g. `sendKeys('ctrl+c')`, `sendKeys('up', 'up', 'enter')`, encoded the way
   * xterm sends them for the mode the program is in (arrows switch to `ESC O A` when it turned on
   * application cursor mode). Names: see `encodeKeys`. Unknown names throw `ERR_INVALID_ARG`
   * listing the accepted ones.
   */
  sendKeys(...keys: string[]): void
  /**
   * Pastes text. When the program enabled bracketed paste (mode 2004) the text is wrapped in
   * paste markers (markers inside the text are removed), so editors and shells take it literally;
   * otherwise it is typed as is.
   */
  paste(text: string): void
  /** Resizes the terminal; the program gets SIGWINCH. `ERR_INVALID_ARG` out of range, `ERR_NOT_RUNNING` after the exit. */
  resize(cols: number, rows: number): void
  /** A plain-text picture of the screen now. */
  screen(): ScreenSnapshot
  /** Reads the output transcript; use `since` to get only what is new. */
  read(options?: ReadOptions): ReadResult
  /**
   * Resolves when no output came for `quietMs` and no synchronized-output block (mode 2026) is open,
   * or at once when the program has exited and its output was drained.
   */
  waitForSettle(options?: SettleOptions): Promise<ScreenSnapshot & { settled: boolean }>
  /**
   * Waits until `pattern` appears. Rejects with `ERR_TIMEOUT` (the message shows the screen) or,
   * when the program exits first, `ERR_NOT_RUNNING` with `err.exit`.
   */
  waitFor(pattern: string | RegExp, options?: WaitForOptions): Promise<{ match: string; screen: ScreenSnapshot }>
  /**
   * Calls `listener` with a snapshot whenever the screen changed, at most every `throttleMs`.
   * Returns a function that unsubscribes. A listener that throws is reported as a process warning.
   */
  onScreen(listener: (screen: ScreenSnapshot) => void, options?: { /** @default 50 */ throttleMs?: number }): () => void
  /**
   * With a signal name (`'SIGINT'`, `'SIGHUP'`, ...): sends it to the program's process
   * (`ERR_NOT_RUNNING` after the exit). Without: kills the program and every descendant now (SIGKILL);
   * the exit has `cancelled: true`; a no-op after the exit.
   */
  kill(signal?: string): void
  /**
   * TERM to the program's process group and every descendant (also those that left the group),
   * then KILL whatever is left after `graceMs`. Resolves with the exit once the tree is gone.
   */
  terminate(options?: { /** @default 2000 */ graceMs?: number }): Promise<PtyExit>
  /** Terminates the program if it runs and waits for the exit (`await using session = ...`). */
  [Symbol.asyncDispose](): Promise<void>
}

/** Options of `exec`. */
export interface ExecOptions extends PtyOptions {
  /** Run in a pseudo-terminal; `false` runs with plain pipes (stdout and stderr merged). @default true */
  pty?: boolean
  /** Output kept; beyond it the head and the tail are kept and `truncated` is set. @default 8388608 (8 MiB) */
  maxOutputBytes?: number
}

/** The result of `exec`. */
export interface ExecResult extends PtyExit {
  /** All output as plain text (escape sequences stripped, `\r\n` as `\n`). */
  output: string
  /** The middle of the output was left out (a marker line says how much). */
  truncated: boolean
  /** The final screen (`null` with `pty: false`). */
  screen: ScreenSnapshot | null
}

/** Runs a program to completion and returns its exit status, output and final screen. */
export declare function exec(options: ExecOptions, onData?: (chunk: string) => void): Promise<ExecResult>

// ---------- keys ----------

/** Terminal modes that change what keys send (`encodeKeys`). */
export interface EncodeKeysModes {
  /**
   * DECCKM (application cursor keys): arrows, Home and End send `ESC O x` instead of `ESC [ x`.
   * Full-screen programs such as vim and less turn it on; `sendKeys` follows the screen's mode.
   * @default false
   */
  applicationCursor?: boolean
  /**
   * DECKPAM (application keypad): the keypad keys `kp0`…`kp9`, `kpEnter`, `kpPlus`, `kpMinus`,
   * `kpMultiply`, `kpDivide`, `kpDecimal` send `ESC O x` instead of their characters.
   * @default false
   */
  applicationKeypad?: boolean
}

/**
 * The string a terminal (xterm) sends for the named keys, concatenated.
 *
 * Key names, case-insensitive:
 * - `enter` (`return`), `tab`, `esc` (`escape`), `backspace`, `delete` (`del`), `insert`,
 *   `home`, `end`, `pageUp`, `pageDown` (also `page_down`, `pgdn`, `pgup`), `up`, `down`,
 *   `left`, `right`, `space`, `f1`…`f12`, `kp0`…`kp9`, `kpEnter`, `lt` (`<`), `gt` (`>`);
 * - any single character, sent as itself (`'a'`, `'Q'`, `'/'`, `'é'`);
 * - modifiers joined with `+` in any order: `ctrl+c`, `ctrl+[`, `ctrl+space`, `alt+x`
 *   (ESC prefix), `alt+enter`, `shift+tab`, `ctrl+up`, `ctrl+shift+left`, `shift+f5`;
 *   Emacs-style `C-c`, `M-x`, `S-tab` too.
 *
 * Modified arrows, Home, End and function keys use xterm's `ESC [ 1 ; m X` / `ESC [ n ; m ~`
 * forms (m = 1 + shift 1 + alt 2 + ctrl 4).
 *
 * ```ts
 * encodeKeys(['ctrl+c'])                          // '\x03'
 * encodeKeys(['up'])                              // '\x1b[A'
 * encodeKeys(['up'], { applicationCursor: true }) // '\x1bOA'
 * encodeKeys(['ctrl+up', 'f5'])                   // '\x1b[1;5A\x1b[15~'
 * ```
 *
 * Throws `ERR_INVALID_ARG` when `keys` is not an array of strings, for an unknown key (the
 * message names it, e.g. `keys[1]: unknown key "foo"; accepted: …`) and for combinations xterm
 * cannot send (`shift+enter`, `ctrl+1`).
 */
export declare function encodeKeys(keys: string[], modes?: EncodeKeysModes): string
