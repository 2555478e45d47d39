//! The screen model: what a terminal would show for the program's output.
//!
//! A small wrapper around `vt100` (so the emulator can be swapped) that adds
//! what `vt100` leaves to its user: answers to terminal queries (cursor
//! position, device status and attributes, colours, mode 2026 support), the
//! window title, synchronized-output tracking, and plain-text snapshots; and,
//! in [`compat`], the xterm behaviour vt100 lacks (line-drawing character
//! sets, insert mode, tab stops, modes 1047/1048, ...), so snapshots match what
//! xterm shows for the same output.
//!
//! The parts: [`hooks`] (what vt100 hands back: titles, replies to queries),
//! [`fast_forward`] (plain text that waits, floods skipped unparsed), [`rows`]
//! (the rows kept between looks), [`styles`] (styled runs) and [`compat`].
//!
//! ```
//! use ptypilot::core::screen::Screen;
//! let mut screen = Screen::new(24, 80, 100);
//! let mut replies = Vec::new();
//! screen.process(b"\x1b]0;demo\x07\x1b[1;31mhello\x1b[0m\r\nworld   \x1b[6n", &mut replies);
//! assert_eq!(replies, b"\x1b[2;9R"); // the program asked where the cursor is
//! let snap = screen.snapshot();
//! assert_eq!(snap.text, "hello\nworld");
//! assert_eq!(snap.title, "demo");
//! assert_eq!(snap.lines.len(), 24);
//! ```

use std::num::NonZeroU16;

use super::error::{Error, Result};
use super::keys::{MouseEncoding, MouseMode, MouseTracking};

mod compat;
mod fast_forward;
mod hooks;
mod rows;
mod styles;

use fast_forward::{DEFER_MAX, Known, ascii_printable_prefix, pen_after};
use hooks::Hooks;
pub use styles::{Color, StyledRun};

/// Smallest and largest accepted column count.
pub const COLS_RANGE: (u16, u16) = (2, 1000);
/// Smallest and largest accepted row count.
pub const ROWS_RANGE: (u16, u16) = (2, 500);
/// Largest accepted scrollback (lines).
pub const MAX_SCROLLBACK: u32 = 100_000;

/// Checks a terminal size against [`COLS_RANGE`] and [`ROWS_RANGE`].
pub fn validate_size(cols: f64, rows: f64) -> Result<(u16, u16)> {
    let cols = validate_dim("cols", cols, COLS_RANGE)?;
    let rows = validate_dim("rows", rows, ROWS_RANGE)?;
    Ok((cols, rows))
}

fn validate_dim(name: &str, value: f64, (lo, hi): (u16, u16)) -> Result<u16> {
    if value.fract() != 0.0 || value < f64::from(lo) || value > f64::from(hi) {
        return Err(Error::invalid_arg(format!(
            "{name} must be an integer between {lo} and {hi}, got {value}"
        )));
    }
    Ok(value as u16)
}

/// A plain-text picture of the screen: a [`View`] (its fields read through
/// the snapshot: `snapshot.text`, `snapshot.cursor_row`, ...) and its rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// The text, cursor, size, screen in use and title.
    pub view: View,
    /// Every visible row, right-trimmed (`lines.len() == rows`).
    pub lines: Vec<String>,
}

impl std::ops::Deref for Snapshot {
    type Target = View;

    fn deref(&self) -> &View {
        &self.view
    }
}

/// A plain-text picture of the screen without the rows split out (they are
/// the lines of `text`: a row never contains a newline); what the Node
/// binding sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct View {
    /// Visible rows right-trimmed, trailing blank rows dropped, joined by `\n`.
    pub text: String,
    /// Cursor row (0-based).
    pub cursor_row: u16,
    /// Cursor column (0-based, at most `cols - 1`).
    pub cursor_col: u16,
    /// False when the program hid the cursor.
    pub cursor_visible: bool,
    /// Width in columns.
    pub cols: u16,
    /// Height in rows.
    pub rows: u16,
    /// The program switched to the alternate screen (full-screen programs).
    pub alt_screen: bool,
    /// Window title from OSC 0 / OSC 2.
    pub title: String,
}

impl From<View> for Snapshot {
    fn from(view: View) -> Self {
        let lines = lines_of(&view.text, view.rows);
        Snapshot { view, lines }
    }
}

