//! Key names to the bytes a terminal sends, following xterm.
//!
//! The cursor keys depend on the terminal mode the program chose: with
//! DECCKM (application cursor keys, [`KeyModes::application_cursor`]) the
//! arrows, Home and End use the SS3 form (`ESC O A`) instead of the CSI form
//! (`ESC [ A`). Full-screen programs such as `vim` and `less` turn it on, so
//! the caller passes the modes the screen model reports.

use super::name::{ALT, Base, CANONICAL, CTRL, KeyError, SHIFT, modifier_names, parse_name};
use crate::core::error::{Error, ErrorCode, Result};
use crate::core::screen::Modes;

/// The terminal modes that change what a key sends.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct KeyModes {
    /// DECCKM: arrows, Home and End send `ESC O x` instead of `ESC [ x`.
    pub application_cursor: bool,
    /// DECKPAM: the numeric keypad keys (`kp0`…`kp9`, `kpEnter`, …) send
    /// `ESC O x` instead of their characters. The main keys are unaffected.
    pub application_keypad: bool,
    /// The kitty keyboard protocol flags the program set (0: not enabled);
    /// see [`super::kitty_mode`].
    pub kitty_flags: u8,
}

impl From<Modes> for KeyModes {
    fn from(modes: Modes) -> Self {
        KeyModes {
            application_cursor: modes.application_cursor,
            application_keypad: modes.application_keypad,
            kitty_flags: modes.kitty_flags,
        }
    }
}

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

/// Encodes one key name to `out`.
pub(super) fn encode_into(
    name: &str,
    modes: KeyModes,
    out: &mut Vec<u8>,
) -> std::result::Result<(), KeyError> {
    let key = parse_name(name)?;
    if modes.kitty_flags != 0 && super::kitty_mode::encode_kitty(key, modes.kitty_flags, out) {
        return Ok(());
    }
    encode_base(key.base, key.mods, modes, out).map_err(KeyError::Invalid)
}

/// xterm's modifier parameter: 1 + shift(1) + alt(2) + ctrl(4).
fn modifier_param(mods: u8) -> u8 {
    1 + mods
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
        Base::F(n @ 5..=12) => {
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
        Base::F(_) | Base::Other(_) => {
            let mut name = String::new();
            name.push_str(&super::name::Key { base, mods: 0 }.id());
            return Err(format!(
                "{name} has no xterm encoding (only programs that enable the kitty keyboard \
                 protocol can receive it)"
            ));
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

pub(super) fn key_error(name: &str, err: KeyError, code: ErrorCode, prefix: &str) -> Error {
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

#[cfg(test)]
mod tests {
    use super::*;

    const N: KeyModes = KeyModes {
        application_cursor: false,
        application_keypad: false,
        kitty_flags: 0,
    };
    const APP: KeyModes = KeyModes {
        application_cursor: true,
        application_keypad: false,
        kitty_flags: 0,
    };
    const KP: KeyModes = KeyModes {
        application_cursor: false,
        application_keypad: true,
        kitty_flags: 0,
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
            kitty_flags: 0,
            ..Modes::default()
        };
        assert_eq!(KeyModes::from(modes), APP);
    }
}
