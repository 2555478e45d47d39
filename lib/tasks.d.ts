/// <reference types="node" />
// Types of TaskRunner: commands run as tasks in pseudo-terminals, reported as
// events a UI or an agent can relay (lib/tasks.js).

import type { PtyOptions, PtySession } from './pty-session.js'

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
  /** The task's `name` option, else its command line (`command` and `args`). */
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
  /** The event's kind. */
  type: 'task_started'
  /** The task it is about. */
  taskId: string
  /** The task's name. */
  name: string
  /** Milliseconds since the epoch. */
  startedAt: number
}

/** A chunk of a task's output, as the program wrote it (escape sequences included). */
export interface TaskLogEvent {
  /** The event's kind. */
  type: 'task_log'
  /** The task that wrote it. */
  taskId: string
  /**
   * Decoded as UTF-8 (a character split across reads is never split across chunks), or, for a
   * task started with `raw: true`, the bytes as written (`Uint8Array`).
   */
  chunk: string | Uint8Array
}

/** The last event of a task: after every `task_log` of it. */
export interface TaskFinishedEvent {
  /** The event's kind. */
  type: 'task_finished'
  /** The task it is about. */
  taskId: string
  /** The task's name. */
  name: string
  /** How it ended (as `TaskInfo.state`). */
  state: Exclude<TaskState, 'running'>
  /** The exit code, or null when a signal ended it. */
  exitCode: number | null
  /** The signal that ended it (`'SIGTERM'`, `'SIGKILL'`), or null. */
  signal: string | null
  /** How long it ran, from its start to its exit, in milliseconds. */
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
