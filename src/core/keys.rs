//! Key names to the bytes a terminal sends, following xterm.
//!
//! A key name is a base key with optional modifiers joined by `+` in any
//! order: `enter`, `up`, `f5`, `ctrl+c`, `alt+x`, `shift+tab`,
//! `ctrl+shift+left`. Emacs-style prefixes work too (`C-c`, `M-x`, `S-tab`).
//! Names are case-insensitive, except that a single character is sent as
//! itself (`Q` types a capital Q, and `alt+X` is `ESC X`).
//!
//! The cursor keys depend on the terminal mode the program chose: with
//! DECCKM (application cursor keys, [`KeyModes::application_cursor`]) the
//! arrows, Home and End use the SS3 form (`ESC O A`) instead of the CSI form
//! (`ESC [ A`). Full-screen programs such as `vim` and `less` turn it on, so
//! the caller passes the modes the screen model reports.
//!
//! ```
//! use ptypilot::core::keys::{encode_key, encode_keys, KeyModes};
//! let normal = KeyModes::default();
//! let app = KeyModes { application_cursor: true, ..KeyModes::default() };
//! assert_eq!(encode_key("up", normal).unwrap(), b"\x1b[A");
//! assert_eq!(encode_key("up", app).unwrap(), b"\x1bOA");
//! assert_eq!(encode_key("ctrl+up", app).unwrap(), b"\x1b[1;5A");
//! assert_eq!(encode_keys(&["ctrl+c", "alt+x", "f5"], normal).unwrap(), b"\x03\x1bx\x1b[15~");
//! ```
//!
//! [`encode_input`] is the tool-call form: literal text with keys in angle
//! brackets (`"y<enter>"`, `"<up><up><enter>"`, `"<ctrl+c>"`), and
//! [`paste_bytes`] wraps text for a (bracketed) paste.

use super::error::{Error, ErrorCode, Result};
use super::screen::Modes;

/// The terminal modes that change what a key sends.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct KeyModes {
    /// DECCKM: arrows, Home and End send `ESC O x` instead of `ESC [ x`.
    pub application_cursor: bool,
    /// DECKPAM: the numeric keypad keys (`kp0`…`kp9`, `kpEnter`, …) send
    /// `ESC O x` instead of their characters. The main keys are unaffected.
    pub application_keypad: bool,
}

impl From<Modes> for KeyModes {
    fn from(modes: Modes) -> Self {
        KeyModes {
            application_cursor: modes.application_cursor,
            application_keypad: modes.application_keypad,
        }
    }
}

/// Modifier bits, combined into xterm's modifier parameter `1 + bits`.
const SHIFT: u8 = 1;
const ALT: u8 = 2;
const CTRL: u8 = 4;

/// A base key, before modifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Base {
    Char(char),
    Enter,
    Tab,
    Esc,
    Backspace,
    Delete,
    Insert,
    Home,
    End,
    PageUp,
    PageDown,
    Up,
    Down,
    Left,
    Right,
    F(u8),
    /// Keypad key: its character in numeric mode and its SS3 final byte in
    /// application keypad mode.
    Keypad(u8, u8),
}

/// The canonical base names, in the order [`key_names`] lists them.
const CANONICAL: &[&str] = &[
    "enter",
    "tab",
    "esc",
    "backspace",
    "delete",
    "insert",
    "home",
    "end",
    "pageUp",
    "pageDown",
    "up",
    "down",
    "left",
    "right",
    "space",
    "f1",
    "f2",
    "f3",
    "f4",
    "f5",
    "f6",
    "f7",
    "f8",
    "f9",
    "f10",
    "f11",
    "f12",
    "kp0",
    "kp1",
    "kp2",
    "kp3",
    "kp4",
    "kp5",
    "kp6",
    "kp7",
    "kp8",
    "kp9",
    "kpEnter",
    "kpPlus",
    "kpMinus",
    "kpMultiply",
    "kpDivide",
    "kpDecimal",
    "lt",
    "gt",
];

/// The accepted base key names (canonical spelling), for error messages and
/// docs. Any single character is accepted as well, and every name takes
/// `ctrl+`, `alt+` and `shift+` modifiers where xterm has an encoding.
///
/// Aliases (matched case-insensitively, ignoring `_` and `-`): `return` for
/// `enter`; `escape`; `bs`; `del`; `ins`; `pgup`/`pgdn` and
/// `page_up`/`page_down`; `arrowUp` etc.; `lt`/`gt` are `<`/`>`.
pub fn key_names() -> Vec<String> {
    CANONICAL.iter().map(|s| (*s).to_string()).collect()
}

