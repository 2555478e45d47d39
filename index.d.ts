/// <reference types="node" />
// ptypilot — drive interactive terminal programs from Node.js.
//
// Every error thrown or rejected by this package is an `Error` with a stable
// `code` (see `PtypilotErrorCode`) and a message that names the offending value.
//
// Conventions for arguments, everywhere:
// - durations (`timeoutMs`, `graceMs`, `gracefulMs`, `quietMs`) are numbers of
//   milliseconds from 0 to 1e12 (about 31 years); NaN, negatives, Infinity and
//   larger values are `ERR_INVALID_ARG` naming the option;
// - `signal` is an `AbortSignal`, or an object with a boolean `aborted` and both
//   `addEventListener` and `removeEventListener`; anything else is `ERR_INVALID_ARG`;
// - an option whose getter (or proxy trap) throws is `ERR_INVALID_ARG` naming it,
//   and a call that returns a promise then rejects rather than throwing;
// - environment variable names are non-empty without `=` or NUL, values and
//   paths without NUL (`ERR_INVALID_ARG` naming the variable).

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
 * - `ERR_HOST_CRASHED`: the isolated host process died.
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
  | 'ERR_HOST_CRASHED'
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
   * Names must be non-empty without `=` or NUL (`{ 'PATH=/x': 'y' }` would set
   * `PATH`), values without NUL: `ERR_INVALID_ARG` naming the variable otherwise.
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
  /**
   * Answer the program's terminal queries (cursor position `ESC[6n`, device attributes
   * `ESC[c`, ...) from ptypilot's screen model. Set `false` when a front end that renders the
   * output — xterm.js fed by `onData`, with its `onData` going to `write` — answers them: a
   * program must get one answer per query, and two answerers disagree (after a resize the
   * cursor positions differ). The screen model still tracks everything (`screen()`,
   * `waitFor`); only its answers stay unsent. Keep the default when nothing else answers
   * (agents, tests, `exec`): programs that ask and wait would hang without an answer.
   * @default true
   */
  answerQueries?: boolean
  /**
   * Record the session to this file (created or replaced; relative to the current directory,
   * not `cwd`) as an asciicast v2 recording that `asciinema play` plays and `replay()` replays:
   * output with timestamps, input (`"i"` events) and resizes (`"r"`). Each event is on disk as
   * soon as it happened; the file is complete when `exited` resolves. A path that cannot be
   * written is `ERR_INVALID_ARG` and the program is not started.
   */
  record?: string
}

/** Cells of one row that share colours and attributes. */
export interface StyledRun {
  /** First column (0-based). */
  col: number
  /** Columns covered (a wide character covers two). */
  width: number
  /** The characters; an empty cell is a space. */
  text: string
  /** Foreground: `null` for the terminal's default, 0-255 for an indexed colour (0-7 normal, 8-15 bright), `'#rrggbb'` for a true colour. */
  fg: number | string | null
  /** Background, as `fg`. */
  bg: number | string | null
  bold: boolean
  dim: boolean
  italic: boolean
  underline: boolean
  /** Inverse video: how curses menus and many TUIs highlight the selected row. */
  inverse: boolean
}

/** Options of `screen()`. */
export interface ScreenOptions {
  /**
   * Add `attributes`: each row's styled runs, left to right. A row's runs end after its last
   * cell that shows something (a character, or a blank with a background, inverse video or
   * underline, such as the padding of a highlighted menu row). Costs more than the plain
   * snapshot, which is unchanged without it.
   * @default false
   */
  attributes?: boolean
}

/** A screen snapshot with the styled runs of each row (`screen({ attributes: true })`). */
export interface StyledScreenSnapshot extends ScreenSnapshot {
  /** `attributes[row]`: the row's styled runs, left to right. */
  attributes: StyledRun[][]
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
  /** At most `cols - 1`: after a character in the last column the cursor stays there (a wrap is pending). */
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
  /**
   * Output processed so far, in bytes of decoded text; grows monotonically. The same scale as
   * `read().cursor`, so either can be the `since` of `waitFor`.
   */
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
  /** Aborting it rejects the wait with `ERR_ABORTED` (the message shows the screen). */
  signal?: AbortSignal
}

