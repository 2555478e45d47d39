/// <reference types="node" />
// Types of ToolRegistry (interactive tools an LLM drives: tools, states,
// events, replies for the model, provider definition formats) and gitTool
// (lib/tool-registry.js).

import type { McpToolAnnotations, PtyExecInput, PtyExecResult, PtyListResult, PtyOutputResult, PtyReadInput, PtyReadResult, PtyScreenResult, PtySendInput, PtySendResult, PtyStartInput, PtyStartResult, PtyStopInput, PtyStopResult, TerminalToolResult, ToolInputSchema, ToolSet } from './terminal-tools.js'

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

/**
 * Why the wait of a tool call ended: the program waits for input (`'input'`: a prompt, a
 * password, a menu — at once, from the kernel), exited (`'exit'`; also an abort and a program
 * that could not start), its output paused for the command's `settleMs` (`'quiet'`), or the cap
 * passed (`'timeout'`; `wait()` with `timeoutMs`).
 */
export type ToolWaitReason = 'input' | 'exit' | 'quiet' | 'timeout'

/** What a tool call returns to the model. */
export type ToolState =
  | {
      /** The handle id (`'h1'`, ...). */
      id: string
      /** The program still runs: the model may `fetch`, `apply` or `abort`. */
      state: 'running'
      /** The settled screen text (terminal) or stdout so far (pipes), bounded by `maxContentChars`. */
      content: string | null
      /**
       * What the program waits for when it is blocked reading its terminal: `'line'` (a prompt),
       * `'password'` (echo off), `'key'` (raw mode: a full-screen program, a menu); null while it
       * works, and for a pipes command. `respond()` says `[h1 waiting for input (line)]`.
       */
      inputKind: 'line' | 'password' | 'key' | null
      /** Why the call's wait ended. */
      reason: ToolWaitReason
      /**
       * In a sandbox (`sandbox` option): what the output shows the sandbox refused, one line each
       * ("the sandbox refused: write /repo/.git/config (.git is read-only in the sandbox)"), as
       * `sandboxRefusals()` reads them; absent when there is none. `respond()` puts them after the
       * output.
       */
      refusals?: string[]
    }
  | {
      /** The handle id (`'h1'`, ...). */
      id: string
      /** The program ended (or never started); the handle is gone. */
      state: 'stopped'
      /** `ok: true` for exit code 0 (and for an abort, with the last screen); otherwise the error. */
      result:
        | {
            /** It succeeded. */
            ok: true
            /** The final screen text (terminal) or stdout (pipes). */
            content: string
          }
        | {
            /** It failed. */
            ok: false
            /** Why, for the model. */
            error: ToolError
          }
      /** Why the call's wait ended (`'exit'`). */
      reason: ToolWaitReason
      /**
       * In a sandbox (`sandbox` option): what the output shows the sandbox refused, one line each
       * ("the sandbox refused: write /repo/.git/config (.git is read-only in the sandbox)"), as
       * `sandboxRefusals()` reads them; absent when there is none. `respond()` puts them after the
       * output.
       */
      refusals?: string[]
    }

/** A summary of one handle. */
export interface HandleInfo {
  /** The handle id the model uses (`'h1'`, `'h2'`, ...). */
  id: string
  /** The tool it belongs to. */
  tool: string
  /** The command spawned (a `ToolCommand.name`; `'pty_start'` or `'pty_exec'` for a terminal session). */
  command: string
  /** The spawn call's extra arguments. */
  args: string[]
  /** `null` when the program could not be started. */
  pid: number | null
  /** `'running'`, or how it ended: exit code 0, another exit (or a failed start), its `timeoutMs`, an abort. */
  state: 'running' | 'success' | 'error' | 'timeout' | 'aborted'
  /** Milliseconds since the Unix epoch. */
  startedAt: number
  /** When it ended (milliseconds since the Unix epoch), or null while it runs. */
  finishedAt: number | null
  /** The exit code, or null while it runs, when a signal ended it or it never started. */
  exitCode: number | null
}

/**
 * Registry events, in order per handle: `started`, then `output`s, then `finished` (or
 * `hostCrashed` when the isolated host holding the handle died).
 */