/// A one-line summary of the accepted names for error messages.
const ACCEPTED: &str = "enter, tab, esc, backspace, delete, insert, home, end, pageUp, pageDown, \
     up, down, left, right, space, f1-f12, kp0-kp9, kpEnter, lt, gt, or a single character; \
     modifiers ctrl+, alt+, shift+ (e.g. ctrl+c, alt+x, shift+tab, ctrl+shift+left)";

/// Looks up a base key name (already known not to be a single character).
fn lookup_base(name: &str) -> Option<Base> {
    let norm: String = name
        .chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .flat_map(char::to_lowercase)
        .collect();
    let base = match norm.as_str() {
        "enter" | "return" | "cr" => Base::Enter,
        "tab" => Base::Tab,
        "esc" | "escape" => Base::Esc,
        "backspace" | "bs" => Base::Backspace,
        "delete" | "del" => Base::Delete,
        "insert" | "ins" => Base::Insert,
        "home" => Base::Home,
        "end" => Base::End,
        "pageup" | "pgup" | "prior" => Base::PageUp,
        "pagedown" | "pgdn" | "pgdown" | "next" => Base::PageDown,
        "up" | "arrowup" => Base::Up,
        "down" | "arrowdown" => Base::Down,
        "left" | "arrowleft" => Base::Left,
        "right" | "arrowright" => Base::Right,
        "space" | "spacebar" => Base::Char(' '),
        "lt" => Base::Char('<'),
        "gt" => Base::Char('>'),
        "kpenter" => Base::Keypad(b'\r', b'M'),
        "kpplus" | "kpadd" => Base::Keypad(b'+', b'k'),
        "kpminus" | "kpsubtract" => Base::Keypad(b'-', b'm'),
        "kpmultiply" | "kpstar" => Base::Keypad(b'*', b'j'),
        "kpdivide" | "kpslash" => Base::Keypad(b'/', b'o'),
        "kpdecimal" | "kpperiod" | "kpdot" => Base::Keypad(b'.', b'n'),
        other => {
            if let Some(n) = other.strip_prefix("kp") {
                if let [d @ b'0'..=b'9'] = n.as_bytes() {
                    return Some(Base::Keypad(*d, b'p' + (d - b'0')));
                }
            }
            let n: u8 = other.strip_prefix('f')?.parse().ok()?;
            if !(1..=12).contains(&n) || other.starts_with("f0") {
                return None;
            }
            Base::F(n)
        }
    };
    Some(base)
}

/// Why a key name was not accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
enum KeyError {
    /// Not a key name at all (no known modifier, unknown base).
    Unknown,
    /// Looks like a key (a known modifier, or a known base) but cannot be
    /// sent: an unknown base after a modifier, or a combination without an
    /// encoding.
    Invalid(String),
}

/// Parses the modifier word before a `+`, case-insensitively.
fn modifier_word(word: &str) -> Option<u8> {
    match word.to_ascii_lowercase().as_str() {
        "ctrl" | "control" | "ctl" => Some(CTRL),
        "alt" | "meta" | "option" | "opt" => Some(ALT),
        "shift" => Some(SHIFT),
        _ => None,
    }
}

/// Splits `name` into modifier bits and the base key name.
fn split_modifiers(name: &str) -> std::result::Result<(u8, &str), KeyError> {
    let mut mods = 0u8;
    let mut rest = name;
    let mut saw_modifier = false;
    loop {
        // Emacs/vim style: `C-x`, `M-x`, `S-tab`. Upper case only, so text
        // such as `<a-z>` is not mistaken for a key in tool input.
        let b = rest.as_bytes();
        if b.len() > 2 && b[1] == b'-' {
            let bit = match b[0] {
                b'C' => Some(CTRL),
                b'M' => Some(ALT),
                b'S' => Some(SHIFT),
                _ => None,
            };
            if let Some(bit) = bit {
                mods |= bit;
                rest = &rest[2..];
                saw_modifier = true;
                continue;
            }
        }
        // `word+rest`, where rest is non-empty (so `ctrl++` is ctrl and `+`).
        match rest.find('+') {
            Some(i) if i > 0 && i + 1 < rest.len() => {
                let word = &rest[..i];
                match modifier_word(word) {
                    Some(bit) => {
                        mods |= bit;
                        rest = &rest[i + 1..];
                        saw_modifier = true;
                    }
                    // `ctrl+hyper+x` or `hyper+x`: clearly meant as a key.
                    None if saw_modifier || modifier_like(word) => {
                        return Err(KeyError::Invalid(format!("unknown modifier \"{word}\"")));
                    }
                    None => return Err(KeyError::Unknown),
                }
            }
            _ => return Ok((mods, rest)),
        }
    }
}

