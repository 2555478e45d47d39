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
export function run(options: {
  cases: number
  seed: number
  onClass?: (found: Found) => void
  /** Called every 1000 cases (each tried at every size). */
  onProgress?: (progress: { tried: number; identical: number; classes: number }) => void
  /** False: count the identical cases only (no shrinking, no classes). */
  classify?: boolean
}): {
  tried: number
  identical: number
  classes: Found[]
}
/** As `run`, letting the event loop turn (native finalizers run) every 250 cases. */
export function runAsync(options: {
  cases: number
  seed: number
  onClass?: (found: Found) => void
  /** Called every 1000 cases (each tried at every size). */
  onProgress?: (progress: { tried: number; identical: number; classes: number }) => void
  /** False: count the identical cases only (no shrinking, no classes). */
  classify?: boolean
}): Promise<{
  tried: number
  identical: number
  classes: Found[]
}>
export function same(kase: Case): boolean
export function shrink(kase: Case): Case
export function classOf(kase: Case): string
export function show(kase: Case): string
