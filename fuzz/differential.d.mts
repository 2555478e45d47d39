// Types of fuzz/differential.mjs, for the Vitest tier.
export type Piece = [kind: string, text: string]
export interface Case {
  cols: number
  rows: number
  pieces: Piece[]
}
export interface Known {
  id: string
  kinds: string[]
  /** Why ptypilot shows otherwise than xterm.js (src/core/screen/DIFFERENCES.md). */
  verdict: 'follows-xterm' | 'cannot'
}
export interface Found {
  cls: string
  count: number
  example: Case
  known: Known | undefined
}
export const SIZES: [cols: number, rows: number][]
export const KNOWN: Known[]
/**
 * Runs `cases` random cases from `seed`, each at every size in SIZES,
 * letting the event loop turn (native finalizers run) every 250 cases.
 */
export function run(options: {
  cases: number
  seed: number
  onClass?: (found: Found) => void
  /** Called every 1000 cases (each tried at every size). */
  onProgress?: (progress: { tried: number; identical: number; classes: number }) => void
  /** False: count the identical cases only (no shrinking, no classes). */
  classify?: boolean
  /** Kinds of pieces whose cases are left out of `rest`. */
  apart?: string[]
}): Promise<{
  tried: number
  identical: number
  /** The cases with no piece of the kinds `apart`. */
  rest: { tried: number; identical: number }
  classes: Found[]
}>
export function same(kase: Case): boolean
export function shrink(kase: Case): Promise<Case>
/** The smallest sub-sequence of pieces (and shortest texts) for which `differs` still holds. */
export function shrinkPieces(pieces: Piece[], differs: (pieces: Piece[]) => boolean | Promise<boolean>): Promise<Piece[]>
export function classOf(kase: Case): string
export function show(kase: Case): string
/** What xterm.js (Unicode 11) shows: rows and cursor; null where it fails. */
export function viaXterm(bytes: Uint8Array, cols: number, rows: number): { lines: string[]; cursor: [number, number] } | null