/// Words that are plausibly meant as modifiers (so the error says so).
fn modifier_like(word: &str) -> bool {
    matches!(
        word.to_ascii_lowercase().as_str(),
        "super" | "hyper" | "cmd" | "command" | "win" | "mod" | "fn"
    )
}

/// Encodes one key name to `out`.
fn encode_into(
    name: &str,
    modes: KeyModes,
    out: &mut Vec<u8>,
) -> std::result::Result<(), KeyError> {
    if name.is_empty() {
        return Err(KeyError::Unknown);
    }
    let (mods, base_name) = split_modifiers(name)?;
    let mut chars = base_name.chars();
    let base = match (chars.next(), chars.next()) {
        (Some(c), None) => Base::Char(c),
        _ => match lookup_base(base_name) {
            Some(base) => base,
            None if mods != 0 => {
                return Err(KeyError::Invalid(format!("unknown key \"{base_name}\"")));
            }
            None => return Err(KeyError::Unknown),
        },
    };
    encode_base(base, mods, modes, out).map_err(KeyError::Invalid)
}

/// xterm's modifier parameter: 1 + shift(1) + alt(2) + ctrl(4).
fn modifier_param(mods: u8) -> u8 {
    1 + mods
}

fn modifier_names(mods: u8) -> String {
    let mut parts = Vec::new();
    if mods & CTRL != 0 {
        parts.push("ctrl");
    }
    if mods & ALT != 0 {
        parts.push("alt");
    }
    if mods & SHIFT != 0 {
        parts.push("shift");
    }
    parts.join("+")
}

/// The control character for ctrl + `c`, as xterm (and the VT220) send it.
fn ctrl_char(c: char) -> Option<u8> {
    Some(match c {
        'a'..='z' => c as u8 - b'a' + 1,
        'A'..='Z' => c as u8 - b'A' + 1,
        ' ' | '@' | '2' => 0x00,
        '[' | '3' => 0x1b,
        '\\' | '4' => 0x1c,
        ']' | '5' => 0x1d,
        '^' | '6' | '~' => 0x1e,
        '_' | '7' | '/' => 0x1f,
        '?' | '8' => 0x7f,
        _ => return None,
    })
}

