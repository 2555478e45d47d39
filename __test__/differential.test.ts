// The short, seeded tier of the differential fuzzer (fuzz/differential.mjs):
// random well-formed output at several sizes, ptypilot's screen against
// @xterm/headless; every mismatch, shrunk, must belong to a class in the
// known-differences table (src/core/screen/DIFFERENCES.md).
import { describe, it, expect } from 'vitest'
import { run, show } from '../fuzz/differential.mjs'

// Pieces that xterm.js shows otherwise than xterm 379 wherever they come (a
// C1 control written as UTF-8, `ESC ( A`, a ZWJ sequence): 28 % of the
// cases carry one, and they make 274 of the 339 mismatches at this seed.
const ALWAYS_APART = ['C1-utf8', 'G0-UK', 'zwj']

describe('differential fuzz against xterm.js (seeded)', () => {
  it('finds no difference outside the known-differences table', async () => {
    const result = await run({ cases: 400, seed: 20261123, apart: ALWAYS_APART })
    const unknown = result.classes.filter((c) => !c.known).map((c) => `${c.cls}: ${show(c.example)}`)
    expect(unknown).toEqual([])
    // The generator reaches the screen: most cases agree, and the known
    // classes do show up. Over all cases 78.8 % are identical here (77.4 to
    // 79.4 % on seeds 1 to 3); without the pieces above 96.5 % (1 103 of
    // 1 143; 95.4 to 97.0 % on seeds 1 to 3), the rest pending wraps, wide
    // characters at the margin and lone marks, where xterm.js departs from
    // xterm. The floor is 0.9 on those.
    expect(result.tried).toBe(1600)
    expect(result.rest.tried).toBeGreaterThan(1000)
    expect(result.rest.identical / result.rest.tried).toBeGreaterThan(0.9)
    expect(result.classes.length).toBeGreaterThan(5)
  }, 300_000)
})
