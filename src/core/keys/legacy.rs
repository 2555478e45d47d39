//! The legacy escape sequences keys send (xterm, VT220, rxvt, the Linux
//! console), looked up in one table built on first use.
//!
//! The table holds every multi-byte sequence a legacy terminal sends for a
//! key: the CSI and SS3 cursor and function keys, xterm's modified forms
//! (`ESC [ 1 ; m A`, `ESC [ n ; m ~`), rxvt's shifted and ctrl'd forms
//! (`ESC [ a`, `ESC O a`, `ESC [ 5 $`), the Linux console's `ESC [ [ A` and
//! the application-keypad keys. A lookup hashes the bytes once, so it costs
//! the same for every sequence. Single bytes and `ESC`-prefixed (alt) keys
//! are not in the table; [`parse`](super::parse) reads them directly.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::name::{Base, CTRL, KEYPAD, Key, SHIFT, parse_name};

/// Kitty code of the keypad Begin key (the middle of the keypad, `ESC [ E`).
const KP_BEGIN: u32 = 57427;

/// The keys whose legacy form is `CSI final` / `SS3 final` / `CSI 1 ; m final`.
const LETTER_KEYS: &[(u8, Base)] = &[
    (b'A', Base::Up),
    (b'B', Base::Down),
    (b'C', Base::Right),
    (b'D', Base::Left),
    (b'H', Base::Home),
    (b'F', Base::End),
    (b'E', Base::Other(KP_BEGIN)),
    (b'P', Base::F(1)),
    (b'Q', Base::F(2)),
    (b'R', Base::F(3)),
    (b'S', Base::F(4)),
];

/// The keys whose legacy form is `CSI n ~` / `CSI n ; m ~`.
pub const TILDE_KEYS: &[(u32, Base)] = &[
    (1, Base::Home),
    (2, Base::Insert),
    (3, Base::Delete),
    (4, Base::End),
    (5, Base::PageUp),
    (6, Base::PageDown),
    (7, Base::Home),
    (8, Base::End),
    (11, Base::F(1)),
    (12, Base::F(2)),
    (13, Base::F(3)),
    (14, Base::F(4)),
    (15, Base::F(5)),
    (17, Base::F(6)),
    (18, Base::F(7)),
    (19, Base::F(8)),
    (20, Base::F(9)),
    (21, Base::F(10)),
    (23, Base::F(11)),
    (24, Base::F(12)),
];

fn table() -> &'static HashMap<Vec<u8>, Key> {
    static TABLE: OnceLock<HashMap<Vec<u8>, Key>> = OnceLock::new();
    TABLE.get_or_init(build)
}

fn build() -> HashMap<Vec<u8>, Key> {
    let mut t = HashMap::new();
    let mut add = |seq: Vec<u8>, base: Base, mods: u8| {
        t.entry(seq).or_insert(Key { base, mods });
    };
    for &(final_byte, base) in LETTER_KEYS {
        // `CSI R` alone is no key (a cursor position report always has
        // parameters); F3 unmodified is `SS3 R`.
        if final_byte != b'R' {
            add(vec![0x1b, b'[', final_byte], base, 0);
        }
        add(vec![0x1b, b'O', final_byte], base, 0);
        for mods in 1..=7u8 {
            let mut seq = format!("\x1b[1;{}", mods + 1).into_bytes();
            seq.push(final_byte);
            add(seq, base, mods);
        }
    }
    for &(n, base) in TILDE_KEYS {
        add(format!("\x1b[{n}~").into_bytes(), base, 0);
        for mods in 1..=7u8 {
            add(format!("\x1b[{n};{}~", mods + 1).into_bytes(), base, mods);
        }
    }
    // rxvt: shifted arrows `CSI a`, ctrl'd arrows `SS3 a`; `$` shift, `^`
    // ctrl and `@` ctrl+shift after the editing keys' numbers.
    for (lower, base) in [
        (b'a', Base::Up),
        (b'b', Base::Down),
        (b'c', Base::Right),
        (b'd', Base::Left),
    ] {
        add(vec![0x1b, b'[', lower], base, SHIFT);
        add(vec![0x1b, b'O', lower], base, CTRL);
    }
    for (n, base) in [
        (2, Base::Insert),
        (3, Base::Delete),
        (5, Base::PageUp),
        (6, Base::PageDown),
        (7, Base::Home),
        (8, Base::End),
    ] {
        add(format!("\x1b[{n}$").into_bytes(), base, SHIFT);
        add(format!("\x1b[{n}^").into_bytes(), base, CTRL);
        add(format!("\x1b[{n}@").into_bytes(), base, CTRL | SHIFT);
    }
    // The Linux console's F1–F5.
    for (i, final_byte) in (b'A'..=b'E').enumerate() {
        add(vec![0x1b, b'[', b'[', final_byte], Base::F(i as u8 + 1), 0);
    }
    add(b"\x1b[Z".to_vec(), Base::Tab, SHIFT);
    for &(ss3, _, plain) in KEYPAD {
        add(vec![0x1b, b'O', ss3], Base::Keypad(plain, ss3), 0);
    }
    t
}

/// The key a legacy escape sequence stands for, if `data` is exactly one.
pub fn lookup(data: &[u8]) -> Option<Key> {
    if data.len() < 3 || data[0] != 0x1b {
        return None;
    }
    table().get(data).copied()
}

