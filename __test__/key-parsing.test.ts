// Key parsing: parseKey, matchesKey, parseKittySequence, matchesKittySequence and
// matchesLegacySequence over tables of sequences per protocol, and the round trip with encodeKeys.
import { describe, it, expect } from 'vitest'
import {
  encodeKeys,
  parseKey,
  matchesKey,
  parseKittySequence,
  matchesKittySequence,
  matchesLegacySequence,
} from '../index.js'

const ESC = '\x1b'

describe('single bytes and characters', () => {
  it.each([
    ['a', 'a'],
    ['A', 'A'],
    ['7', '7'],
    ['?', '?'],
    [' ', 'space'],
    ['<', 'lt'],
    ['>', 'gt'],
    ['\r', 'enter'],
    ['\t', 'tab'],
    [ESC, 'esc'],
    ['\x7f', 'backspace'],
    ['\x00', 'ctrl+space'],
    ['\x03', 'ctrl+c'],
    ['\x08', 'ctrl+h'],
    ['\n', 'ctrl+j'],
    ['\x1c', 'ctrl+\\'],
    ['\x1f', 'ctrl+_'],
    ['é', 'é'],
  ])('%j is %s', (data, id) => {
    expect(parseKey(data)).toBe(id)
    expect(matchesKey(data, id)).toBe(true)
  })
})

describe('alt: ESC before a key', () => {
  it.each([
    [`${ESC}x`, 'alt+x'],
    [`${ESC}X`, 'alt+shift+x'],
    [`${ESC}\x03`, 'ctrl+alt+c'],
    [`${ESC}\r`, 'alt+enter'],
    [`${ESC}${ESC}`, 'alt+esc'],
    [`${ESC}${ESC}[A`, 'alt+up'],
    [`${ESC}${ESC}[Z`, 'alt+shift+tab'],
  ])('%j is %s', (data, id) => {
    expect(parseKey(data)).toBe(id)
  })
})

describe('legacy escape sequences', () => {
  it.each([
    [`${ESC}[A`, 'up'],
    [`${ESC}OA`, 'up'],
    [`${ESC}[H`, 'home'],
    [`${ESC}OF`, 'end'],
    [`${ESC}[1~`, 'home'],
    [`${ESC}[4~`, 'end'],
    [`${ESC}[2~`, 'insert'],
    [`${ESC}[3~`, 'delete'],
    [`${ESC}[5~`, 'pageUp'],
    [`${ESC}[6~`, 'pageDown'],
    [`${ESC}OP`, 'f1'],
    [`${ESC}[11~`, 'f1'],
    [`${ESC}[[A`, 'f1'],
    [`${ESC}[15~`, 'f5'],
    [`${ESC}[24~`, 'f12'],
    [`${ESC}[Z`, 'shift+tab'],
    [`${ESC}[1;5A`, 'ctrl+up'],
    [`${ESC}[1;2D`, 'shift+left'],
    [`${ESC}[1;3C`, 'alt+right'],
    [`${ESC}[1;6H`, 'ctrl+shift+home'],
    [`${ESC}[1;8B`, 'ctrl+alt+shift+down'],
    [`${ESC}[15;2~`, 'shift+f5'],
    [`${ESC}[3;5~`, 'ctrl+delete'],
    [`${ESC}[a`, 'shift+up'],
    [`${ESC}Od`, 'ctrl+left'],
    [`${ESC}[5^`, 'ctrl+pageUp'],
    [`${ESC}OM`, 'kpEnter'],
    [`${ESC}Op`, 'kp0'],
  ])('%j is %s', (data, id) => {
    expect(parseKey(data)).toBe(id)
    expect(matchesLegacySequence(data, id)).toBe(true)
    expect(matchesKey(data, id)).toBe(true)
  })

  it('matchesLegacySequence takes any spelling, and only escape sequences', () => {
    expect(matchesLegacySequence(`${ESC}[6~`, 'pgdn')).toBe(true)
    expect(matchesLegacySequence(`${ESC}[1;6D`, 'shift+ctrl+left')).toBe(true)
    expect(matchesLegacySequence(`${ESC}[1;6D`, 'ctrl+left')).toBe(false)
    expect(matchesLegacySequence(`${ESC}[A`, 'down')).toBe(false)
    expect(matchesLegacySequence('\r', 'enter')).toBe(false)
    expect(matchesLegacySequence(`${ESC}x`, 'alt+x')).toBe(false)
    expect(matchesLegacySequence(`${ESC}[97;5u`, 'ctrl+a')).toBe(false)
    expect(matchesLegacySequence(`${ESC}[A`, 'nope')).toBe(false)
  })
})

