/**
 * `ptypilot/node-pty`: node-pty 1.x's Unix API on ptypilot's session engine.
 * The names and shapes are node-pty's, so code written against node-pty's
 * typings type-checks after changing only the import; `IUnixPty` adds the
 * members node-pty has at run time without typing them. Guide:
 * `docs/node-pty.md` (switching from node-pty).
 *
 * @module ptypilot/node-pty
 */

/// <reference types="node" />
import type { ReadStream } from 'node:tty'

/** Something that can be stopped, such as a listener added through an {@link IEvent}. */
export interface IDisposable {
  /** Removes what was added (a listener). Calling it again does nothing. */
  dispose(): void
}

/**
 * An event: call it with a listener to add the listener; the result removes
 * it again.
 */
export interface IEvent<T> {
  (listener: (e: T) => any): IDisposable
}

/** The options `spawn` takes on every platform. */
export interface IBasePtyForkOptions {
  /**
   * The terminal's name, given to the program as `TERM`.
   * @default the environment's `TERM`, else `'xterm'`
   */
  name?: string
  /**
   * Width in columns (an integer from 1 to 65535; fractions are cut off, 0
   * counts as not given).
   * @default 80
   */
  cols?: number
  /**
   * Height in rows (as `cols`).
   * @default 24
   */
  rows?: number
  /**
   * The program's working directory; also its `PWD`. One that does not
   * exist ends the program with exit code 1 (the reason is printed on the
   * terminal), as in node-pty.
   * @default process.cwd()
   */
  cwd?: string
  /**
   * The program's whole environment. `process.env` (the default) loses the
   * variables of a terminal multiplexer first (`TMUX`, `TMUX_PANE`, `STY`,
   * `WINDOW`, `WINDOWID`, `TERMCAP`, `COLUMNS`, `LINES`); an object given
   * here is used as it is. `PWD` and `TERM` are set on top. A variable whose
   * value is `undefined` is left out.
   * @default process.env
   */
  env?: { [key: string]: string | undefined }
  /**
   * How output is decoded and strings are written: any Node encoding. `null`
   * delivers output as `Buffer`s (exactly the bytes read) and writes strings
   * as UTF-8.
   * @default 'utf8'
   */
  encoding?: string | null
  /**
   * Treat a `write()` of exactly `flowControlPause` as `pause()` and of
   * exactly `flowControlResume` as `resume()`; neither reaches the program.
   * Can be changed later through {@link IPty.handleFlowControl}.
   * @default false
   */
  handleFlowControl?: boolean
  /**
   * The message that pauses (with `handleFlowControl`).
   * @default '\x13' (XOFF)
   */
  flowControlPause?: string
  /**
   * The message that resumes (with `handleFlowControl`).
   * @default '\x11' (XON)
   */
  flowControlResume?: string
  /**
   * ptypilot's addition: confine the program (see `PtyOptions.sandbox` and docs/agents.md,
   * "Sandbox"). node-pty has no such option.
   * @default 'off'
   */
  sandbox?: import('./sandbox.js').SandboxOption
}

/** The options of `spawn` on Unix. */
export interface IPtyForkOptions extends IBasePtyForkOptions {
  /**
   * Run the program as this user. Used only together with `gid` (and only
   * when this process may change to them: root, usually). When running as
   * root the program gets `gid` as its only supplementary group.
   */
  uid?: number
  /** Run the program with this group; used only together with `uid`. */
  gid?: number
}

/** Options node-pty takes on Windows; `conptyInheritCursor` is honoured there, the rest ignored. */
export interface IWindowsPtyForkOptions extends IBasePtyForkOptions {
  /** Windows only: ignored (ptypilot always uses a pseudo console). */
  useConpty?: boolean
  /** Windows only: ignored (the system's pseudo console, never a side-loaded conpty.dll). */
  useConptyDll?: boolean
  /**
   * Windows only: create the pseudo console with `PSEUDOCONSOLE_INHERIT_CURSOR`, as node-pty
   * does. The console host then asks the terminal for its cursor position (`ESC[6n`) and waits
   * for the answer before the program runs; your terminal (xterm.js) must answer it.
   * @default false
   */
  conptyInheritCursor?: boolean
}

