/**
 * `ptypilot/vitest`: matchers and the `pty` fixture for Vitest suites that test terminal
 * programs. Importing the module registers the matchers (`toShowText`, `toHaveTitle`,
 * `toMatchScreenSnapshot`, `toHaveExited`, `toBeWaitingForInput`) on Vitest's `expect`.
 *
 * @module ptypilot/vitest
 */
import type { ExpectStatic, TestAPI, TestContext, RunnerTestCase } from 'vitest'
import type { InputKind, PtySession, PtyOptions, ScreenSnapshot, StyledScreenSnapshot } from '../index.js'

/** A cell colour as `screen({ attributes: true })` reports it: 0-255, `'#rrggbb'`, or `null` for the default. */
export type CellColour = number | string | null

/** Options of `toShowText`. */
export interface ShowTextOptions {
  /**
   * How long to wait for the text (with `.not`: for it to go).
   * @default what is left of the test's timeout less a margin (10 000 outside a test or without one)
   */
  timeout?: number
  /** Only on this row (0-based). */
  row?: number
  /** Only where every cell of the text has this foreground (as `StyledRun.fg`: 1 is red, `'#ff8000'`, `null` the default). */
  fg?: CellColour
  /** Only where every cell of the text has this background. */
  bg?: CellColour
  /** Only where the text is (`true`) or is not (`false`) bold. */
  bold?: boolean
  /** Only where the text is (or is not) dim. */
  dim?: boolean
  /** Only where the text is (or is not) italic. */
  italic?: boolean
  /** Only where the text is (or is not) underlined. */
  underline?: boolean
  /** Only where the text is (or is not) in inverse video: a highlighted menu row. */
  inverse?: boolean
}

/** Options of `toHaveTitle`. */
export interface HaveTitleOptions {
  /**
   * How long to wait for the title (with `.not`: for it to change).
   * @default what is left of the test's timeout less a margin (10 000 outside a test or without one)
   */
  timeout?: number
}

/** Options of `toBeWaitingForInput`. */
export interface WaitingForInputOptions {
  /**
   * How long to wait for the program to wait for input (not with `.not`, which looks once).
   * @default what is left of the test's timeout less a margin (10 000 outside a test or without one)
   */
  timeout?: number
}

/** Options of `toHaveExited`. */
export interface HaveExitedOptions {
  /** The exit code the program must have exited with. */
  code?: number | null
  /** The signal that must have ended the program (`'SIGTERM'`, `'SIGKILL'`, ...). */
  signal?: string
  /**
   * How long to wait for the exit (not with `.not`, which looks once).
   * @default what is left of the test's timeout less a margin (10 000 outside a test or without one)
   */
  timeout?: number
}

declare module 'vitest' {
  interface Matchers<T = any> {
    /**
     * Waits until the session's screen shows `text` (a string, whose trailing spaces also match
     * at the end of a row, or a RegExp); with `.not`, until it no longer does. Await it. A failure
     * shows the screen with row numbers and the cursor.
     *
     * With `row` or a style (`fg`, `bg`, `bold`, `dim`, `italic`, `underline`, `inverse`), only a
     * match on that row whose every cell has that style counts (within one row): the highlighted
     * menu entry, `await expect(menu).toShowText('Banana', { inverse: true })`. A failure then
     * lists where the text shows and in which style.
     */
    toShowText(text: string | RegExp, options?: ShowTextOptions): Promise<void>
    /**
     * Waits until the window title the program set (OSC 0 / OSC 2, `screen().title`) is `title`
     * (a string, compared whole) or matches it (a RegExp); with `.not`, until it is not. Await it.
     */
    toHaveTitle(title: string | RegExp, options?: HaveTitleOptions): Promise<void>
    /**
     * Compares a session's screen now (or a `ScreenSnapshot`) with the stored snapshot, in a stable
     * text form: size, cursor, alternate screen, every row numbered. Wait for the screen first
     * (`toShowText`, `waitForSettle`). In concurrent tests use the test context's `expect`, as
     * for every Vitest snapshot. A string is a hint; `{ attributes: true }` stores colours and
     * attributes too (received: a session, or a `screen({ attributes: true })` snapshot).
     */
    toMatchScreenSnapshot(options?: string | ScreenSnapshotOptions): void
    /**
     * Waits until the program exited (with `code` / by `signal` when given). With `.not`, passes
     * while the program runs, without waiting.
     */
    toHaveExited(options?: HaveExitedOptions): Promise<void>
    /**
     * Waits until the program waits for input (see `PtySession.waitForInput`), of `kind` when
     * given: `'line'` (a prompt), `'password'` (echo off), `'key'` (raw mode: vim, less, a menu).
     * A program that waits for another kind fails at once. With `.not`, looks once (no wait) and
     * passes while the program does not wait for input (of `kind`). Await it. A failure shows
     * the input state and the screen.
     */
    toBeWaitingForInput(kind?: InputKind, options?: WaitingForInputOptions): Promise<void>
  }
}

/**
 * A `PtySession` started by the `pty` fixture: `waitFor`, `waitForSettle` and `waitForInput` default to what is
 * left of the test's timeout (less a margin), end with `ERR_ABORTED` when the test is aborted
 * (it timed out, the run was cancelled), and their errors show the screen with row numbers.
 */
export declare class TestSession extends PtySession {}

