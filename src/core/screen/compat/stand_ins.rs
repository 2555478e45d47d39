//! Characters fed to vt100 in place of others it would not show as xterm
//! does, and turned back in the text.

/// What a printed U+FFFD is fed to vt100 as (a private-use character of
/// the same width), and turned back into in the text.
pub(in crate::core::screen) const FFFD_STAND_IN: &str = "\u{10fffd}";

/// What a VS16 that vt100 would widen a cell for is fed to it as: U+E0001
/// (LANGUAGE TAG, deprecated, zero width), turned back into U+FE0F in the
/// text.
pub(in crate::core::screen) const VS16_STAND_IN: &str = "\u{e0001}";

/// The first of the private-use characters a combining character that
/// takes a cell of its own is fed to vt100 as (plane 16; one per distinct
/// mark, see [`StandIns`]).
const MARK_STAND_IN_FIRST: u32 = 0x10_0000;

/// Most distinct combining characters given stand-ins; past this a lone
/// mark is fed as it is (vt100 then joins it to the cell before).
const MARK_STAND_INS_MAX: usize = 4096;

/// Characters fed to vt100 in place of others it would not show as xterm
/// does: a printed U+FFFD ([`FFFD_STAND_IN`]), a VS16 that must not widen
/// its cell ([`VS16_STAND_IN`]), and combining characters that take a cell
/// of their own (private-use characters from [`MARK_STAND_IN_FIRST`]).
#[derive(Debug, Default)]
pub(in crate::core::screen) struct StandIns {
    /// A stand-in was ever fed (the text is searched only then).
    pub(in crate::core::screen) used: bool,
    /// The combining characters given stand-ins, in order.
    marks: Vec<char>,
}

impl StandIns {
    /// The stand-in for the combining character `mark`, if one is left.
    pub(super) fn for_mark(&mut self, mark: char) -> Option<char> {
        let k = match self.marks.iter().position(|&m| m == mark) {
            Some(k) => k,
            None if self.marks.len() < MARK_STAND_INS_MAX => {
                self.marks.push(mark);
                self.marks.len() - 1
            }
            None => return None,
        };
        self.used = true;
        char::from_u32(MARK_STAND_IN_FIRST + k as u32)
    }

    /// `text` read from vt100's cells with the stand-ins turned back into
    /// what the program printed.
    pub(in crate::core::screen) fn restore(&self, text: String) -> String {
        let is_stand_in = |c: char| c >= '\u{e0001}' && (c == '\u{e0001}' || c >= '\u{100000}');
        if !self.used || !text.contains(is_stand_in) {
            return text;
        }
        text.chars()
            .map(|c| match c {
                '\u{10fffd}' => '\u{fffd}',
                '\u{e0001}' => '\u{fe0f}',
                c if c >= '\u{100000}' => self
                    .marks
                    .get((u32::from(c) - MARK_STAND_IN_FIRST) as usize)
                    .copied()
                    .unwrap_or(c),
                c => c,
            })
            .collect()
    }
}