/** Options of `PtySession.waitFor`. */
export interface WaitForOptions {
  /**
   * Look at the screen text, or at the output (stripped). Without `since` the default is
   * `'screen'` and output counts from the start; with `since` the default is `'output'`, because
   * text still on the screen from before the point (an old prompt) would match at once.
   * @default 'screen' without `since`, 'output' with it
   */
  in?: 'screen' | 'output'
  /**
   * Ignore what was there before a point: `'input'` (the last `write`, `sendKeys` or `paste`;
   * the start before any), a `read().cursor` or a `screen().seq`. In the output only what came
   * after the point can match; on the screen only a screen that output after the point changed
   * is looked at. A point this session has not reached throws `ERR_INVALID_ARG`.
   *
   * ```ts
   * session.write('slow_call()\r')
   * await session.waitFor('>>> ', { since: 'input' }) // the next prompt, not the one above
   * ```
   */
  since?: number | 'input'
  /** Reject with `ERR_TIMEOUT` after this long. @default 10000 */
  timeoutMs?: number
  /** Aborting it rejects the wait with `ERR_ABORTED` (the message shows the screen). */
  signal?: AbortSignal
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
   *
   * `onData` receives this run's output from the first byte; with `{ raw: true }` as bytes
   * (see `onData()` for listeners that stay and for the difference).
   */
  start(options: PtyOptions, onData?: (chunk: string) => void, listenerOptions?: { raw?: false }): Promise<PtyExit>
  start(options: PtyOptions, onData: (chunk: Uint8Array) => void, listenerOptions: { raw: true }): Promise<PtyExit>
  /** Creates and starts a session; throws synchronously on bad options or spawn failures. */
  static spawn(options: PtyOptions, onData?: (chunk: string) => void, listenerOptions?: { raw?: false }): PtySession
  static spawn(options: PtyOptions, onData: (chunk: Uint8Array) => void, listenerOptions: { raw: true }): PtySession
  /** Resolves with the exit of the current run (or of the last run, once it ended). */
  readonly exited: Promise<PtyExit>
  /** Process id of the program; `null` before `start`. */
  readonly pid: number | null
  /** True from `start` until the exit was delivered. */
  readonly running: boolean
  /**
   * Panics of the screen model that this session contained, oldest first (at most 100). The
   * session goes on: output, `read()` and the exit are unaffected, and the screen model is rebuilt
   * from the last 1 MiB of output without the output that caused the panic, so `screen()` may
   * lack it. Each one is also reported as a process warning (type `'PtypilotIncident'`, code
   * `'PTYPILOT_PANIC'`; the first three of a session). Empty in the normal case.
   */
  readonly incidents: readonly PtyIncident[]
  /**
   * Sends text (as UTF-8) or bytes. Never blocks: what the program does not read yet is queued
   * (up to 64 MiB, then `ERR_LIMIT`). Throws `ERR_NOT_RUNNING` after the exit.
   * Enter is `'\r'`, as a terminal sends it.
   *
   * With an `onData` listener, the answer to input (an echo, a redraw) is read on this thread's
   * event loop as soon as it arrives, for up to 50 ms after the last write or until a flood
   * starts; everything else is read on the session's own thread. Either way `onData` sees every
   * byte once, in order.
   */
  write(data: string | Uint8Array): void
  /**
   * Types named keys, e.g. `sendKeys('ctrl+c')`, `sendKeys('up', 'up', 'enter')`, encoded the way
   * xterm sends them for the mode the program is in (arrows switch to `ESC O A` when it turned on
   * application cursor mode). A program that enabled the kitty keyboard protocol (`CSI > flags u`,
   * `CSI = flags ; mode u`; popped with `CSI < u`) gets keys as its flags ask (see
   * `EncodeKeysModes.kittyFlags`), and its query `CSI ? u` is answered. Names: see `encodeKeys`.
   * Unknown names throw `ERR_INVALID_ARG` listing the accepted ones.
   */
  sendKeys(...keys: string[]): void
  /**
   * Pastes text. When the program enabled bracketed paste (mode 2004) the text is wrapped in
   * paste markers (markers inside the text are removed), so editors and shells take it literally;
   * otherwise it is typed as is. Line breaks (`\n`, `\r\n`) are sent as `\r` (Enter), as terminals
   * paste them.
   */
  paste(text: string): void
  /** Resizes the terminal; the program gets SIGWINCH. `ERR_INVALID_ARG` out of range, `ERR_NOT_RUNNING` after the exit. */
  resize(cols: number, rows: number): void
  /**
   * A plain-text picture of the screen now; with `{ attributes: true }` also each row's colours
   * and attributes, to check which menu row is highlighted:
   *
   * ```ts
   * const { attributes } = session.screen({ attributes: true })
   * attributes[3].find((run) => run.inverse)?.text.trim() // 'Banana'
   * ```
   */
  screen(options: ScreenOptions & { attributes: true }): StyledScreenSnapshot
  screen(options?: ScreenOptions): ScreenSnapshot
  /** Reads the output transcript; use `since` to get only what is new. */
  read(options?: ReadOptions): ReadResult
  /**
   * Resolves when no output came for `quietMs` and no synchronized-output block (mode 2026) is open,
   * or at once when the program has exited and its output was drained. Input (`write`, `sendKeys`,
   * `paste`) and `resize` restart the quiet period, so a settle right after a keystroke waits for the answer.
   * A block left open with no output for 1 s counts as closed (as terminals end such a block after a
   * timeout), so a program that stopped mid-frame still settles, showing what it drew.
   * Rejects with `ERR_ABORTED` when `signal` aborts.
   */
  waitForSettle(options?: SettleOptions): Promise<ScreenSnapshot & { settled: boolean }>
  /**
   * Waits until `pattern` appears. Screen rows are right-trimmed, so a string pattern's trailing
   * spaces (a prompt such as `'>>> '`) also match at the end of a row. Rejects with `ERR_TIMEOUT` (the message shows the screen),
   * `ERR_ABORTED` when `signal` aborts, or, when the program exits first, `ERR_NOT_RUNNING` with `err.exit`.
   * Use `since` to wait for what comes after a point, e.g. the answer to input.
   * `screen` is the screen when the match was seen: it shows all the output that matched (in the
   * output, text that matched can already have scrolled off when more output followed at once).
   */
  waitFor(pattern: string | RegExp, options?: WaitForOptions): Promise<{ match: string; screen: ScreenSnapshot }>
  /**
   * Calls `listener` with a snapshot whenever the screen changed, at most every `throttleMs`.
   * Returns a function that unsubscribes. A listener that throws is reported as a process warning.
   */
  onScreen(listener: (screen: ScreenSnapshot) => void, options?: { /** @default 50 */ throttleMs?: number }): () => void
  /**
   * Adds an output listener; returns a function that removes it. Listeners stay across runs
   * of the session (the `onData` given to `start` is for that run only).
   *
   * Each listener gets every chunk of output from when it was added: complete, in order, and
   * all of it before `exited` resolves. Add it before `start()` to get every byte from the
   * first; one added later starts with the next chunk delivered (what came before is in
   * `read()` and `screen()`). With `{ raw: true }` chunks are the bytes exactly as the
   * program wrote them (`Uint8Array`, no UTF-8 decoding, invalid sequences kept), for front
   * ends that decode themselves (`term.write(bytes)`); otherwise strings, decoded
   * incrementally (a character split across reads is never split across chunks; invalid
   * bytes become U+FFFD). A listener that throws is reported as a process warning.
   */
  onData(listener: (chunk: string) => void, options?: { raw?: false }): () => void
  onData(listener: (chunk: Uint8Array) => void, options: { raw: true }): () => void
  /**
   * Flow control, e.g. for xterm.js's write-callback back-pressure: stops reading the
   * terminal and stops calling output listeners until `resume()`. The program is held by the
   * pty: it blocks in its next write once the pty's buffer (a few KiB) is full, as under a
   * terminal that stopped scrolling. Nothing is dropped, and the exit waits too (it comes
   * after the last output). Memory stays bounded: while paused, at most one more read batch
   * (16 KiB) is read, on top of output read but not yet delivered when `pause()` was called
   * (never more than 4 MiB: beyond that a session stops reading for a listener that falls
   * behind even without a pause). `terminate()`, `kill()` without a signal, an abort and
   * dispose resume the session so that the program can end. No-op before `start` and after
   * the exit.
   */
  pause(): void
  /** Ends a `pause()`: what waited is delivered, then the program runs on. */
  resume(): void
  /** True between `pause()` and `resume()`. */
  readonly paused: boolean
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

/** A panic of the screen model that a session contained (see `PtySession.incidents`). */
export interface PtyIncident {
  /** What happened: the operation, the panic message with its source location, what was done. */
  message: string
  /** Output bytes processed when it happened (compare `ScreenSnapshot.seq`). */
  seq: number
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

// ---------- Process ----------

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

// ---------- Shell ----------

/** How to start a persistent shell (`new Shell(options)`). */
export interface ShellOptions {
  /**
   * The shell program, looked up on the `PATH` of the shell's environment (a
   * name containing `/` is a path). bash, zsh, dash and other POSIX shells
   * (`sh`, ash, ksh) work. It starts without user rc files (bash
   * `--norc --noprofile`, zsh `-f`, `ENV` removed for `sh`), without line
   * editing, with tty echo off and a prompt that carries ptypilot's markers.
   * @default 'bash' where installed, else 'sh'
   */
  shell?: string
  /** The shell's starting directory; must exist (`ERR_SPAWN` on the first run otherwise). @default process.cwd() */
  cwd?: string
  /**
   * Variables merged over the inherited environment; `undefined` removes one.
   * ptypilot sets `PAGER=cat` and `GIT_PAGER=cat` (a pager would wait for keys
   * nobody can send) unless given here, and removes `ENV`, `BASH_ENV`,
   * `PROMPT_COMMAND` and `PS0`–`PS2`.
   */
  env?: Record<string, string | undefined>
  /** Terminal width, an integer from 2 to 1000. @default 80 */
  cols?: number
  /** Terminal height, an integer from 2 to 500. @default 24 */
  rows?: number
  /**
   * Variables exported in the shell when it starts, after `snapshotPath` was
   * sourced, so they win over what the snapshot sets (`env`, by contrast, is
   * the environment the shell process starts with, which the snapshot may
   * change); `undefined` unsets one. Applied again whenever the shell is
   * restarted (after `exit`, a kill or a replaced broken shell), unlike a
   * run's `env` (that command only) or an `export` in a run (lost with the
   * shell). Names must be shell variable names (`ERR_INVALID_ARG`).
   */
  sessionEnv?: Record<string, string | undefined>
  /**
   * A shell script sourced (`.`) when the shell starts and whenever it is
   * restarted — typically a snapshot of a user's shell: its functions,
   * aliases, options and exports — with its output discarded and stdin from
   * `/dev/null`. It runs before ptypilot's own settings (no line editing,
   * history off, the marker prompt), so it cannot undo them, and before
   * `sessionEnv`. A relative path is relative to `process.cwd()`. A file
   * that cannot be read fails the first run with `ERR_SPAWN` naming the path
   * and errno; an error inside the script is not reported (its output is
   * discarded), and a script that exits the shell fails the run with
   * `ERR_SPAWN`.
   */
  snapshotPath?: string
}

/** One command for `Shell.run` (and `executeShell`). */
export interface ShellRunOptions {
  /**
   * Shell code: one or more lines, here-docs included; no trailing newline
   * needed. It runs in the shell itself (as with `.`), so `cd`, `export`,
   * variables, functions and `set` options persist for later runs, unless
   * `cwd` or `env` is given. `exit` ends the shell (so does a failing command after
   * `set -e`, as in a terminal): the result carries the shell's exit status
   * and the next run starts a new shell. Its stdin is `/dev/null` (see `stdin`): a
   * command that reads input gets end-of-file instead of waiting forever.
   */
  command: string
  /**
   * Run this command in this directory, relative to the shell's current
   * directory; must exist (`ERR_SPAWN` with `path` otherwise). With `cwd` or
   * `env` the command runs in a subshell, so its own `cd`, `export` and
   * variable changes do not persist either.
   */
  cwd?: string
  /**
   * Variables for this command only (`undefined` unsets one); names must be
   * shell variable names. Runs the command in a subshell, as `cwd` does.
   */
  env?: Record<string, string | undefined>
  /**
   * Stop the command after this many milliseconds: SIGINT to the terminal's
   * foreground job (as Ctrl-C), after 1 s SIGTERM to that job's process tree,
   * after another 1 s SIGKILL, and as a last resort the shell is killed (the
   * next run starts a new one). Commands that ignore SIGINT are stopped too.
   * The result has `timedOut: true` and `exitCode: null`. Includes the time to
   * start the shell on the first run.
   */
  timeoutMs?: number
  /** Aborting stops the command as `timeoutMs` does; the result has `cancelled: true`. */
  signal?: AbortSignal
  /** Output kept in `output`; beyond it the head and the tail are kept and `truncated` is set. @default 8388608 (8 MiB) */
  maxOutputBytes?: number
  /**
   * The command's standard input. `'null'` (the default) is `/dev/null`: a
   * command that reads input gets end-of-file at once instead of waiting
   * forever (`read x` fails, `tty` prints `not a tty`, `stty` fails with
   * `Inappropriate ioctl for device`) — the sound default for agents.
   * `'terminal'` lets the command read the terminal, for commands that must
   * talk to it (`stty`, `read -s`, a confirmation prompt, `tput`); send it
   * input with `shell.write()`. The terminal does not echo input (unless the
   * command turns echo on); it is made sane and quiet again afterwards.
   * @default 'null'
   */
  stdin?: 'null' | 'terminal'
}

/** What a command run in a shell did. */
export interface ShellResult {
  /**
   * The command's exit status (`$?`; a pipeline's last stage unless
   * `set -o pipefail`); `null` when it was stopped (timeout, abort, close),
   * the shell was killed by a signal, or the command made the shell lose its
   * markers (then the status is unknown; see `Shell`).
   */
  exitCode: number | null
  /**
   * Exactly what the command printed (stdout and stderr, as on a terminal),
   * without the command line, the prompt or ptypilot's markers; escape
   * sequences stripped, `\r\n` as `\n`, a `\r` or backspace applied to its
   * line (a progress bar reads as its last state). Output of background jobs
   * that arrives while the command runs is included. The shell's own messages
   * read as for a typed command (`bash: line 1: syntax error ...`,
   * `dash: 1: x: not found`); after a stop, the shell's report on the stopped
   * job at the end (a blank line, `Terminated`) is left out.
   */
  output: string
  /** `timeoutMs` ran out and the command was stopped. */
  timedOut: boolean
  /** The `signal`, `abort()` or `close()` stopped the command. */
  cancelled: boolean
  /** The middle of the output was left out (a marker line says how much). */
  truncated: boolean
}

/**
 * A persistent shell session: runs one command at a time in the same shell,
 * so state (`cd`, `export`, variables) carries over, and knows exactly when
 * each command ends and with which status.
 *
 * Command boundaries come from shell-integration markers (OSC 133 style),
 * not from guessing prompts. A command's end is confirmed with a secret sent
 * only after the command is done, and a prompt that appears during a command
 * with a probe the shell answers only once it is back at its prompt, so a
 * command that prints fake markers does not end its run early. What remains
 * takes intent: printing a fake end and then reading ptypilot's secret (from
 * its private pipe) or probe (from the terminal), or reading the shell's
 * memory. Aliases cannot take over ptypilot's lines (`alias .=…` is
 * harmless); a command that defines a function named `command`, `builtin` or
 * `printf` breaks the markers: its run ends with `exitCode: null` and the
 * next run gets a fresh shell (as after `exit`). Commands run with
 * `set -x`/`set -v` show their own lines, not ptypilot's.
 *
 * A command can break the markers for every later one (`exec 2>&-` hides
 * bash's and dash's prompt, `unset PS1`, `exec >/dev/null 2>&1`, a
 * `PROMPT_COMMAND` that hangs). When a marker is overdue — no prompt 1 s after
 * a command ended, or the shell sat idle in the foreground for 1 s while a
 * command ran — ptypilot types a probe line that prints to `/dev/tty`. If the
 * shell answers it without its prompt, answers it in place of a command's end
 * (that command's result then has `exitCode: null`), or does not answer within
 * 5 s while idle, the shell is killed with everything it started and the run
 * goes on in a fresh shell: shell state (directory, variables) starts over, as
 * after a command that exits the shell. So a `run()` without `timeoutMs` does
 * not hang on a broken shell. (A builtin that reads the terminal itself, such
 * as `read x </dev/tty`, would read the probe line.)
 *
 * ```ts
 * await using shell = new Shell()
 * await shell.run({ command: 'cd /tmp' })
 * const { output, exitCode } = await shell.run({ command: 'pwd' }) // '/tmp\n', 0
 * ```
 */
export declare class Shell {
  /**
   * Creates the shell object; the shell process starts on the first `run`
   * (and again after it exited). Throws `ERR_INVALID_ARG` for bad options.
   */
  constructor(options?: ShellOptions)
  /** The shell's process id while it runs (it starts on the first run), else `null`. */
  readonly pid: number | null
  /** True while a run is in progress. */
  readonly busy: boolean
  /**
   * Runs a command and resolves when it ended (or was stopped).
   *
   * `onData` receives the command's output as it arrives, processed exactly
   * as `output` (so the chunks joined equal `output` unless it was
   * truncated): whole lines as they complete (a line longer than 1 MiB in
   * pieces) and the unfinished last line when the command ends, so text
   * still waiting for its newline (a `read -p` style prompt) shows up only
   * then. The command is not slowed down by the listener unless the
   * listener falls behind. Every chunk arrives before the promise settles; a
   * listener that throws is reported as a process warning.
   *
   * One run at a time: a `run` while another is in progress rejects with
   * `ERR_ALREADY_RUNNING` (await the first, or `abort()` it, then run again).
   * Rejects with `ERR_NOT_RUNNING` after `close()`, `ERR_SPAWN` when the
   * shell cannot start or `cwd` is not a directory, `ERR_INVALID_ARG` for bad
   * options (the message names the key).
   */
  run(options: ShellRunOptions, onData?: (chunk: string) => void): Promise<ShellResult>
  /**
   * Sends input to the running command, one run with `stdin: 'terminal'`:
   * `shell.write('yes\n')`. Input written before the command started (right
   * after `run()`) waits for it. What the command has not read when it ends
   * is discarded, never read by the shell as commands. Throws
   * `ERR_NOT_RUNNING` when no such run is in progress, `ERR_INVALID_ARG`
   * for data that is not a string or `Uint8Array`.
   */
  write(data: string | Uint8Array): void
  /**
   * Stops the running command as a timeout would (its result has
   * `cancelled: true`) and resolves when that run has finished; resolves at
   * once when nothing runs. The shell stays usable.
   */
  abort(): Promise<void>
  /**
   * Ends the shell and every process it started (its process tree and its
   * terminal session, also background jobs): SIGTERM, SIGHUP to the shell,
   * SIGKILL after 1 s. A run in progress resolves with `cancelled: true`;
   * later runs reject with `ERR_NOT_RUNNING`. Resolves when they are gone;
   * closing twice is fine.
   */
  close(): Promise<void>
  /** `close()` (`await using shell = new Shell()`). */
  [Symbol.asyncDispose](): Promise<void>
}

/** Options of `executeShell`: a command and, for the fresh shell, which shell to use. */
export interface ExecuteShellOptions extends ShellRunOptions {
  /** The shell program, as `ShellOptions.shell`. @default 'bash' where installed, else 'sh' */
  shell?: string
  /** Exported in the fresh shell after the snapshot, as `ShellOptions.sessionEnv`. */
  sessionEnv?: Record<string, string | undefined>
  /** Sourced when the fresh shell starts, output discarded, as `ShellOptions.snapshotPath`. */
  snapshotPath?: string
}

/**
 * Runs one command in a fresh shell, which is closed afterwards (with every
 * process it started). `cwd` and `env` are where and with what the shell
 * starts. Same result and errors as `Shell.run`.
 */
export declare function executeShell(
  options: ExecuteShellOptions,
  onData?: (chunk: string) => void,
): Promise<ShellResult>

// ---------- Interactive tools ----------

/** One command of an interactive tool. */
export interface ToolCommand {
  /** The name the model picks in `spawn`; letters, digits, `_` and `-`. */
  name: string
  /** What the command does, shown to the model. */
  description?: string
  /** The argv prefix; a spawn call's `args` are appended. `program[0]` is looked up on PATH. */
  program: string[]
  /** Run in a pseudo-terminal; `false` runs with plain pipes and stdout is the content. @default true */
  pty?: boolean
  /** Whether `apply` may send input to it. @default the value of `pty` */
  acceptsInput?: boolean
  /** JSON Schema for the call's `args` (an array of strings). */
  argsSchema?: object
  /** Quiet period (ms) before the screen counts as settled after an action. @default 100 */
  settleMs?: number
  /** Terminate the command after this many milliseconds (state `timeout`). */
  timeoutMs?: number
  /** Environment variables set for the command, over the inherited ones. */
  env?: Record<string, string>
}

/** An interactive tool: a name the model calls and the commands it can spawn. */
export interface InteractiveTool {
  /** The tool name the model calls; `^[a-zA-Z0-9_-]{1,64}$` (what Anthropic and OpenAI accept). */
  name: string
  /** What the tool is for, shown to the model before the protocol description. */
  description?: string
  /** At least one command; names unique. */
  commands: ToolCommand[]
  /** Working directory of its programs. @default the registry's `cwd` */
  cwd?: string
}

/** Why a command failed, for the model. */
export interface ToolError {
  /** E.g. `'Process exited with code 1'`, or the spawn error (errno and path). */
  message: string
  /** Explanatory lines: stderr of a pipes command, the last screen lines of a terminal one. */
  trace: string[]
  /** Retrying may help (a timeout). */
  transient: boolean
}

/** What a tool call returns to the model. */
export type ToolState =
  | {
      id: string
      state: 'running'
      /** The settled screen text (terminal) or stdout so far (pipes), bounded by `maxContentChars`. */
      content: string | null
    }
  | {
      id: string
      state: 'stopped'
      /** `ok: true` for exit code 0 (and for an abort, with the last screen); otherwise the error. */
      result: { ok: true; content: string } | { ok: false; error: ToolError }
    }

/** A summary of one handle. */
export interface HandleInfo {
  /** The handle id the model uses (`'h1'`, `'h2'`, ...). */
  id: string
  tool: string
  command: string
  /** The spawn call's extra arguments. */
  args: string[]
  /** `null` when the program could not be started. */
  pid: number | null
  state: 'running' | 'success' | 'error' | 'timeout' | 'aborted'
  /** Milliseconds since the Unix epoch. */
  startedAt: number
  finishedAt: number | null
  exitCode: number | null
}

/**
 * Registry events, in order per handle: `started`, then `output`s, then `finished` (or
 * `hostCrashed` when the isolated host holding the handle died).
 */
export type ToolEvent =
  | ({ type: 'started' } & HandleInfo)
  | { type: 'output'; id: string; chunk: string }
  | ({ type: 'finished'; durationMs: number } & HandleInfo)
  | HostCrashedEvent

/**
 * The isolated host (`isolation: 'process'`) holding handle `id` died: the handle is lost and
 * its programs were killed; the next call starts a fresh host. One event per handle the host
 * held; calls pending at that moment reject with `ERR_HOST_CRASHED` and the same `message`.
 * (Every crash is also reported as a process warning, code `PTYPILOT_HOST_CRASHED`.)
 */
export interface HostCrashedEvent {
  type: 'hostCrashed'
  /** The lost handle. */
  id: string
  /** The host's process id. */
  hostPid: number | null
  /** The signal that ended the host (`'SIGKILL'`, `'SIGABRT'`, `'SIGSEGV'`), or `null`. */
  signal: string | null
  /** The host's exit code when it exited, or `null`. */
  exitCode: number | null
  /** Every handle the host held (later calls naming one reject with `ERR_UNKNOWN_HANDLE`). */
  lost: string[]
  /** What happened, naming the signal or exit code and the lost running handles. */
  message: string
  /** The end of the host's error output (a panic message, a native stack), or `''`. */
  stderr: string
}

/**
 * What `ToolRegistry.respond()` resolves with: the text to send back to the model as the tool
 * result, whether it reports an error (for the provider's `is_error` / error flag), and the
 * typed value behind it.
 */
export type ModelReply = {
  /**
   * For an interactive tool: `[h1 running]` and the content, `[h1 finished; the handle is
   * closed]` and the final content, or `[h1 failed: Process exited with code 1; …]` and the
   * trace. For a terminal tool: its output or screen, ending with the session state and cursor.
   * A running terminal command's screen (and `pty_read`'s screen) is sent lean (`screenView`):
   * the full view the first time, then only what changed since the screens sent for that
   * handle or session, `[screen unchanged]` when nothing did; a fetch (or `pty_read`) with
   * `full: true` gets the whole screen. A finished terminal command's final screen comes the
   * same way when it changed only in part. `rebuildScreen` over the replies gives back exactly
   * the content `call()` returns.
   * For a call the model got wrong: `Error: <message>` and what to do next (the live handles,
   * the valid calls, the tools there are).
   */
  text: string
  /** A call the model got wrong, a command that failed (exit code not 0), or a lost host. */
  isError: boolean
  /** An interactive tool's state (absent for an error and for terminal tools). */
  state?: ToolState
  /** A terminal tool's typed result, as `call()` gives it (absent for an error and for interactive tools). */
  result?: TerminalToolResult
}

/** The provider format of `ToolRegistry.definitions()`. */
export type DefinitionFormat = 'anthropic' | 'openai' | 'openai-responses' | 'mcp'

/**
 * A tool's input schema as sent to providers: a flat JSON Schema object (no top-level `oneOf`,
 * which Anthropic and OpenAI reject). Assignable to the SDKs' schema types.
 */
export type ToolInputSchema = {
  type: 'object'
  properties: { [field: string]: { [keyword: string]: unknown } }
  required: string[]
  additionalProperties: false
  [keyword: string]: unknown
}

/** `definitions('anthropic')`: assignable to `Anthropic.Messages.Tool` (`@anthropic-ai/sdk`). */
export type AnthropicToolDefinition = {
  name: string
  description: string
  input_schema: ToolInputSchema
}

/**
 * `definitions('openai')`: assignable to `ChatCompletionTool` / `ChatCompletionFunctionTool`
 * (`openai`, Chat Completions). The schema is in strict form: every field required, optional
 * ones nullable (`null` means "not given").
 */
export type OpenAIChatToolDefinition = {
  type: 'function'
  function: { name: string; description: string; parameters: ToolInputSchema; strict: true }
}

/** `definitions('openai-responses')`: assignable to `FunctionTool` (`openai`, Responses API); strict schema. */
export type OpenAIResponsesToolDefinition = {
  type: 'function'
  name: string
  description: string
  parameters: ToolInputSchema
  strict: true
}

/** MCP tool annotations (hints for the client; the terminal tools carry them). */
export type McpToolAnnotations = {
  title?: string
  /** The tool does not change its environment (`read` tools). */
  readOnlyHint?: boolean
  /** The tool may destroy or end something (`start`, `input`, `stop` tools). */
  destructiveHint?: boolean
  /** Calling it again with the same input has no further effect. */
  idempotentHint?: boolean
  /** The tool reaches beyond the program it drives (runs arbitrary commands). */
  openWorldHint?: boolean
}

/** `definitions('mcp')`: an entry of an MCP `tools/list` result. */
export type McpToolDefinition = {
  name: string
  description: string
  inputSchema: ToolInputSchema
  /** Present for the terminal tools (from their permission class). */
  annotations?: McpToolAnnotations
}

/** Any of the definition shapes. */
export type ToolDefinition =
  | AnthropicToolDefinition
  | OpenAIChatToolDefinition
  | OpenAIResponsesToolDefinition
  | McpToolDefinition

/** Options of `ToolRegistry`. */
export interface ToolRegistryOptions {
  /** Working directory for tools that name none. @default process.cwd() */
  cwd?: string
  /** Running handles allowed at once; the next spawn rejects with `ERR_LIMIT`. @default 64 */
  maxHandles?: number
  /** Longest content returned to the model, in characters; the head and tail are kept around a marker. @default 32000 */
  maxContentChars?: number
  /** Receives every event; a listener that throws is reported as a process warning. */
  onEvent?: (event: ToolEvent) => void
  /**
   * `'process'` runs the registry in a child Node process (the isolated host), so that a native
   * crash there never takes this process down: same API and results, calls carried over IPC.
   * When the host dies (crash, SIGKILL, out of memory) its programs are killed (a process that
   * left their tree too, found by the `PTYPILOT_HOST` token it inherited), pending calls reject
   * with `ERR_HOST_CRASHED`, `onEvent` gets a `hostCrashed` event, and the next call starts a
   * fresh host. `[Symbol.asyncDispose]()` also ends the host (a later call starts another); an
   * idle host does not keep this process alive, and exits with it. @default 'none'
   */
  isolation?: 'none' | 'process'
  /**
   * With `isolation: 'process'`: how long the host may take to answer a ping while calls are
   * pending; one that does not is killed and its calls reject with `ERR_HOST_CRASHED`. @default 10000
   */
  hostTimeoutMs?: number
  /**
   * With `isolation: 'process'`: how long a host may take to start; one that does not is killed
   * and the calls waiting for it reject with `ERR_TIMEOUT`. @default 10000
   */
  hostStartTimeoutMs?: number
}

/**
 * Interactive tools an LLM agent drives with `spawn` / `fetch` / `apply` / `abort` calls.
 * The harness forwards the model's tool calls to `call()` and sends back the `ToolState`.
 *
 * After `spawn` and `apply` the registry waits for the program to react (new output, up to 2 s;
 * after a line ending in Enter, output beyond the echo of what was typed), then for the screen to
 * stay quiet for the command's `settleMs` (at most 5 s), so the state shows the program's answer.
 *
 * Handles: a stopped handle is forgotten once its stopped state was returned by `call()`; later
 * calls naming it reject with `ERR_UNKNOWN_HANDLE`. Running handles (and terminal sessions) do not
 * keep the process alive, and are killed when it exits: call `abortAll()` (or use `await using`)
 * when done.
 *
 * ```ts
 * const registry = new ToolRegistry({ cwd: repo })
 * registry.register(gitTool())
 * const tools = registry.definitions('anthropic') // send to the model
 * // for each tool_use block: const state = await registry.call(block.name, block.input)
 * ```
 */
export declare class ToolRegistry {
  constructor(options?: ToolRegistryOptions)
  /**
   * Adds an interactive tool, or a tool set (`terminalTools()`) whose tools then sit beside the
   * interactive ones: in `names()`, `definitions()`, `call()`, `respond()`, with their sessions in
   * `list()`, `wait()`, `abortAll()` and the events. A tool set registered in several registries
   * gets separate sessions in each. `ERR_INVALID_ARG` naming the bad field, or when a name is
   * taken (nothing of the set is added then).
   */
  register(tool: InteractiveTool | ToolSet): void
  /**
   * Removes a tool and terminates its running handles; false when it was not registered. For a
   * tool set's tool, only that tool goes; removing the set's last tool stops its sessions.
   */
  unregister(name: string): boolean
  /** Registered tool names, sorted. */
  names(): string[]
  /**
   * The tool's input schema: `{ type: 'object', oneOf: [spawn, fetch, apply?, abort] }`; `apply`
   * only when some command accepts input. `ERR_UNKNOWN_TOOL` for an unknown name.
   */
  schema(name: string): object
  /**
   * Tool definitions of every registered tool, sorted by name, ready to send, typed so that they
   * pass to the provider SDKs without casts:
   *
   * - `'anthropic'`: `{ name, description, input_schema }` (`Anthropic.Messages.Tool[]`);
   * - `'openai'`: `{ type: 'function', function: { name, description, parameters, strict: true } }`
   *   (Chat Completions `ChatCompletionTool[]`);
   * - `'openai-responses'`: `{ type: 'function', name, description, parameters, strict: true }`
   *   (Responses API `FunctionTool[]`);
   * - `'mcp'`: `{ name, description, inputSchema, annotations? }` (MCP `tools/list`).
   *
   * Neither provider takes `oneOf` at the top of a schema, so interactive tools use an equivalent
   * flat schema; `call()` validates calls the same way whichever the model saw (OpenAI's `null`s
   * count as fields not given). `ERR_INVALID_ARG` for another format. @default 'anthropic'
   */
  definitions(format?: 'anthropic'): AnthropicToolDefinition[]
  definitions(format: 'openai'): OpenAIChatToolDefinition[]
  definitions(format: 'openai-responses'): OpenAIResponsesToolDefinition[]
  definitions(format: 'mcp'): McpToolDefinition[]
  definitions(format?: DefinitionFormat): ToolDefinition[]
  /**
   * Carries out a model's call (an object, or a JSON string as some providers send it) for a
   * program; an agent loop uses `respond()` instead.
   * Rejects with `ERR_UNKNOWN_TOOL`, `ERR_UNKNOWN_HANDLE`, `ERR_INVALID_INPUT` (the message
   * names the field; also for `apply` to a command without input or to a stopped handle) or
   * `ERR_LIMIT`. A program that fails or cannot start resolves as a `stopped` state.
   *
   * The terminal tools resolve to their typed results; they reject with `ERR_INVALID_INPUT`
   * (a bad field, a command `allow` refuses), `ERR_UNKNOWN_HANDLE` (no such session),
   * `ERR_NOT_RUNNING` (`pty_send` to an exited session), `ERR_SPAWN` (the program cannot start)
   * and `ERR_LIMIT` (`maxSessions` running). With a name that is not a literal, the result type is
   * `ToolState`; cast when the name may be a terminal tool's.
   */
  call(name: 'pty_exec', input: PtyExecInput | string): Promise<PtyExecResult>
  call(name: 'pty_start', input: PtyStartInput | string): Promise<PtyStartResult>
  call(name: 'pty_read', input: PtyReadInput & { screen: true }): Promise<PtyScreenResult>
  call(name: 'pty_read', input: (PtyReadInput & { screen?: false | null }) | string): Promise<PtyOutputResult>
  call(name: 'pty_read', input: PtyReadInput): Promise<PtyReadResult>
  call(name: 'pty_send', input: PtySendInput | string): Promise<PtySendResult>
  call(name: 'pty_list', input?: Record<string, never> | string): Promise<PtyListResult>
  call(name: 'pty_stop', input: PtyStopInput | string): Promise<PtyStopResult>
  call(name: string, input: unknown): Promise<ToolState>
  /**
   * Carries out a model's call and resolves with the text to send back to it: never rejects for
   * the model's mistakes — an unknown tool (when others exist), an unknown or forgotten handle or
   * session, a field that does not match the schema, input to a command that takes none or to a
   * stopped handle, too many handles, a program that cannot start, a command `allow` refuses,
   * `pty_send` to an exited session, or (with `isolation: 'process'`) a host that crashed — but
   * answers them with `isError: true` and a text that says what to do next (the live handles or
   * sessions, the valid calls, the tools there are). Rejects only for the caller's bugs:
   * `ERR_UNKNOWN_TOOL` when no tool is registered at all, `ERR_INVALID_ARG` when `name` is not a
   * string, and failures of ptypilot itself (`ERR_INTERNAL`).
   *
   * ```ts
   * for (const block of message.content) if (block.type === 'tool_use') {
   *   const reply = await registry.respond(block.name, block.input)
   *   results.push({ type: 'tool_result', tool_use_id: block.id, content: reply.text, is_error: reply.isError })
   * }
   * ```
   */
  respond(name: string, input: unknown): Promise<ModelReply>
  /**
   * Every handle not yet forgotten, then every terminal session (`tool` is `'pty_start'` or
   * `'pty_exec'`, `command` the program; `state` `'aborted'` once `pty_stop` stopped it).
   */
  list(): HandleInfo[]
  /**
   * Resolves with the handle's state once it stopped (or when `timeoutMs` passed: then `running`).
   * For a terminal session, the content is the last 200 lines of its output.
   */
  wait(id: string, options?: { timeoutMs?: number }): Promise<ToolState>
  /** Terminates every running handle and terminal session (TERM, grace, KILL; whole trees) and waits for them. */
  abortAll(): Promise<void>
  /** `abortAll()`. */
  [Symbol.asyncDispose](): Promise<void>
}

// ---------- Terminal tools ----------

/**
 * What a host may gate a terminal tool on: `'start'` (pty_exec, pty_start run a program),
 * `'input'` (pty_send types into one), `'stop'` (pty_stop ends one), `'read'` (pty_read,
 * pty_list change nothing).
 */
export type PermissionClass = 'start' | 'input' | 'stop' | 'read'

/** One tool of a tool set, as `definitions()` sends it and as a host gates it. */
export interface ToolSetTool {
  readonly name: string
  readonly description: string
  /** What the tool does, for a host's permission prompt or policy. */
  readonly permission: PermissionClass
  /** The input schema (optional fields optional). */
  readonly inputSchema: ToolInputSchema
  /** The input schema in OpenAI's strict form (every field required, optional ones nullable). */
  readonly strictSchema: ToolInputSchema
  /**
   * MCP annotations derived from the permission class: `read` is read-only and idempotent,
   * `stop` destructive and idempotent, `start` and `input` destructive.
   */
  readonly annotations: McpToolAnnotations
}

/**
 * A set of tools that `ToolRegistry.register()` accepts beside interactive tools; made by
 * `terminalTools()`. Plain data (frozen): the registry that registers it keeps the sessions.
 */
export interface ToolSet {
  readonly kind: 'terminal'
  readonly name: string
  /** The options, checked, with the defaults filled in. */
  readonly options: Readonly<Required<Omit<TerminalToolsOptions, 'cwd' | 'spillDir' | 'allow' | 'env'>>> &
    Pick<TerminalToolsOptions, 'cwd' | 'spillDir' | 'allow' | 'env'>
  readonly tools: readonly ToolSetTool[]
}

/** Options of `terminalTools()`; every limit has a default. */
export interface TerminalToolsOptions {
  /** Working directory of the programs (a call's `cwd` is relative to it). @default the registry's `cwd`, else process.cwd() */
  cwd?: string
  /** Sessions running at once; the next start is `ERR_LIMIT`. Exited sessions kept for reading: as many. @default 16 */
  maxSessions?: number
  /**
   * Where output too long to inline is written (created when needed). @default a fresh
   * directory `ptypilot-output-*` in the OS temp directory. The files are not deleted: the model
   * reads them afterwards.
   */
  spillDir?: string
  /**
   * Which programs pty_exec and pty_start may run: a function of the `command` as given, or a
   * list of commands, each matching a command exactly as given: a bare name (looked up on PATH)
   * allows that name only, a path allows that path only (`python3` does not allow
   * `/tmp/x/python3`). A refused call is `ERR_INVALID_INPUT`
   * (`denied: true`) and its reply says so. With `isolation: 'process'` a function stays in this
   * process and is checked before the call is forwarded; a list crosses to the host.
   * @default every program
   */
  allow?: ((command: string) => boolean) | string[]
  /** Environment variables set for the programs, over the inherited ones (`undefined` removes one). */
  env?: Record<string, string | undefined>
  /** Terminal size of the sessions. @default 120 */
  cols?: number
  /** @default 30 */
  rows?: number
  /** Output inlined at most, in lines; more is written to a file (head and tail inline). @default 2000 */
  maxOutputLines?: number
  /** Output inlined at most, in bytes (UTF-8); more is written to a file. @default 51200 */
  maxOutputBytes?: number
  /** pty_exec's `timeout_ms` when the call gives none. @default 60000 */
  defaultTimeoutMs?: number
  /** The largest `timeout_ms` pty_exec accepts. @default 300000 */
  maxTimeoutMs?: number
  /** The largest `wait_ms` pty_read accepts. @default 30000 */
  maxWaitMs?: number
  /** pty_stop (and `abortAll()`): grace between TERM and KILL for the tree. @default 2000 */
  stopGraceMs?: number
}

/** `pty_exec` input. */
export interface PtyExecInput {
  /** The executable (no shell), looked up on PATH. */
  command: string
  args?: string[] | null
  /** Relative to the set's working directory. */
  cwd?: string | null
  /** @default 60000, at most `maxTimeoutMs` */
  timeout_ms?: number | null
}
/** `pty_start` input. */
export interface PtyStartInput {
  command: string
  args?: string[] | null
  cwd?: string | null
  /** A label shown by pty_list. */
  title?: string | null
}
/** `pty_read` input. */
export interface PtyReadInput {
  id: string
  /** Only output after this cursor (from a previous result). */
  since?: number | null
  /** Only the last this many lines. */
  tail?: number | null
  /** Wait up to this long for new output first (at most `maxWaitMs`). */
  wait_ms?: number | null
  /** The current screen instead of the output. */
  screen?: boolean | null
  /**
   * With `screen`, every row: `respond()` otherwise sends a screen that changed only in part
   * since the last screen read of the session as a partial view (`call()` always gives the whole
   * screen).
   */
  full?: boolean | null
}
/** `pty_send` input: text and named keys (`"print(1)<enter>"`, `"<ctrl+c>"`) as `apply` takes them. */
export interface PtySendInput {
  id: string
  input: string
}
/** `pty_stop` input. */
export interface PtyStopInput {
  id: string
}

/** A session's state in a result. */
export interface TerminalStatus {
  /** The session id (`'pty1'`, ...). */
  id: string
  status: 'running' | 'exited'
  exitCode: number | null
  /** The signal that ended it (`'SIGTERM'`), or null. */
  signal: string | null
}

/** Output in a result: the text since the cursor asked for, inline or spilled to a file. */
export interface TerminalOutput {
  /**
   * The output, stripped of terminal escapes (`\n` line ends); when spilled, its first 50 and last
   * 150 lines around a marker naming the file.
   */
  output: string
  /** Pass as `since` to read only what comes after. */
  cursor: number
  /** Older output was dropped from the session's buffer (8 MiB kept) before it was read. */
  truncated: boolean
  /** Lines of the whole output. */
  lines: number
  /** UTF-8 bytes of the whole output. */
  bytes: number
  /** The file holding the whole output when it was over `maxOutputLines` / `maxOutputBytes`, else null. */
  spillPath: string | null
}

/**
 * `pty_exec`: the program's exit and output; or, when it did not finish within `timeout_ms`
 * (`timedOut`), the output so far and the id of the session it keeps running in.
 */
export interface PtyExecResult extends TerminalStatus, TerminalOutput {
  timedOut: boolean
  /** The timeout that applied. */
  timeoutMs: number
}
/** A session's description (`pty_start`, `pty_list`). */
export interface TerminalSessionInfo extends TerminalStatus {
  command: string
  args: string[]
  title: string | null
  cwd: string
  pid: number | null
  /** Milliseconds since the Unix epoch. */
  startedAt: number
  /** The end of its output so far (a read `since` it gets what comes next). */
  cursor: number
}
/** `pty_start`: the new session. */
export type PtyStartResult = TerminalSessionInfo
/** `pty_read` without `screen`: the output (`since`, `tail`). */
export interface PtyOutputResult extends TerminalStatus, TerminalOutput {
  screen?: undefined
}
/** `pty_read { screen: true }`: the screen. */
export interface PtyScreenResult extends TerminalStatus {
  /** The end of the output so far. */
  cursor: number
  screen: Pick<ScreenSnapshot, 'text' | 'lines' | 'cursor' | 'cols' | 'rows' | 'altScreen' | 'title'>
}
/** `pty_read`: the output, or with `screen: true` the screen. */
export type PtyReadResult = PtyOutputResult | PtyScreenResult
/** `pty_send`: bytes written, and the cursor of the output before them (read the answer from it). */
export interface PtySendResult {
  id: string
  bytes: number
  cursor: number
}
/** `pty_list`. */
export interface PtyListResult {
  sessions: TerminalSessionInfo[]
}
/** `pty_stop`: how the session ended (it is removed). */
export interface PtyStopResult extends TerminalStatus {
  status: 'exited'
  /** True when pty_stop (or `abortAll`) ended it; false when it had exited already. */
  stopped: boolean
}
/** Any terminal tool result. */
export type TerminalToolResult =
  | PtyExecResult
  | PtyStartResult
  | PtyReadResult
  | PtySendResult
  | PtyListResult
  | PtyStopResult

/**
 * The terminal tool set, for agents that need a general terminal beside their domain tools:
 *
 * - `pty_exec { command, args?, cwd?, timeout_ms? }` runs a program to completion (default
 *   60 000 ms, at most 300 000) and returns its exit code and output; if it does not finish in
 *   time, the output so far and a session id — it keeps running for `pty_read`;
 * - `pty_start { command, args?, cwd?, title? }` starts a persistent session, returns its id;
 * - `pty_read { id, since?, tail?, wait_ms?, screen? }` returns the output since a cursor
 *   (without `since`: from the start, `tail` limiting it), stripped of escapes, after waiting up to
 *   `wait_ms` (at most 30 000) for new output, with the session state and the new cursor; with
 *   `screen: true` the current screen;
 * - `pty_send { id, input }` types text, raw escapes and named keys (`<enter>`, `<ctrl+c>`, `<up>`);
 * - `pty_list {}` lists the sessions; `pty_stop { id }` terminates a session's whole process tree
 *   (TERM, grace, KILL — descendants that left the group or the session too) and removes it.
 *
 * Programs run without a shell (argv) in a pseudo-terminal of `cols`×`rows`. Output over
 * 2 000 lines or 50 KiB is written to a file whose path is returned, with the head and tail
 * inline. A running session does not keep the process alive (it is killed when the process
 * exits), as a registry's handles. Each tool has a `permission` class and MCP annotations. Register it with
 * `registry.register(terminalTools())`; `call()` gives typed results, `respond()` text.
 * `ERR_INVALID_ARG` for a bad option.
 */
export declare function terminalTools(options?: TerminalToolsOptions): ToolSet

/**
 * The git tool: `stage` (`git add --patch [paths]`) and `rebase` (`git rebase --interactive
 * <base>`) in a terminal, taking input; `log` (`git log --oneline -20 [args]`) with pipes.
 */
export declare function gitTool(): InteractiveTool

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
  /**
   * The kitty keyboard protocol flags a program pushed (`CSI > flags u`), an integer from 0 to 31;
   * `sendKeys` uses the flags of the program's current screen. 0 is a legacy terminal.
   * - 1 (disambiguate): text keys (`a`, `A`, `!`) and plain Enter, Tab, Backspace as before; Esc is
   *   `ESC [ 27 u`, ctrl/alt combinations `ESC [ code ; m u` (`ctrl+c` is `ESC [ 99 ; 5 u`),
   *   arrows, Home, End, F1–F4 `ESC [ X` / `ESC [ 1 ; m X`, the others `ESC [ n ; m ~` (no
   *   application cursor forms). Keys xterm cannot send become sendable: `shift+enter`,
   *   `ctrl+1`, `f13`…`f35`.
   * - 2 (event types): every key sent as an escape code is followed by its release
   *   (`ESC [ 99 ; 5 : 3 u`).
   * - 4 (alternate keys): a shifted key carries its shifted form (`ESC [ 97 : 65 ; 2 u` for `A`);
   *   a symbol is the US-layout key that types it (`!` is `ESC [ 49 : 33 ; 2 u`).
   * - 8 (all keys as escape codes): text keys and Enter, Tab, Backspace too (`a` is `ESC [ 97 u`).
   * - 16 (associated text, with 8): the text a key types (`ESC [ 97 ; ; 97 u`).
   *
   * Flags without 1 or 8 change nothing; the modifier keys themselves are not sent.
   * @default 0
   */
  kittyFlags?: number
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
 * encodeKeys(['ctrl+c'], { kittyFlags: 1 })      // '\x1b[99;5u' (kitty keyboard protocol)
 * ```
 *
 * Throws `ERR_INVALID_ARG` when `keys` is not an array of strings, for an unknown key (the
 * message names it, e.g. `keys[1]: unknown key "foo"; accepted: …`) and for combinations xterm
 * cannot send (`shift+enter`, `ctrl+1`) unless `kittyFlags` asks for the kitty protocol.
 */
export declare function encodeKeys(keys: string[], modes?: EncodeKeysModes): string

// ---------- TaskRunner ----------

/** How to start a task: the options of a `PtySession`, plus a display name. */
export interface TaskOptions extends PtyOptions {
  /** Shown in events and lists. @default the command line (`command` and `args`) */
  name?: string
  /**
   * `task_log` chunks are the output bytes exactly as the program wrote them (`Uint8Array`),
   * for front ends that decode themselves (xterm.js `term.write(bytes)`, binary WebSocket
   * frames); otherwise strings decoded as UTF-8. @default false
   */
  raw?: boolean
}

/** Where a task is: `running`, or how it ended. */
export type TaskState = 'running' | 'success' | 'error' | 'timeout' | 'cancelled'

/** A task as `start`, `get`, `list` and `wait` report it. */
export interface TaskInfo {
  /** Unique within its runner: `'task-1'`, `'task-2'`, ... */
  taskId: string
  name: string
  /**
   * `success`: exit code 0; `error`: any other exit code, or a signal the runner did not send;
   * `timeout`: the task's `timeoutMs` ran out; `cancelled`: `cancel()`, `cancelAll()` or the
   * task's `AbortSignal` ended it.
   */
  state: TaskState
  /** Process id of the program. */
  pid: number | null
  /** When it started, in milliseconds since the epoch. */
  startedAt: number
  /** When it finished (milliseconds since the epoch), else `null`. */
  finishedAt: number | null
  /** Exit code of a normal exit, else `null`. */
  exitCode: number | null
  /** The signal that ended the program (`'SIGTERM'`), else `null`. */
  signal: string | null
  /** Run time in whole milliseconds, measured with a monotonic clock; `null` while running. */
  durationMs: number | null
}

/** The first event of a task, emitted by `start()` before it returns. */
export interface TaskStartedEvent {
  type: 'task_started'
  taskId: string
  name: string
  /** Milliseconds since the epoch. */
  startedAt: number
}

/** A chunk of a task's output, as the program wrote it (escape sequences included). */
export interface TaskLogEvent {
  type: 'task_log'
  taskId: string
  /**
   * Decoded as UTF-8 (a character split across reads is never split across chunks), or, for a
   * task started with `raw: true`, the bytes as written (`Uint8Array`).
   */
  chunk: string | Uint8Array
}

/** The last event of a task: after every `task_log` of it. */
export interface TaskFinishedEvent {
  type: 'task_finished'
  taskId: string
  name: string
  state: Exclude<TaskState, 'running'>
  exitCode: number | null
  signal: string | null
  durationMs: number
}

/** What a `TaskRunner` emits; per task: `task_started`, then `task_log`s, then `task_finished`. */
export type TaskEvent = TaskStartedEvent | TaskLogEvent | TaskFinishedEvent

/** Options of `new TaskRunner()`. */
export interface TaskRunnerOptions {
  /** Options every task starts with; a task's own options override them. */
  defaults?: Partial<TaskOptions>
  /** Receives every event of every task (same as `onEvent()`). */
  onEvent?: (event: TaskEvent) => void
  /**
   * Finished tasks remembered for `get`, `wait`, `session` and `list`; beyond this the oldest
   * finished ones are forgotten (their ids then give `ERR_UNKNOWN_HANDLE`). @default 100
   */
  keepFinished?: number
}

/**
 * Runs commands as tasks, each in its own pseudo-terminal, and reports them as events that a
 * UI or an agent relays (a terminal tab per task, a chat line per start and finish); `wait()`
 * resolves at completion without polling.
 *
 * ```ts
 * const tasks = new TaskRunner({ onEvent: (e) => socket.send(JSON.stringify(e)) })
 * const { taskId } = tasks.start({ name: 'install', command: 'npm install', shell: true, timeoutMs: 300_000 })
 * const done = await tasks.wait(taskId) // { state: 'success', exitCode: 0, durationMs: 5312, ... }
 * ```
 *
 * Per task the events come in order: `task_started` (emitted by `start()` before it returns),
 * every `task_log` chunk in the order the program wrote it, then `task_finished` — after the last
 * byte of output, and before `wait()` resolves. A listener that throws is reported as a process
 * warning and does not stop the others.
 */
export declare class TaskRunner {
  constructor(options?: TaskRunnerOptions)
  /**
   * Starts a task and returns it (`state: 'running'`). Throws as `PtySession.spawn` does
   * (`ERR_SPAWN`, `ERR_INVALID_ARG`); a task that could not start has no id and no events.
   */
  start(options: TaskOptions): TaskInfo
  /** Adds an event listener; returns a function that removes it. */
  onEvent(listener: (event: TaskEvent) => void): () => void
  /**
   * Resolves with the task's final `TaskInfo` when it finished (at once if it has). Rejects with
   * `ERR_TIMEOUT` after `timeoutMs` or `ERR_ABORTED` when `signal` aborts (the task keeps running),
   * and `ERR_UNKNOWN_HANDLE` for an id it does not know.
   */
  wait(taskId: string, options?: { timeoutMs?: number; signal?: AbortSignal }): Promise<TaskInfo>
  /**
   * Terminates the task's process tree (TERM, `graceMs`, KILL) and resolves with its final
   * `TaskInfo` (`state: 'cancelled'`, unless it had already finished).
   */
  cancel(taskId: string, options?: { /** @default 2000 */ graceMs?: number }): Promise<TaskInfo>
  /** Cancels every running task and waits for them. */
  cancelAll(options?: { graceMs?: number }): Promise<void>
  /** The task as it is now. `ERR_UNKNOWN_HANDLE` for an id it does not know. */
  get(taskId: string): TaskInfo
  /** Every task remembered, running and finished, in start order. */
  list(): TaskInfo[]
  /**
   * The task's session, to type into it (`write`), `resize` it, read its `screen()` or its
   * transcript (`read()`: what a late viewer missed). `ERR_UNKNOWN_HANDLE` for an unknown id.
   */
  session(taskId: string): PtySession
  /** Cancels every running task (`await using tasks = new TaskRunner()`). */
  [Symbol.asyncDispose](): Promise<void>
}

// ---------- key parsing ----------

/**
 * What a terminal sent for a key: a string (xterm.js `onData`, stdin with an encoding) or the raw
 * bytes (a `Buffer` or `Uint8Array` from stdin).
 */
export type KeyData = string | Uint8Array

/**
 * The key that `data` stands for, as its canonical id — the name `encodeKeys` and `sendKeys` take,
 * with modifiers in the order ctrl, alt, shift: `'a'`, `'A'`, `'enter'`, `'ctrl+c'`, `'alt+x'`,
 * `'shift+tab'`, `'ctrl+shift+left'`, `'pageUp'`, `'f5'`, `'kp5'`. `null` when `data` is not exactly
 * one key (text of several characters, two keys, a paste marker, a mouse report, malformed bytes);
 * never throws.
 *
 * Reads single bytes and characters (`'\x03'` is `ctrl+c`, `' '` is `space`, `'<'` is `lt`), legacy
 * escape sequences from one table (xterm CSI and SS3 keys in both cursor modes, modified keys
 * `ESC [ 1 ; 5 A`, VT220 `ESC [ 5 ~`, rxvt and Linux console forms, application keypad), xterm's
 * modifyOtherKeys (`ESC [ 27 ; 5 ; 105 ~` is `ctrl+i`), the kitty keyboard protocol (`CSI u`,
 * `CSI ~`, `CSI 1 ; m X` — see `parseKittySequence`), and any of these after `ESC` (alt).
 *
 * `parseKey(encodeKeys([k])) === k` for every canonical name `k` in both cursor modes. Where two keys
 * send the same bytes in a legacy terminal, the plainer one is returned: `'\t'` is `tab`, not
 * `ctrl+i`; `'\x01'` is `ctrl+a` (also ctrl+shift+a); `'5'` is `5` (also `kp5`). The kitty protocol
 * tells them apart (`'\x1b[105;5u'` is `ctrl+i`).
 *
 * A shifted letter alone is the capital (`'A'`); with other modifiers the letter stays small
 * (`'ctrl+shift+a'`, `'alt+shift+a'`). Only ctrl, alt and shift are part of an id (kitty's super,
 * hyper, meta and the lock keys are not). A kitty report gives the same id for press, repeat and
 * release; `parseKittySequence` tells which. A few keys only the kitty protocol reports have ids
 * that `encodeKeys` cannot send: `f13`…`f35`, `capsLock`, `scrollLock`, `numLock`, `printScreen`,
 * `pause`, `menu`, `kpEqual`, `kpBegin`, the media keys (`mediaPlay` …) and the modifier keys
 * themselves (`leftShift` …).
 *
 * @param kittyProtocolActive the program enabled the kitty keyboard protocol. Then `'\x1b\r'` and
 *   `'\n'` — what terminals send for shift+enter under it — read as `shift+enter` instead of
 *   `alt+enter` and `ctrl+j`. Default `false`.
 *
 * @example
 * ```ts
 * parseKey('\x1b[1;5A')      // 'ctrl+up'
 * parseKey('\x1bOA')         // 'up' (application cursor mode)
 * parseKey('\x1b[97;6u')     // 'ctrl+shift+a' (kitty)
 * parseKey('hello')          // null
 * ```
 */
export declare function parseKey(data: KeyData, kittyProtocolActive?: boolean): string | null

/**
 * Whether `data` is the key `keyId` names. `keyId` is any spelling `encodeKeys` takes (`'ctrl+c'`,
 * `'C-c'`, `'Ctrl+C'`, `'pgdn'`, `'shift+a'` or `'A'`). Only ctrl, alt and shift are compared; lock
 * keys and super/hyper/meta do not prevent a match. A kitty report of a key that is not ASCII also
 * matches the key at its place on a US layout (ctrl with the Cyrillic `с` matches `'ctrl+c'`); on a
 * remapped Latin layout (Dvorak) the letter the key types decides. `false` for an unknown key name
 * or data that is not one key; never throws.
 */
export declare function matchesKey(data: KeyData, keyId: string, kittyProtocolActive?: boolean): boolean

/** One key report of the kitty keyboard protocol. */
export interface KittySequence {
  /**
   * The key: its Unicode code point for a character key — always the unshifted key, `97` for both
   * `a` and `A` — 13 Enter, 9 Tab, 27 Esc, 127 Backspace, or kitty's private-use code for the other
   * keys (Insert 57348, Delete 57349, Left 57350, Right 57351, Up 57352, Down 57353, Page Up 57354,
   * Page Down 57355, Home 57356, End 57357, F1 57364 … F35 57398, keypad 0 57399 …).
   */
  codepoint: number
  /** The shifted key, when the program asked for alternate keys (`65` for shift+a). */
  shiftedKey?: number
  /** The key at the same place on a US layout, when it differs and alternate keys were asked for. */
  baseLayoutKey?: number
  /** Modifier bits, lock bits masked out: shift 1, alt 2, ctrl 4, super 8, hyper 16, meta 32. */
  modifier: number
  /** 1 press, 2 repeat, 3 release. */
  eventType: 1 | 2 | 3
  /** The text the key produced, when the program asked for associated text. */
  text?: string
}

/**
 * Parses one kitty keyboard protocol key report: `CSI code[:shifted[:base]] [; mods[:event] [; text]] u`,
 * `CSI n [; mods[:event]] ~`, or `CSI [1 ; mods[:event]] X` with `X` one of `A B C D E F H P Q S`.
 * `null` for anything else (including two reports in a row); never throws.
 *
 * @example
 * ```ts
 * parseKittySequence('\x1b[97:65;6:3u') // { codepoint: 97, shiftedKey: 65, modifier: 5, eventType: 3 }
 * ```
 */
export declare function parseKittySequence(data: KeyData): KittySequence | null

/**
 * Whether `data` is a kitty report of the key `codepoint` with the modifiers `modifier`, given as
 * bits (shift 1, alt 2, ctrl 4 — kitty's encoded value minus one). Only shift, alt and ctrl are
 * compared; lock bits are masked. A report's base-layout key matches too, only when the key itself
 * is not ASCII. `false` when `data` is not a kitty report; never throws.
 */
export declare function matchesKittySequence(data: KeyData, codepoint: number, modifier: number): boolean

/**
 * Whether `data` is exactly one of the legacy escape sequences (xterm, VT220, rxvt, Linux console,
 * application keypad) of the key `keyName` (any spelling `encodeKeys` takes): `'\x1bOA'` and
 * `'\x1b[A'` are `up`, `'\x1b[11~'` and `'\x1bOP'` are `f1`. Single bytes and alt (`ESC x`) forms are
 * not escape sequences: `false`, as for anything else; never throws.
 */
export declare function matchesLegacySequence(data: KeyData, keyName: string): boolean

// ---------- shell command fixups ----------

/** What `applyBashFixups` returns. */
export interface BashFixup {
  /** The command without its trailing caps; the input itself when nothing was removed. */
  command: string
  /** Whether anything was removed. */
  stripped: boolean
}

/**
 * Removes the output caps an agent habitually appends to a shell command, for a runner that merges
 * stderr into the output and caps the output itself (as `Shell.run` with `maxOutputBytes` does):
 * a final `| head …` or `| tail …` that is only a count (`-n 20`, `-20`, `--lines=20`, `-c 100`;
 * repeated, so `| head -20 | tail -5` goes too), and a final `2>&1` when nothing else of the
 * command's output is redirected. Runs nothing.
 *
 * The command is read as bash reads it: a `|` inside quotes, `$(…)`, backticks, `${…}`, a subshell
 * or a `{ …; }` group is not the end of the command, so `echo 'a | head -5'` stays as it is. It is
 * left unchanged when in doubt: a here-document, a comment, a `case` block, unbalanced quotes, a
 * quoted or computed count (`head -n "$N"`), `tail -f`, `tail -n +5`, a file argument, a
 * redirection, anything after the cap (`| head -5; echo`), or a producer that would not end
 * without the cap (`yes`, `tail -f`, `watch`, `top`, `ping` without `-c`, `/dev/urandom`,
 * `while`/`until` loops). Removing a cap lets the producer run to its end (`find / | head -1`
 * stops early, `find /` does not), so bound the run's time too.
 *
 * @example
 * ```ts
 * applyBashFixups('npm test 2>&1 | tail -30')   // { command: 'npm test', stripped: true }
 * applyBashFixups("grep -r 'a|b' . | head -20") // { command: "grep -r 'a|b' .", stripped: true }
 * applyBashFixups('make > log 2>&1')            // { command: 'make > log 2>&1', stripped: false }
 * ```
 *
 * Throws `ERR_INVALID_ARG` when `command` is not a string.
 */
export declare function applyBashFixups(command: string): BashFixup

/** Options of `new ScreenModel()`; the same limits as `PtyOptions`. */
export interface ScreenModelOptions {
  /** Width, 2 to 1000. @default 80 */
  cols?: number
  /** Height, 2 to 500. @default 24 */
  rows?: number
  /** Lines kept above the screen, 0 to 100000. @default 1000 */
  scrollback?: number
}

/**
 * ptypilot's screen model on its own, without a program or a pty: what a terminal of this size
 * shows after a program printed the bytes written to it. `screen()` is exactly what
 * `PtySession.screen()` would report for a session whose program printed the same bytes, so a
 * recording can be replayed, or a screen tested, without spawning anything.
 *
 * @example
 * ```ts
 * const model = new ScreenModel({ cols: 40, rows: 5 })
 * model.write('\x1b[1;31mred\x1b[0m\r\nnext')
 * model.screen().lines // ['red', 'next', '', '', '']
 * model.write('\x1b[6n')  // '\x1b[2;5R': what the terminal answers
 * ```
 *
 * Bad arguments throw `ERR_INVALID_ARG` naming the value.
 */
export declare class ScreenModel {
  constructor(options?: ScreenModelOptions)
  /**
   * Feeds program output: text (sent as UTF-8) or bytes. A character or an escape sequence may be
   * split across calls. Returns the terminal's answers to the queries in it (cursor position,
   * device status and attributes, mode reports, colours), in order, or `''` when there were none.
   */
  write(data: string | Uint8Array): string
  /** Changes the size as a terminal resize does (rows are kept, not reflowed). */
  resize(cols: number, rows: number): void
  /** The screen now; `seq` counts the bytes written so far. With `{ attributes: true }` as `PtySession.screen`. */
  screen(options: ScreenOptions & { attributes: true }): StyledScreenSnapshot
  screen(options?: ScreenOptions): ScreenSnapshot
}

/** An asciicast v2 recording, as `readRecording` parses it. */
export interface Recording {
  /** The header: `version` 2, `width`, `height`, `timestamp`, `command`, `env`, ... */
  header: { version: 2; width: number; height: number; [key: string]: unknown }
  /** `[seconds, kind, data]`: `'o'` output, `'i'` input, `'r'` a resize (`'COLSxROWS'`), others kept as they are. */
  events: [number, string, string][]
}

/** Reads an asciicast v2 file (the `record` option's, or asciinema's). `ERR_INVALID_ARG` naming the line when it is not one. */
export declare function readRecording(path: string): Recording

/**
 * Replays a recording (its path or a `readRecording` result) into a new `ScreenModel` of the
 * recorded size: output is written, resizes applied, input left out (its effect is in the output).
 * With `until` (seconds), stops after the last event at or before it. The model's `screen()` is
 * what the recorded session showed then.
 *
 * ```ts
 * const model = replay('vim.cast')
 * model.screen().text // the screen the session ended on
 * ```
 */
export declare function replay(recording: string | Recording, options?: { until?: number }): ScreenModel

// ---------- Lean screens ----------

/**
 * A screen as a view carries it: what `PtySession.screen()` returns has these fields (and
 * more), so a `ScreenSnapshot` can be passed where a `ViewScreen` is expected.
 */
export interface ViewScreen {
  /** Every row (`lines.length === rows`), without line breaks. */
  lines: string[]
  cols: number
  rows: number
  /** 0-based row and column; `visible` defaults to true. */
  cursor: { row: number; col: number; visible?: boolean }
  /** @default false */
  altScreen?: boolean
}

/** What `screenView` (and `ScreenViewTracker.view`) renders. */
export interface ScreenView {
  /** The text for the model (format: see `screenView`). */
  text: string
  /** `'full'`: every row; `'partial'`: only what changed; `'unchanged'`: `[screen unchanged]`. */
  kind: 'full' | 'partial' | 'unchanged'
  /** The largest scroll the view tells (positive: up, as a pager moving forward), or 0. */
  scrolled: number
}

/** What `ScreenViewTracker.view` renders: a view with its number. */
export interface NumberedScreenView extends ScreenView {
  /**
   * The view's number (in its header: `[partial view 7; …]`), which later views of the same key
   * may name (`rows 0-22 as in view 7`); for `[screen unchanged]`, the number of the view whose
   * screen it still is.
   */
  number: number
}

/**
 * A screen as text for a model, given the screen last sent for the same program
 * (`previous`, or null for the first look): the shortest faithful one of
 *
 * - a **full view**: a header line with the size and the cursor, then every row up to the last
 *   one with text, as is (the rows after it are blank; `all rows blank` for an empty screen) —
 *
 *   ```text
 *   [full view 80x24, cursor 15,51]
 *   diff --git a/story.txt b/story.txt
 *   ...
 *   ```
 *
 * - a **partial view**: a header line naming what moved, then only the rows with new text; every
 *   row neither named nor listed is as it was —
 *
 *   ```text
 *   [partial view, cursor 13,34; rows 13-22 scrolled down 1]
 *   13│        # counts are per warehouse
 *   23:62│40,35
 *   ```
 *
 *   A listed row is its number (from 0, padded), `│` and the row's text; or, for a row edited in
 *   place (a status line, a prompt, a line being typed), its number, `:`, a character offset
 *   (from 0, in code points) and `│`, then the new words written over the row from there (the
 *   rest of the row stays; spaces pad a shorter row; a row may have two such lines). Header
 *   clauses, separated by `; `: `scrolled up N` / `scrolled down N` (the whole screen: row r
 *   shows what row r+N showed; the rows it leaves are listed or blank); `rows a-b scrolled up N`
 *   (the same within rows a-b, as under a fixed status line); `rows a-b were c-d` (rows that
 *   moved); `rows 3,5-7 blank`; `no row changed` (the cursor alone moved). A view from a
 *   `ScreenViewTracker` may also name rows of one of the last 16 views of the same key:
 *   `rows 0-6,9 as in view 3`, `rows 0-7 were 15-22 of view 2`. The cursor (`row,col`, from 0,
 *   `hidden` when hidden) is named when it moved; `, alternate screen` or `, main screen` when
 *   the view switches screens;
 *
 * - `[screen unchanged]` when nothing changed (rows, cursor, size, alternate screen).
 *
 * A full view is sent for the first look, after a resize, when it is not longer than the partial
 * one, and with `{ full: true }`; it has `alternate screen` in its header when that is on. Views
 * from `screenView` have no number (`[partial view, cursor 3,4]`); a tracker's do
 * (`[full view 12, 80x24, …]`, `[partial view 13; …]`). `rebuildScreen(previous, text)` gives
 * back `next` exactly. `ERR_INVALID_ARG` names a bad field (`next.lines[3] must be a string`).
 */
export declare function screenView(
  previous: ViewScreen | null,
  next: ViewScreen,
  options?: { full?: boolean },
): ScreenView

/**
 * The screen a view (a `screenView` or `ScreenViewTracker.view` text) describes, applied to the
 * screen the previous view described (`previous`; null is fine for a full view). A tracker's view
 * may name rows of earlier views (`as in view 3`): `earlier` gives their screens, a Map (or a
 * function) from view numbers to the screens those views described (what this function returned
 * for them). Rebuilds `next` exactly: `lines`, `cols`, `rows`, `cursor`, `altScreen`.
 * `ERR_INVALID_ARG` when the text is not a view, names a row the screen does not have, gives a
 * row twice, leaves a scrolled-away row empty, names an earlier view `earlier` does not have (or
 * of another size), or is a partial view without a previous screen.
 *
 * ```ts
 * const screens = new Map<number, ReturnType<typeof rebuildScreen>>()
 * let model: ReturnType<typeof rebuildScreen> | null = null
 * for (const view of viewsReceived) {           // NumberedScreenView from a tracker
 *   model = rebuildScreen(model, view.text, screens)
 *   screens.set(view.number, model)
 * }
 * ```
 */
export declare function rebuildScreen(
  previous: ViewScreen | null,
  view: string,
  earlier?: ReadonlyMap<number, ViewScreen> | ((number: number) => ViewScreen | null | undefined) | null,
): { lines: string[]; cols: number; rows: number; cursor: { row: number; col: number; visible: boolean }; altScreen: boolean }

/**
 * Remembers the screens last sent per key (a handle or session id) and renders each new one as a
 * view of what changed since (`screenView`), numbered: one count for the tracker, so a number
 * names one view. A partial view may name rows of one of the last 16 views of the same key and
 * size (a pager paging back, an undo, a jump back).
 *
 * ```ts
 * const views = new ScreenViewTracker()
 * views.view(id, session.screen()).text   // full the first time, then partial views
 * views.view(id, session.screen(), { full: true }) // the model asked for the whole screen
 * views.forget(id)                        // when the handle is gone
 * ```
 */
export declare class ScreenViewTracker {
  constructor()
  /** `screen` as a view of what changed since the screens sent for `key`; remembers `screen`. */
  view(key: string, screen: ViewScreen, options?: { full?: boolean }): NumberedScreenView
  /** The screen last sent for `key` (a copy), or null. */
  last(key: string): ReturnType<typeof rebuildScreen> | null
  /** The keys that have a remembered screen. */
  keys(): string[]
  /** Forgets `key` (its screens), so its next view is full; true when it was known. */
  forget(key: string): boolean
  /** Forgets every key. */
  clear(): void
  /** How many keys have a remembered screen. */
  readonly size: number
}