/// Input modes the program turned on, which change how keys are encoded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Modes {
    /// DECCKM: arrows send `ESC O A` instead of `ESC [ A`.
    pub application_cursor: bool,
    /// DECKPAM: the keypad sends application sequences.
    pub application_keypad: bool,
    /// Mode 2004: pasted text must be wrapped in bracketed-paste markers.
    pub bracketed_paste: bool,
    /// The kitty keyboard protocol flags the program set on this screen
    /// (0 when it did not enable the protocol).
    pub kitty_flags: u8,
    /// The mouse reports the program asked for (modes 9, 1000, 1002, 1003)
    /// and their encoding (1005, 1006, 1015).
    pub mouse: MouseMode,
}

/// The screen model of one terminal.
pub struct Screen {
    parser: vt100::Parser<Hooks>,
    compat: compat::Compat,
    /// Skip plain-text lines that scroll out of the model anyway (see
    /// [`Screen::process`]); off only to test that skipping changes nothing.
    fast_forward: bool,
    /// Plain text received but not parsed yet (see [`Screen::process`]).
    pending: Vec<u8>,
    /// Length of the leading run of printable ASCII in `pending`, kept as
    /// text arrives so that skipping (a long line) does not scan it again.
    pending_ascii: usize,
    /// Length of the colour or erase sequence `pending` ends in the middle
    /// of (a read can end anywhere), 0 if none.
    open: usize,
    /// Text skipped unparsed so far (bytes); tests check that skips happen.
    dropped: usize,
    /// Let plain text wait in `pending`; off only to test that waiting
    /// changes nothing.
    defer: bool,
    /// [`DEFER_MAX`], smaller in tests.
    defer_max: usize,
    /// The start of a UTF-8 character whose other bytes have not arrived.
    held: Vec<u8>,
    /// The rows' text as the last snapshot read it (see [`rows`]).
    rows: rows::RowCache,
}

impl Screen {
    /// A blank screen of `rows` x `cols` keeping `scrollback` lines.
    ///
    /// Sizes are clamped to at least 1; validate user input with
    /// [`validate_size`] first.
    pub fn new(rows: u16, cols: u16, scrollback: usize) -> Self {
        Screen {
            parser: vt100::Parser::new_with_callbacks(
                nz(rows),
                nz(cols),
                scrollback,
                Hooks::default(),
            ),
            compat: compat::Compat::new(nz(cols).get()),
            fast_forward: true,
            pending: Vec::new(),
            pending_ascii: 0,
            open: 0,
            dropped: 0,
            defer: true,
            defer_max: DEFER_MAX,
            held: Vec::new(),
            rows: rows::RowCache::default(),
        }
    }

    /// Feeds program output; appends the answers to any terminal queries in
    /// it to `replies` (they must be written back to the program).
    ///
    /// Plain text — printable characters, CR, LF and tab, with colours (SGR)
    /// and erases within the line (EL), arriving while the parser is between
    /// sequences — is not parsed at once: it waits until someone looks at
    /// the screen, other output arrives, or [`DEFER_MAX`] bytes piled up.
    /// Such text cannot ask anything, change a mode, the title or the screen
    /// in use, so [`Screen::modes`],
    /// [`Screen::synchronized`] and [`Screen::alt_screen`] are current
    /// without it, every reply still goes out as its query is seen, and the
    /// methods that show content parse it first.
    ///
    /// Waiting pays off with a flood (`cat` of a large file, a log): most of
    /// its lines scroll past the screen and out of the scrollback before
    /// anyone can look at them. When the text to parse starts with such
    /// lines and enough line feeds follow to push everything before them out
    /// of the model, the lines before those are not parsed at all: the
    /// cursor is put where they would have left it (the bottom row, column
    /// 0, after a CR LF), the colours they left set are set, and parsing
    /// resumes there. Enough means the
    /// screen, the scrollback and the most rows a resize can add, so the
    /// resulting screen, scrollback and later resizes are exactly those of
    /// parsing every byte (tests compare the two on random floods). A long
    /// line without line feeds (printable ASCII, autowrap on) is cut the
    /// same way at a row start, each wrap on the bottom row counting as a
    /// line feed; the cursor then waits past the last column after the
    /// character before the cut. Skipping applies only on the main screen
    /// between sequences, with full-screen scroll margins and origin mode
    /// off.
    pub fn process(&mut self, bytes: &[u8], replies: &mut Vec<u8>) {
        match self.defer.then(|| self.can_defer(bytes)).flatten() {
            Some(open) => {
                if self.pending_ascii == self.pending.len() {
                    self.pending_ascii += ascii_printable_prefix(bytes);
                }
                self.pending.extend_from_slice(bytes);
                self.open = open;
                if self.pending.len() >= self.defer_max {
                    self.drop_skippable();
                    if self.pending.len() >= self.defer_max {
                        self.catch_up();
                    }
                }
            }
            None => {
                self.catch_up();
                self.parse(bytes);
            }
        }
        let hooks = self.parser.callbacks_mut();
        if !hooks.replies.is_empty() {
            replies.append(&mut hooks.replies);
        }
    }

