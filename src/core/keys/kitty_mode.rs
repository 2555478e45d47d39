//! The kitty keyboard protocol from the terminal's side: the flags a
//! program asks for, and keys encoded the way those flags say.
//!
//! A program turns the protocol on by pushing flags (`CSI > flags u`),
//! changes the current entry (`CSI = flags ; mode u`, mode 1 set, 2 add the
//! bits, 3 remove them), pops entries (`CSI < n u`) and asks for the current
//! flags (`CSI ? u`, answered `CSI ? flags u`). The main and the alternate
//! screen keep a stack each, as the protocol asks.
//!
//! The flags: 1 disambiguate escape codes, 2 report event types, 4 report
//! alternate keys, 8 report all keys as escape codes, 16 report associated
//! text. [`encode_kitty`] follows them for the keys `sendKeys` can name:
//!
//! - With 1 (and without 8), a key that types text with at most shift
//!   (`a`, `A`, `!`, `space`) is sent as that text, and Enter, Tab and
//!   Backspace without modifiers as their legacy bytes; every other key is
//!   an escape code: Esc is `CSI 27 u`, ctrl+c `CSI 99 ; 5 u`, alt+x
//!   `CSI 120 ; 3 u`, shift+enter `CSI 13 ; 2 u`.
//! - With 8, every key is an escape code (`a` is `CSI 97 u`).
//! - The arrows, Home, End and F1, F2, F4 keep their letter forms (`CSI A`,
//!   `CSI 1 ; 5 A`), Insert, Delete, Page Up/Down, F3 and F5–F12 their
//!   `CSI n ~` forms; the cursor-key mode (DECCKM) does not apply.
//! - A capital letter is shift and the letter (`A` is `CSI 97 ; 2 u`).
//! - With 4, a shifted key carries its shifted form (`CSI 97 : 65 ; 2 u`),
//!   and a symbol is the key of a US layout that types it, shifted (`!` is
//!   `CSI 49 : 33 ; 2 u`); without 4 a symbol is reported as itself
//!   (`alt+!` is `CSI 33 ; 3 u`).
//! - With 8 and 16, a key that types text carries it (`CSI 97 ; ; 97 u`).
//! - With 2, every key sent as an escape code is followed by its release
//!   (`CSI 97 ; 5 : 3 u`), as a key typed on a keyboard is.
//!
//! Flags 2, 4 or 16 without 1 or 8 leave keys as they are in a legacy
//! terminal, and shift with a symbol (`shift+!`) is refused as it is there. The modifier keys themselves are not sent.

use super::kitty::code_of;
use super::name::{ALT, Base, CTRL, Key, MODS, SHIFT};

/// Disambiguate escape codes.
const DISAMBIGUATE: u8 = 1;
/// Report event types (press, repeat, release).
const EVENTS: u8 = 2;
/// Report alternate keys (the shifted key).
const ALTERNATES: u8 = 4;
/// Report all keys as escape codes.
const ALL_KEYS: u8 = 8;
/// Report associated text.
const TEXT: u8 = 16;
/// The flags the protocol defines.
const DEFINED: u16 = 31;

/// Entries kept per stack; a push onto a full stack drops the oldest (as
/// kitty does, with the same limit).
const STACK_LIMIT: usize = 8;

/// The flags a program set, per screen (main, alternate).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KittyFlags {
    stacks: [Vec<u8>; 2],
}

impl KittyFlags {
    /// The flags in force on the main (`alt` false) or alternate screen; 0
    /// when the program never enabled the protocol (keys as in xterm).
    pub fn current(&self, alt: bool) -> u8 {
        self.stacks[usize::from(alt)].last().copied().unwrap_or(0)
    }

    /// Applies `CSI <marker> params u` (marker `>`, `<`, `=` or `?`) on the
    /// screen `alt` says; returns the answer a query asks for.
    pub fn apply(&mut self, alt: bool, marker: u8, params: &[u16]) -> Option<Vec<u8>> {
        let stack = &mut self.stacks[usize::from(alt)];
        let first = params.first().copied().unwrap_or(0);
        let flags = (first & DEFINED) as u8;
        match marker {
            b'>' => {
                if stack.len() == STACK_LIMIT {
                    stack.remove(0);
                }
                stack.push(flags);
            }
            b'<' => {
                let n = usize::from(first.max(1)).min(stack.len());
                stack.truncate(stack.len() - n);
            }
            b'=' => {
                let mode = params.get(1).copied().unwrap_or(1);
                if stack.is_empty() {
                    stack.push(0);
                }
                let top = stack.last_mut().expect("not empty");
                match mode {
                    1 => *top = flags,
                    2 => *top |= flags,
                    3 => *top &= !flags,
                    _ => {}
                }
            }
            b'?' => {
                let current = stack.last().copied().unwrap_or(0);
                return Some(format!("\x1b[?{current}u").into_bytes());
            }
            _ => {}
        }
        None
    }

