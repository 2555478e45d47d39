/// <reference types="node" />
// Types of Shell (a persistent shell that runs one command at a time) and
// executeShell (lib/shell.js).
import type { SandboxOption } from './sandbox.js'

/** How to start a persistent shell (`new Shell(options)`). */
export interface ShellOptions {
  /**
   * The shell program, looked up on the `PATH` of the shell's environment (a
   * name containing `/` is a path). bash, zsh, dash and other POSIX shells
   * (`sh`, ash, ksh) work, and fish (commands in fish's language). It starts
   * without user rc files (bash `--norc --noprofile`, zsh `-f`, fish
   * `--no-config --private`, `ENV` removed for `sh`), without line editing
   * (fish keeps its own at its prompt), with tty echo off and a prompt that
   * carries ptypilot's markers. csh, tcsh, nushell, PowerShell and other
   * shells that speak neither sh nor fish are refused (`ERR_INVALID_ARG`).
   *
   * On Windows: `cmd.exe` (the default; run under Wine, not yet on Windows) or PowerShell
   * (`powershell`, `pwsh`: built, not run); any other shell is refused. See
   * docs/how-it-works.md, "Windows".
   * @default 'bash' where installed, else 'sh' ('cmd.exe' on Windows)
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
   * A shell script sourced (`.`; fish: `source`, so a fish script) when the shell starts and whenever it is
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
  /**
   * The sandbox the shell, and so every command it runs, is confined to (see
   * `PtyOptions.sandbox`). With `'workspace-write'` the workspace stays the directory the shell
   * started in, wherever a command `cd`s to.
   * @default 'off'
   */
  sandbox?: SandboxOption
}

/** One command for `Shell.run` (and `executeShell`). */
export interface ShellRunOptions {
  /**
   * Shell code: one or more lines, here-docs included; no trailing newline
   * needed. It runs in the shell itself (as with `.`), so `cd`, `export`,
   * variables, functions and `set` options persist for later runs, unless
   * `cwd` or `env` is given. `exit` ends the shell (so does a failing command after
   * `set -e`, as in a terminal): the result carries the shell's exit status
   * and the next run starts a new shell. (fish runs the command with
   * `source`, where `exit` ends the command, not the shell.) Its stdin is
   * `/dev/null` (see `stdin`): a command that reads input gets end-of-file
   * instead of waiting forever.
   */
  command: string
  /**
   * Run this command in this directory, relative to the shell's current
   * directory; must exist (`ERR_SPAWN` with `path` otherwise). With `cwd` or
   * `env` the command runs in a subshell, so its own `cd`, `export` and
   * variable changes do not persist either. (fish has no subshells: the
   * command runs in a block with its variables local, and the shell returns
   * to its directory afterwards; other changes persist.)
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
   * command turns echo on). Either way the terminal's input is only ever the
   * command's and `write()`'s: ptypilot never sends its own control text
   * there, so even a command that opens `/dev/tty` itself (`read x
   * </dev/tty`, Python's `getpass`) gets nothing nobody wrote.
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
  /**
   * Present when the command broke the shell, which is then replaced before
   * the next run; says why: the command closed or moved the shell's terminal
   * descriptors (`exec >&-`, `exec 2>&-`, `exec 1>/tmp/file`), the shell no
   * longer printed its end marker (a function named `printf`, `command` or
   * `builtin`), or it stopped showing its prompt (then the warning is on the
   * run that went on in a fresh shell). The new shell starts in the old one's
   * directory, with `snapshotPath` and `sessionEnv` as every new shell; other
   * state (variables, functions, options) starts over.
   */
  warning?: string
}

/**
 * A persistent shell session: runs one command at a time in the same shell,
 * so state (`cd`, `export`, variables) carries over, and knows exactly when
 * each command ends and with which status.
 *
 * Command boundaries come from shell-integration markers (OSC 133 style;
 * fish: its prompt, its `fish_postexec` event and the run line), not
 * from guessing prompts. A command's end is confirmed with a secret sent
 * only after the command is done, and a prompt that appears during a command
 * with a probe the shell answers only once it is back at its prompt, so a
 * command that prints fake markers does not end its run early. What remains
 * takes intent: printing a fake end and then reading ptypilot's secret or
 * probe (from the shell's private pipes), or reading the shell's memory.
 * Aliases cannot take over ptypilot's lines (`alias .=…` is harmless); a
 * command that defines a function named `command`, `builtin` or `printf`
 * breaks the markers: its run ends with `exitCode: null` and the next run
 * gets a fresh shell. Commands run with `set -x`/`set -v` show their own
 * lines, not ptypilot's, and a bash `DEBUG` trap runs for the command's own
 * commands only.
 *
 * The terminal's input belongs to the command and to `write()`: the shell
 * reads its command lines from a private pipe, not the terminal (fish, which
 * must read its terminal, gets a line typed only while it waits at its
 * prompt), so nothing of ptypilot's reaches a command that reads the
 * terminal, and input a command leaves unread is discarded when it ends.
 *
 * After every run ptypilot checks that the shell is still usable: its
 * standard output and error still the terminal, its standard input still
 * its pipe (`exec >&-`, `exec 2>&-`, `exec 1>/tmp/file` fail this), its end
 * marker answered. If not, the run returns what it got with a `warning`, and
 * the next run starts a new shell in the same directory. Terminal modes a
 * command changed (`stty raw -echo -opost`) are set back, so every run
 * starts with the same terminal. A command can also break the markers for
 * every later one (`unset PS1`, a `PROMPT_COMMAND` that hangs). When a
 * marker is overdue — no prompt 1 s after a command ended, or the shell sat
 * idle in the foreground for 1 s while a command ran — ptypilot sends a
 * probe line through the shell's pipe; if the shell answers it without its
 * prompt, answers it in place of a command's end (that command's result then
 * has `exitCode: null`), or does not answer within 5 s while idle (fish: no
 * prompt within 5 s), the shell is killed with everything it started and the
 * run goes on in a fresh shell. So a `run()` without `timeoutMs` does not
 * hang on a broken shell.
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
   * is discarded: it reaches neither the next command nor the shell. Throws
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
  /** The sandbox of the fresh shell, as `ShellOptions.sandbox`. @default 'off' */
  sandbox?: SandboxOption
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
