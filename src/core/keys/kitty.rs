//! Reading the kitty keyboard protocol's key reports.
//!
//! A program that enables the protocol (`CSI > flags u`) receives keys as
//!
//! - `CSI code[:shifted[:base-layout]] [; modifiers[:event] [; text]] u`
//!   for character keys and Esc, Enter, Tab, Backspace (`ESC [ 97 ; 5 u` is
//!   ctrl+a);
//! - `CSI n [; modifiers[:event]] ~` for Insert, Delete, Page Up/Down and
//!   F5–F12 (and F1–F4, Home, End in their VT220 numbers);
//! - `CSI [1 ; modifiers[:event]] X` with `X` one of `A B C D E F H P Q S`
//!   for the arrows, Begin, End, Home and F1, F2, F4.
//!
//! The modifiers field is `1 + bits` (shift 1, alt 2, ctrl 4, super 8,
//! hyper 16, meta 32, caps lock 64, num lock 128); the event type is 1
//! press, 2 repeat, 3 release. Keys without a character carry kitty's own
//! code from the Unicode private use area (Up is 57352, F13 is 57376).

use super::legacy::TILDE_KEYS;
use super::name::{Base, KEYPAD, KITTY_ONLY, MODS};

/// The lock modifiers (caps lock 64, num lock 128), masked out of every
/// modifier a parser returns.
const LOCKS: u32 = 64 | 128;

/// A key report in the kitty keyboard protocol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KittySequence {
    /// The key: its Unicode code point for character keys (always the
    /// unshifted key, `97` for `a` and `A`), 13 Enter, 9 Tab, 27 Esc, 127
    /// Backspace, or kitty's private-use code for the other keys.
    pub codepoint: u32,
    /// The shifted key, reported with the "alternate keys" flag (`65` for
    /// shift+a).
    pub shifted_key: Option<u32>,
    /// The key at the same place on a US (PC-101) layout, reported with the
    /// "alternate keys" flag when the layout differs (`99` for the Cyrillic
    /// key where `c` is).
    pub base_layout_key: Option<u32>,
    /// Modifier bits, lock bits (caps lock, num lock) masked out: shift 1,
    /// alt 2, ctrl 4, super 8, hyper 16, meta 32.
    pub modifier: u8,
    /// 1 press (the default), 2 repeat, 3 release.
    pub event_type: u8,
    /// The text the key produced, reported with the "associated text" flag.
    pub text: Option<String>,
}

/// Kitty's codes for the keys that have no character.
const INSERT: u32 = 57348;
const DELETE: u32 = 57349;
const LEFT: u32 = 57350;
const RIGHT: u32 = 57351;
const UP: u32 = 57352;
const DOWN: u32 = 57353;
const PAGE_UP: u32 = 57354;
const PAGE_DOWN: u32 = 57355;
const HOME: u32 = 57356;
const END: u32 = 57357;
/// F1 is `F0 + 1`, up to F35.
const F0: u32 = 57363;
/// Keypad 0; the other digits follow, then decimal, divide, multiply,
/// subtract, add, enter.
const KP_0: u32 = 57399;
/// The keypad keys after the digits, in kitty's order, by SS3 final byte.
const KP_AFTER_DIGITS: &[u8] = b"nojmkM";
const KP_BEGIN: u32 = 57427;

/// Kitty's code for a base key.
pub fn code_of(base: Base) -> u32 {
    match base {
        Base::Char(c) => c as u32,
        Base::Enter => 13,
        Base::Tab => 9,
        Base::Esc => 27,
        Base::Backspace => 127,
        Base::Insert => INSERT,
        Base::Delete => DELETE,
        Base::Left => LEFT,
        Base::Right => RIGHT,
        Base::Up => UP,
        Base::Down => DOWN,
        Base::PageUp => PAGE_UP,
        Base::PageDown => PAGE_DOWN,
        Base::Home => HOME,
        Base::End => END,
        Base::F(n) => F0 + u32::from(n),
        Base::Keypad(plain, ss3) => match plain {
            b'0'..=b'9' => KP_0 + u32::from(plain - b'0'),
            _ => {
                let i = KP_AFTER_DIGITS.iter().position(|&s| s == ss3).unwrap_or(0);
                KP_0 + 10 + i as u32
            }
        },
        Base::Other(code) => code,
    }
}