    /// Parses `bytes`, never handing the parser part of a UTF-8 character:
    /// `vte` 0.15 drops the character after one that was split across two
    /// calls, and a pty read can end anywhere.
    fn parse(&mut self, mut bytes: &[u8]) {
        if !self.held.is_empty() {
            let need = utf8_len(self.held[0]).saturating_sub(self.held.len());
            let more = bytes
                .iter()
                .take(need)
                .take_while(|&&b| b & 0xc0 == 0x80)
                .count();
            self.held.extend_from_slice(&bytes[..more]);
            bytes = &bytes[more..];
            if more == need {
                let held = std::mem::take(&mut self.held);
                self.parse_whole(&held);
            } else if bytes.is_empty() {
                return; // Still incomplete.
            } else {
                // Not a valid character: the parser shows it as it will.
                let mut joined = std::mem::take(&mut self.held);
                joined.extend_from_slice(bytes);
                let cut = joined.len() - incomplete_tail(&joined);
                self.held = joined.split_off(cut);
                self.parse_whole(&joined);
                return;
            }
        }
        let cut = bytes.len() - incomplete_tail(bytes);
        self.held.extend_from_slice(&bytes[cut..]);
        self.parse_whole(&bytes[..cut]);
    }

    /// Parses `bytes`, which end on a character boundary.
    fn parse_whole(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let cut = match self.skip_of(bytes, Known::default()) {
            Some((cut, skip)) => {
                self.apply_skip(skip, cut, &pen_after(&bytes[..cut]));
                cut
            }
            None => 0,
        };
        self.feed(&bytes[cut..]);
    }

    /// Hands `bytes` to vt100 (through [`compat`]): every byte the model
    /// parses goes through here, so the row cache hears of every change.
    fn feed(&mut self, bytes: &[u8]) {
        let (parser, compat) = (&self.parser, &self.compat);
        self.rows.note(bytes, || {
            let screen = parser.screen();
            let (row, col) = screen.cursor_position();
            rows::Before {
                row,
                col,
                cols: screen.size().1.get(),
                at_ground: compat.at_ground(),
                may_leave_row: compat.may_leave_row(),
            }
        });
        self.compat.process(&mut self.parser, bytes);
    }

    /// Changes the size; rows are truncated or padded, nothing is reflowed.
    pub fn resize(&mut self, rows: u16, cols: u16) {
        if (nz(rows).get(), nz(cols).get()) == self.size() {
            // Not a change: vt100 keeps everything, margins included.
            return;
        }
        // The waiting text was written for the old size.
        self.catch_up();
        self.parser.set_size(nz(rows), nz(cols));
        self.compat.resize(nz(cols).get());
        self.rows.invalidate();
    }

    /// `(rows, cols)`.
    pub fn size(&self) -> (u16, u16) {
        let (rows, cols) = self.parser.screen().size();
        (rows.get(), cols.get())
    }

    /// True inside a synchronized-output block (the program is mid-frame).
    pub fn synchronized(&self) -> bool {
        self.parser.callbacks().synchronized
    }

    /// The input modes the program turned on.
    pub fn modes(&self) -> Modes {
        let screen = self.parser.screen();
        Modes {
            application_cursor: screen.application_cursor(),
            application_keypad: screen.application_keypad(),
            bracketed_paste: screen.bracketed_paste(),
            kitty_flags: self
                .parser
                .callbacks()
                .kitty
                .current(screen.alternate_screen()),
            mouse: self.mouse_mode(),
        }
    }

