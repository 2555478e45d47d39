//! Tool-call input (literal text with keys in angle brackets) and pastes.

use super::encode::{KeyModes, encode_into, key_error};
use super::name::KeyError;
use crate::core::error::{ErrorCode, Result};

/// Longest `<...>` token content [`encode_input`] considers a key.
const MAX_TOKEN: usize = 40;

/// Encodes tool input: literal text with named keys in angle brackets.
///
/// - `<name>` is a key if `name` is a key name ([`encode_key`](super::encode_key)) other than a
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
        kitty_flags: 0,
    };
    const APP: KeyModes = KeyModes {
        application_cursor: true,
        application_keypad: false,
        kitty_flags: 0,
    };

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