/// The base key for a kitty code, if it names one.
pub fn base_of(code: u32) -> Option<Base> {
    Some(match code {
        13 | 57345 => Base::Enter,
        9 | 57346 => Base::Tab,
        27 | 57344 => Base::Esc,
        127 | 57347 => Base::Backspace,
        INSERT => Base::Insert,
        DELETE => Base::Delete,
        LEFT => Base::Left,
        RIGHT => Base::Right,
        UP => Base::Up,
        DOWN => Base::Down,
        PAGE_UP => Base::PageUp,
        PAGE_DOWN => Base::PageDown,
        HOME => Base::Home,
        END => Base::End,
        c if (F0 + 1..=F0 + 35).contains(&c) => Base::F((c - F0) as u8),
        c if (KP_0..KP_0 + 10).contains(&c) => {
            let d = b'0' + (c - KP_0) as u8;
            Base::Keypad(d, b'p' + (c - KP_0) as u8)
        }
        c if (KP_0 + 10..KP_0 + 16).contains(&c) => {
            let ss3 = KP_AFTER_DIGITS[(c - KP_0 - 10) as usize];
            let &(_, _, plain) = KEYPAD.iter().find(|(s, _, _)| *s == ss3)?;
            Base::Keypad(plain, ss3)
        }
        c if KITTY_ONLY.iter().any(|(k, _)| *k == c) => Base::Other(c),
        c => {
            let ch = char::from_u32(c)?;
            if ch.is_control() {
                return None;
            }
            Base::Char(ch)
        }
    })
}

/// The final byte and parameter bytes of `data` if it is exactly one CSI
/// sequence whose parameters are digits, `;` and `:` only.
pub(super) fn split_csi(data: &[u8]) -> Option<(&[u8], u8)> {
    let body = data.strip_prefix(b"\x1b[")?;
    let (&final_byte, params) = body.split_last()?;
    if !(0x40..=0x7e).contains(&final_byte)
        || !params
            .iter()
            .all(|b| b.is_ascii_digit() || *b == b';' || *b == b':')
    {
        return None;
    }
    Some((params, final_byte))
}

/// A parameter field's `:`-separated numbers (`None` where empty). `None`
/// overall if a number does not fit.
pub(super) fn subfields(field: &[u8]) -> Option<Vec<Option<u32>>> {
    field
        .split(|b| *b == b':')
        .map(|s| {
            if s.is_empty() {
                Some(None)
            } else if s.len() > 10 {
                None
            } else {
                std::str::from_utf8(s).ok()?.parse::<u32>().ok().map(Some)
            }
        })
        .collect()
}

/// Reads the modifiers field `1 + bits[:event]`: (bits without the locks,
/// event type).
fn modifiers(field: Option<&[u8]>) -> Option<(u8, u8)> {
    let Some(field) = field else {
        return Some((0, 1));
    };
    let subs = subfields(field)?;
    if subs.len() > 2 {
        return None;
    }
    let value = subs[0].unwrap_or(1);
    let event = subs.get(1).copied().flatten().unwrap_or(1);
    if !(1..=256).contains(&value) || !(1..=3).contains(&event) {
        return None;
    }
    Some((((value - 1) & !LOCKS) as u8, event as u8))
}