/** A program running in a pseudo-terminal. */
export interface IPty {
  /** The program's process id. */
  readonly pid: number
  /** The terminal's width. */
  readonly cols: number
  /** The terminal's height. */
  readonly rows: number
  /**
   * The name of the program in the terminal's foreground (the process group
   * the terminal reports): `argv[0]` on Linux (`bash`, `vim`,
   * `/usr/bin/python3`), the kernel's process name on macOS; the file given
   * to `spawn` once the program has exited. One system call and a small
   * read: fine to poll for a title.
   */
  readonly process: string
  /** Whether `write()` takes the flow control messages (see {@link IBasePtyForkOptions.handleFlowControl}). */
  handleFlowControl: boolean
  /**
   * Output. Each call is what one read of the terminal returned (or, in a
   * flood or when JS fell behind, what several returned), so a program's
   * line written at once arrives in one call. With `encoding: null` the
   * chunks are `Buffer`s. Every chunk comes before `onExit`.
   */
  readonly onData: IEvent<string>
  /**
   * The end: `exitCode` is the exit status (0 when a signal ended the
   * program) and `signal` the signal's number (0 when none did). Comes
   * once, after all output.
   */
  readonly onExit: IEvent<{
    /** The exit status; 0 when a signal ended the program. */
    exitCode: number
    /** The number of the signal that ended the program; 0 when none did. */
    signal?: number
  }>
  /**
   * Changes the terminal's size (the program gets `SIGWINCH`). Throws for a
   * size that is not positive; does nothing once the program has exited.
   */
  resize(columns: number, rows: number): void
  /** Does nothing on Unix (node-pty's is for Windows only). */
  clear(): void
  /**
   * Sends input. Never blocks: what the program does not read yet waits in
   * a queue (up to 64 MiB, then `ERR_LIMIT`). Strings are encoded with the
   * `encoding` option. Dropped once the program has exited.
   */
  write(data: string | Buffer): void
  /**
   * Sends a signal to the program (only its own process, as node-pty does).
   * Does nothing once it has exited; an unknown signal name throws
   * `ERR_INVALID_ARG`.
   * @param signal a name such as `'SIGTERM'` (or its number)
   * @default 'SIGHUP'
   */
  kill(signal?: string): void
  /**
   * Stops reading the terminal: the program blocks in its next write once
   * the terminal's buffer is full, and no data (nor the exit) is delivered
   * until `resume()`. Nothing is lost.
   */
  pause(): void
  /** Ends a `pause()`: what waited is delivered, in order, then reading goes on. */
  resume(): void
}

/** What the legacy event API calls back with, per event. */
export interface IPtyEventListeners {
  /** A chunk of output (a `Buffer` with `encoding: null`). */
  data: (data: string) => void
  /** The exit: exit code (0 when a signal ended it) and signal number (0 when none). */
  exit: (exitCode: number, signal: number) => void
  /** The output ended; comes right before `exit`. */
  close: () => void
}

/**
 * The `IPty` that `spawn` returns, with the members node-pty has at run time
 * but does not type: the descriptor, the slave's name, `destroy()` and the
 * EventEmitter-style listeners.
 */