    /// A full reset (RIS) forgets both stacks.
    pub fn reset(&mut self) {
        *self = KittyFlags::default();
    }
}

/// What a key turns into under the protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// `CSI code[:shifted] [; mods[:event]] [; text] u`.
    U,
    /// `CSI [1 ; mods[:event]] X`.
    Letter(u8),
    /// `CSI n [; mods[:event]] ~`.
    Tilde(u16),
}

/// The shifted symbol of a key on a US layout, and the other way round.
const US_SHIFTED: &[(char, char)] = &[
    ('`', '~'),
    ('1', '!'),
    ('2', '@'),
    ('3', '#'),
    ('4', '$'),
    ('5', '%'),
    ('6', '^'),
    ('7', '&'),
    ('8', '*'),
    ('9', '('),
    ('0', ')'),
    ('-', '_'),
    ('=', '+'),
    ('[', '{'),
    (']', '}'),
    ('\\', '|'),
    (';', ':'),
    ('\'', '"'),
    (',', '<'),
    ('.', '>'),
    ('/', '?'),
];

/// The key as a keyboard types it: a capital letter is shift plus its key
/// (`A` is shift+a), ctrl+C is ctrl+c. A shifted symbol is shift plus its
/// key on a US layout (`!` is shift+1) only when the report carries the
/// shifted key (`alternates`); otherwise the symbol is reported as itself,
/// so that the program sees which character was meant.
fn on_keyboard(key: Key, alternates: bool) -> Key {
    let key = key.normalized();
    if let Base::Char(c) = key.base
        && alternates
        && let Some(&(plain, _)) = US_SHIFTED.iter().find(|(_, s)| *s == c)
    {
        return Key {
            base: Base::Char(plain),
            mods: key.mods | SHIFT,
        };
    }
    key
}

/// The character shift makes of `c`, if it differs.
fn shifted(c: char) -> Option<char> {
    if let Some(&(_, s)) = US_SHIFTED.iter().find(|(p, _)| *p == c) {
        return Some(s);
    }
    let mut upper = c.to_uppercase();
    match (upper.next(), upper.next()) {
        (Some(u), None) if u != c => Some(u),
        _ => None,
    }
}

/// Encodes `key` for a program that set the kitty keyboard `flags`
/// (non-zero), or returns `false` when the flags leave the key as xterm
/// sends it (see the module docs).
pub(super) fn encode_kitty(key: Key, flags: u8, out: &mut Vec<u8>) -> bool {
    if flags & (DISAMBIGUATE | ALL_KEYS) == 0 {
        return false;
    }
    if let Base::Char(c) = key.normalized().base
        && key.mods & SHIFT != 0
        && !c.is_alphanumeric()
        && c != ' '
    {
        // shift+! names no key: the shifted symbol is sent as itself.
        return false;
    }
    let all = flags & ALL_KEYS != 0;
    let key = on_keyboard(key, flags & ALTERNATES != 0);
    let mods = key.mods & MODS;
    // The text the key types, and its shifted form.
    let (shifted_char, text) = match key.base {
        Base::Char(c) => {
            let s = if mods & SHIFT != 0 { shifted(c) } else { None };
            let typed = (mods & (CTRL | ALT) == 0).then(|| s.unwrap_or(c));
            (s, typed.filter(|t| !t.is_control()))
        }
        Base::Keypad(plain, _) if mods == 0 && plain.is_ascii_graphic() => {
            (None, Some(char::from(plain)))
        }
        _ => (None, None),
    };
    if !all {
        if let Some(t) = text {
            let mut buf = [0u8; 4];
            out.extend_from_slice(t.encode_utf8(&mut buf).as_bytes());
            return true;
        }
        if mods == 0 {
            let legacy = match key.base {
                Base::Enter => Some(b'\r'),
                Base::Tab => Some(b'\t'),
                Base::Backspace => Some(0x7f),
                _ => None,
            };
            if let Some(b) = legacy {
                out.push(b);
                return true;
            }
        }
    }
    let form = match key.base {
        Base::Up => Form::Letter(b'A'),
        Base::Down => Form::Letter(b'B'),
        Base::Right => Form::Letter(b'C'),
        Base::Left => Form::Letter(b'D'),
        Base::Home => Form::Letter(b'H'),
        Base::End => Form::Letter(b'F'),
        Base::F(1) => Form::Letter(b'P'),
        Base::F(2) => Form::Letter(b'Q'),
        Base::F(4) => Form::Letter(b'S'),
        Base::Insert => Form::Tilde(2),
        Base::Delete => Form::Tilde(3),
        Base::PageUp => Form::Tilde(5),
        Base::PageDown => Form::Tilde(6),
        Base::F(3) => Form::Tilde(13),
        Base::F(n @ 5..=12) => Form::Tilde([15, 17, 18, 19, 20, 21, 23, 24][usize::from(n - 5)]),
        _ => Form::U,
    };
    let code = code_of(key.base);
    let alternate = shifted_char
        .filter(|_| flags & ALTERNATES != 0)
        .map(u32::from)
        .filter(|&s| s != code);
    let report_text = text.filter(|_| all && flags & TEXT != 0);
    write_event(out, form, code, alternate, mods, 1, report_text);
    if flags & EVENTS != 0 {
        write_event(out, form, code, alternate, mods, 3, None);
    }
    true
}