/** What a test gets as `pty`. */
export interface PtyFixture {
  /**
   * Starts a program, like `PtySession.spawn` (throws `ERR_SPAWN` / `ERR_INVALID_ARG`). It belongs
   * to this test: when the test ends it is terminated (TERM, grace, KILL; the whole tree).
   */
  spawn(options: PtyOptions, onData?: (chunk: string) => void): TestSession
  /** The sessions this test started, oldest first. */
  readonly sessions: readonly TestSession[]
}

/** Options of `ptyFixture`. */
export interface PtyFixtureOptions {
  /** Grace between TERM and KILL when a test's programs are terminated at its end. @default 1000 */
  graceMs?: number
  /**
   * Record every session the fixture starts (unless its options name a `record` file) as an
   * asciicast v2 file: `'failed'` keeps the recordings of failing tests only (their paths are
   * added to the failure message), `'all'` keeps every one.
   * @default 'off'
   */
  record?: 'off' | 'failed' | 'all'
  /**
   * Where recordings go, one file per session, named after the test; a failing test's screenshots
   * (`<test>-<n>.svg`) and traces (`<test>-<n>.html`) go there too.
   * @default '__recordings__' next to the test file
   */
  recordDir?: string
  /**
   * `'failed'`: when a test fails, each of its sessions' screen is written as an SVG screenshot
   * (`session.screenshot()`) to `recordDir`, attached to the test as a Vitest artifact and named in
   * the failure message. A failing test's recordings (with `record`) get an HTML trace each the
   * same way (`ptypilot view`).
   * @default 'failed'
   */
  screenshots?: 'failed' | 'off'
}

/** Options of `toMatchScreenSnapshot`. */
export interface ScreenSnapshotOptions {
  /** Told apart from other snapshots of the same test, as Vitest's `toMatchSnapshot(hint)`. */
  hint?: string
  /** Store each styled run that is not plain under its row (colours, bold, inverse, ...). @default false */
  attributes?: boolean
}

/**
 * The `pty` fixture for `test.extend`. Each test gets its own: its programs are terminated when
 * that test ends (safe under `describe.concurrent`), and if it failed, their screens are added to
 * the failure message (for a `Test timed out` or an assertion on something else), and their SVG
 * screenshots (and, with `record`, HTML traces) are written, attached and named there. With `record`,
 * sessions are recorded and, with `'failed'`, the recordings of passing tests removed.
 *
 * ```ts
 * import { test as base } from 'vitest'
 * import { ptyFixture } from 'ptypilot/vitest'
 * export const test = base.extend({ pty: ptyFixture({ graceMs: 500 }) })
 * ```
 */
export declare function ptyFixture(
  options?: PtyFixtureOptions,
): (context: TestContext, use: (pty: PtyFixture) => Promise<void>) => Promise<void>

/** What a test of this module's `test` gets beside Vitest's own context. */
export interface PtyTestContext {
  /** Starts programs that belong to the test (see `PtyFixture`). */
  pty: PtyFixture
}

/** Vitest's `test` with the `pty` fixture. */
export declare const test: TestAPI<PtyTestContext>
/** Alias of `test`. */
export declare const it: TestAPI<PtyTestContext>
/** Vitest's `expect`, with the matchers registered (importing this module registers them). */
export declare const expect: ExpectStatic

/** What a matcher returns to `expect`. */
export interface KitMatcherResult {
  /** Whether the assertion held (before `.not`). */
  pass: boolean
  /** The failure message: expected, and the screen received with row numbers. */
  message: () => string
}

/** The matchers, for `expect.extend(matchers)` on another `expect`. */
export declare const matchers: {
  /** `expect(session).toShowText(text, options)`: waits until the screen shows `text` (`.not`: until it does not). */
  toShowText(this: unknown, received: unknown, text: string | RegExp, options?: ShowTextOptions): Promise<KitMatcherResult>
  /** `expect(session).toHaveTitle(title, options)`: waits until the window title is or matches `title`. */
  toHaveTitle(this: unknown, received: unknown, title: string | RegExp, options?: HaveTitleOptions): Promise<KitMatcherResult>
  /** `expect(session).toMatchScreenSnapshot(options)`: the screen now against the stored snapshot. */
  toMatchScreenSnapshot(this: unknown, received: unknown, options?: string | ScreenSnapshotOptions): KitMatcherResult
  /** `expect(session).toHaveExited(options)`: waits until the program exited (with `code` / by `signal`). */
  toHaveExited(this: unknown, received: unknown, options?: HaveExitedOptions): Promise<KitMatcherResult>
  /** `expect(session).toBeWaitingForInput(kind, options)`: waits until the program waits for input (of `kind`). */
  toBeWaitingForInput(this: unknown, received: unknown, kind?: InputKind, options?: WaitingForInputOptions): Promise<KitMatcherResult>
}

/** A screen as failure messages show it: size, cursor, numbered rows (0-based), the cursor's row marked. */
export declare function formatScreen(screen: ScreenSnapshot): string
/** The stable text form `toMatchScreenSnapshot` stores. */
export declare function serializeScreen(screen: ScreenSnapshot | StyledScreenSnapshot, options?: { attributes?: boolean }): string
/** The default of a wait in `task`: what is left of its timeout less a margin; 10 000 without one. */
export declare function fittingWaitMs(task: RunnerTestCase | undefined): number
