//! Characters fed to vt100 in place of others it would not show as xterm
//! does, and turned back in the text.

/// What a printed U+FFFD is fed to vt100 as (a private-use character of
/// the same width), and turned back into in the text.
pub(in crate::core::screen) const FFFD_STAND_IN: &str = "\u{10fffd}";

/// What a VS16 that vt100 would widen a cell for is fed to it as: U+E0001
/// (LANGUAGE TAG, deprecated, zero width), turned back into U+FE0F in the
/// text.
pub(in crate::core::screen) const VS16_STAND_IN: &str = "\u{e0001}";

/// Characters fed to vt100 in place of others it would not show as xterm
/// does: a printed U+FFFD ([`FFFD_STAND_IN`]) and a VS16 that must not widen
/// its cell ([`VS16_STAND_IN`]).
#[derive(Debug, Default)]
pub(in crate::core::screen) struct StandIns {
    /// A stand-in was ever fed (the text is searched only then).
    pub(in crate::core::screen) used: bool,
}

impl StandIns {
    /// `text` read from vt100's cells with the stand-ins turned back into
    /// what the program printed.
    pub(in crate::core::screen) fn restore(&self, text: String) -> String {
        let is_stand_in = |c: char| c == '\u{e0001}' || c == '\u{10fffd}';
        if !self.used || !text.contains(is_stand_in) {
            return text;
        }
        text.chars()
            .map(|c| match c {
                '\u{10fffd}' => '\u{fffd}',
                '\u{e0001}' => '\u{fe0f}',
                c => c,
            })
            .collect()
    }
}