fn encode_base(
    base: Base,
    mods: u8,
    modes: KeyModes,
    out: &mut Vec<u8>,
) -> std::result::Result<(), String> {
    let unsupported = |what: &str| {
        Err(format!(
            "{} cannot be combined with {what} (xterm has no encoding for it)",
            modifier_names(mods)
        ))
    };
    match base {
        Base::Char(c) => {
            // Alt is the ESC prefix (xterm's metaSendsEscape), applied last.
            if mods & ALT != 0 {
                out.push(0x1b);
            }
            let mut c = c;
            if mods & SHIFT != 0 {
                if c.is_ascii_alphabetic() {
                    c = c.to_ascii_uppercase();
                } else if c != ' ' {
                    return Err(format!(
                        "shift can only be combined with letters, got \"{c}\"; send the shifted \
                         character itself"
                    ));
                }
            }
            if mods & CTRL != 0 {
                match ctrl_char(c) {
                    Some(b) => out.push(b),
                    None => return unsupported(&format!("\"{c}\"")),
                }
            } else {
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
        Base::Enter | Base::Tab | Base::Esc | Base::Backspace => {
            let byte = match base {
                Base::Enter => b'\r',
                Base::Tab => b'\t',
                Base::Esc => 0x1b,
                _ => 0x7f,
            };
            if base == Base::Tab && mods & SHIFT != 0 && mods & CTRL == 0 {
                // Back-tab (CBT); with alt, ESC-prefixed like other alt keys.
                if mods & ALT != 0 {
                    out.push(0x1b);
                }
                out.extend_from_slice(b"\x1b[Z");
                return Ok(());
            }
            if mods & !ALT != 0 {
                return unsupported(&format!("{base:?}").to_lowercase());
            }
            if mods & ALT != 0 {
                out.push(0x1b);
            }
            out.push(byte);
        }
        Base::Up | Base::Down | Base::Right | Base::Left | Base::Home | Base::End => {
            let final_byte = match base {
                Base::Up => b'A',
                Base::Down => b'B',
                Base::Right => b'C',
                Base::Left => b'D',
                Base::Home => b'H',
                _ => b'F',
            };
            if mods != 0 {
                // Modified cursor keys always use the CSI 1;m form.
                out.extend_from_slice(format!("\x1b[1;{}", modifier_param(mods)).as_bytes());
            } else if modes.application_cursor {
                out.extend_from_slice(b"\x1bO");
            } else {
                out.extend_from_slice(b"\x1b[");
            }
            out.push(final_byte);
        }
        Base::Insert | Base::Delete | Base::PageUp | Base::PageDown => {
            let code = match base {
                Base::Insert => 2,
                Base::Delete => 3,
                Base::PageUp => 5,
                _ => 6,
            };
            tilde(code, mods, out);
        }
        Base::F(n @ 1..=4) => {
            let final_byte = b'P' + (n - 1);
            if mods != 0 {
                out.extend_from_slice(format!("\x1b[1;{}", modifier_param(mods)).as_bytes());
            } else {
                out.extend_from_slice(b"\x1bO");
            }
            out.push(final_byte);
        }
        Base::F(n) => {
            let code = match n {
                5 => 15,
                6 => 17,
                7 => 18,
                8 => 19,
                9 => 20,
                10 => 21,
                11 => 23,
                _ => 24,
            };
            tilde(code, mods, out);
        }
        Base::Keypad(plain, ss3) => {
            if mods != 0 {
                return unsupported("keypad keys");
            }
            if modes.application_keypad {
                out.extend_from_slice(&[0x1b, b'O', ss3]);
            } else {
                out.push(plain);
            }
        }
    }
    Ok(())
}

/// `CSI code ~`, or `CSI code ; m ~` with modifiers.
fn tilde(code: u8, mods: u8, out: &mut Vec<u8>) {
    let seq = if mods == 0 {
        format!("\x1b[{code}~")
    } else {
        format!("\x1b[{code};{}~", modifier_param(mods))
    };
    out.extend_from_slice(seq.as_bytes());
}

fn key_error(name: &str, err: KeyError, code: ErrorCode, prefix: &str) -> Error {
    let message = match err {
        KeyError::Unknown => format!("{prefix}unknown key \"{name}\"; accepted: {ACCEPTED}"),
        KeyError::Invalid(why) => format!("{prefix}key \"{name}\": {why}"),
    };
    Error::new(code, message)
}

/// The bytes one key name sends, e.g. `"ctrl+c"` → `[0x03]`.
///
/// Fails with `ERR_INVALID_ARG` naming the key (and listing the accepted
/// names) for an unknown name or a combination xterm cannot send, such as
/// `shift+enter`.
pub fn encode_key(name: &str, modes: KeyModes) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    encode_into(name, modes, &mut out)
        .map_err(|e| key_error(name, e, ErrorCode::InvalidArg, ""))?;
    Ok(out)
}

/// The bytes a sequence of key names sends, concatenated.
///
/// Errors name the offending element, e.g. `keys[2]: unknown key "foo"; …`.
pub fn encode_keys<S: AsRef<str>>(names: &[S], modes: KeyModes) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let name = name.as_ref();
        encode_into(name, modes, &mut out)
            .map_err(|e| key_error(name, e, ErrorCode::InvalidArg, &format!("keys[{i}]: ")))?;
    }
    Ok(out)
}

/// Longest `<...>` token content [`encode_input`] considers a key.
const MAX_TOKEN: usize = 40;

/// Encodes tool input: literal text with named keys in angle brackets.
///
/// - `<name>` is a key if `name` is a key name ([`encode_key`]) other than a
///   bare single character: `"y<enter>"`, `"<up><up><enter>"`, `"<ctrl+c>"`,
///   `"<esc>:wq<enter>"`, `"<C-x>"`.
/// - Anything else in angle brackets stays literal text, so `a <b> c`,
///   `<div>`, `</p>`, `x <- y` and `cat <<EOF` pass through unchanged.
/// - `<lt>` is a literal `<`, for the rare text that must contain a key
///   name in brackets: `<lt>enter>` types `<enter>`.
///
/// A token that names a modifier but cannot be sent (`<ctrl+foo>`,
/// `<shift+enter>`) is an error (`ERR_INVALID_INPUT`) rather than literal
/// text, because it was clearly meant as a key.
pub fn encode_input(text: &str, modes: KeyModes) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('<') {
        out.extend_from_slice(&rest.as_bytes()[..open]);
        let after = &rest[open + 1..];
        if let Some(len) = key_token_len(after) {
            let token = &after[..len];
            let mut key = Vec::new();
            match encode_into(token, modes, &mut key) {
                Ok(()) => {
                    out.extend_from_slice(&key);
                    rest = &after[len + 1..];
                    continue;
                }
                Err(KeyError::Unknown) => {}
                Err(err) => {
                    return Err(key_error(
                        &format!("<{token}>"),
                        err,
                        ErrorCode::InvalidInput,
                        "input: ",
                    ));
                }
            }
        }
        out.push(b'<');
        rest = after;
    }
    out.extend_from_slice(rest.as_bytes());
    Ok(out)
}