export type ToolEvent =
  | ({
      /** A handle was created (its program started, or failed to). */
      type: 'started'
    } & HandleInfo)
  | {
      /** A handle's program wrote output. */
      type: 'output'
      /** The handle. */
      id: string
      /** The output as written (escape sequences included), decoded as UTF-8. */
      chunk: string
    }
  | ({
      /** A handle ended: after its last `output`. */
      type: 'finished'
      /** How long it ran, in milliseconds. */
      durationMs: number
    } & HandleInfo)
  | HostCrashedEvent
  | WebPanelEvent

/**
 * The live panel of a terminal tool set with the `web` option listens at `url` (which carries
 * its token: give it to the person, not to anyone else); `url` is null and `error` says why
 * when it could not start (a port in use). With `isolation: 'process'` a fresh host after a
 * crash sends its own.
 */
export interface WebPanelEvent {
  /** The event's kind. */
  type: 'web'
  /** The name of the tool set whose panel it is (`'terminal'`). */
  id: string
  /** The panel's address, with its token; null when it could not start. */
  url: string | null
  /** Why it could not start. */
  error?: string
}

/**
 * The isolated host (`isolation: 'process'`) holding handle `id` died: the handle is lost and
 * its programs were killed; the next call starts a fresh host. One event per handle the host
 * held; calls pending at that moment reject with `ERR_HOST_CRASHED` and the same `message`.
 * (Every crash is also reported as a process warning, code `PTYPILOT_HOST_CRASHED`.)
 */
export interface HostCrashedEvent {
  /** The event's kind. */
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

/** `definitions('anthropic')`: assignable to `Anthropic.Messages.Tool` (`@anthropic-ai/sdk`). */
export type AnthropicToolDefinition = {
  /** The tool's name. */
  name: string
  /** What the model reads about the tool. */
  description: string
  /** The schema of the tool's input. */
  input_schema: ToolInputSchema
}

/**
 * `definitions('openai')`: assignable to `ChatCompletionTool` / `ChatCompletionFunctionTool`
 * (`openai`, Chat Completions). The schema is in strict form: every field required, optional
 * ones nullable (`null` means "not given").
 */
export type OpenAIChatToolDefinition = {
  /** Always `'function'`. */
  type: 'function'
  /** The function the model may call. */
  function: {
    /** The tool's name. */
    name: string
    /** What the model reads about the tool. */
    description: string
    /** The schema of the tool's input, in strict form. */
    parameters: ToolInputSchema
    /** Always true: the model's arguments follow the schema exactly. */
    strict: true
  }
}

/** `definitions('openai-responses')`: assignable to `FunctionTool` (`openai`, Responses API); strict schema. */
export type OpenAIResponsesToolDefinition = {
  /** Always `'function'`. */
  type: 'function'
  /** The tool's name. */
  name: string
  /** What the model reads about the tool. */
  description: string
  /** The schema of the tool's input, in strict form. */
  parameters: ToolInputSchema
  /** Always true: the model's arguments follow the schema exactly. */
  strict: true
}

/** `definitions('mcp')`: an entry of an MCP `tools/list` result. */
export type McpToolDefinition = {
  /** The tool's name. */
  name: string
  /** What the model reads about the tool. */
  description: string
  /** The schema of the tool's input. */
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
   * The sandbox the registered interactive tools' programs run in (see `PtyOptions.sandbox`);
   * with `'workspace-write'` the workspace is `cwd`. The terminal tools take their own
   * (`terminalTools({ sandbox })`).
   * @default 'off'
   */
  sandbox?: import('./sandbox.js').SandboxOption
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
  /**
   * With `isolation: 'process'`: answers the host's network questions (a sandbox with
   * `network: { allow, ask: true }` meeting a host on neither list); resolving `true` lets the
   * program's connection through, a string refuses it with that reason. In this process,
   * `setNetworkAsker` does the same.
   */
  askNetwork?: (question: import('./network.js').NetworkQuestion) => boolean | string | Promise<boolean | string>
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

/**
 * The git tool: `stage` (`git add --patch [paths]`) and `rebase` (`git rebase --interactive
 * <base>`) in a terminal, taking input; `log` (`git log --oneline -20 [args]`) with pipes.
 */
export declare function gitTool(): InteractiveTool
