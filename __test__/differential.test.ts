// The short, seeded tier of the differential fuzzer (fuzz/differential.mjs):
// random well-formed output at several sizes, ptypilot's screen against
// @xterm/headless; every mismatch, shrunk, must belong to a class in the
// known-differences table (src/core/screen/DIFFERENCES.md).
import { describe, it, expect } from 'vitest'
import { run, show } from '../fuzz/differential.mjs'

describe('differential fuzz against xterm.js (seeded)', () => {
  it('finds no difference outside the known-differences table', () => {
    const result = run({ cases: 400, seed: 20261123 })
    const unknown = result.classes.filter((c) => !c.known).map((c) => `${c.cls}: ${show(c.example)}`)
    expect(unknown).toEqual([])
    // The generator reaches the screen: most cases agree, and the known
    // classes do show up. (About one case in five has a C1 control written
    // as UTF-8 or `ESC ( A`, which xterm.js acts on and xterm 379 does not.)
    expect(result.tried).toBe(1600)
    expect(result.identical / result.tried).toBeGreaterThan(0.75)
  }, 300_000)
})
