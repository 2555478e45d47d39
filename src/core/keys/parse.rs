//! Bytes a terminal sent to the key they stand for: [`parse_key`] and
//! [`matches_key`].
//!
//! One call reads one key: a single byte or character, a legacy escape
//! sequence ([`legacy`](super::legacy)), xterm's modifyOtherKeys report
//! (`ESC [ 27 ; m ; code ~`), a kitty protocol report
//! ([`kitty`](super::kitty)), or any of these after `ESC` (alt). The answer
//! is the key's canonical id, the name `encodeKeys` takes, so
//! `parse_key(encode_key(k)) == k` for every canonical name `k`; where two
//! keys send the same bytes in legacy terminals (`ctrl+i` and `tab`,
//! `ctrl+[` and `esc`, `ctrl+shift+a` and `ctrl+a`, `kp5` and `5`), the
//! plainer one is returned.

use super::kitty::{KittySequence, base_of, parse_kitty_sequence, split_csi, subfields};
use super::legacy;
use super::name::{ALT, Base, CTRL, Key, MODS, SHIFT, parse_name};

/// A parsed key, and the key at the same place on a US layout when the
/// kitty protocol reported a different one (see [`matches_key`]).
struct Parsed {
    key: Key,
    layout: Option<Key>,
}

impl From<Key> for Parsed {
    fn from(key: Key) -> Self {
        Parsed { key, layout: None }
    }
}

/// The canonical id of the one key `data` stands for, or `None` if it is
/// not exactly one key.
///
/// `kitty_protocol_active` says the program enabled the kitty keyboard
/// protocol. Then the two forms terminals use for shift+enter under it
/// (`ESC CR` and a bare line feed) read as `shift+enter` rather than
/// `alt+enter` and `ctrl+j`; kitty reports themselves are read either way.
///
/// Kitty reports give the same id for press, repeat and release (see
/// [`parse_kitty_sequence`](super::parse_kitty_sequence) for the event
/// type). Only ctrl, alt and shift are part of an id.
///
/// ```
/// use ptypilot::core::keys::parse_key;
/// assert_eq!(parse_key(b"\x03", false).as_deref(), Some("ctrl+c"));
/// assert_eq!(parse_key(b"\x1b[1;5A", false).as_deref(), Some("ctrl+up"));
/// assert_eq!(parse_key(b"\x1bOA", false).as_deref(), Some("up"));
/// assert_eq!(parse_key(b"\x1b[105;5u", false).as_deref(), Some("ctrl+i"));
/// assert_eq!(parse_key(b"\t", false).as_deref(), Some("tab"));
/// assert_eq!(parse_key(b"\x1b\r", true).as_deref(), Some("shift+enter"));
/// assert_eq!(parse_key(b"ab", false), None);
/// ```
pub fn parse_key(data: &[u8], kitty_protocol_active: bool) -> Option<String> {
    parse(data, kitty_protocol_active).map(|p| p.key.id())
}

/// Whether `data` is the key `key_id` names (any spelling `encodeKeys`
/// takes: `ctrl+c`, `C-c`, `shift+Tab`, `pgdn`, `A` or `shift+a`).
///
/// Only ctrl, alt and shift are compared (lock keys and super/hyper/meta
/// are ignored). A kitty report of a key that is not ASCII also matches
/// its US-layout key (ctrl with the Cyrillic key where `c` is matches
/// `ctrl+c`). `false` for an unknown key name or data that is not one key.
pub fn matches_key(data: &[u8], key_id: &str, kitty_protocol_active: bool) -> bool {
    let Ok(want) = parse_name(key_id) else {
        return false;
    };
    let want = want.normalized();
    parse(data, kitty_protocol_active).is_some_and(|p| {
        p.key.normalized() == want || p.layout.is_some_and(|k| k.normalized() == want)
    })
}

fn parse(data: &[u8], kitty_protocol_active: bool) -> Option<Parsed> {
    if kitty_protocol_active && (data == b"\x1b\r" || data == b"\n") {
        return Some(
            Key {
                base: Base::Enter,
                mods: SHIFT,
            }
            .into(),
        );
    }
    if let Some(parsed) = parse_one(data) {
        return Some(parsed);
    }
    // ESC before a key is alt (xterm's metaSendsEscape), once.
    let rest = data.strip_prefix(b"\x1b")?;
    let mut parsed = parse_one(rest)?;
    if parsed.key.mods & ALT != 0 {
        return None;
    }
    parsed.key.mods |= ALT;
    if let Some(layout) = parsed.layout.as_mut() {
        layout.mods |= ALT;
    }
    Some(parsed)
}