/// One key event in `form`; `event` 1 is a press, 3 a release.
fn write_event(
    out: &mut Vec<u8>,
    form: Form,
    code: u32,
    alternate: Option<u32>,
    mods: u8,
    event: u8,
    text: Option<char>,
) {
    let mut m = String::new();
    if mods != 0 || event != 1 {
        m = (1 + u32::from(mods)).to_string();
    }
    if event != 1 {
        m.push_str(&format!(":{event}"));
    }
    let seq = match form {
        Form::U => {
            let mut s = format!("\x1b[{code}");
            if let Some(a) = alternate {
                s.push_str(&format!(":{a}"));
            }
            if !m.is_empty() || text.is_some() {
                s.push(';');
                s.push_str(&m);
            }
            if let Some(t) = text {
                s.push_str(&format!(";{}", u32::from(t)));
            }
            s.push('u');
            s
        }
        Form::Letter(x) if m.is_empty() => format!("\x1b[{}", char::from(x)),
        Form::Letter(x) => format!("\x1b[1;{m}{}", char::from(x)),
        Form::Tilde(n) if m.is_empty() => format!("\x1b[{n}~"),
        Form::Tilde(n) => format!("\x1b[{n};{m}~"),
    };
    out.extend_from_slice(seq.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::super::name::parse_name;
    use super::*;

    fn enc(name: &str, flags: u8) -> String {
        let mut out = Vec::new();
        assert!(encode_kitty(parse_name(name).unwrap(), flags, &mut out));
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn disambiguate_keeps_text_and_plain_enter_tab_backspace() {
        for (name, want) in [
            ("a", "a"),
            ("A", "A"),
            ("shift+a", "A"),
            ("!", "!"),
            ("shift+1", "!"),
            ("space", " "),
            ("é", "é"),
            ("enter", "\r"),
            ("tab", "\t"),
            ("backspace", "\x7f"),
            ("kp5", "5"),
            ("esc", "\x1b[27u"),
            ("ctrl+c", "\x1b[99;5u"),
            ("ctrl+C", "\x1b[99;5u"),
            ("ctrl+shift+c", "\x1b[99;6u"),
            ("alt+x", "\x1b[120;3u"),
            ("alt+X", "\x1b[120;4u"),
            ("ctrl+i", "\x1b[105;5u"),
            ("shift+enter", "\x1b[13;2u"),
            ("ctrl+enter", "\x1b[13;5u"),
            ("shift+tab", "\x1b[9;2u"),
            ("alt+backspace", "\x1b[127;3u"),
            ("ctrl+space", "\x1b[32;5u"),
            ("kpEnter", "\x1b[57414u"),
            ("up", "\x1b[A"),
            ("ctrl+up", "\x1b[1;5A"),
            ("home", "\x1b[H"),
            ("end", "\x1b[F"),
            ("f1", "\x1b[P"),
            ("f2", "\x1b[Q"),
            ("f3", "\x1b[13~"),
            ("f4", "\x1b[S"),
            ("shift+f4", "\x1b[1;2S"),
            ("f5", "\x1b[15~"),
            ("f12", "\x1b[24~"),
            ("ctrl+f12", "\x1b[24;5~"),
            ("pageDown", "\x1b[6~"),
            ("alt+delete", "\x1b[3;3~"),
        ] {
            assert_eq!(enc(name, 1), want, "{name}");
        }
    }

    #[test]
    fn all_keys_alternates_text_and_releases() {
        assert_eq!(enc("a", 8), "\x1b[97u");
        assert_eq!(enc("A", 8), "\x1b[97;2u");
        assert_eq!(enc("A", 8 | 4), "\x1b[97:65;2u");
        assert_eq!(enc("A", 8 | 4 | 16), "\x1b[97:65;2;65u");
        assert_eq!(enc("a", 8 | 16), "\x1b[97;;97u");
        assert_eq!(enc("!", 1 | 8 | 4 | 16), "\x1b[49:33;2;33u");
        assert_eq!(enc("!", 8), "\x1b[33u");
        assert_eq!(enc("alt+!", 1), "\x1b[33;3u");
        assert_eq!(enc("alt+!", 1 | 4), "\x1b[49:33;4u");
        assert_eq!(enc("shift+1", 1 | 8), "\x1b[49;2u");
        assert_eq!(enc("ctrl+a", 8 | 16), "\x1b[97;5u");
        assert_eq!(enc("enter", 8), "\x1b[13u");
        assert_eq!(enc("enter", 8 | 16), "\x1b[13u");
        assert_eq!(enc("ctrl+c", 1 | 2), "\x1b[99;5u\x1b[99;5:3u");
        assert_eq!(enc("esc", 1 | 2), "\x1b[27u\x1b[27;1:3u");
        assert_eq!(enc("up", 1 | 2), "\x1b[A\x1b[1;1:3A");
        assert_eq!(enc("f5", 1 | 2), "\x1b[15~\x1b[15;1:3~");
        // Text typed in disambiguate mode has no release (as kitty).
        assert_eq!(enc("a", 1 | 2), "a");
        assert_eq!(enc("a", 8 | 2), "\x1b[97u\x1b[97;1:3u");
        assert_eq!(enc("A", 8 | 2 | 4 | 16), "\x1b[97:65;2;65u\x1b[97:65;2:3u");
        // Alternate keys only when shift changes the key.
        assert_eq!(enc("ctrl+a", 1 | 4), "\x1b[97;5u");
        assert_eq!(enc("ctrl+shift+a", 1 | 4), "\x1b[97:65;6u");
    }

    #[test]
    fn without_disambiguate_or_all_keys_nothing_changes() {
        for flags in [0, 2, 4, 16, 2 | 4 | 16] {
            let mut out = Vec::new();
            assert!(!encode_kitty(
                parse_name("ctrl+c").unwrap(),
                flags,
                &mut out
            ));
            assert!(out.is_empty());
        }
    }

    #[test]
    fn the_flag_stacks() {
        let mut k = KittyFlags::default();
        assert_eq!(k.apply(false, b'?', &[]), Some(b"\x1b[?0u".to_vec()));
        k.apply(false, b'>', &[1]);
        assert_eq!(k.current(false), 1);
        assert_eq!(k.current(true), 0);
        k.apply(false, b'>', &[0b1011]);
        assert_eq!(k.apply(false, b'?', &[]), Some(b"\x1b[?11u".to_vec()));
        k.apply(false, b'=', &[4, 2]);
        assert_eq!(k.current(false), 15);
        k.apply(false, b'=', &[3, 3]);
        assert_eq!(k.current(false), 12);
        k.apply(false, b'=', &[5]);
        assert_eq!(k.current(false), 5);
        k.apply(false, b'<', &[]);
        assert_eq!(k.current(false), 1);
        k.apply(false, b'<', &[10]);
        assert_eq!(k.current(false), 0);
        // Undefined bits are dropped; a set with an empty stack makes an entry.
        k.apply(true, b'=', &[0xff]);
        assert_eq!(k.current(true), 31);
        assert_eq!(k.current(false), 0);
        // A full stack drops its oldest entry.
        for f in 1..=(STACK_LIMIT as u16 + 2) {
            k.apply(false, b'>', &[f]);
        }
        for _ in 0..STACK_LIMIT - 1 {
            k.apply(false, b'<', &[1]);
        }
        assert_eq!(k.current(false), 3);
        k.reset();
        assert_eq!((k.current(false), k.current(true)), (0, 0));
    }
}