describe('xterm modifyOtherKeys', () => {
  it.each([
    [`${ESC}[27;5;105~`, 'ctrl+i'],
    [`${ESC}[27;2;13~`, 'shift+enter'],
    [`${ESC}[27;5;13~`, 'ctrl+enter'],
    [`${ESC}[27;6;65~`, 'ctrl+shift+a'],
    [`${ESC}[27;6;33~`, 'ctrl+!'],
    [`${ESC}[27;5;9~`, 'ctrl+tab'],
  ])('%j is %s', (data, id) => {
    expect(parseKey(data)).toBe(id)
  })
})

describe('kitty keyboard protocol', () => {
  it.each([
    [`${ESC}[97u`, 'a', { codepoint: 97, modifier: 0, eventType: 1 }],
    [`${ESC}[97;5u`, 'ctrl+a', { codepoint: 97, modifier: 4, eventType: 1 }],
    [`${ESC}[97;6u`, 'ctrl+shift+a', { codepoint: 97, modifier: 5, eventType: 1 }],
    [`${ESC}[97:65;2u`, 'A', { codepoint: 97, shiftedKey: 65, modifier: 1, eventType: 1 }],
    [`${ESC}[97:65;2;65u`, 'A', { codepoint: 97, shiftedKey: 65, modifier: 1, eventType: 1, text: 'A' }],
    [`${ESC}[97;;97u`, 'a', { codepoint: 97, modifier: 0, eventType: 1, text: 'a' }],
    [`${ESC}[97;5:2u`, 'ctrl+a', { codepoint: 97, modifier: 4, eventType: 2 }],
    [`${ESC}[97;5:3u`, 'ctrl+a', { codepoint: 97, modifier: 4, eventType: 3 }],
    [`${ESC}[97;69u`, 'ctrl+a', { codepoint: 97, modifier: 4, eventType: 1 }], // caps lock masked
    [`${ESC}[97;13u`, 'ctrl+a', { codepoint: 97, modifier: 12, eventType: 1 }], // super kept, not in the id
    [`${ESC}[105;5u`, 'ctrl+i', { codepoint: 105, modifier: 4, eventType: 1 }],
    [`${ESC}[13;2u`, 'shift+enter', { codepoint: 13, modifier: 1, eventType: 1 }],
    [`${ESC}[9;2u`, 'shift+tab', { codepoint: 9, modifier: 1, eventType: 1 }],
    [`${ESC}[27u`, 'esc', { codepoint: 27, modifier: 0, eventType: 1 }],
    [`${ESC}[127;5u`, 'ctrl+backspace', { codepoint: 127, modifier: 4, eventType: 1 }],
    [`${ESC}[49:33;6u`, 'ctrl+!', { codepoint: 49, shiftedKey: 33, modifier: 5, eventType: 1 }],
    [`${ESC}[1089::99;5u`, 'ctrl+c', { codepoint: 1089, baseLayoutKey: 99, modifier: 4, eventType: 1 }],
    [`${ESC}[3;5~`, 'ctrl+delete', { codepoint: 57349, modifier: 4, eventType: 1 }],
    [`${ESC}[13~`, 'f3', { codepoint: 57366, modifier: 0, eventType: 1 }],
    [`${ESC}[1;5A`, 'ctrl+up', { codepoint: 57352, modifier: 4, eventType: 1 }],
    [`${ESC}[1;2:3D`, 'shift+left', { codepoint: 57350, modifier: 1, eventType: 3 }],
    [`${ESC}[P`, 'f1', { codepoint: 57364, modifier: 0, eventType: 1 }],
    [`${ESC}[57376u`, 'f13', { codepoint: 57376, modifier: 0, eventType: 1 }],
    [`${ESC}[57414u`, 'kpEnter', { codepoint: 57414, modifier: 0, eventType: 1 }],
    [`${ESC}[57441;2:3u`, 'shift+leftShift', { codepoint: 57441, modifier: 1, eventType: 3 }],
  ])('%j is %s', (data, id, report) => {
    expect(parseKey(data)).toBe(id)
    expect(matchesKey(data, id)).toBe(true)
    expect(parseKittySequence(data)).toEqual(report)
    expect(matchesKittySequence(data, report.codepoint, report.modifier & 7)).toBe(true)
    expect(matchesKittySequence(data, report.codepoint, (report.modifier & 7) ^ 4)).toBe(false)
  })

  it('matchesKittySequence masks locks and constrains the base layout', () => {
    expect(matchesKittySequence(`${ESC}[97;69u`, 97, 4)).toBe(true)
    expect(matchesKittySequence(`${ESC}[97;5u`, 97, 4 | 64 | 128)).toBe(true)
    expect(matchesKittySequence(`${ESC}[1089::99;5u`, 99, 4)).toBe(true)
    expect(matchesKittySequence(`${ESC}[106::99;5u`, 99, 4)).toBe(false) // Dvorak j where c is
    expect(matchesKittySequence(`${ESC}[97;5u`, 98, 4)).toBe(false)
    expect(matchesKittySequence('\x01', 97, 4)).toBe(false)
  })

  it('kittyProtocolActive reads the shift+enter mappings', () => {
    expect(parseKey(`${ESC}\r`, true)).toBe('shift+enter')
    expect(parseKey('\n', true)).toBe('shift+enter')
    expect(parseKey(`${ESC}\r`, false)).toBe('alt+enter')
    expect(parseKey('\n')).toBe('ctrl+j')
    expect(matchesKey('\n', 'shift+enter', true)).toBe(true)
    expect(matchesKey('\n', 'shift+enter', false)).toBe(false)
  })
})

