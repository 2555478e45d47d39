/// <reference types="node" />
// Types of the terminal tool set: terminalTools(), its options, each tool's
// input and result (lib/terminal-tools.js).

import type { ScreenSnapshot } from './pty-session.js'

/**
 * What a host may gate a terminal tool on: `'start'` (pty_exec, pty_start run a program),
 * `'input'` (pty_send types into one), `'stop'` (pty_stop ends one), `'read'` (pty_read,
 * pty_list change nothing).
 */
export type PermissionClass = 'start' | 'input' | 'stop' | 'read'

/**
 * A tool's input schema as sent to providers: a flat JSON Schema object (no top-level `oneOf`,
 * which Anthropic and OpenAI reject). Assignable to the SDKs' schema types.
 */
export type ToolInputSchema = {
  /** Always `'object'`: the input is one object of fields. */
  type: 'object'
  /** Each field's schema. */
  properties: { [field: string]: { [keyword: string]: unknown } }
  /** The fields a call must give. */
  required: string[]
  /** Always false: a field the schema does not name is refused. */
  additionalProperties: false
  [keyword: string]: unknown
}

/** MCP tool annotations (hints for the client; the terminal tools carry them). */
export type McpToolAnnotations = {
  /** A human-readable name for the tool. */
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

/** One tool of a tool set, as `definitions()` sends it and as a host gates it. */
export interface ToolSetTool {
  /** The tool's name (`'pty_exec'`, ...). */
  readonly name: string
  /** What the model reads about the tool. */
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
  /** What kind of set this is. */
  readonly kind: 'terminal'
  /** The set's name in the registry. */
  readonly name: string
  /** The options, checked, with the defaults filled in. */
  readonly options: Readonly<Required<Omit<TerminalToolsOptions, OptionalOption>>> & Pick<TerminalToolsOptions, OptionalOption>
  /** The tools of the set, as `definitions()` describes them. */
  readonly tools: readonly ToolSetTool[]
}

/** The options of `terminalTools()` that have no default (absent from `ToolSet.options` when not given). */
type OptionalOption = 'cwd' | 'spillDir' | 'recordDir' | 'allow' | 'approve' | 'ask' | 'web' | 'env' | 'sandbox'

/**
 * What `approve` (and `ask`) is called with before a call of the `'start'`, `'input'` or
 * `'stop'` class.
 */
export interface ApprovalRequest {
  /** What the call would do: start a program, type into one, or stop one. */
  permission: Exclude<PermissionClass, 'read'>
  /** The tool called (`'pty_exec'`, `'pty_start'`, `'pty_send'`, `'pty_stop'`). */
  tool: string
  /** The call's fields, checked (what pty_send would type is `input.input`). */
  input: { [field: string]: unknown }
  /** The program: the one the call starts, or the one running in the session it names. */
  command: string
  /** The program's arguments. */
  args: string[]
  /** The session an input or stop call names; null for a start. */
  session: string | null
}

/**
 * An approval decision: `'allow'` runs the call; `'deny'` does not, and the model gets a reply
 * saying so (with `reason` when given); `'ask'` hands the request to the set's `ask`.
 */
export type ApprovalDecision =
  | 'allow'
  | 'deny'
  | 'ask'
  | {
      /** The decision, as above. */
      decision: 'allow' | 'deny' | 'ask'
      /** Why, for the model's reply. */
      reason?: string
    }

/** What `ask` answers: as an `ApprovalDecision`, without `'ask'`. */
export type AskDecision =
  | 'allow'
  | 'deny'
  | {
      /** The person's answer. */
      decision: 'allow' | 'deny'
      /** Why, for the model's reply. */
      reason?: string
    }

/** Options of `terminalTools()`; every limit has a default. */
export interface TerminalToolsOptions {
  /** Working directory of the programs (a call's `cwd` is relative to it). @default the registry's `cwd`, else process.cwd() */
  cwd?: string
  /**
   * The sandbox every program runs in (see `PtyOptions.sandbox`). With `'workspace-write'` the
   * workspace is this set's `cwd` whatever `cwd` a call names. Replies name what it refused
   * ("the sandbox refused: write /home/u/.bashrc (outside the workspace)"), and every state line
   * and pty_list show it. `ptypilot mcp` defaults to `'workspace-write'` with the network on.
   * @default 'off'
   */
  sandbox?: import('./sandbox.js').SandboxOption
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
  /**
   * Called before every call of the `'start'`, `'input'` and `'stop'` classes (after `allow`); a
   * call it denies never runs, and its reply (`ERR_INVALID_INPUT` with `denied: true` for
   * `call()`) says so and why. `'ask'` passes the request to `ask`; without one, the call is
   * denied ("no one to ask"). With `isolation: 'process'` it runs in this process, before the
   * call is forwarded. A return value that is none of these is `ERR_INVALID_ARG` (the host's bug,
   * not the model's).
   */
  approve?: (request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>
  /**
   * Asks a person about a request `approve` answered `'ask'` for (the MCP server: an
   * elicitation); `'deny'` without a reason reads "the person declined it".
   */
  ask?: (request: ApprovalRequest) => AskDecision | Promise<AskDecision>
  /**
   * Serve the live panel of the sessions (and of the registry's interactive-tool handles) on
   * 127.0.0.1: a page that shows each live in xterm.js with its state, where a person can take a
   * session over — type, paste, resize — and hand it back. While a person holds a session the
   * model's pty_send is refused, and what they type is in no reply: the model's next read says
   * "a person typed N characters (not shown)". The panel starts when the set is registered (in
   * the isolated host, beside the sessions, with `isolation: 'process'`); its URL, carrying a
   * random token (or `token`), comes as a `{ type: 'web', url }` registry event. `port` 0: any
   * free port. See `startPanel()`.
   */
  web?:
    | boolean
    | {
        /** The port to listen on (127.0.0.1). @default 0 (any free port) */
        port?: number
        /** The secret path segment of the panel's URL. @default 24 random bytes, base64url */
        token?: string
      }
  /** Record every session there as an asciicast v2 file, `<id>.cast` (created when needed). */
  recordDir?: string
  /**
   * Environment variables set for the programs, over the inherited ones and over
   * `DEFAULT_ENV` (`PAGER=cat`, `GIT_PAGER=cat`: a pager would wait for keys); `undefined`
   * removes one. Every program also gets `PTYPILOT_SESSION`, a marker by which the processes it
   * leaves running are found.
   */
  env?: Record<string, string | undefined>
  /** Terminal size of the sessions. @default 120 */
  cols?: number
  /** Terminal height of the sessions. @default 30 */
  rows?: number
  /** Output inlined at most, in lines; more is written to a file (head and tail inline). @default 2000 */
  maxOutputLines?: number
  /** Output inlined at most, in bytes (UTF-8); more is written to a file. @default 51200 */
  maxOutputBytes?: number
  /**
   * `max_chars` of pty_exec and pty_read when the call gives none: more output than this is
   * written to a file, its head and tail inline within it (200 to 10 000 000). @default 51200
   */
  maxOutputChars?: number
  /**
   * How long an exited session nobody has read stays readable; a read that reports its exit
   * removes it sooner (unless processes it left still run: then pty_stop does). @default 1800000
   */
  keepExitedMs?: number
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
  /** Its arguments. */
  args?: string[] | null
  /** Relative to the set's working directory. */
  cwd?: string | null
  /** @default 60000, at most `maxTimeoutMs` */
  timeout_ms?: number | null
  /** The most characters of output to return (200 or more). @default the set's `maxOutputChars` */
  max_chars?: number | null
}
/** `pty_start` input. */
export interface PtyStartInput {
  /** The executable (no shell), looked up on PATH. */
  command: string
  /** Its arguments. */
  args?: string[] | null
  /** Relative to the set's working directory. */
  cwd?: string | null
  /** A label shown by pty_list. */
  title?: string | null
  /**
   * Wait up to this long for the program's first output (at most `maxWaitMs`), as `pty_read`'s
   * `wait_ms` waits; the result then has the output and `reason`.
   */
  wait_ms?: number | null
  /** With `wait_ms`: the most characters of output to return (200 or more). @default the set's `maxOutputChars` */
  max_chars?: number | null
}
/** `pty_read` input. */
export interface PtyReadInput {
  /** The session (`'pty1'`, ...). */
  id: string
  /** Only output after this cursor (from a previous result). */
  since?: number | null
  /** Only the last this many lines. */
  tail?: number | null
  /**
   * Wait up to this long for the program first (at most `maxWaitMs`): the wait ends at once when
   * it waits for input or exits, else once its output (not the echo of the last `pty_send`) is
   * followed by 1 s without output, or after `wait_ms` (`reason`).
   */
  wait_ms?: number | null
  /** The current screen instead of the output. */
  screen?: boolean | null
  /**
   * With `screen`, every row: `respond()` otherwise sends a screen that changed only in part
   * since the last screen read of the session as a partial view (`call()` always gives the whole
   * screen).
   */
  full?: boolean | null
  /** The most characters of output to return (200 or more). @default the set's `maxOutputChars` */
  max_chars?: number | null
}
/** `pty_send` input: text and named keys (`"print(1)<enter>"`, `"<ctrl+c>"`) as `apply` takes them. */
export interface PtySendInput {
  /** The session (`'pty1'`, ...). */
  id: string
  /** What to type. */
  input: string
  /** Wait up to this long for the answer, as `pty_read`'s `wait_ms` (at most `maxWaitMs`); the result then has it in `answer`. */
  wait_ms?: number | null
  /** With `wait_ms`: the most characters of the answer to return (200 or more). @default the set's `maxOutputChars` */
  max_chars?: number | null
}
/** `pty_stop` input. */
export interface PtyStopInput {
  /** The session (`'pty1'`, ...). */
  id: string
}

/** A process a session's program left running when it exited. */
export interface LeftoverProcess {
  /** Its process id. */
  pid: number
  /** Its command line (`argv`). */
  args: string[]
}

/** What a person did in a session in the live panel since the model's last reply about it. */
export interface PersonReport {
  /** They hold it now: the model's input is refused. */
  holding: boolean
  /** Characters they typed (what, is never told). */
  typed: number
  /** They took it over since. */
  tookOver: boolean
  /** They handed it back since. */
  handedBack: boolean
}

/** A session's state in a result. */
export interface TerminalStatus {
  /** The session id (`'pty1'`, ...). */
  id: string
  /** Whether its program still runs. */
  status: 'running' | 'exited'
  /**
   * While it runs: what the program waits for when it is blocked reading the terminal —
   * `'line'` (a prompt, echo on), `'password'` (echo off), `'key'` (raw mode: a full-screen program,
   * a menu, a line editor) — or null (working, or exited). The replies' state line says `running`,
   * `waiting for input (KIND)` or `exited N`.
   */
  inputKind: 'line' | 'password' | 'key' | null
  /** The exit code once it exited; null while it runs or when a signal ended it. */
  exitCode: number | null
  /** The signal that ended it (`'SIGTERM'`), or null. */
  signal: string | null
  /** How long it ran, once it exited; else null. */
  runtimeMs: number | null
  /**
   * Processes the program left running when it exited (an `&` job, a daemon): found by its
   * session and by the `PTYPILOT_SESSION` marker in their environment; pty_stop ends them. An
   * exited session with left-overs stays until pty_stop (or `keepExitedMs`).
   */
  leftovers: LeftoverProcess[]
  /** What a person did in the live panel since the last reply (null: nothing; never set in pty_list). */
  person: PersonReport | null
  /**
   * The live panel's URL (the `web` option), or null. A reply about a session that waits for a
   * password names it: the person can type the password there instead of the model.
   */
  panelUrl: string | null
  /** The sandbox the program runs under (`'workspace-write, network on'`), or null without one. */
  sandbox: string | null
}

/**
 * Why a wait of a terminal tool ended: the program waits for input, exited, paused its output
 * after answering (`'quiet'`, `wait_ms` only), or the time ran out.
 */
export type TerminalWaitReason = 'input' | 'exit' | 'quiet' | 'timeout'

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
  /** The file holding the whole output when it was over `maxOutputLines` / `maxOutputBytes` / `max_chars`, else null. */
  spillPath: string | null
  /**
   * What the sandbox refused, as the output shows it: `'the sandbox refused: write
   * /home/u/.bashrc (outside the workspace)'`, at most 5 lines (see `sandboxRefusals`); empty
   * without a sandbox. Replies put them after the output.
   */
  refusals: string[]
}

/**
 * `pty_exec`: the program's exit and output; or, when it waits for input (`reason: 'input'`,
 * `inputKind` set) or did not finish within `timeout_ms` (`timedOut`), the output so far and the
 * id of the session it keeps running in.
 */
export interface PtyExecResult extends TerminalStatus, TerminalOutput {
  /** `'exit'`, `'input'` or `'timeout'`. */
  reason: TerminalWaitReason
  /** It did not finish within `timeout_ms`: it keeps running as session `id`. */
  timedOut: boolean
  /** The timeout that applied. */
  timeoutMs: number
}
/** A session's description (`pty_start`, `pty_list`). */
export interface TerminalSessionInfo extends TerminalStatus {
  /** The program. */
  command: string
  /** Its arguments. */
  args: string[]
  /** The label given to pty_start, or null. */
  title: string | null
  /** Its working directory. */
  cwd: string
  /** Its process id. */
  pid: number | null
  /** Milliseconds since the Unix epoch. */
  startedAt: number
  /** The end of its output so far (a read `since` it gets what comes next). */
  cursor: number
  /** A person holds it in the live panel. */
  personHolding: boolean
}
/** `pty_start`: the new session; with `wait_ms`, its output so far and why the wait ended. */
export type PtyStartResult = TerminalSessionInfo &
  Partial<TerminalOutput> & {
    /** With `wait_ms`: why the wait ended. */
    reason?: TerminalWaitReason
  }
/** `pty_read` without `screen`: the output (`since`, `tail`). */
export interface PtyOutputResult extends TerminalStatus, TerminalOutput {
  /** With `wait_ms`: why the wait ended. */
  reason?: TerminalWaitReason
  /** Absent: this is the output, not the screen. */
  screen?: undefined
}
/** `pty_read { screen: true }`: the screen. */
export interface PtyScreenResult extends TerminalStatus {
  /** With `wait_ms`: why the wait ended. */
  reason?: TerminalWaitReason
  /** The end of the output so far. */
  cursor: number
  /** The screen now. */
  screen: Pick<ScreenSnapshot, 'text' | 'lines' | 'cursor' | 'cols' | 'rows' | 'altScreen' | 'title'>
}
/** `pty_read`: the output, or with `screen: true` the screen. */
export type PtyReadResult = PtyOutputResult | PtyScreenResult
/**
 * `pty_send`: bytes written, and the cursor of the output before them (read the answer from it);
 * with `wait_ms`, the answer.
 */
export interface PtySendResult {
  /** The session. */
  id: string
  /** Bytes written to the terminal (keys encoded). */
  bytes: number
  /** Characters typed, named keys not counted. */
  characters: number
  /**
   * The program had echo off (a password prompt): the input is kept nowhere and no reply shows it
   * (`respond()` says "sent N characters, not shown: the program had echo off").
   */
  echoOff: boolean
  /** The end of the output before the input: `pty_read { since: cursor }` gets the answer. */
  cursor: number
  /** With `wait_ms`: the output after the input (from `cursor`), the state after the wait, and why it ended. */
  answer?: TerminalStatus &
    TerminalOutput & {
      /** Why the wait for the answer ended. */
      reason: TerminalWaitReason
    }
}
/** `pty_list`. */
export interface PtyListResult {
  /** Every session, running or exited and not yet removed. */
  sessions: TerminalSessionInfo[]
}
/** `pty_stop`: how the session ended (it is removed). */
export interface PtyStopResult extends TerminalStatus {
  /** Always `'exited'`. */
  status: 'exited'
  /** True when pty_stop (or `abortAll`) ended it; false when it had exited already. */
  stopped: boolean
  /** Processes it had left running (or that had left its tree) that this stop ended. */
  ended: LeftoverProcess[]
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
 * Programs run without a shell (argv) in a pseudo-terminal of `cols`×`rows`, with `PAGER=cat` and
 * `GIT_PAGER=cat` (the set's `env` overrides them). Output over 2 000 lines, 50 KiB or `max_chars` characters is
 * written to a file whose path is returned, with the head and tail inline. A session that exited
 * stays readable until a read reports its exit (with its runtime and the processes it left
 * running, which pty_stop ends). A running session does not keep the process alive (it is killed
 * when the process exits), as a registry's handles. Each tool has a `permission` class and MCP
 * annotations; `approve` gates the start, input and stop calls. Register it with
 * `registry.register(terminalTools())`; `call()` gives typed results, `respond()` text.
 * `ERR_INVALID_ARG` for a bad option.
 */
export declare function terminalTools(options?: TerminalToolsOptions): ToolSet

