//! `encodeKeys`: key names to the string a terminal would send.

use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::core::keys::{self, KeyModes};
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
}

impl From<EncodeKeysModes> for KeyModes {
    fn from(modes: EncodeKeysModes) -> Self {
        KeyModes {
            application_cursor: modes.application_cursor.unwrap_or(false),
            application_keypad: modes.application_keypad.unwrap_or(false),
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