/// One key without an alt prefix.
fn parse_one(data: &[u8]) -> Option<Parsed> {
    if let Some(key) = legacy::lookup(data) {
        return Some(key.into());
    }
    if let Some(key) = modify_other_keys(data) {
        return Some(key.into());
    }
    if let Some(seq) = parse_kitty_sequence(data) {
        return from_kitty(&seq);
    }
    plain(data).map(Parsed::from)
}

/// A single byte or character.
fn plain(data: &[u8]) -> Option<Key> {
    let text = std::str::from_utf8(data).ok()?;
    let mut chars = text.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else {
        return None;
    };
    let ctrl = |c: char| Key {
        base: Base::Char(c),
        mods: CTRL,
    };
    let key = |base: Base| Key { base, mods: 0 };
    Some(match c {
        '\0' => ctrl(' '),
        '\t' => key(Base::Tab),
        '\r' => key(Base::Enter),
        '\x1b' => key(Base::Esc),
        '\x7f' => key(Base::Backspace),
        '\x01'..='\x1a' => ctrl((b'a' + c as u8 - 1) as char),
        '\x1c' => ctrl('\\'),
        '\x1d' => ctrl(']'),
        '\x1e' => ctrl('^'),
        '\x1f' => ctrl('_'),
        c if c.is_control() => return None,
        c => key(Base::Char(c)),
    })
}

/// xterm's modifyOtherKeys report `CSI 27 ; 1+mods ; code ~`.
fn modify_other_keys(data: &[u8]) -> Option<Key> {
    let (params, final_byte) = split_csi(data)?;
    if final_byte != b'~' {
        return None;
    }
    let mut numbers = params
        .split(|b| *b == b';')
        .map(|f| match subfields(f)?.as_slice() {
            [Some(n)] => Some(*n),
            _ => None,
        });
    let (Some(Some(27)), Some(Some(value)), Some(Some(code)), None) = (
        numbers.next(),
        numbers.next(),
        numbers.next(),
        numbers.next(),
    ) else {
        return None;
    };
    if !(1..=256).contains(&value) {
        return None;
    }
    let base = base_of(code)?;
    // xterm reports the character shift produced (`!`, not `1`).
    Some(fold_shift(
        Key {
            base,
            mods: (value - 1) as u8 & MODS,
        },
        None,
    ))
}

/// A key from a kitty report (a CSI u report is also what xterm's
/// `formatOtherKeys: 1` sends).
fn from_kitty(seq: &KittySequence) -> Option<Parsed> {
    let key = fold_shift(
        Key {
            base: base_of(seq.codepoint)?,
            mods: seq.modifier & MODS,
        },
        seq.shifted_key,
    );
    // A key that is not ASCII (a Cyrillic or Greek letter) also stands for
    // its US-layout key; shortcuts with ctrl or alt are named by that one.
    let layout = seq
        .base_layout_key
        .filter(|&b| seq.codepoint > 0x7f && b <= 0x7f)
        .and_then(base_of)
        .map(|base| Key {
            base,
            mods: key.mods,
        });
    Some(match layout {
        Some(layout) if key.mods & (CTRL | ALT) != 0 => Parsed {
            key: layout,
            layout: Some(key),
        },
        _ => Parsed { key, layout },
    })
}