/// If `s` starts with a plausible key token followed by `>`, its length.
///
/// A token is 2 to [`MAX_TOKEN`] bytes without whitespace or `<`; a bare
/// single character is never a key in input text (`<a>` stays literal).
fn key_token_len(s: &str) -> Option<usize> {
    // `+` and `>` can themselves be the base key (`<ctrl++>`, `<alt+>>`), so
    // the token ends at the first `>` not directly after a `+`.
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() && i <= MAX_TOKEN {
        match bytes[i] {
            b'>' if i > 0
                && bytes[i - 1] == b'+'
                && i + 1 < bytes.len()
                && bytes[i + 1] == b'>' => {}
            b'>' => return (i >= 2).then_some(i),
            b'<' => return None,
            b if b.is_ascii_whitespace() => return None,
            _ => {}
        }
        i += 1;
    }
    None
}

const PASTE_START: &[u8] = b"\x1b[200~";
const PASTE_END: &[u8] = b"\x1b[201~";

/// The bytes for pasting `text`.
///
/// With `bracketed` (the program enabled mode 2004), the text is wrapped in
/// `ESC[200~` … `ESC[201~`, and any paste markers inside it are removed
/// first so the pasted text cannot end the paste early and have the rest
/// run as typed keys. Otherwise the text is sent as is.
///
/// Either way line breaks (`\n`, `\r\n`) are sent as `\r`, as terminals
/// paste them (xterm, xterm.js, tmux): a line break is the Enter key, and a
/// bare `\n` is ctrl+J, which raw-mode programs may bind to something else.
pub fn paste_bytes(text: &str, bracketed: bool) -> Vec<u8> {
    let text = text.replace("\r\n", "\r").replace('\n', "\r");
    if !bracketed {
        return text.into_bytes();
    }
    let mut body = text.into_bytes();
    // Repeat until stable: removing one marker can join the halves of another
    // (`ESC[20` + `ESC[201~` + `1~`).
    loop {
        let before = body.len();
        body = strip_markers(&body);
        if body.len() == before {
            break;
        }
    }
    let mut out = Vec::with_capacity(body.len() + PASTE_START.len() + PASTE_END.len());
    out.extend_from_slice(PASTE_START);
    out.extend_from_slice(&body);
    out.extend_from_slice(PASTE_END);
    out
}

