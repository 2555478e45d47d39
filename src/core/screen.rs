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
use super::keys::{KittyFlags, MouseEncoding, MouseMode, MouseTracking};

mod compat;
mod rows;
mod styles;

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

/// Plain text in a chunk shorter than this is always parsed line by line.
const FAST_FORWARD_MIN: usize = 16 << 10;

/// Unparsed plain text is parsed once this much has piled up, even if nobody
/// looked at the screen.
const DEFER_MAX: usize = 1 << 20;

/// What is already known of text to skip in (see [`Screen::skip_of`]).
#[derive(Debug, Clone, Copy, Default)]
struct Known {
    /// The length of its leading deferrable run ([`deferrable_prefix`]).
    plain: Option<usize>,
    /// The length of its leading run of printable ASCII
    /// ([`ascii_printable_prefix`]).
    ascii: Option<usize>,
}

/// Where skipped plain text leaves the cursor, on the bottom row.
#[derive(Debug, Clone, Copy)]
enum Skip {
    /// Column 0, after a CR LF.
    LineStart,
    /// Past the last column with a wrap pending, after this character.
    RowStart(u8),
}

/// After catching up, a pending buffer larger than this is given back.
const PENDING_KEPT: usize = 64 << 10;

/// Titles kept by the title stack (as xterm.js).
const TITLE_STACK_LIMIT: usize = 10;

/// What `vt100` reports through callbacks.
#[derive(Default)]
struct Hooks {
    title: String,
    /// Titles saved by `CSI 22 t` (XTWINOPS push), restored by `CSI 23 t`.
    title_stack: Vec<String>,
    /// Bytes to send back to the program, in the order it asked.
    replies: Vec<u8>,
    /// Inside a synchronized-output block (mode 2026 set).
    synchronized: bool,
    /// The kitty keyboard protocol flags (`CSI > u` and friends).
    kitty: KittyFlags,
}

impl vt100::Callbacks for Hooks {
    fn set_window_title(&mut self, _: &mut vt100::Screen, title: &[u8]) {
        self.title = String::from_utf8_lossy(title).into_owned();
    }

    fn unhandled_csi(
        &mut self,
        screen: &mut vt100::Screen,
        i1: Option<u8>,
        i2: Option<u8>,
        params: &[&[u16]],
        c: char,
    ) {
        let first = params.first().and_then(|p| p.first()).copied().unwrap_or(0);
        let has = |n: u16| params.iter().any(|p| p.first() == Some(&n));
        match (i1, i2, c) {
            // DSR: device status -> "OK".
            (None, None, 'n') if first == 5 => self.replies.extend_from_slice(b"\x1b[0n"),
            // DSR: cursor position report (1-based).
            (None, None, 'n') if first == 6 => {
                let (row, col) = cursor_on_screen(screen);
                let reply = format!("\x1b[{};{}R", row + 1, col + 1);
                self.replies.extend_from_slice(reply.as_bytes());
            }
            // DECXCPR: the same with a `?`.
            (Some(b'?'), None, 'n') if first == 6 => {
                let (row, col) = cursor_on_screen(screen);
                let reply = format!("\x1b[?{};{}R", row + 1, col + 1);
                self.replies.extend_from_slice(reply.as_bytes());
            }
            // DA1: a VT100 with advanced video, as xterm can report.
            (None, None, 'c') if first == 0 => self.replies.extend_from_slice(b"\x1b[?1;2c"),
            // DA2: terminal type 0, firmware version, no options.
            (Some(b'>'), None, 'c') if first == 0 => {
                self.replies.extend_from_slice(b"\x1b[>0;276;0c")
            }
            // XTVERSION.
            (Some(b'>'), None, 'q') => {
                let reply = format!("\x1bP>|ptypilot({})\x1b\\", env!("CARGO_PKG_VERSION"));
                self.replies.extend_from_slice(reply.as_bytes());
            }
            // Push and pop the title (XTWINOPS 22/23; `;1` is the icon name
            // alone, which we do not keep). Programs such as vim push the
            // title before setting their own and pop it when they exit.
            (None, None, 't') if matches!(first, 22 | 23) => {
                let which = params.get(1).and_then(|p| p.first()).copied().unwrap_or(0);
                if which == 1 {
                    return;
                }
                if first == 22 {
                    if self.title_stack.len() == TITLE_STACK_LIMIT {
                        self.title_stack.remove(0);
                    }
                    self.title_stack.push(self.title.clone());
                } else if let Some(title) = self.title_stack.pop() {
                    self.title = title;
                }
            }
            // Window size in characters.
            (None, None, 't') if first == 18 => {
                let (rows, cols) = screen.size();
                let reply = format!("\x1b[8;{rows};{cols}t");
                self.replies.extend_from_slice(reply.as_bytes());
            }
            // Synchronized output (mode 2026) begins / ends.
            (Some(b'?'), None, 'h') if has(2026) => self.synchronized = true,
            (Some(b'?'), None, 'l') if has(2026) => self.synchronized = false,
            // The kitty keyboard protocol: push, pop, set, query.
            (Some(marker @ (b'>' | b'<' | b'=' | b'?')), None, 'u') => {
                let values: Vec<u16> = params
                    .iter()
                    .map(|p| p.first().copied().unwrap_or(0))
                    .collect();
                let alt = screen.alternate_screen();
                if let Some(reply) = self.kitty.apply(alt, marker, &values) {
                    self.replies.extend_from_slice(&reply);
                }
            }
            // DECRQM (mode queries) is answered in `compat`, which knows the
            // modes vt100 does not keep.
            _ => {}
        }
    }

    fn unhandled_osc(&mut self, _: &mut vt100::Screen, params: &[&[u8]]) {
        // Colour queries (`OSC 10/11/12 ; ?`): answer a light-on-dark terminal
        // so programs that wait for the answer do not stall.
        if let [which, b"?"] = params {
            let colour = match *which {
                b"10" => "ffff/ffff/ffff",
                b"11" => "0000/0000/0000",
                b"12" => "ffff/ffff/ffff",
                _ => return,
            };
            let which = String::from_utf8_lossy(which);
            let reply = format!("\x1b]{which};rgb:{colour}\x1b\\");
            self.replies.extend_from_slice(reply.as_bytes());
        }
    }
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

    /// Drops the waiting text that would scroll out unparsed anyway.
    fn drop_skippable(&mut self) {
        // All of it may wait but the open sequence at its end, and the
        // leading printable ASCII is known: neither is scanned again.
        let known = Known {
            plain: Some(self.pending.len() - self.open),
            ascii: Some(self.pending_ascii),
        };
        #[cfg(test)]
        assert_eq!(
            (known.plain, known.ascii),
            (
                Some(deferrable_prefix(&self.pending)),
                Some(ascii_printable_prefix(&self.pending))
            ),
            "what is known of the waiting text"
        );
        let Some((cut, skip)) = self.skip_of(&self.pending, known) else {
            return;
        };
        let pen = pen_after(&self.pending[..cut]);
        self.pending.drain(..cut);
        self.pending_ascii = match self.pending_ascii.checked_sub(cut) {
            Some(rest) => rest,
            // The run ended before the cut (text with line feeds): it ends
            // at the first control byte, usually soon.
            None => ascii_printable_prefix(&self.pending),
        };
        // The rest of a held character was in the dropped text.
        self.held.clear();
        self.apply_skip(skip, cut, &pen);
    }

