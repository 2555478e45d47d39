//! Keys: `encodeKeys` (key names to the string a terminal would send) and
//! the key parsers (`parseKey`, `matchesKey`, `parseKittySequence`,
//! `matchesKittySequence`, `matchesLegacySequence`).

use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::core::keys::{self, KeyModes, MouseAction, MouseButton, MouseEvent};
use crate::core::{Error as CoreError, Result as CoreResult};
use crate::error::IntoJs;

/// The terminal modes that change what keys send.
#[napi(object, object_to_js = false)]
#[derive(Default)]
pub struct EncodeKeysModes {
    /// DECCKM: arrows, Home and End send `ESC O x` instead of `ESC [ x`
    /// (full-screen programs such as vim and less turn it on).
    /// @default false
    pub application_cursor: Option<bool>,
    /// DECKPAM: the keypad keys (`kp0`…`kp9`, `kpEnter`, …) send `ESC O x`.
    /// @default false
    pub application_keypad: Option<bool>,
    /// The kitty keyboard protocol flags a program set (`CSI > flags u`): 1
    /// disambiguate, 2 event types, 4 alternate keys, 8 all keys as escape
    /// codes, 16 associated text. 0 (the default) is a legacy terminal.
    /// @default 0
    pub kitty_flags: Option<u32>,
}

impl From<EncodeKeysModes> for KeyModes {
    fn from(modes: EncodeKeysModes) -> Self {
        KeyModes {
            application_cursor: modes.application_cursor.unwrap_or(false),
            application_keypad: modes.application_keypad.unwrap_or(false),
            kitty_flags: (modes.kitty_flags.unwrap_or(0) & 31) as u8,
        }
    }
}

/// The bytes the named keys send, concatenated, as a string (every sequence
/// is ASCII or the UTF-8 of a typed character). Throws `ERR_INVALID_ARG`
/// naming the first unknown key.
#[napi(js_name = "encodeKeys", catch_unwind)]
// `#[napi]` registers the function with Node only outside `cfg(test)`.
#[cfg_attr(test, allow(dead_code))]
pub fn encode_keys(
    env: Env,
    keys: Vec<String>,
    modes: Option<EncodeKeysModes>,
) -> napi::Result<String> {
    let bytes = keys::encode_keys(&keys, modes.unwrap_or_default().into()).into_js(&env)?;
    // Valid UTF-8 by construction: escape sequences are ASCII and characters
    // are encoded from `char`s.
    Ok(String::from_utf8(bytes).expect("key sequences are UTF-8"))
}

/// Key data from JS: a string, or the raw bytes (a `Buffer` from stdin).
type KeyData = Either<String, Buffer>;

fn bytes_of(data: &KeyData) -> &[u8] {
    match data {
        Either::A(text) => text.as_bytes(),
        Either::B(buffer) => buffer.as_ref(),
    }
}

/// The canonical id of the one key `data` stands for (`'ctrl+c'`,
/// `'shift+tab'`, `'pageUp'`, `'f5'`), or `null`.
#[napi(js_name = "parseKey", catch_unwind)]
#[cfg_attr(test, allow(dead_code))]
pub fn parse_key(data: KeyData, kitty_protocol_active: Option<bool>) -> Option<String> {
    keys::parse_key(bytes_of(&data), kitty_protocol_active.unwrap_or(false))
}

/// Whether `data` is the key `key_id` names (any spelling `encodeKeys` takes).
#[napi(js_name = "matchesKey", catch_unwind)]
#[cfg_attr(test, allow(dead_code))]
pub fn matches_key(data: KeyData, key_id: String, kitty_protocol_active: Option<bool>) -> bool {
    keys::matches_key(
        bytes_of(&data),
        &key_id,
        kitty_protocol_active.unwrap_or(false),
    )
}

/// A key report in the kitty keyboard protocol.
#[napi(object, object_from_js = false)]
pub struct KittySequence {
    /// The key's code point (unshifted), or kitty's code for keys without one.
    pub codepoint: u32,
    /// The shifted key (alternate keys flag).
    pub shifted_key: Option<u32>,
    /// The key at the same place on a US layout (alternate keys flag).
    pub base_layout_key: Option<u32>,
    /// Modifier bits without the locks: shift 1, alt 2, ctrl 4, super 8, hyper 16, meta 32.
    pub modifier: u32,
    /// 1 press, 2 repeat, 3 release.
    pub event_type: u32,
    /// The text the key produced (associated text flag).
    pub text: Option<String>,
}

/// Parses one kitty keyboard protocol key report, or `null`.
#[napi(js_name = "parseKittySequence", catch_unwind)]
#[cfg_attr(test, allow(dead_code))]
pub fn parse_kitty_sequence(data: KeyData) -> Option<KittySequence> {
    keys::parse_kitty_sequence(bytes_of(&data)).map(|seq| KittySequence {
        codepoint: seq.codepoint,
        shifted_key: seq.shifted_key,
        base_layout_key: seq.base_layout_key,
        modifier: u32::from(seq.modifier),
        event_type: u32::from(seq.event_type),
        text: seq.text,
    })
}

