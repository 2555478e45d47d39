/// <reference types="node" />
// Types of the live panel (lib/panel.js): startPanel() and the source it shows.

/** One session (or task, or handle) as the live panel shows it. */
export interface PanelEntry {
  /** Its id in the source (`'pty1'`, `'h2'`, a task id). */
  id: string
  /** `'terminal'` (a terminal-tool session), `'tool'` (an interactive tool's handle), or the source's own. */
  kind: string
  /** The tab's label. */
  name: string
  /** The program (or the task's command line). */
  command: string
  /** Its arguments. */
  args: string[]
  /** Whether the program still runs. */
  state: 'running' | 'exited'
  /** The state as the page shows it (`'running'`, `'waiting for input (password)'`, `'exited 0'`); derived when absent. */
  stateText?: string
  /** How it exited, once it has: the code, or null (running, or ended by a signal). */
  exitCode: number | null
  /** The signal that ended it (`'SIGTERM'`), or null. */
  signal: string | null
  /** What input the program waits for, or null. */
  input: 'line' | 'password' | 'key' | null
  /** The page that holds it (the name the panel gave that page), or null. */
  holder: string | null
  /** A page may take it over. */
  canTake: boolean
  /** The page shows a close button that calls `cancel()`. */
  cancellable?: boolean
  /** Its terminal size: a page that does not hold it draws it at this size. */
  cols: number
  /** Its terminal height. */
  rows: number
  /** Whatever else the source adds (the page ignores it). */
  [key: string]: unknown
}

/** A change the panel hears of. */
export type PanelEvent =
  | {
      /** An entry was added or changed. */
      type: 'entry'
      /** The entry as it is now. */
      entry: PanelEntry
    }
  | {
      /** An entry is gone. */
      type: 'removed'
      /** The id of the entry that is gone. */
      id: string
    }
  | {
      /** The program wrote output. */
      type: 'output'
      /** The entry that wrote it. */
      id: string
      /** The program's output, escape sequences included, as it wrote it. */
      chunk: string | Uint8Array
    }

/**
 * What a panel shows and what a page may do with it. `page` is the name the panel gave the page
 * that asks (`'page1'`, ...). A method that refuses throws; the page is told the message.
 */
export interface PanelSource {
  /** The entries to show now. */
  entries(): PanelEntry[]
  /** Calls `listener` with every change from now on; returns the function that stops it. */
  subscribe(listener: (event: PanelEvent) => void): () => void
  /** A page takes the session over: from now on it alone types into it. */
  take(id: string, page: string): void
  /** The page hands it back (also called when the page closes). */
  release(id: string, page: string): void
  /** What the person typed or pasted in the page holding the session (a page's keys, as xterm.js encodes them). */
  input(id: string, page: string, data: string | Uint8Array): void
  /** The page holding the session resized it. */
  resize(id: string, page: string, cols: number, rows: number): void
  /** Pages began (`true`) or stopped (`false`) watching: a source may keep costly state (what a program waits for) current only meanwhile. */
  watched?(on: boolean): void
  /** Hold the session's output while a page is far behind (without these, such a page skips output and is redrawn). */
  pause?(id: string): void
  /** Goes on with the output `pause` held. */
  resume?(id: string): void
  /** Buttons the page offers to start tasks (`start({ preset })`). */
  presets?: string[]
  /** A page starts a task (`{ preset }` or `{ command }`, with `cols`/`rows`); the id it gets, which that page then holds. */
  start?(request: { preset?: string; command?: string; cols?: number; rows?: number }): string | void
  /** A page's close button on a running entry. */
  cancel?(id: string): void
}

/** A live panel that listens. */
export interface Panel {
  /** `http://127.0.0.1:<port>/<token>/`: the page. Whoever has it can type into what a person took over. */
  readonly url: string
  /** The port it listens on (127.0.0.1). */
  readonly port: number
  /** The secret path segment every request must carry. */
  readonly token: string
  /** Closes the pages' connections and the server. */
  close(): Promise<void>
}

/**
 * Serves a live panel of `source` on 127.0.0.1: a page listing its entries, each drawn live by
 * xterm.js (served from this package's dependencies, no CDN) with its state, read-only until a
 * page takes one over. Access needs the random `token` in the URL path; requests with another
 * Host header and WebSockets from another Origin are refused. The sessions answer their
 * programs' terminal queries: the page never does. The server does not keep the process alive.
 * The terminal tools' `web` option and `ptypilot mcp --web` use it; so does `examples/web`.
 * `ERR_INVALID_ARG` for a bad option; rejects when the port cannot be listened on.
 */
export declare function startPanel(options: {
  source: PanelSource
  /** @default 0 (any free port) */
  port?: number
  /** 16 to 128 of `A-Z a-z 0-9 - _`. @default 24 random bytes, base64url */
  token?: string
  /** The page's title. @default 'ptypilot' */
  title?: string
}): Promise<Panel>