    /// Whether `bytes` may wait unparsed: plain text and colours that start
    /// between sequences (or finish the colour `pending` ends in). `Some`
    /// holds the length of a colour or erase sequence left open at its end.
    fn can_defer(&self, bytes: &[u8]) -> Option<usize> {
        if self.pending.is_empty() {
            return if self.compat.at_ground() {
                deferrable(bytes)
            } else {
                None
            };
        }
        if self.open == 0 {
            return deferrable(bytes);
        }
        // Finish the open sequence with the first bytes of this read.
        let mut head = self.pending[self.pending.len() - self.open..].to_vec();
        head.extend_from_slice(&bytes[..bytes.len().min(OPEN_MAX)]);
        match quiet_sequence(&head) {
            Some((n, _)) => deferrable(&bytes[n - self.open..]),
            None if head.len() < OPEN_MAX && bytes.len() < OPEN_MAX && quiet_start(&head) => {
                Some(head.len())
            }
            None => None,
        }
    }

    /// Parses the text that waited (see [`Screen::process`]).
    ///
    /// Any reply it produces (none, for plain text) is kept for the next
    /// [`Screen::process`] call.
    fn catch_up(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let mut pending = std::mem::take(&mut self.pending);
        self.open = 0;
        self.pending_ascii = 0;
        self.parse(&pending);
        pending.clear();
        if pending.capacity() <= PENDING_KEPT {
            self.pending = pending;
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

    /// Sets the cursor and the colours (`pen`, see [`pen_after`]) as the
    /// `cut` bytes of text that go unparsed left them (see [`Skip`]).
    fn apply_skip(&mut self, skip: Skip, cut: usize, pen: &[u8]) {
        self.dropped += cut;
        self.feed(pen);
        let (rows, cols) = self.size();
        let seq = match skip {
            Skip::LineStart => format!("\x1b[{rows};1H"),
            // The last character before the cut, printed in the last
            // column, leaves the wrap pending as the full text would.
            Skip::RowStart(last) => format!("\x1b[{rows};{cols}H{}", char::from(last)),
        };
        self.feed(seq.as_bytes());
    }

    /// How many leading bytes of `bytes` can go unparsed, for tests.
    #[cfg(test)]
    fn plain_text_to_skip(&self, bytes: &[u8]) -> usize {
        self.skip_of(bytes, Known::default())
            .map_or(0, |(cut, _)| cut)
    }

    /// How many leading bytes of `bytes` can go unparsed, and where they
    /// leave the cursor (see [`Screen::process`]).
    fn skip_of(&self, bytes: &[u8], known: Known) -> Option<(usize, Skip)> {
        if !self.fast_forward || bytes.len() < FAST_FORWARD_MIN {
            return None;
        }
        let screen = self.parser.screen();
        let (rows, _) = self.size();
        if screen.alternate_screen() || !self.compat.plain_text_ok(rows) {
            return None;
        }
        // The leading run of printable characters, CR, LF, tab and colours.
        let plain = known.plain.unwrap_or_else(|| deferrable_prefix(bytes));
        // Line feeds that must follow the cut: each scrolls at least one
        // row, so these push the screen and the whole scrollback out, and
        // leave vt100's count of lost scrollback rows at least as large as
        // any growth a resize could later ask for.
        let keep = usize::from(rows) + screen.scrollback_capacity() + usize::from(ROWS_RANGE.1) + 1;
        // The cut is just after the line feed with `keep` more after it
        // (searched from the end, with SIMD: a long line without line feeds
        // is megabytes of text without one).
        let Some(cut) = memchr::memrchr_iter(b'\n', &bytes[..plain])
            .nth(keep)
            .map(|i| i + 1)
        else {
            return self.row_skip_of(bytes, keep, known.ascii);
        };
        // After CR LF the cursor is in column 0; and with at least a screen
        // of line feeds before the cut it is on the bottom row.
        let crlf = cut >= 2 && bytes[cut - 2] == b'\r';
        let lfs_before = memchr::memrchr_iter(b'\n', &bytes[..cut])
            .take(usize::from(rows))
            .count();
        if !crlf || lfs_before < usize::from(rows) || cut < FAST_FORWARD_MIN / 4 {
            return None;
        }
        Some((cut, Skip::LineStart))
    }

    /// The skip for a long line without line feeds: printable ASCII that
    /// wraps at the right margin, each wrap on the bottom row scrolling one
    /// row as a line feed would. The cut is at a row start, with enough
    /// wraps before it to bring the cursor to the bottom row and `keep`
    /// wraps after it.
    fn row_skip_of(
        &self,
        bytes: &[u8],
        keep: usize,
        ascii: Option<usize>,
    ) -> Option<(usize, Skip)> {
        if !self.compat.wrap_skip_ok() {
            return None;
        }
        let (rows, cols) = self.size();
        let (rows, cols) = (usize::from(rows), usize::from(cols));
        let run = ascii.unwrap_or_else(|| ascii_printable_prefix(bytes));
        // The first character that starts a row: the one after the last
        // column, or the first when a wrap is already pending.
        let col = usize::from(self.parser.screen().cursor_position().1);
        let first = cols.saturating_sub(col);
        // Rows start at first + j * cols; the last one inside the run:
        let last = run.checked_sub(first + 1)? / cols;
        let cut_row = last.checked_sub(keep)?;
        let cut = first + cut_row * cols;
        if cut_row + 1 < rows || cut < FAST_FORWARD_MIN / 4 {
            return None;
        }
        Some((cut, Skip::RowStart(bytes[cut - 1])))
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

/// The length of the leading run of printable ASCII (0x20..=0x7e) in
/// `bytes`. In blocks without an early exit inside, so the check vectorizes
/// (it runs over megabytes when a line has no line feeds).
fn ascii_printable_prefix(bytes: &[u8]) -> usize {
    let not_printable = |b: u8| b.wrapping_sub(0x20) > 0x7e - 0x20;
    let mut done = 0;
    for block in bytes.chunks(256) {
        if block.iter().fold(false, |bad, &b| bad | not_printable(b)) {
            return done
                + block
                    .iter()
                    .position(|&b| not_printable(b))
                    .unwrap_or(block.len());
        }
        done += block.len();
    }
    done
}

/// The length of the leading run of plain text in `bytes`: printable
/// characters (any byte from 0x20 but DEL, so UTF-8 too), CR, LF and tab.
fn plain_prefix(bytes: &[u8]) -> usize {
    // Branch-free, and blocks without an early exit inside, so the check
    // vectorizes.
    let not_plain = |b: u8| ((b < 0x20) & (b != b'\r') & (b != b'\n') & (b != b'\t')) | (b == 0x7f);
    let mut done = 0;
    for block in bytes.chunks(256) {
        if block.iter().fold(false, |bad, &b| bad | not_plain(b)) {
            let at = block
                .iter()
                .position(|&b| not_plain(b))
                .unwrap_or(block.len());
            return done + at;
        }
        done += block.len();
    }
    done
}

/// The length of the leading run of `bytes` that may wait unparsed: plain
/// text (see [`plain_prefix`]), complete SGR sequences (colours and other
/// character attributes) and erases within the line (EL, which `grep
/// --color` sends after each colour). None of these moves the cursor, asks
/// anything or changes a mode.
fn deferrable_prefix(bytes: &[u8]) -> usize {
    let mut at = 0;
    loop {
        at += plain_prefix(&bytes[at..]);
        match quiet_sequence(&bytes[at..]) {
            Some((n, _)) => at += n,
            None => return at,
        }
    }
}

/// `Some` when all of `bytes` may wait unparsed (see [`deferrable_prefix`]),
/// with the length of a colour or erase sequence it ends in the middle of.
fn deferrable(bytes: &[u8]) -> Option<usize> {
    let run = deferrable_prefix(bytes);
    let rest = &bytes[run..];
    if rest.is_empty() {
        Some(0)
    } else {
        (rest.len() < OPEN_MAX && quiet_start(rest)).then_some(rest.len())
    }
}

/// Longest colour or erase sequence that may be left open at the end of
/// waiting text.
const OPEN_MAX: usize = 64;

/// True when `bytes` is the start of what may still become a colour or
/// erase sequence.
fn quiet_start(bytes: &[u8]) -> bool {
    bytes == b"\x1b" || (bytes.starts_with(b"\x1b[") && bytes[2..].iter().all(sgr_param))
}

/// True for the bytes of SGR parameters: digits, `;` and `:`.
fn sgr_param(b: &u8) -> bool {
    matches!(b, b'0'..=b'9' | b';' | b':')
}

/// The length and final byte of the SGR (`ESC [`, digits, `;` and `:`,
/// then `m`) or EL (`ESC [`, digits, then `K`) sequence that `bytes` starts
/// with, if it starts with a complete one.
fn quiet_sequence(bytes: &[u8]) -> Option<(usize, u8)> {
    if !bytes.starts_with(b"\x1b[") {
        return None;
    }
    let params = bytes[2..].iter().position(|b| !sgr_param(b))?;
    let params_bytes = &bytes[2..2 + params];
    match bytes[2 + params] {
        b'm' => Some((3 + params, b'm')),
        b'K' if params_bytes.iter().all(u8::is_ascii_digit) => Some((3 + params, b'K')),
        _ => None,
    }
}

/// The SGR sequences of `bytes` that decide the attributes it leaves set:
/// those from the last one that starts by resetting them all (first
/// parameter 0 or empty).
fn pen_after(bytes: &[u8]) -> Vec<u8> {
    let mut from = None;
    let mut sgrs = Vec::new();
    let mut at = 0;
    while let Some(i) = memchr::memchr(0x1b, &bytes[at..]) {
        let start = at + i;
        let Some((n, last)) = quiet_sequence(&bytes[start..]) else {
            at = start + 1;
            continue;
        };
        at = start + n;
        if last != b'm' {
            continue;
        }
        let params = &bytes[start + 2..start + n - 1];
        let first = params.split(|&b| b == b';').next().unwrap_or_default();
        if first.iter().all(|&b| b == b'0') {
            from = Some(sgrs.len());
        }
        sgrs.push(start..start + n);
    }
    sgrs[from.unwrap_or(0)..]
        .iter()
        .flat_map(|r| bytes[r.clone()].iter().copied())
        .collect()
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
mod tests {
    use super::*;

    fn screen_of(bytes: &[u8]) -> (Screen, Vec<u8>) {
        let mut screen = Screen::new(24, 80, 100);
        let mut replies = Vec::new();
        screen.process(bytes, &mut replies);
        (screen, replies)
    }

    #[test]
    fn text_trims_rows_and_drops_trailing_blank_rows() {
        let (mut screen, _) = screen_of(b"a   \r\n\r\n  b  \r\n   \r\n");
        let snap = screen.snapshot();
        assert_eq!(snap.text, "a\n\n  b");
        assert_eq!(snap.lines.len(), 24);
        assert_eq!(&snap.lines[..4], &["a", "", "  b", ""]);
        assert_eq!(screen.text(), snap.text);
    }

    #[test]
    fn only_blank_cells_are_trimmed() {
        let (mut screen, _) = screen_of("a\u{a0}\r\nb\u{3000}\r\nc\t\r\n".as_bytes());
        let snap = screen.snapshot();
        assert_eq!(&snap.lines[..3], ["a\u{a0}", "b\u{3000}", "c"]);
        assert_eq!(snap.text, "a\u{a0}\nb\u{3000}\nc");
    }

    #[test]
    fn a_row_of_spaces_is_blank_and_inner_gaps_stay() {
        let (mut screen, _) = screen_of(b"      \r\n\x1b[2;5Hx\x1b[3;1H\x1b[44m\x1b[K\x1b[m");
        let snap = screen.snapshot();
        assert_eq!(&snap.lines[..3], ["", "    x", ""]);
        assert_eq!(snap.text, "\n    x");
    }

    #[test]
    fn empty_screen_is_empty_text() {
        let (mut screen, _) = screen_of(b"");
        let snap = screen.snapshot();
        assert_eq!(snap.text, "");
        assert!(snap.lines.iter().all(String::is_empty));
        assert_eq!((snap.cursor_row, snap.cursor_col), (0, 0));
        assert!(snap.cursor_visible);
    }

    #[test]
    fn wide_and_combining_characters_are_one_character_each() {
        let (mut screen, _) = screen_of("日本語 e\u{301}x".as_bytes());
        let snap = screen.snapshot();
        assert_eq!(snap.text, "日本語 e\u{301}x");
        // Three wide characters take six columns.
        assert_eq!(snap.cursor_col, 6 + 1 + 1 + 1);
    }

    #[test]
    fn cursor_movement_and_erase() {
        let (mut screen, _) = screen_of(b"hello world\x1b[1;7H\x1b[KWORLD\x1b[5;3Hx");
        let snap = screen.snapshot();
        assert_eq!(snap.lines[0], "hello WORLD");
        assert_eq!(snap.lines[4], "  x");
        assert_eq!((snap.cursor_row, snap.cursor_col), (4, 3));
    }

    #[test]
    fn alternate_screen_and_hidden_cursor() {
        let (mut screen, _) = screen_of(b"main\x1b[?1049h\x1b[?25lfull");
        let snap = screen.snapshot();
        assert!(snap.alt_screen);
        assert!(!snap.cursor_visible);
        // The alternate screen starts blank; the cursor stays where it was.
        assert_eq!(snap.text, "    full");
        let mut replies = Vec::new();
        screen.process(b"\x1b[?1049l\x1b[?25h", &mut replies);
        let snap = screen.snapshot();
        assert!(!snap.alt_screen);
        assert_eq!(snap.text, "main");
    }

    #[test]
    fn answers_queries_in_order() {
        let (_, replies) = screen_of(b"ab\x1b[5n\x1b[6n\x1b[c\x1b[>c\x1b[?6n\x1b[18t");
        assert_eq!(
            String::from_utf8(replies).unwrap(),
            "\x1b[0n\x1b[1;3R\x1b[?1;2c\x1b[>0;276;0c\x1b[?1;3R\x1b[8;24;80t"
        );
    }

    #[test]
    fn answers_colour_queries_and_xtversion() {
        let (_, replies) = screen_of(b"\x1b]11;?\x07\x1b[>q");
        let replies = String::from_utf8(replies).unwrap();
        assert!(
            replies.starts_with("\x1b]11;rgb:0000/0000/0000\x1b\\"),
            "{replies:?}"
        );
        assert!(replies.contains("\x1bP>|ptypilot("), "{replies:?}");
    }

    #[test]
    fn tracks_synchronized_output_and_reports_support() {
        let (mut screen, replies) = screen_of(b"\x1b[?2026$p\x1b[?2026h");
        assert_eq!(replies, b"\x1b[?2026;2$y");
        assert!(screen.synchronized());
        let mut replies = Vec::new();
        screen.process(b"frame\x1b[?2026l", &mut replies);
        assert!(!screen.synchronized());
    }

    #[test]
    fn kitty_keyboard_flags_per_screen_answered_and_reset() {
        let (mut screen, replies) = screen_of(b"\x1b[?u\x1b[>1u\x1b[?u\x1b[>11u\x1b[?u");
        assert_eq!(replies, b"\x1b[?0u\x1b[?1u\x1b[?11u");
        assert_eq!(screen.modes().kitty_flags, 11);
        let mut r = Vec::new();
        // The alternate screen has its own stack.
        screen.process(b"\x1b[?1049h\x1b[?u", &mut r);
        assert_eq!((screen.modes().kitty_flags, &r[..]), (0, &b"\x1b[?0u"[..]));
        screen.process(b"\x1b[=5;1u", &mut r);
        assert_eq!(screen.modes().kitty_flags, 5);
        screen.process(b"\x1b[?1049l\x1b[<u", &mut r);
        assert_eq!(screen.modes().kitty_flags, 1);
        // Split between reads, then a full reset.
        screen.process(b"\x1b[>", &mut r);
        screen.process(b"9u", &mut r);
        assert_eq!(screen.modes().kitty_flags, 9);
        screen.process(b"\x1b[>3u\x1bc", &mut r);
        assert_eq!(screen.modes().kitty_flags, 0);
        // A plain CSI u still restores the cursor.
        screen.process(b"\x1b[2;3H\x1b[s\x1b[H\x1b[u", &mut r);
        assert_eq!(screen.snapshot().cursor_row, 1);
    }

    #[test]
    fn modes_follow_the_program() {
        let (mut screen, _) = screen_of(b"");
        assert_eq!(screen.modes(), Modes::default());
        let mut r = Vec::new();
        screen.process(b"\x1b[?1h\x1b=\x1b[?2004h", &mut r);
        let modes = screen.modes();
        assert!(modes.application_cursor && modes.application_keypad && modes.bracketed_paste);
        screen.process(b"\x1b[?1l\x1b>\x1b[?2004l", &mut r);
        assert_eq!(screen.modes(), Modes::default());
    }

    #[test]
    fn title_from_osc_0_and_2() {
        let (mut screen, _) = screen_of(b"\x1b]0;first\x07");
        assert_eq!(screen.snapshot().title, "first");
        let mut r = Vec::new();
        screen.process(b"\x1b]2;second\x1b\\", &mut r);
        assert_eq!(screen.snapshot().title, "second");
    }

    #[test]
    fn title_stack_push_and_pop() {
        let (mut screen, _) = screen_of(b"\x1b]2;shell\x07\x1b[22;0t\x1b]2;vim\x07");
        assert_eq!(screen.snapshot().title, "vim");
        let mut r = Vec::new();
        screen.process(b"\x1b[23;0t", &mut r);
        assert_eq!(screen.snapshot().title, "shell");
        // Icon-name only (`;1`) leaves the title alone; popping an empty
        // stack too.
        screen.process(b"\x1b[22;1t\x1b]2;x\x07\x1b[23;1t\x1b[23t", &mut r);
        assert_eq!(screen.snapshot().title, "x");
        assert!(r.is_empty());
    }

    #[test]
    fn resize_keeps_content_and_reports_new_size() {
        let (mut screen, _) = screen_of(b"hello\r\nworld");
        screen.resize(10, 40);
        let snap = screen.snapshot();
        assert_eq!((snap.rows, snap.cols), (10, 40));
        assert_eq!(snap.lines.len(), 10);
        assert_eq!(snap.text, "hello\nworld");
    }

    #[test]
    fn size_validation_names_the_value() {
        assert_eq!(validate_size(80.0, 24.0).unwrap(), (80, 24));
        let err = validate_size(0.0, 24.0).unwrap_err();
        assert_eq!(
            err.message,
            "cols must be an integer between 2 and 1000, got 0"
        );
        let err = validate_size(80.0, 2.5).unwrap_err();
        assert_eq!(
            err.message,
            "rows must be an integer between 2 and 500, got 2.5"
        );
        assert!(validate_size(1001.0, 24.0).is_err());
        assert!(validate_size(f64::NAN, 24.0).is_err());
    }

    /// A small deterministic generator (xorshift) for the random floods.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// A plain-text flood: words, long lines that wrap, tabs, wide and
    /// combining characters, mostly CR LF line ends with some bare LF and CR.
    fn flood(rng: &mut Rng, lines: usize) -> Vec<u8> {
        let words = [
            "alpha",
            "beta",
            "\x1b[32mgreen\x1b[0m",
            "\x1b[1;4;38;5;208mfancy",
            "\x1b[m",
            "\x1b[38:2::10:20:30mtrue",
            "\x1b[35m\x1b[Kgrep\x1b[m\x1b[K:",
            "\x1b[2Kerased",
            "日本語",
            "e\u{301}",
            "\t",
            "x",
            "-----",
            "0123456789",
            "é",
        ];
        let mut out = Vec::new();
        for n in 0..lines {
            let len = match rng.below(10) {
                0 => 40 + rng.below(200),
                _ => rng.below(12),
            };
            out.extend_from_slice(format!("{n}:").as_bytes());
            for _ in 0..len {
                out.extend_from_slice(words[rng.below(words.len() as u64) as usize].as_bytes());
                out.push(b' ');
            }
            out.extend_from_slice(match rng.below(20) {
                0 => b"\n".as_slice(),
                1 => b"\rover\r\n",
                _ => b"\r\n",
            });
        }
        out
    }

    fn compare(a: &mut Screen, b: &mut Screen, what: &str) {
        assert_eq!(a.lines(), b.lines(), "{what}: lines");
        // Colours and attributes too: of every cell, and the ones set now.
        assert_eq!(
            a.parser.screen().contents_formatted(),
            b.parser.screen().contents_formatted(),
            "{what}: cells with attributes"
        );
        assert_eq!(
            a.parser.screen().attributes_formatted(),
            b.parser.screen().attributes_formatted(),
            "{what}: attributes set"
        );
        assert_eq!(
            a.parser.screen().cursor_position(),
            b.parser.screen().cursor_position(),
            "{what}: cursor"
        );
        let cap = a.parser.screen().scrollback_capacity();
        assert_eq!(cap, b.parser.screen().scrollback_capacity());
        for offset in [1, cap / 2, cap] {
            a.parser.screen_mut().set_scrollback(offset);
            b.parser.screen_mut().set_scrollback(offset);
            assert_eq!(a.lines(), b.lines(), "{what}: scrollback at {offset}");
        }
        a.parser.screen_mut().set_scrollback(0);
        b.parser.screen_mut().set_scrollback(0);
    }

    /// [`compare`], then again after a random resize that grows the screen
    /// (which pulls rows back from the scrollback).
    fn compare_and_grow(a: &mut Screen, b: &mut Screen, what: &str, rng: &mut Rng) {
        compare(a, b, what);
        let (rows, cols) = a.size();
        let taller = rows + rng.below(u64::from(ROWS_RANGE.1 - rows) + 1) as u16;
        a.resize(taller, cols);
        b.resize(taller, cols);
        compare(a, b, &format!("{what}, resized to {taller} rows"));
    }

    #[test]
    fn fast_forward_over_plain_text_changes_nothing() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut skipped_somewhere = false;
        for case in 0..24 {
            let rows = 2 + rng.below(40) as u16;
            let cols = 10 + rng.below(120) as u16;
            let scrollback = [0, 7, 100, 1000][rng.below(4) as usize];
            let mut full = Screen::new(rows, cols, scrollback);
            full.fast_forward = false;
            let mut fast = Screen::new(rows, cols, scrollback);
            // A prelude that leaves colours, a cursor somewhere and, in some
            // cases, margins that were set and reset.
            let mut bytes: Vec<u8> = b"\x1b[1;33mcoloured\x1b[5;3Hmoved\r\n".to_vec();
            if case % 3 == 0 {
                bytes.extend_from_slice(b"\x1b[2;4r\x1b[r\x1b[?6h\x1b[?6l");
            }
            if case % 4 == 1 {
                bytes.extend_from_slice(b"\x1b[?7l");
            }
            let lines = 1500 + rng.below(5000) as usize;
            bytes.extend(flood(&mut rng, lines));
            bytes.extend_from_slice(b"\x1b[0mtail \x1b[2Aup\r\nlast line");
            let lines = rng.below(3000) as usize;
            bytes.extend(flood(&mut rng, lines));
            let mut at = 0;
            let mut replies = Vec::new();
            while at < bytes.len() {
                let n = (1 + rng.below(96 << 10) as usize).min(bytes.len() - at);
                skipped_somewhere |= fast.plain_text_to_skip(&bytes[at..at + n]) > 0;
                full.process(&bytes[at..at + n], &mut replies);
                fast.process(&bytes[at..at + n], &mut replies);
                at += n;
            }
            let what = format!("case {case}: {rows}x{cols}, scrollback {scrollback}");
            compare_and_grow(&mut full, &mut fast, &what, &mut rng);
        }
        assert!(skipped_somewhere, "the floods never took the fast path");
    }

    #[test]
    fn fast_forward_keeps_later_resizes_exact() {
        // Short lines that never wrap: every line feed scrolls exactly one
        // row, so only the margin in `keep` stands between the skip and a
        // resize that pulls more rows than were counted.
        let text: Vec<u8> = (0..60_000)
            .flat_map(|n| format!("{n}\r\n").into_bytes())
            .collect();
        for (rows, scrollback, taller) in
            [(10, 7, 400), (24, 0, 500), (2, 100, 499), (40, 1000, 500)]
        {
            let mut full = Screen::new(rows, 80, scrollback);
            full.fast_forward = false;
            let mut fast = Screen::new(rows, 80, scrollback);
            assert!(fast.plain_text_to_skip(&text) > 0);
            let mut replies = Vec::new();
            full.process(&text, &mut replies);
            fast.process(&text, &mut replies);
            let what = format!("{rows} rows, scrollback {scrollback}");
            compare(&mut full, &mut fast, &what);
            full.resize(taller, 80);
            fast.resize(taller, 80);
            compare(
                &mut full,
                &mut fast,
                &format!("{what}, resized to {taller}"),
            );
        }
    }

    /// Output of an interactive program between two looks at the screen:
    /// mostly a few keys' echo and line edits, sometimes anything.
    fn keystrokes(rng: &mut Rng) -> Vec<u8> {
        let small: [&[u8]; 18] = [
            b"x",
            b"hello",
            b" ",
            b"\x08 \x08",
            b"\x08\x1b[K",
            b"\r",
            b"\x1b[1K",
            b"\x1b[2K",
            b"\x1b[1;31m",
            b"\x1b[0m",
            b"\x1b[3C",
            b"\x1b[D",
            "\u{e9}".as_bytes(),
            "e\u{301}".as_bytes(),
            "\u{6f22}".as_bytes(),
            "\u{2764}\u{fe0f}".as_bytes(),
            "\u{fffd}".as_bytes(),
            b"\x07",
        ];
        let large: [&[u8]; 12] = [
            b"\r\n",
            b"\n",
            b"\t",
            b"\x1b[2;3H",
            b"\x1b[4h",
            b"\x1b[4l",
            b"\x1b[?7l",
            b"\x1b[?7h",
            b"\x1b(0qx\x1b(B",
            b"\x1b[?1049h",
            b"\x1b[?1049l",
            b"abcdefghijklmnopqrstuvwxyz",
        ];
        let mut out = Vec::new();
        for _ in 0..1 + rng.below(4) {
            let piece = if rng.below(8) == 0 {
                large[rng.below(large.len() as u64) as usize]
            } else {
                small[rng.below(small.len() as u64) as usize]
            };
            out.extend_from_slice(piece);
        }
        out
    }

    /// How [`check_kept_rows`] drives its screens.
    struct KeptRows {
        seed: u64,
        cases: u32,
        /// Screens up to 60 columns wide as well as narrow ones, a scrollback
        /// of 0 or 2 rows, output cut anywhere (inside a sequence or a
        /// character) and the screen resized now and then.
        wide_cut_resized: bool,
        /// Pieces added to one output in four.
        extra: &'static [&'static [u8]],
    }

    /// Runs random screens of 60 outputs each ([`keystrokes`], plus the
    /// extra pieces) and checks after every output that the rows kept
    /// between looks are the rows read cell by cell. Returns how many looks
    /// rebuilt only the cursor's row.
    fn check_kept_rows(drive: KeptRows) -> usize {
        let mut rng = Rng(drive.seed);
        let mut partial = 0;
        for case in 0..drive.cases {
            let rows = 1 + rng.below(6) as u16;
            let (cols, scrollback) = if drive.wide_cut_resized {
                // Narrow screens hit the margins; wider ones keep edits in a row.
                let widest = [14, 60][rng.below(2) as usize];
                let cols = 1 + rng.below(widest) as u16;
                (cols, [0, 2][rng.below(2) as usize])
            } else {
                (1 + rng.below(14) as u16, 0)
            };
            let mut screen = Screen::new(rows, cols, scrollback);
            let mut replies = Vec::new();
            for step in 0..60 {
                let mut bytes = keystrokes(&mut rng);
                if !drive.extra.is_empty() && rng.below(4) == 0 {
                    let piece = drive.extra[rng.below(drive.extra.len() as u64) as usize];
                    bytes.extend_from_slice(piece);
                }
                let cut = if drive.wide_cut_resized && rng.below(4) == 0 {
                    rng.below(bytes.len() as u64 + 1) as usize
                } else {
                    bytes.len()
                };
                screen.process(&bytes[..cut], &mut replies);
                screen.process(&bytes[cut..], &mut replies);
                if drive.wide_cut_resized && rng.below(30) == 0 {
                    screen.resize(1 + rng.below(6) as u16, 1 + rng.below(14) as u16);
                }
                assert_eq!(
                    screen.text(),
                    screen.text_uncached(),
                    "case {case} ({rows}x{cols}), step {step}, after {:?}",
                    String::from_utf8_lossy(&bytes)
                );
            }
            partial += screen.rows.partial_builds;
        }
        partial
    }

    #[test]
    fn kept_rows_are_the_rows_after_any_output() {
        let partial = check_kept_rows(KeptRows {
            seed: 0x9e37_79b9_7f4a_7c15,
            cases: 400,
            wide_cut_resized: true,
            extra: &[],
        });
        // Many looks rebuilt only the cursor's row (the rest were refused
        // or came after a refused change).
        assert!(partial > 400 * 60 / 4, "{partial} partial builds");
    }

    /// The kept rows stay right in the states where output on the row can
    /// leave it without the cursor's column showing it: a pending wrap kept
    /// through tabulation backwards (the next character wraps), a cursor
    /// saved with a wrap pending and restored (on either screen), reverse
    /// wraparound (45, 1045; from the home position, and outside the scroll
    /// region) and left and right margins (DECSLRM).
    #[test]
    fn kept_rows_see_output_leave_the_row() {
        check_kept_rows(KeptRows {
            seed: 0x2545_f491_4f6c_dd1d,
            cases: 300,
            wide_cut_resized: false,
            extra: &[
                b"\x1b[Z",
                b"\x1b[?45h",
                b"\x1b[?1045h",
                b"\x1b[?69h\x1b[2;5s",
                b"\x1b[?45;1045l",
                b"\x1b[?69l",
                b"\x1b7",
                b"\x1b8",
                b"\x1b[s",
                b"\x1b[u",
                b"\x1b[99Cx\x1b7",
                b"\x1b[99Cx\x1b[s",
                b"\x1b[H\x08",
                b"\x1b[H\x08\x08the end",
                b"\x1b[2;3r",
                b"\x1b[r",
            ],
        });
        // The same with the wide screens, cuts and resizes.
        check_kept_rows(KeptRows {
            seed: 0x5851_f42d_4c95_7f2d,
            cases: 200,
            wide_cut_resized: true,
            extra: &[
                b"\x1b[?45h",
                b"\x1b[?1045h",
                b"\x1b[?45;1045l",
                b"\x1b7",
                b"\x1b8",
                b"\x1b[s",
                b"\x1b[u",
                b"\x1b[99Cx\x1b7",
                b"\x1b[H\x08",
                b"\x1b[2;3r",
                b"\x1b[r",
            ],
        });
    }

    /// Output of a program that mixes floods with everything else: colours,
    /// cursor moves, erases, queries (some split across chunks), modes, the
    /// alternate screen, titles, backspaces, margins (on either screen),
    /// origin mode, soft resets and saved cursors.
    fn mixed_output(rng: &mut Rng) -> Vec<u8> {
        let pieces: [&[u8]; 22] = [
            b"\x1b[1;31m",
            b"\x1b[0m",
            b"\x1b[6n",
            b"\x1b[c",
            b"\x1b[?2026h",
            b"\x1b[?2026l",
            b"\x1b[?1h",
            b"\x1b[?1l",
            b"\x1b]0;title\x07",
            b"\x1b[5;7H",
            b"\x1b[2J",
            b"\x08\x08",
            b"\x1b[3;9r",
            b"\x1b[r",
            b"\x1b[?1049h",
            b"\x1b[?1049l",
            b"\x1b[1K",
            b"\x1b[!p",
            b"\x1b[?6h",
            b"\x1b[?6l",
            b"\x1b7",
            b"\x1b8",
        ];
        let mut out = Vec::new();
        for _ in 0..60 {
            if rng.below(3) == 0 {
                let lines = rng.below(3000) as usize;
                out.extend(flood(rng, lines));
            } else {
                out.extend_from_slice(pieces[rng.below(pieces.len() as u64) as usize]);
                let lines = rng.below(4) as usize;
                out.extend(flood(rng, lines));
            }
        }
        out
    }

    /// Two screens of a random size and scrollback: one that parses every
    /// byte as it comes, and one that waits and skips, with a random (often
    /// small, so it is hit) limit for waiting text; and the size as text.
    fn exact_and_lazy(rng: &mut Rng) -> (Screen, Screen, String) {
        let rows = 2 + rng.below(40) as u16;
        let cols = 10 + rng.below(120) as u16;
        let scrollback = [0, 7, 100, 1000][rng.below(4) as usize];
        let mut exact = Screen::new(rows, cols, scrollback);
        exact.fast_forward = false;
        exact.defer = false;
        let mut lazy = Screen::new(rows, cols, scrollback);
        lazy.defer_max = [16 << 10, 64 << 10, DEFER_MAX][rng.below(3) as usize];
        (
            exact,
            lazy,
            format!("{rows}x{cols}, scrollback {scrollback}"),
        )
    }

    #[test]
    fn deferred_parsing_changes_nothing_anyone_can_see() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let (mut deferred_somewhere, mut dropped_somewhere, mut opened) = (false, false, false);
        for case in 0..16 {
            let (mut exact, mut lazy, size) = exact_and_lazy(&mut rng);
            let bytes = mixed_output(&mut rng);
            let what = format!("case {case}: {size}");
            let (mut exact_replies, mut lazy_replies) = (Vec::new(), Vec::new());
            let mut at = 0;
            while at < bytes.len() {
                // Small chunks split sequences; large ones carry floods.
                let most = if rng.below(2) == 0 { 8 } else { 96 << 10 };
                let n = (1 + rng.below(most) as usize).min(bytes.len() - at);
                exact.process(&bytes[at..at + n], &mut exact_replies);
                lazy.process(&bytes[at..at + n], &mut lazy_replies);
                at += n;
                deferred_somewhere |= !lazy.pending.is_empty();
                dropped_somewhere |= lazy.dropped > 0;
                opened |= lazy.open > 0;
                // Every reply goes out as soon as its query arrived.
                assert_eq!(lazy_replies, exact_replies, "{what}: replies at {at}");
                assert_eq!(lazy.modes(), exact.modes(), "{what}: modes at {at}");
                assert_eq!(
                    lazy.synchronized(),
                    exact.synchronized(),
                    "{what}: 2026 at {at}"
                );
                assert_eq!(lazy.alt_screen(), exact.alt_screen(), "{what}: alt at {at}");
                if rng.below(8) == 0 {
                    assert_eq!(
                        lazy.snapshot(),
                        exact.snapshot(),
                        "{what}: snapshot at {at}"
                    );
                }
                if rng.below(64) == 0 {
                    // Sometimes the same size, which changes nothing.
                    let (r, c) = match rng.below(4) {
                        0 => exact.size(),
                        _ => (2 + rng.below(40) as u16, 10 + rng.below(120) as u16),
                    };
                    exact.resize(r, c);
                    lazy.resize(r, c);
                }
            }
            assert_eq!(lazy.snapshot(), exact.snapshot(), "{what}: at the end");
            compare(&mut exact, &mut lazy, &what);
        }
        assert!(deferred_somewhere, "no output ever waited");
        assert!(dropped_somewhere, "waiting output was never dropped");
        assert!(opened, "no colour was ever split between reads");
    }

    #[test]
    fn characters_split_between_reads_lose_nothing() {
        // Two-, three- and four-byte characters, a combining mark, then more
        // text right behind each, and an invalid sequence.
        let text =
            "x \u{e9} \u{65e5}\u{672c} e\u{301}C\u{2500} \u{1f600}y \u{e9}\u{65e5}".as_bytes();
        let mut bytes = text.to_vec();
        bytes.extend_from_slice(b" \xc3( \xe6\x97z end");
        let mut whole = Screen::new(5, 40, 0);
        let mut replies = Vec::new();
        whole.process(&bytes, &mut replies);
        let want = whole.snapshot();
        assert!(
            want.text
                .starts_with("x \u{e9} \u{65e5}\u{672c} e\u{301}C\u{2500} \u{1f600}y")
        );
        for at in 1..bytes.len() {
            for at2 in [at + 1, at + 2, bytes.len()] {
                let mut split = Screen::new(5, 40, 0);
                split.defer = false;
                split.process(&bytes[..at], &mut replies);
                split.process(&bytes[at..at2.min(bytes.len())], &mut replies);
                split.process(&bytes[at2.min(bytes.len())..], &mut replies);
                assert_eq!(split.snapshot(), want, "split at {at} and {at2}");
            }
        }
    }

    #[test]
    fn a_query_split_across_chunks_is_answered_at_once() {
        let mut screen = Screen::new(24, 80, 100);
        let mut replies = Vec::new();
        screen.process(b"plain text\r\n", &mut replies);
        assert!(!screen.pending.is_empty(), "plain text waits");
        // It may still become a colour: it waits too.
        screen.process(b"\x1b[", &mut replies);
        screen.process(b"6", &mut replies);
        assert_eq!(screen.open, 3);
        screen.process(b"n", &mut replies);
        assert!(
            screen.pending.is_empty(),
            "a query parses what waited first"
        );
        assert_eq!(replies, b"\x1b[2;1R");
        // A colour split the same way waits, and shows once looked at.
        screen.process(b"x\x1b[3", &mut replies);
        screen.process(b"1mred", &mut replies);
        assert_eq!(screen.open, 0);
        assert!(!screen.pending.is_empty());
        assert_eq!(screen.lines()[1], "xred");
        assert_eq!(replies, b"\x1b[2;1R");
    }

    #[test]
    fn fast_forward_over_a_line_without_line_feeds_changes_nothing() {
        let mut rng = Rng(0x51_7cc1_b727_220a);
        let mut skipped = 0;
        for case in 0..24 {
            let (mut exact, mut fast, size) = exact_and_lazy(&mut rng);
            let (rows, cols) = exact.size();
            // Start anywhere: a column, a wrap pending, colours, and in some
            // cases autowrap off or insert mode (where no skip may happen).
            let row = 1 + rng.below(u64::from(rows));
            let col = 1 + rng.below(u64::from(cols));
            let mut bytes = format!("\x1b[1;32mhead\x1b[{row};{col}H").into_bytes();
            match rng.below(6) {
                0 => bytes.extend_from_slice(format!("\x1b[{row};{cols}H!").as_bytes()),
                1 => bytes.extend_from_slice(b"\x1b[?7l"),
                2 => bytes.extend_from_slice(b"\x1b[4h"),
                _ => {}
            }
            let len = 1 + rng.below(3 << 20) as usize;
            let alphabet = b"abcdefghijklmnopqrstuvwxyz0123456789 .-";
            let offset = rng.below(alphabet.len() as u64) as usize;
            bytes.extend((0..len).map(|i| alphabet[(i + offset) % alphabet.len()]));
            if rng.below(2) == 0 {
                bytes.extend_from_slice("\r\nafter \u{65e5}\u{672c}\x1b[0m tail".as_bytes());
            }
            let mut replies = Vec::new();
            let mut at = 0;
            while at < bytes.len() {
                let n = (1 + rng.below(96 << 10) as usize).min(bytes.len() - at);
                exact.process(&bytes[at..at + n], &mut replies);
                fast.process(&bytes[at..at + n], &mut replies);
                at += n;
            }
            let what = format!("case {case}: {size}, {len} chars from {row};{col}");
            assert_eq!(fast.snapshot(), exact.snapshot(), "{what}");
            skipped += fast.dropped;
            compare_and_grow(&mut exact, &mut fast, &what, &mut rng);
        }
        assert!(skipped > 0, "no long line was ever skipped");
    }

    #[test]
    fn fast_forward_keeps_the_colours_set_in_skipped_text() {
        // Colours set early in a flood (some cumulative, one reset on the
        // way) stay on for the lines that are shown. The erase makes the
        // first colour parsed before the flood.
        let mut bytes = b"\x1b[41mbefore\x1b[K\r\n".to_vec();
        for n in 0..20_000 {
            let sgr: &[u8] = match n {
                2000 => b"\x1b[1;31m",
                2100 => b"\x1b[4m",
                2200 => b"\x1b[0;32m",
                2300 => b"\x1b[38:5:208m",
                2400 => b"\x1b[3m",
                _ => b"",
            };
            bytes.extend_from_slice(sgr);
            bytes.extend_from_slice(format!("line {n}\r\n").as_bytes());
        }
        for defer_max in [16 << 10, DEFER_MAX] {
            let mut exact = Screen::new(24, 80, 100);
            exact.fast_forward = false;
            exact.defer = false;
            let mut lazy = Screen::new(24, 80, 100);
            lazy.defer_max = defer_max;
            let mut replies = Vec::new();
            for chunk in bytes.chunks(7000) {
                exact.process(chunk, &mut replies);
                lazy.process(chunk, &mut replies);
            }
            assert_eq!(lazy.snapshot(), exact.snapshot());
            assert!(lazy.dropped > 0, "nothing was skipped");
            compare(&mut exact, &mut lazy, &format!("limit {defer_max}"));
        }
    }

    #[test]
    fn fast_forward_follows_the_margins_of_the_main_screen() {
        let flood_text = flood(&mut Rng(11), 6000);
        let preludes: [(&str, &[u8], bool); 4] = [
            // Margins set on the main screen and reset on the alternate one:
            // both screens share them (xterm), so they are gone.
            (
                "reset on alt",
                b"\x1b[3;9r\x1b[?1049h\x1b[r\x1b[?1049l",
                true,
            ),
            // Margins set on the alternate screen hold on the main one.
            ("set on alt", b"\x1b[?1049h\x1b[3;9r\x1b[?1049l", false),
            // A soft reset (DECSTR) clears them.
            ("soft reset", b"\x1b[3;9r\x1b[!p", true),
            // A resize to the same size keeps them.
            ("same size", b"\x1b[3;9r", false),
        ];
        for (what, prelude, skips) in preludes {
            let mut full = Screen::new(24, 80, 100);
            full.fast_forward = false;
            full.defer = false;
            let mut fast = Screen::new(24, 80, 100);
            let mut replies = Vec::new();
            for screen in [&mut full, &mut fast] {
                screen.process(prelude, &mut replies);
                screen.resize(24, 80);
            }
            assert_eq!(fast.plain_text_to_skip(&flood_text) > 0, skips, "{what}");
            full.process(&flood_text, &mut replies);
            fast.process(&flood_text, &mut replies);
            compare(&mut full, &mut fast, what);
        }
    }

    #[test]
    fn fast_forward_stays_off_where_it_would_not_be_exact() {
        let text = flood(&mut Rng(7), 8000);
        // Inside scroll margins.
        let mut screen = Screen::new(24, 80, 1000);
        let mut replies = Vec::new();
        screen.process(b"\x1b[2;20r", &mut replies);
        assert_eq!(screen.plain_text_to_skip(&text), 0);
        // On the alternate screen.
        let mut screen = Screen::new(24, 80, 1000);
        screen.process(b"\x1b[?1049h", &mut replies);
        assert_eq!(screen.plain_text_to_skip(&text), 0);
        // In the middle of an escape sequence.
        let mut screen = Screen::new(24, 80, 1000);
        screen.process(b"\x1b]0;a title not finished", &mut replies);
        assert_eq!(screen.plain_text_to_skip(&text), 0);
        // Otherwise it does skip.
        let screen = Screen::new(24, 80, 1000);
        assert!(screen.plain_text_to_skip(&text) > 0);
    }

    #[test]
    fn printable_runs_are_found_in_long_and_short_input() {
        // The vectorized scan against the plain definition, on runs that end
        // at every offset within and across its 256-byte blocks.
        let mut rng = Rng(0x7f4a_7c15_9e37_79b9);
        for _ in 0..400 {
            let len = rng.below(1200) as usize;
            let mut bytes: Vec<u8> = (0..len).map(|_| 0x20 + rng.below(0x5f) as u8).collect();
            if len > 0 && rng.below(4) > 0 {
                let at = rng.below(len as u64) as usize;
                bytes[at] = [0x1f, 0x7f, 0x80, 0xff, b'\n', 0x00][rng.below(6) as usize];
            }
            let want = bytes
                .iter()
                .position(|b| !(0x20..=0x7e).contains(b))
                .unwrap_or(bytes.len());
            assert_eq!(ascii_printable_prefix(&bytes), want, "{bytes:?}");
        }
    }

    #[test]
    fn text_is_the_rows_trimmed_and_joined() {
        // The one-buffer text against vt100's rows trimmed one by one, on
        // random screens with trailing spaces, blank rows, stand-ins, wide
        // characters, wrapped rows, the alternate screen and moves.
        let pieces: [&str; 18] = [
            "word",
            "   ",
            " \u{a0}",
            "\r\n",
            "\n",
            "\r",
            "\u{fffd}",
            "\u{2764}\u{fe0f}",
            "日本語",
            "e\u{301}",
            "\x1b[2J",
            "\x1b[K",
            "\x1b[3;7H",
            "\x1b[9;1H",
            "\x1b[?1049h",
            "\x1b[?1049l",
            "\t|",
            "0123456789012345678901234567890123456789",
        ];
        let mut rng = Rng(0x2f1e_3d4c_5b6a_7988);
        for case in 0..300 {
            let (rows, cols) = (2 + rng.below(12) as u16, 2 + rng.below(50) as u16);
            let mut screen = Screen::new(rows, cols, 20);
            let mut replies = Vec::new();
            for _ in 0..rng.below(60) {
                let piece = pieces[rng.below(pieces.len() as u64) as usize];
                screen.process(piece.as_bytes(), &mut replies);
            }
            screen.catch_up();
            let mut rows_text: Vec<String> = screen
                .parser
                .screen()
                .rows(0, cols)
                .map(|row| {
                    let row = row.trim_end_matches(' ').to_string();
                    screen.compat.stand_ins.restore(row)
                })
                .collect();
            let lines = rows_text.clone();
            while rows_text.last().is_some_and(String::is_empty) {
                rows_text.pop();
            }
            let text = rows_text.join("\n");
            assert_eq!(screen.text(), text, "case {case}");
            assert_eq!(screen.lines(), lines, "case {case}");
            let snap = screen.snapshot();
            assert_eq!((&snap.text, &snap.lines), (&text, &lines), "case {case}");
        }
    }
}