/// Whether `data` is exactly one of the legacy escape sequences for the key
/// named `key_name` (any spelling `encodeKeys` takes: `up`, `pgdn`,
/// `shift+f5`). `false` for an unknown name or any other data.
///
/// ```
/// use ptypilot::core::keys::matches_legacy_sequence;
/// assert!(matches_legacy_sequence(b"\x1bOA", "up"));
/// assert!(matches_legacy_sequence(b"\x1b[1;5A", "ctrl+up"));
/// assert!(matches_legacy_sequence(b"\x1b[11~", "f1"));
/// assert!(!matches_legacy_sequence(b"\x1b[A", "down"));
/// assert!(!matches_legacy_sequence(b"\x1b[97;5u", "ctrl+a")); // kitty, not legacy
/// ```
pub fn matches_legacy_sequence(data: &[u8], key_name: &str) -> bool {
    let Ok(key) = parse_name(key_name) else {
        return false;
    };
    lookup(data).is_some_and(|found| found.normalized() == key.normalized())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(data: &[u8]) -> Option<String> {
        lookup(data).map(Key::id)
    }

    #[test]
    fn table_per_terminal_family() {
        let cases: &[(&[u8], &str)] = &[
            // xterm CSI and SS3 (DECCKM) cursor keys
            (b"\x1b[A", "up"),
            (b"\x1bOA", "up"),
            (b"\x1b[D", "left"),
            (b"\x1bOH", "home"),
            (b"\x1b[F", "end"),
            // xterm modified
            (b"\x1b[1;2A", "shift+up"),
            (b"\x1b[1;3D", "alt+left"),
            (b"\x1b[1;5C", "ctrl+right"),
            (b"\x1b[1;8B", "ctrl+alt+shift+down"),
            (b"\x1b[1;6H", "ctrl+shift+home"),
            (b"\x1b[1;2P", "shift+f1"),
            (b"\x1b[1;5R", "ctrl+f3"),
            (b"\x1b[3;3~", "alt+delete"),
            (b"\x1b[24;5~", "ctrl+f12"),
            // VT220 tilde keys
            (b"\x1b[2~", "insert"),
            (b"\x1b[3~", "delete"),
            (b"\x1b[5~", "pageUp"),
            (b"\x1b[6~", "pageDown"),
            (b"\x1b[1~", "home"),
            (b"\x1b[4~", "end"),
            (b"\x1b[7~", "home"),
            (b"\x1b[8~", "end"),
            (b"\x1b[11~", "f1"),
            (b"\x1b[13~", "f3"),
            (b"\x1b[15~", "f5"),
            (b"\x1b[17~", "f6"),
            (b"\x1b[21~", "f10"),
            (b"\x1b[23~", "f11"),
            (b"\x1b[24~", "f12"),
            (b"\x1bOP", "f1"),
            (b"\x1bOS", "f4"),
            // rxvt
            (b"\x1b[a", "shift+up"),
            (b"\x1bOd", "ctrl+left"),
            (b"\x1b[5$", "shift+pageUp"),
            (b"\x1b[3^", "ctrl+delete"),
            (b"\x1b[7@", "ctrl+shift+home"),
            // Linux console
            (b"\x1b[[A", "f1"),
            (b"\x1b[[E", "f5"),
            // back-tab, keypad
            (b"\x1b[Z", "shift+tab"),
            (b"\x1bOM", "kpEnter"),
            (b"\x1bOp", "kp0"),
            (b"\x1bOy", "kp9"),
            (b"\x1bOk", "kpPlus"),
            (b"\x1bOE", "kpBegin"),
            (b"\x1b[E", "kpBegin"),
        ];
        for (seq, want) in cases {
            assert_eq!(id(seq).as_deref(), Some(*want), "{seq:?}");
            assert!(matches_legacy_sequence(seq, want), "{seq:?} {want}");
        }
    }

    #[test]
    fn not_in_the_table() {
        for seq in [
            &b""[..],
            b"a",
            b"\x1b",
            b"\x1bx",
            b"\x1b[",
            b"\x1b[R",
            b"\x1b[1;1A",
            b"\x1b[1;9A",
            b"\x1b[9~",
            b"\x1b[200~",
            b"\x1b[A\x1b[A",
            b"\x1b[97;5u",
            b"x\x1b[A",
        ] {
            assert_eq!(lookup(seq), None, "{seq:?}");
        }
    }

    #[test]
    fn matches_legacy_sequence_takes_any_spelling_and_is_exact() {
        assert!(matches_legacy_sequence(b"\x1b[6~", "pgdn"));
        assert!(matches_legacy_sequence(b"\x1b[6~", "PAGE_DOWN"));
        assert!(matches_legacy_sequence(b"\x1b[1;6D", "shift+ctrl+left"));
        assert!(!matches_legacy_sequence(b"\x1b[1;6D", "ctrl+left"));
        assert!(!matches_legacy_sequence(b"\x1b[A", "nope"));
        assert!(!matches_legacy_sequence(b"\x1b[A", ""));
        assert!(!matches_legacy_sequence(b"\x1b[A ", "up"));
        // Single bytes are not escape sequences.
        assert!(!matches_legacy_sequence(b"\r", "enter"));
        assert!(!matches_legacy_sequence(b"\x1bx", "alt+x"));
    }

    #[test]
    fn every_modifier_combination_of_every_letter_and_tilde_key() {
        for &(final_byte, base) in LETTER_KEYS {
            for mods in 1..=7u8 {
                let mut seq = format!("\x1b[1;{}", mods + 1).into_bytes();
                seq.push(final_byte);
                assert_eq!(lookup(&seq), Some(Key { base, mods }), "{seq:?}");
            }
        }
        for &(n, base) in TILDE_KEYS {
            for mods in 1..=7u8 {
                let seq = format!("\x1b[{n};{}~", mods + 1).into_bytes();
                assert_eq!(lookup(&seq), Some(Key { base, mods }), "{seq:?}");
            }
        }
    }
}
