/// <reference types="node" />
// Types of PtySession (a program in a pseudo-terminal: its options, screen
// snapshots, reads, waits and exit) and exec (lib/pty-session.js).

import type { Mouse } from './mouse.js'
import type { ScreenshotOptions } from './svg.js'
import type { SandboxInfo, SandboxOption } from './sandbox.js'

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
   * Windows only (ignored elsewhere): the flags the pseudo console is created with
   * (`CreatePseudoConsole`). All off by default, as in node-pty. See {@link ConPtyOptions}.
   */
  conpty?: ConPtyOptions
  /**
   * Record the session to this file (created or replaced; relative to the current directory,
   * not `cwd`) as an asciicast v2 recording that `asciinema play` plays and `replay()` replays:
   * output with timestamps, input (`"i"` events; never input written while the terminal read a line
   * with echo off, as at a password prompt: see `WriteResult.hidden`) and resizes (`"r"`). Each event is on disk as
   * soon as it happened; the file is complete when `exited` resolves. A path that cannot be
   * written is `ERR_INVALID_ARG` and the program is not started.
   */
  record?: string
  /**
   * Confine the program and everything it starts: `'read-only'` (write nowhere but a private
   * temporary folder), `'workspace-write'` (also `cwd` and `roots`, with `.git` kept read-only),
   * or `'off'`. The network is on unless `network: false`. Applied in the child before it
   * executes the program (Landlock, seccomp, no-new-privs and dropped capabilities on Linux; a
   * Seatbelt profile on macOS); this process is never confined. A system that lacks what the
   * sandbox needs rejects with `ERR_SANDBOX_UNAVAILABLE` naming it, unless
   * `ifUnavailable: 'warn'`. See docs/agents.md, "Sandbox".
   * @default 'off'
   */
  sandbox?: SandboxOption
}

/**
 * The flags of a Windows pseudo console (`PtyOptions.conpty`), each off unless set. Windows
 * only; ignored elsewhere.
 */
