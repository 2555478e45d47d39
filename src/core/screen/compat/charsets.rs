//! Character sets (G0, G1, SO/SI) and what is saved with the cursor (DECSC,
//! SCOSC, modes 1048 and 1049), one saved cursor per screen.

use super::Compat;

/// The character set designated into G0 or G1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) enum Charset {
    #[default]
    Ascii,
    /// DEC special graphics (line drawing), `ESC ( 0`.
    DecGraphics,
    /// `ESC ( A`: United Kingdom with NRC mode on (`#` is `£`). With NRC
    /// mode off, xterm's default and the only one here, xterm 379 takes it
    /// as the upper half of ISO Latin-1: 0x20 to 0x7e print as U+00A0 to
    /// U+00FE (`\e(Ahello #` shows `èåììï\u{a0}£`; checked on the real
    /// xterm, fuzz/xterm.mjs).
    Uk,
}

impl Charset {
    pub(super) fn from_final(b: u8) -> Charset {
        match b {
            b'0' => Charset::DecGraphics,
            b'A' => Charset::Uk,
            _ => Charset::Ascii,
        }
    }

    /// The Unicode form of `b` in this set, if it differs from ASCII.
    pub(super) fn map(self, b: u8) -> Option<char> {
        match self {
            Charset::Ascii => None,
            Charset::Uk => (0x20..=0x7e).contains(&b).then(|| char::from(b + 0x80)),
            Charset::DecGraphics => {
                // xterm's table for 0x60..=0x7e.
                const TABLE: [&str; 31] = [
                    "◆", "▒", "␉", "␌", "␍", "␊", "°", "±", "␤", "␋", "┘", "┐", "┌", "└", "┼", "⎺",
                    "⎻", "─", "⎼", "⎽", "├", "┤", "┴", "┬", "│", "≤", "≥", "π", "≠", "£", "·",
                ];
                (0x60..=0x7e)
                    .contains(&b)
                    .then(|| TABLE[usize::from(b - 0x60)])
                    .and_then(|t| t.chars().next())
            }
        }
    }
}

/// What was saved with the cursor (DECSC, SCOSC, mode 1048/1049).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct SavedCharsets {
    pub(super) sets: [Charset; 2],
    pub(super) shift: usize,
    /// Origin mode, which vt100 saves and restores with the cursor too.
    pub(super) origin: bool,
    /// xterm's wrap flag on a column before the last (see
    /// `Compat::held_wrap`; vt100 saves a pending wrap on the last column
    /// itself, as the position one past it).
    pub(super) wrap: bool,
}
impl Compat {
    /// Saves what goes with the cursor on `screen` (0 main, 1 alternate).
    pub(super) fn save_charsets(&mut self, screen: usize) {
        self.saved[screen] = SavedCharsets {
            sets: self.sets,
            shift: self.shift,
            origin: self.origin,
            wrap: self.held_wrap,
        };
    }

    /// Restores what goes with the cursor on `screen`; vt100 restores the
    /// position (one past the last column when a wrap was pending there).
    pub(super) fn restore_charsets(&mut self, screen: usize) {
        let saved = self.saved[screen];
        self.sets = saved.sets;
        self.shift = saved.shift;
        self.origin = saved.origin;
        self.written = false;
        // vt100 restores the origin mode it saved with the cursor too.
        self.grid_origin[screen] = saved.origin;
        self.held_wrap = saved.wrap;
        self.maybe_wrap = true;
    }
}