/// Shift on a character that is not a letter, digit or space is folded
/// into the character it produced, when that is known: the shifted key the
/// report carries, or the character itself when it is already a symbol
/// (`shift+1` with shifted key `!` is `!`; xterm's `!` with shift is `!`).
fn fold_shift(key: Key, shifted: Option<u32>) -> Key {
    let Base::Char(c) = key.base else {
        return key;
    };
    if key.mods & SHIFT == 0 || c.is_alphabetic() || c == ' ' {
        return key;
    }
    let produced = match shifted.and_then(char::from_u32) {
        Some(s) if !s.is_control() => s,
        _ if !c.is_alphanumeric() => c,
        _ => return key,
    };
    Key {
        base: Base::Char(produced),
        mods: key.mods & !SHIFT,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::keys::encode::{KeyModes, encode_key};
    use crate::core::keys::name::CANONICAL;

    fn p(data: &[u8]) -> Option<String> {
        parse_key(data, false)
    }

    #[test]
    fn single_bytes() {
        let cases: &[(&[u8], &str)] = &[
            (b"a", "a"),
            (b"A", "A"),
            (b"1", "1"),
            (b"!", "!"),
            (b"+", "+"),
            (b" ", "space"),
            (b"<", "lt"),
            (b">", "gt"),
            (b"\r", "enter"),
            (b"\t", "tab"),
            (b"\x1b", "esc"),
            (b"\x7f", "backspace"),
            (b"\x00", "ctrl+space"),
            (b"\x01", "ctrl+a"),
            (b"\x03", "ctrl+c"),
            (b"\x08", "ctrl+h"),
            (b"\n", "ctrl+j"),
            (b"\x1a", "ctrl+z"),
            (b"\x1c", "ctrl+\\"),
            (b"\x1d", "ctrl+]"),
            (b"\x1e", "ctrl+^"),
            (b"\x1f", "ctrl+_"),
        ];
        for (data, want) in cases {
            assert_eq!(p(data).as_deref(), Some(*want), "{data:?}");
        }
        assert_eq!(p("é".as_bytes()).as_deref(), Some("é"));
        assert_eq!(p("日".as_bytes()).as_deref(), Some("日"));
        assert_eq!(p("\u{85}".as_bytes()), None); // a C1 control
    }

    #[test]
    fn alt_is_an_escape_prefix() {
        let cases: &[(&[u8], &str)] = &[
            (b"\x1bx", "alt+x"),
            (b"\x1bX", "alt+shift+x"),
            (b"\x1b\x03", "ctrl+alt+c"),
            (b"\x1b\r", "alt+enter"),
            (b"\x1b\x7f", "alt+backspace"),
            (b"\x1b\x1b", "alt+esc"),
            (b"\x1b ", "alt+space"),
            (b"\x1b[", "alt+["),
            (b"\x1bO", "alt+shift+o"),
            (b"\x1b<", "alt+lt"),
            (b"\x1b\x1b[A", "alt+up"),
            (b"\x1b\x1b[Z", "alt+shift+tab"),
            (b"\x1b\x1b[97;5u", "ctrl+alt+a"),
        ];
        for (data, want) in cases {
            assert_eq!(p(data).as_deref(), Some(*want), "{data:?}");
        }
        // Alt twice is not one key.
        assert_eq!(p(b"\x1b\x1bx"), None);
        assert_eq!(p(b"\x1b\x1b[1;3A"), None);
    }

    #[test]
    fn legacy_sequences() {
        let cases: &[(&[u8], &str)] = &[
            (b"\x1b[A", "up"),
            (b"\x1bOB", "down"),
            (b"\x1b[1;5C", "ctrl+right"),
            (b"\x1b[1;2D", "shift+left"),
            (b"\x1b[Z", "shift+tab"),
            (b"\x1b[3~", "delete"),
            (b"\x1b[5;5~", "ctrl+pageUp"),
            (b"\x1bOP", "f1"),
            (b"\x1b[15;2~", "shift+f5"),
            (b"\x1b[a", "shift+up"),
            (b"\x1b[[B", "f2"),
            (b"\x1bOu", "kp5"),
        ];
        for (data, want) in cases {
            assert_eq!(p(data).as_deref(), Some(*want), "{data:?}");
        }
    }

    #[test]
    fn xterm_modify_other_keys() {
        let cases: &[(&[u8], &str)] = &[
            (b"\x1b[27;5;105~", "ctrl+i"),
            (b"\x1b[27;5;13~", "ctrl+enter"),
            (b"\x1b[27;2;13~", "shift+enter"),
            (b"\x1b[27;6;65~", "ctrl+shift+a"),
            (b"\x1b[27;6;97~", "ctrl+shift+a"),
            (b"\x1b[27;3;97~", "alt+a"),
            (b"\x1b[27;5;49~", "ctrl+1"),
            (b"\x1b[27;6;33~", "ctrl+!"),
            (b"\x1b[27;2;32~", "shift+space"),
            (b"\x1b[27;5;9~", "ctrl+tab"),
            (b"\x1b[27;6;9~", "ctrl+shift+tab"),
            (b"\x1b[27;69;99~", "ctrl+c"),
        ];
        for (data, want) in cases {
            assert_eq!(p(data).as_deref(), Some(*want), "{data:?}");
        }
        for data in [
            &b"\x1b[27;5~"[..],
            b"\x1b[27;5;99;1~",
            b"\x1b[27;0;99~",
            b"\x1b[27;5;55296~",
            b"\x1b[27;5;3~",
            b"\x1b[27;5:1;99~",
        ] {
            assert_eq!(p(data), None, "{data:?}");
        }
    }

    #[test]
    fn kitty_reports() {
        let cases: &[(&[u8], &str)] = &[
            (b"\x1b[97u", "a"),
            (b"\x1b[97;5u", "ctrl+a"),
            (b"\x1b[97;6u", "ctrl+shift+a"),
            (b"\x1b[97;2u", "A"),
            (b"\x1b[97:65;2u", "A"),
            (b"\x1b[97;;97u", "a"),
            (b"\x1b[97:65;2;65u", "A"),
            (b"\x1b[97;3u", "alt+a"),
            (b"\x1b[97;5:3u", "ctrl+a"), // a release has the same id
            (b"\x1b[97;5:2u", "ctrl+a"),
            (b"\x1b[97;69u", "ctrl+a"), // caps lock masked
            (b"\x1b[97;13u", "ctrl+a"), // super is not part of an id
            (b"\x1b[105;5u", "ctrl+i"),
            (b"\x1b[109;5u", "ctrl+m"),
            (b"\x1b[91;5u", "ctrl+["),
            (b"\x1b[13u", "enter"),
            (b"\x1b[13;2u", "shift+enter"),
            (b"\x1b[13;5u", "ctrl+enter"),
            (b"\x1b[9;2u", "shift+tab"),
            (b"\x1b[9;5u", "ctrl+tab"),
            (b"\x1b[27u", "esc"),
            (b"\x1b[27;3u", "alt+esc"),
            (b"\x1b[127;5u", "ctrl+backspace"),
            (b"\x1b[32;5u", "ctrl+space"),
            (b"\x1b[32;2u", "shift+space"),
            (b"\x1b[49;2u", "shift+1"),
            (b"\x1b[49:33;2u", "!"),
            (b"\x1b[49:33;6u", "ctrl+!"),
            (b"\x1b[60u", "lt"),
            (b"\x1b[1;5A", "ctrl+up"),
            (b"\x1b[1;5:3A", "ctrl+up"),
            (b"\x1b[A", "up"),
            (b"\x1b[P", "f1"),
            (b"\x1b[13~", "f3"),
            (b"\x1b[13;2~", "shift+f3"),
            (b"\x1b[57376u", "f13"),
            (b"\x1b[57399u", "kp0"),
            (b"\x1b[57414u", "kpEnter"),
            (b"\x1b[57413;5u", "ctrl+kpPlus"),
            (b"\x1b[57358u", "capsLock"),
            (b"\x1b[57441;2u", "shift+leftShift"),
            (b"\x1b[57428u", "mediaPlay"),
            (b"\x1b[1089u", "с"),
            (b"\x1b[1089::99u", "с"),
            (b"\x1b[1089::99;5u", "ctrl+c"), // Cyrillic layout shortcut
            (b"\x1b[106::99;5u", "ctrl+j"),  // Dvorak: the letter on the key
        ];
        for (data, want) in cases {
            assert_eq!(p(data).as_deref(), Some(*want), "{data:?}");
            assert!(matches_key(data, want, false), "{data:?} {want}");
        }
        assert_eq!(p(b"\x1b[2u"), None); // a control character is no key
    }

    #[test]
    fn kitty_protocol_active_reads_shift_enter_mappings() {
        assert_eq!(parse_key(b"\x1b\r", true).as_deref(), Some("shift+enter"));
        assert_eq!(parse_key(b"\n", true).as_deref(), Some("shift+enter"));
        assert_eq!(parse_key(b"\x1b\r", false).as_deref(), Some("alt+enter"));
        assert_eq!(parse_key(b"\n", false).as_deref(), Some("ctrl+j"));
        // Everything else reads the same.
        for data in [&b"\r"[..], b"\x1b[97;5u", b"\x1b[A", b"\x03", b"\x1bx"] {
            assert_eq!(parse_key(data, true), parse_key(data, false), "{data:?}");
        }
    }

    #[test]
    fn not_one_key_is_none() {
        for data in [
            &b""[..],
            b"ab",
            b"hello",
            b"\x1b[A\x1b[B",
            b"\x1b[200~",
            b"\x1b[201~",
            b"\x1b[?1u",
            b"\x1b[I", // focus in
            b"\x1b[M abc",
            b"\x1b[<0;1;1M", // SGR mouse
            b"\xff",
            b"\xc3",
            b"\x1b\xff",
        ] {
            assert_eq!(p(data), None, "{data:?}");
            assert!(!matches_key(data, "a", false), "{data:?}");
        }
    }

    #[test]
    fn matches_key_takes_any_spelling() {
        assert!(matches_key(b"\x03", "ctrl+c", false));
        assert!(matches_key(b"\x03", "C-c", false));
        assert!(matches_key(b"\x03", "CTRL+C", false));
        assert!(matches_key(b"\x1b[Z", "S-tab", false));
        assert!(matches_key(b"\x1b[6~", "pgdn", false));
        assert!(matches_key(b"A", "shift+a", false));
        assert!(matches_key(b"A", "A", false));
        assert!(!matches_key(b"a", "A", false));
        assert!(matches_key(b"\x1b[97;2u", "A", false));
        assert!(matches_key(b"\x1bX", "alt+X", false));
        assert!(matches_key(b" ", "space", false));
        assert!(matches_key(b" ", " ", false));
        assert!(matches_key(b"<", "lt", false));
        assert!(!matches_key(b"\x03", "ctrl+d", false));
        assert!(!matches_key(b"\x03", "nope", false));
        assert!(!matches_key(b"\x03", "", false));
        // Legacy cannot tell these apart; the plainer key is the answer.
        assert!(matches_key(b"\t", "tab", false));
        assert!(!matches_key(b"\t", "ctrl+i", false));
        // The kitty protocol can.
        assert!(matches_key(b"\x1b[105;5u", "ctrl+i", false));
        assert!(!matches_key(b"\x1b[105;5u", "tab", false));
        // Layouts: ctrl with the Cyrillic с matches both names.
        assert!(matches_key(b"\x1b[1089::99;5u", "ctrl+c", false));
        assert!(matches_key(b"\x1b[1089::99;5u", "ctrl+с", false));
        assert!(!matches_key(b"\x1b[106::99;5u", "ctrl+c", false));
        // Plain Cyrillic text is itself, and still matches its key.
        assert!(matches_key(b"\x1b[1089::99u", "c", false));
    }

    /// Every canonical key id: each base name and printable ASCII
    /// character with each combination of ctrl, alt and shift.
    pub(crate) fn canonical_ids() -> Vec<String> {
        let mut bases: Vec<String> = CANONICAL.iter().map(|s| s.to_string()).collect();
        for c in '!'..='~' {
            if c != '<' && c != '>' && !c.is_ascii_uppercase() {
                bases.push(c.to_string());
            }
        }
        let mut ids = Vec::new();
        for base in &bases {
            for mods in 0..8u8 {
                let key = parse_name(base).unwrap();
                let id = Key {
                    base: key.base,
                    mods,
                }
                .id();
                ids.push(id);
            }
        }
        ids
    }

    /// How many of ctrl, alt, shift an id names.
    fn modifier_count(id: &str) -> usize {
        parse_name(id).unwrap().normalized().mods.count_ones() as usize
    }

    #[test]
    fn round_trip_of_every_canonical_name_in_both_cursor_modes() {
        let mut exact = 0;
        let mut plainer = Vec::new();
        let mut not_sendable = 0;
        for application_cursor in [false, true] {
            let modes = KeyModes {
                application_cursor,
                application_keypad: false,
                kitty_flags: 0,
            };
            for id in canonical_ids() {
                let Ok(bytes) = encode_key(&id, modes) else {
                    not_sendable += 1;
                    continue;
                };
                let got = parse_key(&bytes, false)
                    .unwrap_or_else(|| panic!("{id} ({bytes:?}) does not parse"));
                assert!(matches_key(&bytes, &got, false));
                if got == id {
                    exact += 1;
                    continue;
                }
                // Two keys send the same bytes: the answer sends them too and
                // names fewer modifiers (or, for ctrl and a symbol, is the
                // one xterm documents: ctrl+space, ctrl+\ ] ^ _).
                assert_eq!(encode_key(&got, modes).unwrap(), bytes, "{id} -> {got}");
                let keypad = id
                    .trim_start_matches("ctrl+")
                    .trim_start_matches("alt+")
                    .starts_with("kp");
                assert!(
                    modifier_count(&got) < modifier_count(&id)
                        || (modifier_count(&got) == modifier_count(&id)
                            && (id.starts_with("ctrl+") || keypad)),
                    "{id} -> {got}"
                );
                assert!(!matches_key(&bytes, &id, false) || got == id);
                plainer.push(format!("{id}->{got}"));
            }
        }
        plainer.sort();
        plainer.dedup();
        // Counted, so that a change in the encoder or the parser shows here:
        // over both cursor modes, 868 ids come back exactly, 100 collide with
        // a plainer key, and 708 combinations have no xterm encoding
        // (`shift+enter`, `ctrl+1`: the encoder rejects them).
        assert_eq!(
            (exact, plainer.len(), not_sendable),
            (868, 100, 708),
            "{plainer:?}"
        );
        for pair in [
            "ctrl+i->tab",
            "ctrl+m->enter",
            "ctrl+[->esc",
            "ctrl+?->backspace",
            "ctrl+shift+a->ctrl+a",
            "ctrl+alt+[->alt+esc",
            "ctrl+@->ctrl+space",
            "ctrl+2->ctrl+space",
            "ctrl+/->ctrl+_",
            "shift+space->space",
            "kp5->5",
            "kpEnter->enter",
        ] {
            assert!(plainer.iter().any(|p| p == pair), "{pair} in {plainer:?}");
        }
    }

    #[test]
    fn round_trip_under_the_kitty_protocol() {
        // Every canonical name but shift with a symbol (`shift+!`, which
        // names no key) is sendable once the program enabled the protocol,
        // and parses back to itself with kittyProtocolActive.
        for flags in [1, 1 | 4, 8, 8 | 4 | 16, 31 & !2] {
            let modes = KeyModes {
                kitty_flags: flags,
                ..KeyModes::default()
            };
            let mut plainer = Vec::new();
            let mut unsendable = 0;
            for id in canonical_ids() {
                let Ok(bytes) = encode_key(&id, modes) else {
                    let key = parse_name(&id).unwrap().normalized();
                    let symbol =
                        matches!(key.base, Base::Char(c) if !c.is_alphanumeric() && c != ' ');
                    assert!(key.mods & SHIFT != 0 && symbol, "{id} is not sendable");
                    unsendable += 1;
                    continue;
                };
                let got = parse_key(&bytes, true)
                    .unwrap_or_else(|| panic!("{id} ({bytes:?}) does not parse, flags {flags}"));
                if got == id {
                    assert!(matches_key(&bytes, &id, true), "{id} {bytes:?}");
                } else {
                    assert_eq!(encode_key(&got, modes).unwrap(), bytes, "{id} -> {got}");
                    plainer.push(format!("{id}->{got}"));
                }
            }
            // Only a key whose report names the character typed comes back
            // as that character: as text without flag 8 (shift+1 is `!`,
            // kp5 is `5`), with the shifted key under flag 4 (shift+1 is `!`).
            for p in &plainer {
                let (id, got) = p.split_once("->").unwrap();
                let symbol = got.rsplit('+').next().unwrap().chars().count() == 1;
                let allowed = (flags & 8 == 0
                    && (id.starts_with("shift+") || id.starts_with("kp")))
                    || (flags & 4 != 0 && id.contains("shift+") && symbol);
                assert!(allowed, "flags {flags}: {p} in {plainer:?}");
            }
            assert!(plainer.len() < 100, "flags {flags}: {plainer:?}");
            // 32 symbols with shift, in 4 combinations each.
            assert_eq!(unsendable, 32 * 4, "flags {flags}");
        }
    }
}