export interface ConPtyOptions {
  /**
   * `PSEUDOCONSOLE_INHERIT_CURSOR`: the console host starts at the terminal's cursor position,
   * which it asks for with `ESC[6n` and **waits for before the program runs**. ptypilot's screen
   * model answers it by default; with `answerQueries: false` and a front end that does not
   * answer, the program never starts (a hang). node-pty's `conptyInheritCursor`.
   * @default false
   */
  inheritCursor?: boolean
  /** `PSEUDOCONSOLE_RESIZE_QUIRK`: no full repaint after a resize (for terminals that reflow their own lines). @default false */
  resizeQuirk?: boolean
  /** `PSEUDOCONSOLE_WIN32_INPUT_MODE`: the console host asks for win32-input-mode key events (`ESC[?9001h`). @default false */
  win32InputMode?: boolean
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
  /** Bold (SGR 1). */
  bold: boolean
  /** Dim, or faint (SGR 2). */
  dim: boolean
  /** Italic (SGR 3). */
  italic: boolean
  /** Underlined (SGR 4). */
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
  /** Row, 0-based. */
  row: number
  /** At most `cols - 1`: after a character in the last column the cursor stays there (a wrap is pending). */
  col: number
  /** Whether the program shows the cursor (it hides it with `CSI ? 25 l`). */
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

/**
 * Why a wait ended: the program waits for input (`'input'`), it exited (`'exit'`), the pattern
 * appeared (`'match'`), the output stayed quiet (`'quiet'`), the time ran out (`'timeout'`) or the
 * wait's `AbortSignal` fired (`'aborted'`, on the `ERR_ABORTED` error).
 */
export type WaitReason = 'input' | 'exit' | 'match' | 'quiet' | 'timeout' | 'aborted'

/**
 * How a program reads, as its terminal's modes say: `'line'` (canonical mode with echo: a
 * prompt), `'password'` (canonical mode, echo off), `'key'` (raw mode: vim, less, a menu, a REPL
 * with line editing, which shows what is typed itself).
 */
export type InputKind = 'line' | 'password' | 'key'

/**
 * Whether the program waits for input (`PtySession.inputState()`).
 *
 * It waits when nothing written to it is still unread and a process of the terminal's
 * foreground job sleeps reading the terminal: in a `read` of it, or in `select`/`poll`/`epoll`
 * with it in the set (on Linux from `/proc`: what each thread sleeps in, the sets from the
 * process's memory, an epoll descriptor's interest list; a descriptor is the terminal by device
 * number, so `/dev/tty` counts). An event loop that listens to the terminal while it works
 * counts as waiting. Where the kernel will not tell (a setuid program such as `sudo`; macOS) the
 * terminal's modes, its foreground job and 300 ms without output decide instead, and `how` is
 * `'quiet'`.
 */
export interface InputState {
  /** The program waits for input now. */
  waiting: boolean
  /** When waiting: what the terminal's modes ask for; else `null`. */
  kind: InputKind | null
  /** The process that waits; when not waiting, the foreground job's process. `null` without a terminal or after the exit. */
  pid: number | null
  /** That process's name (`'python3'`, `'vim'`), as the kernel knows it (at most 15 characters on Linux). */
  program: string | null
  /** When waiting: when it began, in milliseconds since the epoch (the last output, input or resize before it). */
  since: number | null
  /**
   * `'kernel'`: the kernel showed what the job sleeps in (certain). `'quiet'`: the kernel would
   * not say, and the terminal's modes, its foreground job and 300 ms of quiet decided (a guess).
   * `null` without a terminal (`exec` with `pty: false`) or after the exit.
   */
  how: 'kernel' | 'quiet' | null
}

/** Options of `PtySession.waitForInput`. */
export interface WaitForInputOptions {
  /**
   * Count a wait for input only once something happened after a point: `'input'` (the last
   * `write`, `sendKeys` or `paste`), a `read().cursor` or a `screen().seq`. Output past the point,
   * or input written at or after it, is something; the input must have been read, as always.
   * Without it a program that already waits resolves at once. A point this session has not
   * reached throws `ERR_INVALID_ARG`.
   */
  since?: number | 'input'
  /** Resolve with `reason: 'timeout'` after this long. @default 10000 */
  timeoutMs?: number
  /** Aborting it rejects the wait with `ERR_ABORTED` (the message shows the screen). */
  signal?: AbortSignal
}

/** How `PtySession.waitForInput` ended. */
export interface InputWait {
  /** `'input'`: the program waits for input; `'exit'`: it exited; `'timeout'`: neither in time. */
  reason: 'input' | 'exit' | 'timeout'
  /** The input state then (not waiting after an exit or a timeout). */
  state: InputState
  /** The screen then. With `'input'` it shows everything the program wrote before it began to wait. */
  screen: ScreenSnapshot
  /** With `'exit'`: how the program exited; else `null`. */
  exit: PtyExit | null
}

/** What a write did with the input (`write`, `sendKeys`, `paste`). */
export interface WriteResult {
  /**
   * The terminal read a line without showing it (canonical mode, echo off: a password prompt).
   * Such input is kept nowhere: the recording gets no input event for it and the terminal did not
   * echo it into `read()` or the screen. Report it as "sent N characters, not shown". Keys for a
   * program in raw mode (vim, a REPL) are not hidden: the terminal cannot tell a password typed
   * into a raw-mode prompt from an editor command.
   */
  hidden: boolean
}

/** What `waitForSettle` resolves with. */
export interface SettledScreen extends ScreenSnapshot {
  /** False when the timeout came first. */
  settled: boolean
  /**
   * `'input'`: the program waits for input (the kernel says so); `'quiet'`: no output for
   * `quietMs`; `'exit'`: the program exited; `'timeout'`: none of these in time.
   */
  reason: 'input' | 'quiet' | 'exit' | 'timeout'
  /** With `'input'`: the program's input state; else `null`. */
  input: InputState | null
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
  /** The sandbox the program runs under; `null` before `start` and for `sandbox: 'off'`. */
  readonly sandbox: SandboxInfo | null
  /**
   * What the sandbox refused since the last call, as the kernel side saw it, one phrase each: the
   * network proxy's refusals (`'a connection to x.org:443 (not on the allow list)'`), and on Linux
   * the supervisor's (`'a connection to the Unix socket /srv/x.sock (outside the writable roots;
   * …)'`, connections that bypass the proxy); empty without a sandbox.
   */
  takeNetworkRefusals(): string[]
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
   *
   * Returns whether the input is kept nowhere (`hidden`: the terminal had echo off in canonical
   * mode, as at a password prompt; see `WriteResult`).
   */
  write(data: string | Uint8Array): WriteResult
  /**
   * Types named keys, e.g. `sendKeys('ctrl+c')`, `sendKeys('up', 'up', 'enter')`, encoded the way
   * xterm sends them for the mode the program is in (arrows switch to `ESC O A` when it turned on
   * application cursor mode). A program that enabled the kitty keyboard protocol (`CSI > flags u`,
   * `CSI = flags ; mode u`; popped with `CSI < u`) gets keys as its flags ask (see
   * `EncodeKeysModes.kittyFlags`), and its query `CSI ? u` is answered. Names: see `encodeKeys`.
   * Unknown names throw `ERR_INVALID_ARG` listing the accepted ones. Returns `{ hidden }` as `write`.
   */
  sendKeys(...keys: string[]): WriteResult
  /**
   * Pastes text. When the program enabled bracketed paste (mode 2004) the text is wrapped in
   * paste markers (markers inside the text are removed), so editors and shells take it literally;
   * otherwise it is typed as is. Line breaks (`\n`, `\r\n`) are sent as `\r` (Enter), as terminals
   * paste them. Returns `{ hidden }` as `write`.
   */
  paste(text: string): WriteResult
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
  /**
   * The mouse: clicks, drags, motion and the wheel, encoded for the tracking mode and encoding
   * the program enabled; `ERR_MOUSE_OFF` when it enabled none. See `Mouse`.
   */
  readonly mouse: Mouse
  /**
   * A picture of the screen now, as a standalone SVG document: every cell at its column (wide
   * characters and emoji over two), its colours (16, 256, true colour) and attributes (bold, dim,
   * italic, underline, inverse), the cursor as a block, and a title bar with the window title and
   * the size. Text stays text in a monospace font stack; each row is a `<text class="row"
   * data-row="N">` whose text is `screen().lines[N]` (plus trailing blanks that have a background).
   * Works after the exit too (the last screen).
   */
  screenshot(options?: ScreenshotOptions): string
  /** Reads the output transcript; use `since` to get only what is new. */
  read(options?: ReadOptions): ReadResult
  /**
   * Resolves at once when the program waits for input (`reason: 'input'`, as the kernel tells:
   * see `inputState()`), else when no output came for `quietMs` and no synchronized-output block
   * (mode 2026) is open (`'quiet'`), or at once when the program has exited and its output was
   * drained (`'exit'`); never later than without the input check. Input (`write`, `sendKeys`,
   * `paste`) and `resize` restart the quiet period, and input counts as read only once the program
   * took it, so a settle right after a keystroke waits for the answer. A block left open with no
   * output for 1 s counts as closed (as terminals end such a block after a timeout), so a program
   * that stopped mid-frame still settles, showing what it drew. Resolves with `settled: false`,
   * `reason: 'timeout'` after `timeoutMs`. Rejects with `ERR_ABORTED` when `signal` aborts.
   */
  waitForSettle(options?: SettleOptions): Promise<SettledScreen>
  /**
   * Whether the program waits for input now, and for what kind (see `InputState`). One look at the
   * terminal and the kernel's process table (a few small `/proc` reads) on this thread. Throws
   * `ERR_NOT_RUNNING` before `start`; after the exit it says not waiting, with `how: null`.
   *
   * ```ts
   * session.inputState() // { waiting: true, kind: 'password', pid: 4242, program: 'python3', since: 1764..., how: 'kernel' }
   * ```
   */
  inputState(): InputState
  /**
   * Resolves as soon as the program waits for input (`reason: 'input'`, with the state and the
   * screen), or with the exit (`'exit'`), or after `timeoutMs` (`'timeout'`). Rejects with
   * `ERR_ABORTED` when `signal` aborts.
   *
   * It looks only while it waits, and only when the output pauses: 1 ms after the last output,
   * then at intervals doubling to 16 ms (a program that starts waiting without printing anything
   * is seen within 16 ms); each look is a few small `/proc` reads, off the JS thread. A session
   * nobody waits on costs nothing.
   *
   * ```ts
   * session.write('make deploy\r')
   * const { reason, state } = await session.waitForInput({ since: 'input', timeoutMs: 60000 })
   * if (state.kind === 'password') session.write(`${password}\r`) // kept nowhere
   * ```
   */
  waitForInput(options?: WaitForInputOptions): Promise<InputWait>
  /**
   * Waits until `pattern` appears. Screen rows are right-trimmed, so a string pattern's trailing
   * spaces (a prompt such as `'>>> '`) also match at the end of a row. Rejects with `ERR_TIMEOUT` (the message shows the screen),
   * `ERR_ABORTED` when `signal` aborts, or, when the program exits first, `ERR_NOT_RUNNING` with `err.exit`;
   * the error's `reason` says which (`'timeout'`, `'aborted'`, `'exit'`), a match has `reason: 'match'`.
   * Use `since` to wait for what comes after a point, e.g. the answer to input.
   * `screen` is the screen when the match was seen: it shows all the output that matched (in the
   * output, text that matched can already have scrolled off when more output followed at once).
   */
  waitFor(
    pattern: string | RegExp,
    options?: WaitForOptions,
  ): Promise<{
    /** The text that matched (for a RegExp, the whole match). */
    match: string
    /** The screen when the match was seen. */
    screen: ScreenSnapshot
    /** Always `'match'`: the other ends of a wait reject. */
    reason: 'match'
  }>
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
