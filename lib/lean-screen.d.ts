/// <reference types="node" />
// Types of lean screens, the view of a screen an agent is sent: screenView,
// rebuildScreen, ScreenViewTracker (lib/lean-screen.js).

/**
 * A screen as a view carries it: what `PtySession.screen()` returns has these fields (and
 * more), so a `ScreenSnapshot` can be passed where a `ViewScreen` is expected.
 */
export interface ViewScreen {
  /** Every row (`lines.length === rows`), without line breaks. */
  lines: string[]
  /** Width in cells. */
  cols: number
  /** Height in rows. */
  rows: number
  /** Where the cursor is. */
  cursor: ViewCursor
  /** @default false */
  altScreen?: boolean
}

/** Where the cursor of a `ViewScreen` is, and whether it is shown. */
export interface ViewCursor {
  /** Row, 0-based. */
  row: number
  /** Column, 0-based. */
  col: number
  /** Whether it is shown. @default true */
  visible?: boolean
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
 * const screens = new Map<number, RebuiltScreen>()
 * let model: RebuiltScreen | null = null
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
): RebuiltScreen

/**
 * The screen `rebuildScreen` gives back: the `next` the view was made from, exactly — a
 * `ViewScreen` whose optional fields are always there.
 */
export interface RebuiltScreen extends ViewScreen {
  /** Where the cursor is, and whether it is shown (`visible` always given). */
  cursor: Required<ViewCursor>
  /** Whether the alternate screen (a full-screen program's) is showing. */
  altScreen: boolean
}

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
  last(key: string): RebuiltScreen | null
  /** The keys that have a remembered screen. */
  keys(): string[]
  /** Forgets `key` (its screens), so its next view is full; true when it was known. */
  forget(key: string): boolean
  /** Forgets every key. */
  clear(): void
  /** How many keys have a remembered screen. */
  readonly size: number
}