describe('matchesKey', () => {
  it('takes any spelling of the key', () => {
    expect(matchesKey('\x03', 'ctrl+c')).toBe(true)
    expect(matchesKey('\x03', 'C-c')).toBe(true)
    expect(matchesKey('\x03', 'Ctrl+C')).toBe(true)
    expect(matchesKey(`${ESC}[Z`, 'S-tab')).toBe(true)
    expect(matchesKey('A', 'shift+a')).toBe(true)
    expect(matchesKey('a', 'A')).toBe(false)
    expect(matchesKey('\t', 'tab')).toBe(true)
    expect(matchesKey('\t', 'ctrl+i')).toBe(false) // legacy cannot tell; the plainer key wins
    expect(matchesKey('\x03', 'ctrl+d')).toBe(false)
  })
})

describe('what is not one key gives null or false, never a throw', () => {
  const bad: unknown[] = [
    '',
    'ab',
    `${ESC}[A${ESC}[B`,
    `${ESC}[200~`,
    `${ESC}[<0;1;1M`,
    `${ESC}[97;0u`,
    `${ESC}[97;5:9u`,
    `${ESC}[55296u`,
    `${ESC}[99999999999u`,
    `${ESC}${ESC}x`,
    new Uint8Array([0xff]),
    Buffer.from([0x1b, 0xc3]),
    undefined,
    null,
    42,
    {},
    ['a'],
  ]
  it.each(bad.map((d) => [d]))('%j', (data) => {
    const d = data as string
    expect(parseKey(d)).toBeNull()
    expect(parseKey(d, true)).toBeNull()
    expect(matchesKey(d, 'a')).toBe(false)
    expect(parseKittySequence(d)).toBeNull()
    expect(matchesKittySequence(d, 97, 0)).toBe(false)
    expect(matchesLegacySequence(d, 'up')).toBe(false)
  })

  it('bad key names, code points and modifiers', () => {
    const any = (v: unknown) => v as never
    expect(matchesKey('a', any(undefined))).toBe(false)
    expect(matchesKey('a', 'nope')).toBe(false)
    expect(matchesKey('\x03', 'hyper+c')).toBe(false)
    expect(matchesKittySequence(`${ESC}[97u`, -1, 0)).toBe(false)
    expect(matchesKittySequence(`${ESC}[97u`, 97.5, 0)).toBe(false)
    expect(matchesKittySequence(`${ESC}[97u`, 97, any('0'))).toBe(false)
    expect(matchesLegacySequence(`${ESC}[A`, any(1))).toBe(false)
  })

  it('takes raw bytes as Buffer and Uint8Array', () => {
    expect(parseKey(Buffer.from('\x1b[1;5A'))).toBe('ctrl+up')
    expect(parseKey(new Uint8Array([0x03]))).toBe('ctrl+c')
    expect(parseKey(new Uint8Array([0x61, 0x03]).subarray(1))).toBe('ctrl+c')
    expect(matchesKey(Buffer.from([0x1b, 0x78]), 'alt+x')).toBe(true)
  })
})