fn strip_markers(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        if rest.starts_with(PASTE_START) || rest.starts_with(PASTE_END) {
            i += PASTE_START.len();
        } else {
            out.push(text[i]);
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const N: KeyModes = KeyModes {
        application_cursor: false,
        application_keypad: false,
    };
    const APP: KeyModes = KeyModes {
        application_cursor: true,
        application_keypad: false,
    };
    const KP: KeyModes = KeyModes {
        application_cursor: false,
        application_keypad: true,
    };

    fn k(name: &str) -> Vec<u8> {
        encode_key(name, N).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    fn ka(name: &str) -> Vec<u8> {
        encode_key(name, APP).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    fn err(name: &str) -> Error {
        encode_key(name, N).expect_err(name)
    }

    #[test]
    fn basic_named_keys() {
        assert_eq!(k("enter"), b"\r");
        assert_eq!(k("return"), b"\r");
        assert_eq!(k("tab"), b"\t");
        assert_eq!(k("esc"), b"\x1b");
        assert_eq!(k("escape"), b"\x1b");
        assert_eq!(k("backspace"), b"\x7f");
        assert_eq!(k("delete"), b"\x1b[3~");
        assert_eq!(k("del"), b"\x1b[3~");
        assert_eq!(k("insert"), b"\x1b[2~");
        assert_eq!(k("pageUp"), b"\x1b[5~");
        assert_eq!(k("pageDown"), b"\x1b[6~");
        assert_eq!(k("space"), b" ");
        assert_eq!(k("lt"), b"<");
        assert_eq!(k("gt"), b">");
    }

    #[test]
    fn aliases_and_case() {
        for name in ["pagedown", "page_down", "PAGE-DOWN", "pgdn", "PgDn", "next"] {
            assert_eq!(k(name), b"\x1b[6~", "{name}");
        }
        for name in ["pageup", "page_up", "pgup", "PageUp"] {
            assert_eq!(k(name), b"\x1b[5~", "{name}");
        }
        assert_eq!(k("ENTER"), b"\r");
        assert_eq!(k("ArrowUp"), b"\x1b[A");
        assert_eq!(k("Esc"), b"\x1b");
    }

    #[test]
    fn arrows_home_end_normal_cursor_mode() {
        assert_eq!(k("up"), b"\x1b[A");
        assert_eq!(k("down"), b"\x1b[B");
        assert_eq!(k("right"), b"\x1b[C");
        assert_eq!(k("left"), b"\x1b[D");
        assert_eq!(k("home"), b"\x1b[H");
        assert_eq!(k("end"), b"\x1b[F");
    }

    #[test]
    fn arrows_home_end_application_cursor_mode() {
        assert_eq!(ka("up"), b"\x1bOA");
        assert_eq!(ka("down"), b"\x1bOB");
        assert_eq!(ka("right"), b"\x1bOC");
        assert_eq!(ka("left"), b"\x1bOD");
        assert_eq!(ka("home"), b"\x1bOH");
        assert_eq!(ka("end"), b"\x1bOF");
        // Keys outside the cursor group do not change.
        assert_eq!(ka("pageUp"), b"\x1b[5~");
        assert_eq!(ka("enter"), b"\r");
    }

    #[test]
    fn modified_cursor_keys_use_csi_in_both_modes() {
        for modes in [N, APP] {
            assert_eq!(encode_key("ctrl+up", modes).unwrap(), b"\x1b[1;5A");
            assert_eq!(encode_key("shift+left", modes).unwrap(), b"\x1b[1;2D");
            assert_eq!(encode_key("alt+right", modes).unwrap(), b"\x1b[1;3C");
            assert_eq!(encode_key("ctrl+shift+left", modes).unwrap(), b"\x1b[1;6D");
            assert_eq!(encode_key("shift+ctrl+left", modes).unwrap(), b"\x1b[1;6D");
            assert_eq!(
                encode_key("ctrl+alt+shift+down", modes).unwrap(),
                b"\x1b[1;8B"
            );
            assert_eq!(encode_key("ctrl+home", modes).unwrap(), b"\x1b[1;5H");
            assert_eq!(encode_key("shift+end", modes).unwrap(), b"\x1b[1;2F");
        }
    }

    #[test]
    fn function_keys() {
        let expected: [&[u8]; 12] = [
            b"\x1bOP",
            b"\x1bOQ",
            b"\x1bOR",
            b"\x1bOS",
            b"\x1b[15~",
            b"\x1b[17~",
            b"\x1b[18~",
            b"\x1b[19~",
            b"\x1b[20~",
            b"\x1b[21~",
            b"\x1b[23~",
            b"\x1b[24~",
        ];
        for (i, want) in expected.iter().enumerate() {
            let name = format!("f{}", i + 1);
            assert_eq!(k(&name), *want, "{name}");
            assert_eq!(ka(&name.to_uppercase()), *want, "{name} app mode");
        }
        assert_eq!(k("shift+f5"), b"\x1b[15;2~");
        assert_eq!(k("ctrl+f12"), b"\x1b[24;5~");
        assert_eq!(k("shift+f1"), b"\x1b[1;2P");
        assert_eq!(k("ctrl+alt+f4"), b"\x1b[1;7S");
        assert_eq!(k("alt+delete"), b"\x1b[3;3~");
        assert_eq!(k("ctrl+pageDown"), b"\x1b[6;5~");
        assert!(encode_key("f13", N).is_err());
        assert!(encode_key("f0", N).is_err());
        assert!(encode_key("f01", N).is_err());
    }

    #[test]
    fn ctrl_letters_and_symbols() {
        for (i, c) in ('a'..='z').enumerate() {
            assert_eq!(k(&format!("ctrl+{c}")), [i as u8 + 1], "ctrl+{c}");
        }
        assert_eq!(k("ctrl+C"), b"\x03");
        assert_eq!(k("CTRL+c"), b"\x03");
        assert_eq!(k("control+d"), b"\x04");
        assert_eq!(k("C-c"), b"\x03");
        assert_eq!(k("ctrl+space"), b"\x00");
        assert_eq!(k("ctrl+@"), b"\x00");
        assert_eq!(k("ctrl+["), b"\x1b");
        assert_eq!(k("ctrl+\\"), b"\x1c");
        assert_eq!(k("ctrl+]"), b"\x1d");
        assert_eq!(k("ctrl+^"), b"\x1e");
        assert_eq!(k("ctrl+_"), b"\x1f");
        assert_eq!(k("ctrl+?"), b"\x7f");
        assert_eq!(k("ctrl+shift+a"), b"\x01");
    }

    #[test]
    fn alt_prefixes_escape() {
        assert_eq!(k("alt+x"), b"\x1bx");
        assert_eq!(k("alt+X"), b"\x1bX");
        assert_eq!(k("alt+shift+x"), b"\x1bX");
        assert_eq!(k("meta+x"), b"\x1bx");
        assert_eq!(k("M-x"), b"\x1bx");
        assert_eq!(k("alt+enter"), b"\x1b\r");
        assert_eq!(k("alt+backspace"), b"\x1b\x7f");
        assert_eq!(k("alt+esc"), b"\x1b\x1b");
        assert_eq!(k("alt+tab"), b"\x1b\t");
        assert_eq!(k("ctrl+alt+c"), b"\x1b\x03");
        assert_eq!(k("alt+."), b"\x1b.");
        assert_eq!(k("alt+space"), b"\x1b ");
    }

    #[test]
    fn shift_tab_and_shift_letters() {
        assert_eq!(k("shift+tab"), b"\x1b[Z");
        assert_eq!(k("S-tab"), b"\x1b[Z");
        assert_eq!(k("alt+shift+tab"), b"\x1b\x1b[Z");
        assert_eq!(k("shift+a"), b"A");
    }

    #[test]
    fn single_characters_are_themselves() {
        assert_eq!(k("a"), b"a");
        assert_eq!(k("Q"), b"Q");
        assert_eq!(k("/"), b"/");
        assert_eq!(k("+"), b"+");
        assert_eq!(k("-"), b"-");
        assert_eq!(k(" "), b" ");
        assert_eq!(k("é"), "é".as_bytes());
        assert_eq!(k("alt++"), b"\x1b+");
        assert_eq!(k("shift+space"), b" ");
    }

    #[test]
    fn keypad_keys_follow_application_keypad_mode() {
        assert_eq!(k("kp5"), b"5");
        assert_eq!(k("kpEnter"), b"\r");
        assert_eq!(k("kp_plus"), b"+");
        assert_eq!(encode_key("kp0", KP).unwrap(), b"\x1bOp");
        assert_eq!(encode_key("kp9", KP).unwrap(), b"\x1bOy");
        assert_eq!(encode_key("kpEnter", KP).unwrap(), b"\x1bOM");
        assert_eq!(encode_key("kpMinus", KP).unwrap(), b"\x1bOm");
        // The main keys ignore the keypad mode.
        assert_eq!(encode_key("enter", KP).unwrap(), b"\r");
        assert_eq!(encode_key("5", KP).unwrap(), b"5");
    }

    #[test]
    fn unknown_names_are_invalid_arg_and_list_the_accepted_names() {
        let e = err("foo");
        assert_eq!(e.code, ErrorCode::InvalidArg);
        assert!(
            e.message.starts_with("unknown key \"foo\""),
            "{}",
            e.message
        );
        assert!(
            e.message.contains("pageDown") && e.message.contains("f1-f12"),
            "{}",
            e.message
        );
        assert!(e.message.len() < 400, "compact: {}", e.message);

        let e = err("ctrl+foo");
        assert_eq!(e.code, ErrorCode::InvalidArg);
        assert!(
            e.message.contains("\"ctrl+foo\"") && e.message.contains("\"foo\""),
            "{}",
            e.message
        );

        let e = err("hyper+x");
        assert!(
            e.message.contains("unknown modifier \"hyper\""),
            "{}",
            e.message
        );

        assert_eq!(err("").code, ErrorCode::InvalidArg);
        assert!(err("pagedownn").message.contains("\"pagedownn\""));
    }

    #[test]
    fn combinations_without_an_encoding_are_errors() {
        for name in [
            "shift+enter",
            "ctrl+enter",
            "ctrl+tab",
            "ctrl+1",
            "shift+1",
            "ctrl+kp5",
            "ctrl++",
        ] {
            let e = err(name);
            assert_eq!(e.code, ErrorCode::InvalidArg, "{name}");
            assert!(
                e.message.contains(&format!("\"{name}\"")),
                "{name}: {}",
                e.message
            );
        }
    }

    #[test]
    fn encode_keys_concatenates_and_names_the_index() {
        assert_eq!(encode_keys(&["a", "b", "enter"], N).unwrap(), b"ab\r");
        assert_eq!(encode_keys(&["up", "up"], APP).unwrap(), b"\x1bOA\x1bOA");
        let empty: [&str; 0] = [];
        assert_eq!(encode_keys(&empty, N).unwrap(), b"");
        let e = encode_keys(&["a".to_string(), "nope".to_string()], N).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArg);
        assert!(
            e.message.starts_with("keys[1]: unknown key \"nope\""),
            "{}",
            e.message
        );
    }

    #[test]
    fn key_names_lists_canonical_names_that_all_encode() {
        let names = key_names();
        assert!(names.contains(&"pageDown".to_string()));
        assert!(names.contains(&"f12".to_string()));
        for name in &names {
            assert!(encode_key(name, N).is_ok(), "{name}");
            assert!(encode_key(name, APP).is_ok(), "{name}");
        }
    }

    #[test]
    fn modes_convert_from_the_screen_model() {
        let modes = Modes {
            application_cursor: true,
            application_keypad: false,
            bracketed_paste: true,
        };
        assert_eq!(KeyModes::from(modes), APP);
    }

    fn input(text: &str) -> Vec<u8> {
        encode_input(text, N).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn encode_input_keys_in_angle_brackets() {
        assert_eq!(input("y<enter>"), b"y\r");
        assert_eq!(input("<up><up><enter>"), b"\x1b[A\x1b[A\r");
        assert_eq!(encode_input("<up><enter>", APP).unwrap(), b"\x1bOA\r");
        assert_eq!(input("<ctrl+c>"), b"\x03");
        assert_eq!(input("<C-x><C-s>"), b"\x18\x13");
        assert_eq!(input("<esc>:wq<enter>"), b"\x1b:wq\r");
        assert_eq!(input("<ESC>"), b"\x1b");
        assert_eq!(input("<shift+tab>"), b"\x1b[Z");
        assert_eq!(input("<alt+>>"), b"\x1b>");
        assert_eq!(input("<ctrl+]>"), b"\x1d");
        assert_eq!(input("plain text"), b"plain text");
        assert_eq!(input(""), b"");
        assert_eq!(input("héllo<tab>wörld"), "héllo\twörld".as_bytes());
    }

    #[test]
    fn encode_input_leaves_non_keys_literal() {
        for text in [
            "a <b> c",
            "<div>",
            "</p>",
            "x <- y",
            "cat <<EOF",
            "a < b > c",
            "if a<b && c>d",
            "<>",
            "<<>>",
            "<a>",
            "<not a key>",
            "trailing <",
            "<enter",
            "vec<u8>",
            "[<a-z>]",
            "<A-Z>",
        ] {
            assert_eq!(input(text), text.as_bytes(), "{text}");
        }
        // Keys next to literal brackets.
        assert_eq!(input("<<enter>"), b"<\r");
        assert_eq!(input("<b><enter>"), b"<b>\r");
    }

    #[test]
    fn encode_input_lt_escape() {
        assert_eq!(input("<lt>enter>"), b"<enter>");
        assert_eq!(input("<lt>"), b"<");
        assert_eq!(input("<LT>up> is a key"), b"<up> is a key");
    }

    #[test]
    fn encode_input_rejects_intended_but_invalid_keys() {
        for text in ["<ctrl+foo>", "<shift+enter>", "go<ctrl+1>", "<hyper+x>"] {
            let e = encode_input(text, N).expect_err(text);
            assert_eq!(e.code, ErrorCode::InvalidInput, "{text}");
            assert!(
                e.message.starts_with("input: key \"<"),
                "{text}: {}",
                e.message
            );
        }
    }

    #[test]
    fn paste_plain_is_unchanged_but_for_line_breaks() {
        assert_eq!(
            paste_bytes("echo hi\nls\r\nx\r", false),
            b"echo hi\rls\rx\r"
        );
        assert_eq!(paste_bytes("a\x1b[201~b", false), b"a\x1b[201~b");
    }

    #[test]
    fn paste_bracketed_wraps_and_neutralises_markers() {
        assert_eq!(paste_bytes("hello", true), b"\x1b[200~hello\x1b[201~");
        assert_eq!(paste_bytes("", true), b"\x1b[200~\x1b[201~");
        assert_eq!(
            paste_bytes("a\x1b[201~rm -rf /\n", true),
            b"\x1b[200~arm -rf /\r\x1b[201~"
        );
        assert_eq!(
            paste_bytes("\x1b[200~x\x1b[201~", true),
            b"\x1b[200~x\x1b[201~"
        );
        // A marker hidden inside another one is removed too.
        assert_eq!(
            paste_bytes("a\x1b[20\x1b[201~1~b", true),
            b"\x1b[200~ab\x1b[201~"
        );
        // Other escapes are kept.
        assert_eq!(
            paste_bytes("\x1b[1mbold", true),
            b"\x1b[200~\x1b[1mbold\x1b[201~"
        );
    }
}