/// Whether `data` is a kitty report of `codepoint` with `modifier` (bits).
#[napi(js_name = "matchesKittySequence", catch_unwind)]
#[cfg_attr(test, allow(dead_code))]
pub fn matches_kitty_sequence(data: KeyData, codepoint: u32, modifier: u32) -> bool {
    keys::matches_kitty_sequence(bytes_of(&data), codepoint, modifier)
}

/// Whether `data` is exactly one of the legacy escape sequences of `key_name`.
#[napi(js_name = "matchesLegacySequence", catch_unwind)]
#[cfg_attr(test, allow(dead_code))]
pub fn matches_legacy_sequence(data: KeyData, key_name: String) -> bool {
    keys::matches_legacy_sequence(bytes_of(&data), &key_name)
}

/// The mouse reports a program asked for.
#[napi(object, object_from_js = false, use_nullable = true)]
pub struct MouseMode {
    /// Which events are reported: `'x10'` (mode 9, presses), `'normal'`
    /// (1000, presses and releases), `'button'` (1002, and drags), `'any'`
    /// (1003, and all motion), or `null` when the program has not enabled
    /// mouse reporting.
    pub tracking: Option<String>,
    /// How reports are written: `'default'` (bytes, up to column 223),
    /// `'utf8'` (1005), `'sgr'` (1006) or `'urxvt'` (1015).
    pub encoding: String,
}

impl From<keys::MouseMode> for MouseMode {
    fn from(mode: keys::MouseMode) -> Self {
        MouseMode {
            tracking: mode.tracking.name().map(str::to_owned),
            encoding: mode.encoding.name().to_owned(),
        }
    }
}

/// One mouse event to send (internal: `session.mouse` builds it).
#[napi(object, object_to_js = false)]
pub struct MouseEventInput {
    /// `'press'`, `'release'` or `'move'`.
    pub action: String,
    /// `'left'`, `'middle'`, `'right'`, `'wheelUp'`, `'wheelDown'`,
    /// `'wheelLeft'`, `'wheelRight'`; for `'move'`, the button held or none.
    pub button: Option<String>,
    /// Column, 0-based.
    pub col: u32,
    /// Row, 0-based.
    pub row: u32,
    /// Shift held.
    pub shift: Option<bool>,
    /// Alt (meta) held.
    pub alt: Option<bool>,
    /// Ctrl held.
    pub ctrl: Option<bool>,
}

impl TryFrom<MouseEventInput> for MouseEvent {
    type Error = CoreError;

    fn try_from(input: MouseEventInput) -> CoreResult<MouseEvent> {
        let action = match input.action.as_str() {
            "press" => MouseAction::Press,
            "release" => MouseAction::Release,
            "move" => MouseAction::Move,
            other => {
                return Err(CoreError::invalid_arg(format!(
                    "a mouse action is 'press', 'release' or 'move', got {other:?}"
                )));
            }
        };
        let button = match input.button.as_deref() {
            None => None,
            Some(name) => Some(MouseButton::from_name(name).ok_or_else(|| {
                CoreError::invalid_arg(format!(
                    "unknown mouse button {name:?}; known: left, middle, right, wheelUp, wheelDown, wheelLeft, wheelRight"
                ))
            })?),
        };
        Ok(MouseEvent {
            action,
            button,
            col: input.col,
            row: input.row,
            shift: input.shift.unwrap_or(false),
            alt: input.alt.unwrap_or(false),
            ctrl: input.ctrl.unwrap_or(false),
        })
    }
}

/// A mouse report read back from the bytes a terminal sent.
#[napi(object, object_from_js = false, use_nullable = true)]
pub struct MouseSequence {
    /// `'press'`, `'release'` or `'move'`.
    pub action: String,
    /// `'left'`, `'middle'`, `'right'`, `'wheelUp'`, `'wheelDown'`,
    /// `'wheelLeft'`, `'wheelRight'`; `null` for motion with no button held,
    /// and for a release in an encoding that does not name the button
    /// (all but SGR).
    pub button: Option<String>,
    /// Column, 0-based.
    pub col: u32,
    /// Row, 0-based.
    pub row: u32,
    /// Shift held.
    pub shift: bool,
    /// Alt (meta) held.
    pub alt: bool,
    /// Ctrl held.
    pub ctrl: bool,
    /// The encoding it was written in: `'default'`, `'utf8'`, `'sgr'` or
    /// `'urxvt'` (default and UTF-8 read the same below column 95: such a
    /// report reads as `'default'`).
    pub encoding: String,
}

/// Parses one mouse report (any encoding: default, UTF-8, SGR, urxvt), or
/// `null` when `data` is not exactly one.
#[napi(js_name = "parseMouseSequence", catch_unwind)]
#[cfg_attr(test, allow(dead_code))]
pub fn parse_mouse_sequence(data: KeyData) -> Option<MouseSequence> {
    keys::parse_mouse(bytes_of(&data)).map(|report| {
        let e = report.event;
        MouseSequence {
            action: e.action.name().to_owned(),
            button: e.button.map(|b| b.name().to_owned()),
            col: e.col,
            row: e.row,
            shift: e.shift,
            alt: e.alt,
            ctrl: e.ctrl,
            encoding: report.encoding.name().to_owned(),
        }
    })
}