/// Parses one kitty keyboard protocol key report (see the module docs);
/// `None` for anything else, including several reports in a row.
///
/// ```
/// use ptypilot::core::keys::parse_kitty_sequence;
/// let k = parse_kitty_sequence(b"\x1b[97:65;6:3u").unwrap(); // ctrl+shift+a released
/// assert_eq!((k.codepoint, k.shifted_key, k.modifier, k.event_type), (97, Some(65), 5, 3));
/// assert_eq!(parse_kitty_sequence(b"\x1b[1;5A").unwrap().codepoint, 57352); // ctrl+up
/// assert!(parse_kitty_sequence(b"\x1b[A\x1b[B").is_none());
/// ```
pub fn parse_kitty_sequence(data: &[u8]) -> Option<KittySequence> {
    let (params, final_byte) = split_csi(data)?;
    let fields: Vec<&[u8]> = if params.is_empty() {
        Vec::new()
    } else {
        params.split(|b| *b == b';').collect()
    };
    let mut seq = KittySequence {
        codepoint: 0,
        shifted_key: None,
        base_layout_key: None,
        modifier: 0,
        event_type: 1,
        text: None,
    };
    match final_byte {
        b'u' => {
            if fields.is_empty() || fields.len() > 3 {
                return None;
            }
            let keys = subfields(fields[0])?;
            if keys.len() > 3 {
                return None;
            }
            seq.codepoint = keys[0]?;
            seq.shifted_key = keys.get(1).copied().flatten();
            seq.base_layout_key = keys.get(2).copied().flatten();
            for code in [Some(seq.codepoint), seq.shifted_key, seq.base_layout_key]
                .into_iter()
                .flatten()
            {
                char::from_u32(code)?;
            }
            if let Some(text) = fields.get(2) {
                let mut s = String::new();
                for cp in subfields(text)?.into_iter().flatten() {
                    s.push(char::from_u32(cp)?);
                }
                seq.text = Some(s);
            }
        }
        b'~' => {
            if fields.is_empty() || fields.len() > 2 {
                return None;
            }
            let n = match subfields(fields[0])?.as_slice() {
                [Some(n)] => *n,
                _ => return None,
            };
            let &(_, base) = TILDE_KEYS.iter().find(|(k, _)| *k == n)?;
            seq.codepoint = code_of(base);
        }
        b'A' | b'B' | b'C' | b'D' | b'E' | b'F' | b'H' | b'P' | b'Q' | b'S' => {
            // `CSI X` alone, or `CSI 1 ; modifiers X`.
            match fields.as_slice() {
                [] => {}
                [one, _] if *one == b"1" => {}
                _ => return None,
            }
            seq.codepoint = match final_byte {
                b'A' => UP,
                b'B' => DOWN,
                b'C' => RIGHT,
                b'D' => LEFT,
                b'E' => KP_BEGIN,
                b'F' => END,
                b'H' => HOME,
                b'P' => F0 + 1,
                b'Q' => F0 + 2,
                _ => F0 + 4,
            };
        }
        _ => return None,
    }
    let (modifier, event_type) = modifiers(fields.get(1).copied())?;
    seq.modifier = modifier;
    seq.event_type = event_type;
    Some(seq)
}