export interface IUnixPty extends IPty {
  /**
   * A descriptor of the pty master in this process (close-on-exec), so
   * `tty.isatty(fd)` holds. Made at the first read of `fd` and closed when
   * the exit is delivered; -1 after the exit.
   */
  readonly fd: number
  /** The path of the terminal's slave side (`/dev/pts/3`). */
  readonly ptsName: string
  /**
   * Stops delivering output, sends SIGHUP to the program, and terminates its
   * whole process tree (TERM, then KILL) if it has not ended 2 s later.
   * `onExit` still fires.
   */
  destroy(): void
  /** Adds a listener (node-pty's legacy API). */
  on<E extends keyof IPtyEventListeners>(event: E, listener: IPtyEventListeners[E]): this
  /** Same as `on`. */
  addListener<E extends keyof IPtyEventListeners>(event: E, listener: IPtyEventListeners[E]): this
  /** Adds a listener that is removed after its first call. */
  once<E extends keyof IPtyEventListeners>(event: E, listener: IPtyEventListeners[E]): this
  /** Removes a listener added with `on` or `once` (the last one added, if it was added twice). */
  removeListener<E extends keyof IPtyEventListeners>(event: E, listener: IPtyEventListeners[E]): this
  /** Same as `removeListener`. */
  off<E extends keyof IPtyEventListeners>(event: E, listener: IPtyEventListeners[E]): this
  /** Removes every listener of `event`, or of every event. */
  removeAllListeners(event?: keyof IPtyEventListeners): this
  /** The listeners of `event` (added with `on`, `once`, `onData` or `onExit`). */
  listeners(event: keyof IPtyEventListeners): Function[]
}

/**
 * Starts `file` with `args` in a new pseudo-terminal.
 *
 * A program that cannot be found or run, or a `cwd` that cannot be used,
 * does not throw: the terminal shows why and `onExit` reports exit code 1,
 * as with node-pty. Bad options throw `ERR_INVALID_ARG`.
 * @param file the program, looked up on the environment's `PATH`
 * @default 'sh'
 * @param args its arguments. A string (a Windows command line) throws
 * `ERR_INVALID_ARG`, as node-pty throws on Unix.
 */
export function spawn(file?: string, args?: string[] | string, options?: IPtyForkOptions | IWindowsPtyForkOptions): IUnixPty

/** node-pty's deprecated name for {@link spawn}. */
export function fork(file?: string, args?: string[] | string, options?: IPtyForkOptions | IWindowsPtyForkOptions): IUnixPty

/** node-pty's deprecated name for {@link spawn}. */
export function createTerminal(file?: string, args?: string[] | string, options?: IPtyForkOptions | IWindowsPtyForkOptions): IUnixPty

/** The options of {@link open}. */
export interface IPtyOpenOptions {
  /** @default 80 */
  cols?: number
  /** @default 24 */
  rows?: number
  /** What both streams decode with; `null` for `Buffer`s. @default 'utf8' */
  encoding?: string | null
}

/** A pseudo-terminal pair with no program on it (from {@link open}). */
export interface IPtyPair {
  /** The master side: what the slave's program writes comes out here. */
  readonly master: ReadStream
  /** The slave side: a terminal for a program or a test to use. */
  readonly slave: ReadStream
  /** The master's descriptor (close-on-exec). */
  readonly fd: number
  /** The slave's path (`/dev/pts/3`). */
  readonly ptsName: string
  /** -1: there is no program. */
  readonly pid: number
  /** The name of this process's program (`process.argv[0]`). */
  readonly process: string
  /** The size. */
  readonly cols: number
  /** The size. */
  readonly rows: number
  /** Writes to the master: what a reader of the slave gets as input. */
  write(data: string | Buffer): void
  /** Changes the size (the slave's foreground program gets `SIGWINCH`). */
  resize(columns: number, rows: number): void
  /** Listens on the master stream. */
  on(event: string, listener: (...args: any[]) => void): this
  /** Listens on the master stream, once. */
  once(event: string, listener: (...args: any[]) => void): this
  /** Removes a listener of the master stream. */
  removeListener(event: string, listener: (...args: any[]) => void): this
  /** Closes both sides. */
  destroy(): void
}

/**
 * Opens a pseudo-terminal pair with no program (node-pty's `open`): both
 * descriptors close-on-exec, the size set.
 */
export function open(options?: IPtyOpenOptions): IPtyPair
/**
 * node-pty's older form: a pair of `cols` × `rows` with the default
 * encoding; `options` is not read (as in node-pty).
 */
export function open(options: unknown, cols: number, rows: number): IPtyPair