// The canonical base names encodeKeys documents, and every printable ASCII character that is
// its own name (space, < and > are named; capitals are shifted letters).
const BASES = [
  'enter', 'tab', 'esc', 'backspace', 'delete', 'insert', 'home', 'end', 'pageUp', 'pageDown',
  'up', 'down', 'left', 'right', 'space', 'f1', 'f2', 'f3', 'f4', 'f5', 'f6', 'f7', 'f8', 'f9',
  'f10', 'f11', 'f12', 'kp0', 'kp1', 'kp2', 'kp3', 'kp4', 'kp5', 'kp6', 'kp7', 'kp8', 'kp9',
  'kpEnter', 'kpPlus', 'kpMinus', 'kpMultiply', 'kpDivide', 'kpDecimal', 'lt', 'gt',
  ...Array.from({ length: 94 }, (_, i) => String.fromCharCode(33 + i)).filter(
    (c) => c !== '<' && c !== '>' && !(c >= 'A' && c <= 'Z'),
  ),
]

/** The canonical id of base with the modifier bits (ctrl 4, alt 2, shift 1). */
function canonical(base: string, mods: number): string {
  if (mods === 1 && base.length === 1 && base >= 'a' && base <= 'z') return base.toUpperCase()
  return (mods & 4 ? 'ctrl+' : '') + (mods & 2 ? 'alt+' : '') + (mods & 1 ? 'shift+' : '') + base
}

function modifierCount(id: string): number {
  if (id.length === 1 && id >= 'A' && id <= 'Z') return 1
  return (id.match(/(ctrl|alt|shift)\+/g) ?? []).length
}

describe('round trip: parseKey(encodeKeys([k])) === k', () => {
  it.each([false, true])('every canonical name, applicationCursor %s', (applicationCursor) => {
    let exact = 0
    let plainer = 0
    let notSendable = 0
    for (const base of BASES) {
      for (let mods = 0; mods < 8; mods++) {
        const id = canonical(base, mods)
        let bytes: string
        try {
          bytes = encodeKeys([id], { applicationCursor })
        } catch {
          notSendable++
          continue
        }
        const got = parseKey(bytes)
        if (got === id) {
          exact++
          continue
        }
        // Two keys send the same bytes: the answer is the plainer of them.
        expect(got, id).not.toBeNull()
        expect(encodeKeys([got!], { applicationCursor }), `${id} -> ${got}`).toBe(bytes)
        expect(modifierCount(got!), `${id} -> ${got}`).toBeLessThanOrEqual(modifierCount(id))
        plainer++
      }
    }
    // 434 names come back exactly, 100 collide with a plainer key (ctrl+i is tab, kp5 is 5,
    // ctrl+shift+a is ctrl+a), 354 combinations have no xterm encoding (shift+enter, ctrl+1).
    expect({ exact, plainer, notSendable }).toEqual({ exact: 434, plainer: 100, notSendable: 354 })
  })
})