/// Whether `data` is a kitty key report of `codepoint` with `modifier`
/// (bits: shift 1, alt 2, ctrl 4 — kitty's encoded value minus one).
///
/// Only shift, alt and ctrl are compared, so lock keys and super/hyper/meta
/// do not prevent a match. The key at the same place on a US layout (the
/// base-layout key) matches too, but only when the key itself is not ASCII:
/// ctrl with the Cyrillic key where `c` is matches `(99, 4)`, while on a
/// remapped Latin layout (Dvorak) the letter printed on the key decides.
pub fn matches_kitty_sequence(data: &[u8], codepoint: u32, modifier: u32) -> bool {
    let Some(seq) = parse_kitty_sequence(data) else {
        return false;
    };
    if u32::from(seq.modifier & MODS) != modifier & u32::from(MODS) {
        return false;
    }
    seq.codepoint == codepoint || (seq.codepoint > 0x7f && seq.base_layout_key == Some(codepoint))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seq(
        codepoint: u32,
        shifted_key: Option<u32>,
        base_layout_key: Option<u32>,
        modifier: u8,
        event_type: u8,
        text: Option<&str>,
    ) -> Option<KittySequence> {
        Some(KittySequence {
            codepoint,
            shifted_key,
            base_layout_key,
            modifier,
            event_type,
            text: text.map(str::to_string),
        })
    }

    #[test]
    fn csi_u_with_modifiers_events_alternates_and_text() {
        let p = |d: &[u8]| parse_kitty_sequence(d);
        assert_eq!(p(b"\x1b[97u"), seq(97, None, None, 0, 1, None));
        assert_eq!(p(b"\x1b[97;5u"), seq(97, None, None, 4, 1, None));
        assert_eq!(p(b"\x1b[97;1u"), seq(97, None, None, 0, 1, None));
        assert_eq!(p(b"\x1b[97;;97u"), seq(97, None, None, 0, 1, Some("a")));
        assert_eq!(p(b"\x1b[97:65;2u"), seq(97, Some(65), None, 1, 1, None));
        assert_eq!(
            p(b"\x1b[97:65;2;65u"),
            seq(97, Some(65), None, 1, 1, Some("A"))
        );
        assert_eq!(
            p(b"\x1b[1089::99;5u"),
            seq(1089, None, Some(99), 4, 1, None)
        );
        assert_eq!(
            p(b"\x1b[1089:1057:99;6u"),
            seq(1089, Some(1057), Some(99), 5, 1, None)
        );
        assert_eq!(p(b"\x1b[97;5:1u"), seq(97, None, None, 4, 1, None));
        assert_eq!(p(b"\x1b[97;5:2u"), seq(97, None, None, 4, 2, None));
        assert_eq!(p(b"\x1b[97;1:3u"), seq(97, None, None, 0, 3, None));
        assert_eq!(p(b"\x1b[13;2u"), seq(13, None, None, 1, 1, None));
        assert_eq!(p(b"\x1b[27u"), seq(27, None, None, 0, 1, None));
        assert_eq!(p(b"\x1b[57441;2:3u"), seq(57441, None, None, 1, 3, None)); // left shift up
        // Lock bits are masked: caps lock (64) and num lock (128).
        assert_eq!(p(b"\x1b[97;69u"), seq(97, None, None, 4, 1, None));
        assert_eq!(p(b"\x1b[97;197u"), seq(97, None, None, 4, 1, None));
        // super, hyper, meta are kept.
        assert_eq!(p(b"\x1b[97;13u"), seq(97, None, None, 12, 1, None));
        // Text of several code points.
        assert_eq!(
            p(b"\x1b[97;;104:105u"),
            seq(97, None, None, 0, 1, Some("hi"))
        );
    }

    #[test]
    fn csi_tilde_and_letter_forms() {
        let p = |d: &[u8]| parse_kitty_sequence(d).map(|s| (s.codepoint, s.modifier, s.event_type));
        assert_eq!(p(b"\x1b[2~"), Some((INSERT, 0, 1)));
        assert_eq!(p(b"\x1b[3;5~"), Some((DELETE, 4, 1)));
        assert_eq!(p(b"\x1b[5;2:3~"), Some((PAGE_UP, 1, 3)));
        assert_eq!(p(b"\x1b[13~"), Some((F0 + 3, 0, 1)));
        assert_eq!(p(b"\x1b[24;8~"), Some((F0 + 12, 7, 1)));
        assert_eq!(p(b"\x1b[A"), Some((UP, 0, 1)));
        assert_eq!(p(b"\x1b[1;5A"), Some((UP, 4, 1)));
        assert_eq!(p(b"\x1b[1;1:3B"), Some((DOWN, 0, 3)));
        assert_eq!(p(b"\x1b[1;3D"), Some((LEFT, 2, 1)));
        assert_eq!(p(b"\x1b[1;2H"), Some((HOME, 1, 1)));
        assert_eq!(p(b"\x1b[F"), Some((END, 0, 1)));
        assert_eq!(p(b"\x1b[P"), Some((F0 + 1, 0, 1)));
        assert_eq!(p(b"\x1b[1;2S"), Some((F0 + 4, 1, 1)));
        assert_eq!(p(b"\x1b[E"), Some((KP_BEGIN, 0, 1)));
    }

    #[test]
    fn malformed_is_none() {
        for data in [
            &b""[..],
            b"a",
            b"\x1b",
            b"\x1b[",
            b"\x1b[u",
            b"\x1b[;5u",
            b"\x1b[97;0u",
            b"\x1b[97;258u",
            b"\x1b[97;5:4u",
            b"\x1b[97;5:0u",
            b"\x1b[97;5;97;1u",
            b"\x1b[97:1:2:3u",
            b"\x1b[55296u",        // a surrogate is no code point
            b"\x1b[1114112u",      // beyond Unicode
            b"\x1b[99999999999u",  // does not fit
            b"\x1b[97;;55296u",    // bad text
            b"\x1b[97;5u\x1b[98u", // two reports
            b"\x1b[97;5u ",
            b"\x1b[?97u",
            b"\x1b[>1u",
            b"\x1b[9~",
            b"\x1b[200~",
            b"\x1b[27;5;99~", // modifyOtherKeys, not kitty
            b"\x1b[3;5;1~",
            b"\x1b[2;5A",
            b"\x1b[;5A",
            b"\x1b[1;5R", // a cursor position report
            b"\x1b[1;5Z",
            b"\x1bO5A",
        ] {
            assert_eq!(parse_kitty_sequence(data), None, "{data:?}");
        }
    }

    #[test]
    fn matching_compares_shift_alt_ctrl_and_constrains_the_base_layout() {
        assert!(matches_kitty_sequence(b"\x1b[97;5u", 97, 4));
        assert!(!matches_kitty_sequence(b"\x1b[97;5u", 97, 0));
        assert!(!matches_kitty_sequence(b"\x1b[97;5u", 98, 4));
        assert!(matches_kitty_sequence(b"\x1b[97;69u", 97, 4)); // caps lock on
        assert!(matches_kitty_sequence(b"\x1b[97;13u", 97, 4)); // super ignored
        assert!(matches_kitty_sequence(b"\x1b[97;5u", 97, 4 | 64)); // locks in the expectation too
        assert!(matches_kitty_sequence(b"\x1b[97;5:3u", 97, 4)); // any event type
        // Cyrillic с where c is: matches c by its base-layout key.
        assert!(matches_kitty_sequence(b"\x1b[1089::99;5u", 99, 4));
        assert!(matches_kitty_sequence(b"\x1b[1089::99;5u", 1089, 4));
        // Dvorak: the key where c is types j; base layout c must not match.
        assert!(!matches_kitty_sequence(b"\x1b[106::99;5u", 99, 4));
        assert!(matches_kitty_sequence(b"\x1b[106::99;5u", 106, 4));
        assert!(matches_kitty_sequence(b"\x1b[1;5A", UP, 4));
        assert!(!matches_kitty_sequence(b"\x03", 99, 4));
        assert!(!matches_kitty_sequence(b"garbage", 99, 4));
    }

    #[test]
    fn codes_round_trip() {
        for code in (0..0xd800).chain(0xe000..0x1_0000).chain(0x1f600..0x1f700) {
            if let Some(base) = base_of(code) {
                let back = code_of(base);
                // The internal codes of Esc, Enter, Tab, Backspace map to
                // their ASCII codes.
                if !(57344..=57347).contains(&code) {
                    assert_eq!(back, code, "{code} {base:?}");
                }
            }
        }
    }
}