    /// The mouse mode: vt100 tracks the modes and encodings 1005/1006, the
    /// compat layer urxvt's 1015 (vt100's encoding is reset while it is on).
    fn mouse_mode(&self) -> MouseMode {
        use vt100::{MouseProtocolEncoding as E, MouseProtocolMode as M};
        let screen = self.parser.screen();
        let tracking = match screen.mouse_protocol_mode() {
            M::None => MouseTracking::Off,
            M::Press => MouseTracking::X10,
            M::PressRelease => MouseTracking::Normal,
            M::ButtonMotion => MouseTracking::Button,
            M::AnyMotion => MouseTracking::Any,
        };
        let encoding = if self.compat.urxvt_mouse() {
            MouseEncoding::Urxvt
        } else {
            match screen.mouse_protocol_encoding() {
                E::Default => MouseEncoding::Default,
                E::Utf8 => MouseEncoding::Utf8,
                E::Sgr => MouseEncoding::Sgr,
            }
        };
        MouseMode { tracking, encoding }
    }

    /// True while the program uses the alternate screen.
    pub fn alt_screen(&self) -> bool {
        self.parser.screen().alternate_screen()
    }

    /// The visible text, as in [`Snapshot::text`], without building the rest.
    ///
    /// Joined from the rows kept since the last call, of which only those
    /// the output since could have changed are read again (see [`rows`]):
    /// after a typed key's echo that is one row, not the whole screen.
    pub fn text(&mut self) -> String {
        self.catch_up();
        let screen = self.parser.screen();
        if screen.scrollback() != 0 {
            // A view into the scrollback (tests): not what the cache holds.
            self.rows.invalidate();
            return self.text_uncached();
        }
        let text = rows::join(self.rows.rows(screen));
        // A stand-in is one character that is not a space, so restoring
        // them in the whole text is restoring them row by row.
        self.compat.stand_ins.restore(text)
    }

    /// [`Screen::text`] read from every cell, not from the rows kept since
    /// the last call; for tests that check the two agree.
    #[doc(hidden)]
    pub fn text_uncached(&mut self) -> String {
        self.catch_up();
        let text = rows::join(&rows::read_all(self.parser.screen()));
        self.compat.stand_ins.restore(text)
    }

    /// Every visible row, right-trimmed.
    ///
    /// Only blank cells (spaces) are trimmed: a program that printed a
    /// no-break or ideographic space at the end of a line still shows it.
    pub fn lines(&mut self) -> Vec<String> {
        let text = self.text();
        lines_of(&text, self.size().0)
    }

    /// A plain-text picture of the screen.
    pub fn snapshot(&mut self) -> Snapshot {
        self.view().into()
    }

    /// A plain-text picture of the screen without the rows split out.
    pub fn view(&mut self) -> View {
        let text = self.text();
        let screen = self.parser.screen();
        let (cursor_row, cursor_col) = cursor_on_screen(screen);
        let (rows, cols) = self.size();
        View {
            text,
            cursor_row,
            cursor_col,
            cursor_visible: !screen.hide_cursor(),
            cols,
            rows,
            alt_screen: screen.alternate_screen(),
            title: self.parser.callbacks().title.clone(),
        }
    }
}

/// The `rows` rows of a screen's text (see [`Snapshot::text`]): its lines,
/// then blank rows for those it dropped.
fn lines_of(text: &str, rows: u16) -> Vec<String> {
    let mut lines = Vec::with_capacity(usize::from(rows));
    if !text.is_empty() {
        lines.extend(text.split('\n').map(String::from));
    }
    lines.resize(usize::from(rows).max(lines.len()), String::new());
    lines
}

/// The cursor position, with the column on the screen: after a character
/// was written into the last column vt100 keeps the cursor one past it (until
/// the next character wraps); terminals show and report it on the last column.
fn cursor_on_screen(screen: &vt100::Screen) -> (u16, u16) {
    let (row, col) = screen.cursor_position();
    let (_, cols) = screen.size();
    (row, col.min(cols.get() - 1))
}

/// The length of the UTF-8 sequence that `lead` starts (1 for anything else).
fn utf8_len(lead: u8) -> usize {
    match lead {
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => 1,
    }
}

/// How many bytes at the end of `bytes` start a UTF-8 character that is not
/// complete yet.
fn incomplete_tail(bytes: &[u8]) -> usize {
    let start = bytes.len().saturating_sub(3);
    for i in (start..bytes.len()).rev() {
        let b = bytes[i];
        if b & 0xc0 != 0x80 {
            let have = bytes.len() - i;
            return if utf8_len(b) > have { have } else { 0 };
        }
    }
    0
}

fn nz(n: u16) -> NonZeroU16 {
    NonZeroU16::new(n).unwrap_or(NonZeroU16::MIN)
}

#[cfg(test)]
mod tests;
