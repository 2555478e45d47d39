//! Keys: names to the bytes a terminal sends, and bytes back to names.
//!
//! A key name is a base key with optional modifiers joined by `+` in any
//! order: `enter`, `up`, `f5`, `ctrl+c`, `alt+x`, `shift+tab`,
//! `ctrl+shift+left`. Emacs-style prefixes work too (`C-c`, `M-x`, `S-tab`).
//! Names are case-insensitive, except that a single character is sent as
//! itself (`Q` types a capital Q, and `alt+X` is `ESC X`).
//!
//! - `encode`: names to bytes, following xterm and the cursor and keypad
//!   modes the program chose.
//! - `input`: tool input with keys in angle brackets, and pastes.
//! - `parse`: bytes to the canonical key id, for programs that read keys
//!   ([`parse_key`], [`matches_key`]).
//! - `legacy`: the table of legacy escape sequences.
//! - `kitty`: the kitty keyboard protocol's reports.
//! - `mouse`: mouse reports, encoded as the program asked and read back.
//! - `kitty_mode`: the flags a program sets for that protocol, and keys
//!   encoded as they ask (`sendKeys` follows them).
//! - `name`: what a name means and each key's canonical id.
//!
//! ```
//! use ptypilot::core::keys::{encode_key, encode_keys, parse_key, KeyModes};
//! let normal = KeyModes::default();
//! let app = KeyModes { application_cursor: true, ..KeyModes::default() };
//! assert_eq!(encode_key("up", normal).unwrap(), b"\x1b[A");
//! assert_eq!(encode_key("up", app).unwrap(), b"\x1bOA");
//! assert_eq!(encode_key("ctrl+up", app).unwrap(), b"\x1b[1;5A");
//! assert_eq!(encode_keys(&["ctrl+c", "alt+x", "f5"], normal).unwrap(), b"\x03\x1bx\x1b[15~");
//! assert_eq!(parse_key(b"\x1b[1;5A", false).as_deref(), Some("ctrl+up"));
//! ```
//!
//! [`encode_input`] is the tool-call form: literal text with keys in angle
//! brackets (`"y<enter>"`, `"<up><up><enter>"`, `"<ctrl+c>"`), and
//! [`paste_bytes`] wraps text for a (bracketed) paste.

mod encode;
mod input;
mod kitty;
mod kitty_mode;
mod legacy;
mod mouse;
mod name;
mod parse;

pub use encode::{KeyModes, encode_key, encode_keys, key_names};
pub use input::{encode_input, paste_bytes};
pub use kitty::{KittySequence, matches_kitty_sequence, parse_kitty_sequence};
pub use kitty_mode::KittyFlags;
pub use legacy::matches_legacy_sequence;
pub use mouse::{
    MouseAction, MouseButton, MouseEncoding, MouseEvent, MouseMode, MouseReport, MouseTracking,
    encode_mouse, parse_mouse,
};
pub use parse::{matches_key, parse_key};