describe('round trip under the kitty keyboard protocol: parseKey(encodeKeys([k], { kittyFlags }), true) === k', () => {
  // 1 disambiguate, 4 alternate keys, 8 all keys as escape codes, 16 associated text.
  it.each([1, 1 | 4, 8, 8 | 4 | 16])('every canonical name, kittyFlags %i', (kittyFlags) => {
    let exact = 0
    let asText = 0
    let notSendable = 0
    for (const base of BASES) {
      for (let mods = 0; mods < 8; mods++) {
        const id = canonical(base, mods)
        let bytes: string
        try {
          bytes = encodeKeys([id], { kittyFlags })
        } catch {
          notSendable++
          continue
        }
        const got = parseKey(bytes, true)
        if (got === id) {
          expect(matchesKey(bytes, id, true)).toBe(true)
          exact++
          continue
        }
        // A key sent as the text it types (disambiguate alone) or with the
        // character it types (alternate keys) comes back as that character.
        expect(got, id).not.toBeNull()
        expect(encodeKeys([got!], { kittyFlags }), `${id} -> ${got}`).toBe(bytes)
        asText++
      }
    }
    // Only shift with a symbol (shift+!, shift+lt) is not sendable: it names no key.
    expect(notSendable, `flags ${kittyFlags}`).toBe(128)
    expect(exact + asText + notSendable).toBe(BASES.length * 8)
    if (!(kittyFlags & 8)) expect(asText).toBeGreaterThan(0)
    else if (!(kittyFlags & 4)) expect(asText).toBe(0)
  })

  it('encodes what the flags ask for', () => {
    const k = (keys: string[], kittyFlags: number) => encodeKeys(keys, { kittyFlags })
    expect(k(['a', 'A', 'enter', 'tab', 'backspace'], 1)).toBe('aA\r\t\x7f')
    expect(k(['esc', 'ctrl+c', 'alt+x', 'shift+enter', 'ctrl+i'], 1)).toBe(
      `${ESC}[27u${ESC}[99;5u${ESC}[120;3u${ESC}[13;2u${ESC}[105;5u`,
    )
    expect(k(['up', 'ctrl+up', 'f1', 'f3', 'f5', 'delete'], 1)).toBe(`${ESC}[A${ESC}[1;5A${ESC}[P${ESC}[13~${ESC}[15~${ESC}[3~`)
    expect(k(['a', 'A', 'enter'], 8)).toBe(`${ESC}[97u${ESC}[97;2u${ESC}[13u`)
    expect(k(['A'], 8 | 4 | 16)).toBe(`${ESC}[97:65;2;65u`)
    // Event types: every escape-code key is followed by its release.
    expect(k(['ctrl+c', 'a'], 1 | 2)).toBe(`${ESC}[99;5u${ESC}[99;5:3u` + 'a')
    // Keys xterm cannot send are sendable once the program asked for the protocol.
    expect(() => encodeKeys(['shift+enter'])).toThrow(/no encoding/)
    expect(k(['f13', 'ctrl+1'], 1)).toBe(`${ESC}[57376u${ESC}[49;5u`)
    // Without disambiguate or all keys, nothing changes.
    expect(k(['ctrl+c', 'esc'], 2 | 4 | 16)).toBe('\x03\x1b')
    for (const bad of [32, -1, 1.5, NaN, '1']) {
      expect(() => encodeKeys(['a'], { kittyFlags: bad as number }), String(bad)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_ARG', message: expect.stringContaining('modes.kittyFlags') }),
      )
    }
  })
})
