//! xterm behaviour that `vt100` lacks, emulated on top of it.
//!
//! A small scanner follows the escape-sequence grammar alongside vt100's
//! parser (the same states as `vte`, which vt100 uses) and finds the places
//! where the screen model needs help. [`Compat::process`] feeds the output to
//! vt100 in slices cut at those places and applies a fix-up in between, so the
//! screen ends up the way xterm (and xterm.js) would show it:
//!
//! - **character sets**: `ESC ( 0` / `ESC ) 0` (DEC line drawing, which
//!   ncurses uses for boxes and borders), `ESC ( A` (UK) and SO/SI; mapped
//!   characters are fed to vt100 as their Unicode forms;
//! - **alternate screen**: modes 1047 (switch) and 1048 (save/restore
//!   cursor); a switch by 47, 1047 or 1049 keeps the cursor where it was, and
//!   the alternate screen starts blank, as in xterm;
//! - **SCOSC/SCORC** (`CSI s`, `CSI u`): save and restore the cursor;
//! - **IND/NEL** (`ESC D`, `ESC E`) and the DECALN test pattern (`ESC # 8`);
//! - **tab stops**: `ESC H` sets one, `CSI g` / `CSI 3 g` clear, `CSI I` /
//!   `CSI Z` move forward / back by stops;
//! - **insert mode** (IRM, `CSI 4 h`): printed characters push the rest of
//!   the line right (ncurses inserts characters this way);
//! - **no auto-wrap** (DECAWM off, `CSI ? 7 l`): output at the right margin
//!   overwrites the last column instead of wrapping;
//! - **DECRQM** (`CSI ? Ps $ p`, `CSI Ps $ p`): modes are reported (set,
//!   reset, or not recognised), so a program that asks does not wait;
//! - **left and right margins** (DECLRMM, DECSLRM): carried here and
//!   applied by moving vt100's cells (see [`margins`]);
//! - **mouse modes**: urxvt's encoding (1015), and resetting any tracking
//!   mode (9, 1000, 1002, 1003) turns reporting off, as in xterm (vt100
//!   only undoes the mode named);
//! - **the right margin**: after a character was written into the last
//!   column, vt100 keeps the cursor one past it; xterm keeps it on the last
//!   column with a wrap pending, so backspace, line feed and relative moves
//!   start from there.
//!
//! Everything else goes to vt100 untouched; the scanner's fast path skips
//! plain text up to the next control character.
//!
//! This file holds the scanner and the state; the fix-ups are in the
//! submodules, one concern each: [`controls`] (what each control does),
//! [`characters`] (printing), [`wrap`] (the pending wrap and reverse
//! wraparound), [`modes`] (modes and screen switches), [`tabs`],
//! [`charsets`] (character sets and the saved cursor), [`margins`] (left and
//! right margins), [`cells`] (cells printed again) and [`stand_ins`].

use super::Hooks;

mod cells;
mod characters;
mod charsets;
mod controls;
mod margins;
mod modes;
mod stand_ins;
mod tabs;
mod wrap;

use characters::find_special;
use charsets::{Charset, SavedCharsets};
use stand_ins::StandIns;

type Parser = vt100::Parser<Hooks>;

/// Where the scanner is in the escape-sequence grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum State {
    #[default]
    Ground,
    /// After ESC.
    Escape,
    /// After ESC and an intermediate byte (`ESC (`, `ESC #`).
    EscapeIntermediate,
    /// Inside `ESC [`, collecting parameters.
    Csi,
    /// Inside a malformed CSI sequence, waiting for its final byte.
    CsiIgnore,
    /// Inside an OSC string (BEL or ST ends it).
    Osc,
    /// In the header of a DCS before its final byte, as `vte` follows it:
    /// at its start, in the parameters, or in the intermediates.
    DcsHeader(DcsPart),
    /// In the body of a DCS: ST ends it, and so does a raw 0x9C byte (as in
    /// `vte`).
    DcsBody,
    /// Inside an SOS, PM or APC string, or a DCS with a malformed header
    /// (only ESC, CAN or SUB end it).
    String,
}

/// Where in a DCS header the scanner is (see [`State::DcsHeader`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DcsPart {
    Entry,
    Params,
    Intermediates,
}

/// Parameters of the CSI sequence being scanned.
#[derive(Debug, Clone, Default)]
struct CsiParams {
    /// Private marker (`?`, `>`, `<`, `=`), or 0.
    private: u8,
    /// First intermediate byte (`!`, `$`, ` `), or 0.
    intermediate: u8,
    /// Top-level parameters (sub-parameters after `:` are skipped).
    values: Vec<u16>,
    /// The parameter being read (`None` before its first digit).
    current: Option<u16>,
    /// Inside a `:` sub-parameter.
    sub: bool,
    /// At least one `;` or digit was seen.
    any: bool,
}

impl CsiParams {
    fn clear(&mut self) {
        self.private = 0;
        self.intermediate = 0;
        self.values.clear();
        self.current = None;
        self.sub = false;
        self.any = false;
    }

    fn end_param(&mut self) {
        if !self.sub {
            self.values.push(self.current.unwrap_or(0));
        }
        self.current = None;
        self.sub = false;
    }

    /// The first parameter, with `default` for a missing or zero one.
    fn first_or(&self, default: u16) -> u16 {
        match self.values.first() {
            Some(0) | None => default,
            Some(&n) => n,
        }
    }
}

/// The state vt100 does not keep, and the scanner.
#[derive(Debug)]
pub(super) struct Compat {
    state: State,
    /// First intermediate after ESC.
    esc_intermediate: u8,
    csi: CsiParams,
    /// Index in the current chunk where the sequence being scanned began
    /// (`None` when it began in an earlier chunk).
    seq_start: Option<usize>,
    /// The byte before the sequence being scanned was part of a printed
    /// character (so the cursor may sit at the right margin).
    printed_before_seq: bool,
    /// The last ground byte was part of a printed character.
    printed: bool,
    /// vt100's cursor may be one past the last column (a wrap pending, see
    /// [`clamp_pending_wrap`]): set by every printed character and restored
    /// cursor, cleared once a control moved it off.
    maybe_wrap: bool,
    /// xterm's wrap flag is set while the cursor is on a column before the
    /// last: tabulation (HT, CHT, CBT) keeps the flag as it moves, and a
    /// restored cursor brings back the flag it was saved with. vt100 has no
    /// such state (its pending wrap is a position, one past the last
    /// column), so the next printed character wraps here.
    held_wrap: bool,
    /// A character was printed and no control that ends a pending wrap came
    /// since (xterm's `char_was_written`): a combining character joins the
    /// character printed last. Otherwise it joins the character under the
    /// cursor, or takes a cell of its own where nothing was ever written.
    written: bool,
    /// The character being read (its UTF-8 continuation bytes still to
    /// come) was dropped: it does not count as written.
    dropped: bool,
    /// A tab (HT, CHT, CBT) moved the cursor while `written` held (xterm's
    /// tabulation keeps `char_was_written`): the cell printed last, and the
    /// cursor the tab left, as (row, col) each. A combining character
    /// there joins the cell printed last (xterm 379: `q`, CHT, U+0301 shows
    /// `q\u{301}`); vt100 would join it to the cell before the cursor.
    tabbed: Option<((u16, u16), (u16, u16))>,
    /// Reverse-wraparound (`CSI ? 45 h`) and its extended form (`CSI ? 1045
    /// h`).
    reverse_wrap: bool,
    reverse_wrap_any: bool,
    /// Left and right margin mode (DECLRMM, `CSI ? 69 h`): `CSI s` sets
    /// the margins (DECSLRM) instead of saving the cursor.
    lrmm: bool,
    /// Left and right margins (DECSLRM), 0-based, when they are not the
    /// screen's edges (see [`margins`]).
    lr: Option<(u16, u16)>,
    /// Continuation bytes still expected for the current UTF-8 character.
    utf8_pending: u8,
    /// G0 and G1.
    sets: [Charset; 2],
    /// 0 when G0 is in use (SI), 1 after SO.
    shift: usize,
    /// One per screen (main, alternate), as vt100 and xterm keep the saved
    /// cursor.
    saved: [SavedCharsets; 2],
    /// Insert mode (IRM).
    insert: bool,
    /// Auto-wrap mode (DECAWM); on unless the program turned it off.
    autowrap: bool,
    /// Tab stops, once the program changed them; `None` means every 8
    /// columns, which is what vt100 does by itself.
    tabs: Option<Vec<bool>>,
    cols: u16,
    /// Scroll margins set by DECSTBM (`CSI top ; bottom r`), 1-based and
    /// valid (`top < bottom <= rows`); `None` when they span the screen.
    /// xterm keeps one set for the terminal, which both screens use.
    margins: Option<(u16, u16)>,
    /// The margins and origin mode each of vt100's grids has (main,
    /// alternate): vt100 keeps them per screen, so a screen switch brings
    /// the grid in use up to date.
    grid_margins: [Option<(u16, u16)>; 2],
    grid_origin: [bool; 2],
    /// Line feed / new line mode (LNM, `CSI 20 h`): LF, VT and FF also
    /// return the carriage.
    newline: bool,
    /// What was fed to vt100 in place of characters it would not show as
    /// xterm does, to be turned back in the text.
    pub(super) stand_ins: StandIns,
    /// Origin mode (DECOM, `CSI ? 6 h`).
    origin: bool,
    /// Mouse reports in urxvt's encoding (mode 1015); vt100's own encoding
    /// is reset to the default while this is on.
    urxvt_mouse: bool,
}

/// `CSI n X` for a final byte `X`.
fn csi(n: u16, fin: u8) -> Vec<u8> {
    format!("\x1b[{n}{}", fin as char).into_bytes()
}

impl Compat {
    pub(super) fn new(cols: u16) -> Compat {
        Compat {
            state: State::Ground,
            esc_intermediate: 0,
            csi: CsiParams::default(),
            seq_start: None,
            printed_before_seq: false,
            printed: false,
            maybe_wrap: false,
            held_wrap: false,
            written: false,
            tabbed: None,
            dropped: false,
            reverse_wrap: false,
            reverse_wrap_any: false,
            lrmm: false,
            lr: None,
            utf8_pending: 0,
            sets: [Charset::Ascii; 2],
            shift: 0,
            saved: [SavedCharsets::default(); 2],
            insert: false,
            autowrap: true,
            tabs: None,
            cols,
            margins: None,
            grid_margins: [None; 2],
            grid_origin: [false; 2],
            newline: false,
            stand_ins: StandIns::default(),
            origin: false,
            urxvt_mouse: false,
        }
    }

    /// The program chose urxvt's mouse encoding (mode 1015).
    pub(super) fn urxvt_mouse(&self) -> bool {
        self.urxvt_mouse
    }

    /// True when the scanner (and so vt100's parser, which follows the same
    /// grammar) is between sequences and characters, and line feeds scroll
    /// the whole screen of `rows` rows: what the screen's fast-forward over
    /// plain text needs.
    /// True between sequences (not inside an escape, control sequence or string).
    pub(super) fn at_ground(&self) -> bool {
        self.state == State::Ground
    }

    /// True when output may leave the cursor's row in ways its column does
    /// not show (see `rows::Before::may_leave_row`): a wrap flag held on a
    /// column before the last, left and right margins, reverse wraparound.
    pub(super) fn may_leave_row(&self) -> bool {
        self.held_wrap || self.lr.is_some() || self.reverse_wrap || self.reverse_wrap_any
    }

    /// True when plain text on the main screen may be skipped (see
    /// `Screen::process`): between sequences, with full-screen margins.
    pub(super) fn plain_text_ok(&self, rows: u16) -> bool {
        let full_margins = match self.margins {
            None => true,
            Some((top, bottom)) => top <= 1 && bottom >= rows,
        };
        self.state == State::Ground && self.utf8_pending == 0 && !self.origin && full_margins
    }

    /// True when printed characters wrap at the right margin as vt100 does
    /// by itself (autowrap on, no insert mode, no character set mapping).
    pub(super) fn wrap_skip_ok(&self) -> bool {
        !self.print_sensitive()
    }

    /// The terminal got `cols` columns; new columns get the default stops.
    pub(super) fn resize(&mut self, cols: u16) {
        // A size change resets the scroll margins (xterm, and vt100 too).
        self.margins = None;
        self.grid_margins = [None; 2];
        self.lr = None;
        if let Some(tabs) = &mut self.tabs {
            let old = tabs.len();
            tabs.resize(usize::from(cols), false);
            for (col, stop) in tabs.iter_mut().enumerate().skip(old) {
                *stop = col % 8 == 0 && col > 0;
            }
        }
        self.cols = cols;
    }

    /// True when printed characters need a look (mapping, insert, no wrap).
    fn print_sensitive(&self) -> bool {
        self.insert
            || !self.autowrap
            || self.held_wrap
            || self.lr.is_some()
            || self.sets[self.shift] != Charset::Ascii
    }

    /// Feeds `bytes` to `parser`, with the fix-ups described in the module
    /// documentation.
    pub(super) fn process(&mut self, parser: &mut Parser, bytes: &[u8]) {
        let mut run = Run {
            parser,
            bytes,
            done: 0,
        };
        self.seq_start = None;
        let mut i = 0;
        // The first control byte at or after where it was last looked for
        // (`bytes.len()` when there is none): kept, so that text with many
        // characters that need a look (a long run of VS16s, as a REP of one
        // makes) is scanned once, not once per such character.
        let mut next_control: Option<usize> = None;
        while i < bytes.len() {
            let b = bytes[i];
            match self.state {
                State::Ground => {
                    if (!self.written || self.tabbed.is_some())
                        && b >= 0xc0
                        && let Some(n) = self.lone_mark(&mut run, i)
                    {
                        i += n;
                        continue;
                    }
                    if !self.print_sensitive() {
                        // Fast path: plain text up to the next control byte.
                        let control = match next_control {
                            Some(at) if at >= i => at,
                            _ => bytes[i..]
                                .iter()
                                .position(|&b| b < 0x20 || b == 0x7f)
                                .map_or(bytes.len(), |k| i + k),
                        };
                        next_control = Some(control);
                        let n = control - i;
                        // Up to the next character that needs a look.
                        let n = find_special(&bytes[i..i + n]).unwrap_or(n);
                        if n > 0 {
                            self.printed = true;
                            self.written = true;
                            self.tabbed = None;
                            self.maybe_wrap = true;
                            self.utf8_pending = 0;
                            i += n;
                            continue;
                        }
                    }
                    if let Some(n) = self.special(&mut run, i) {
                        i += n;
                        continue;
                    }
                    self.ground(&mut run, i, b);
                }
                State::Escape => self.escape(&mut run, i, b),
                State::EscapeIntermediate => match b {
                    0x20..=0x2f => {}
                    0x30..=0x7e => {
                        self.state = State::Ground;
                        self.esc_dispatch(&mut run, i, b);
                    }
                    _ => self.in_sequence_control(i, b),
                },
                State::Csi => self.csi_byte(&mut run, i, b),
                State::CsiIgnore => match b {
                    0x40..=0x7e => self.state = State::Ground,
                    _ => self.in_sequence_control(i, b),
                },
                State::DcsHeader(part) => match (part, b) {
                    (_, 0x20..=0x2f) => self.state = State::DcsHeader(DcsPart::Intermediates),
                    (DcsPart::Entry, 0x30..=0x3f) | (DcsPart::Params, 0x30..=0x3b) => {
                        self.state = State::DcsHeader(DcsPart::Params)
                    }
                    // A malformed header: the string is ignored to its end.
                    (_, 0x30..=0x3f) => self.state = State::String,
                    (_, 0x40..=0x7e) => self.state = State::DcsBody,
                    _ => self.in_sequence_control(i, b),
                },
                State::Osc | State::String | State::DcsBody => {
                    let osc = self.state == State::Osc;
                    let dcs = self.state == State::DcsBody;
                    match b {
                        0x07 if osc => self.state = State::Ground,
                        0x9c if dcs => self.state = State::Ground,
                        0x18 | 0x1a => self.state = State::Ground,
                        0x1b => self.enter_escape(i, false),
                        _ => {
                            // Skip the string's body quickly.
                            let n = bytes[i..]
                                .iter()
                                .position(|&b| {
                                    matches!(b, 0x18 | 0x1a | 0x1b)
                                        || (osc && b == 0x07)
                                        || (dcs && b == 0x9c)
                                })
                                .unwrap_or(bytes.len() - i);
                            i += n.max(1);
                            continue;
                        }
                    }
                }
            }
            i += 1;
        }
        run.flush_to(bytes.len());
    }

    /// A control byte inside an escape sequence at `i`, as `vte` treats it:
    /// CAN and SUB cancel the sequence, ESC starts a new one, the others are
    /// executed without ending it (and without fix-ups here).
    fn in_sequence_control(&mut self, i: usize, b: u8) {
        match b {
            0x18 | 0x1a => self.state = State::Ground,
            0x1b => self.enter_escape(i, false),
            _ => {}
        }
    }

    fn enter_escape(&mut self, i: usize, printed_before: bool) {
        self.state = State::Escape;
        self.esc_intermediate = 0;
        self.seq_start = Some(i);
        self.printed_before_seq = printed_before;
        self.printed = false;
        self.utf8_pending = 0;
    }

    fn escape(&mut self, run: &mut Run<'_, '_>, i: usize, b: u8) {
        match b {
            0x20..=0x2f => {
                self.esc_intermediate = b;
                self.state = State::EscapeIntermediate;
            }
            b'[' => {
                self.csi.clear();
                self.state = State::Csi;
            }
            b']' => self.state = State::Osc,
            b'P' => self.state = State::DcsHeader(DcsPart::Entry),
            b'X' | b'^' | b'_' => self.state = State::String,
            0x30..=0x7e => {
                self.state = State::Ground;
                self.esc_dispatch(run, i, b);
            }
            _ => self.in_sequence_control(i, b),
        }
    }

    fn csi_byte(&mut self, run: &mut Run<'_, '_>, i: usize, b: u8) {
        let p = &mut self.csi;
        match b {
            b'0'..=b'9' if p.intermediate == 0 => {
                let digit = u16::from(b - b'0');
                p.current = Some(
                    p.current
                        .unwrap_or(0)
                        .saturating_mul(10)
                        .saturating_add(digit),
                );
                p.any = true;
            }
            b';' if p.intermediate == 0 => {
                p.end_param();
                p.any = true;
            }
            b':' if p.intermediate == 0 => {
                if !p.sub {
                    p.values.push(p.current.unwrap_or(0));
                }
                p.current = None;
                p.sub = true;
                p.any = true;
            }
            0x3c..=0x3f if p.private == 0 && !p.any && p.intermediate == 0 => p.private = b,
            0x30..=0x3f => self.state = State::CsiIgnore,
            0x20..=0x2f => {
                if p.intermediate == 0 {
                    p.intermediate = b;
                }
            }
            0x40..=0x7e => {
                if p.any {
                    p.end_param();
                }
                self.state = State::Ground;
                self.csi_dispatch(run, i, b);
            }
            _ => self.in_sequence_control(i, b),
        }
    }

    /// A CUP to the 0-based `(row, col)`, in origin mode relative to `top`.
    fn goto(&self, row: u16, col: u16, top: u16) -> String {
        let row = if self.origin {
            row.saturating_sub(top)
        } else {
            row
        };
        format!("\x1b[{};{}H", row + 1, col + 1)
    }

    /// The scroll region of the screen in use, 0-based rows `(top, bottom)`.
    fn region(&self, parser: &Parser) -> (u16, u16) {
        let screen = parser.screen();
        let rows = screen.size().0.get();
        match self.margins {
            Some((top, bottom)) => (top - 1, bottom.min(rows) - 1),
            None => (0, rows - 1),
        }
    }
}

/// Drops the control sequence whose final byte is at `i`: vt100 gets a CAN
/// in its place, which ends the sequence without acting on it.
fn cancel(run: &mut Run<'_, '_>, i: usize) {
    run.flush_to(i);
    run.inject(b"\x18");
    run.skip(i + 1);
}

/// 1 when the alternate screen is in use, 0 on the main one.
fn alt_of(parser: &Parser) -> usize {
    usize::from(parser.screen().alternate_screen())
}

/// The cursor column, on the screen (not one past the last column).
fn cursor_col(parser: &Parser) -> u16 {
    let (_, cols) = parser.screen().size();
    let (_, col) = parser.screen().cursor_position();
    col.min(cols.get() - 1)
}

/// One chunk being fed to the parser: `bytes[..done]` went in already.
struct Run<'p, 'b> {
    parser: &'p mut Parser,
    bytes: &'b [u8],
    done: usize,
}

impl Run<'_, '_> {
    /// Feeds the chunk up to (not including) `end`.
    fn flush_to(&mut self, end: usize) {
        if end > self.done {
            self.parser.process(&self.bytes[self.done..end]);
            self.done = end;
        }
    }

    /// Feeds bytes that are not in the chunk (everything before them must
    /// have been flushed, and the parser must be between sequences).
    fn inject(&mut self, bytes: &[u8]) {
        self.parser.process(bytes);
    }

    /// Marks the chunk up to `end` as handled without feeding it.
    fn skip(&mut self, end: usize) {
        self.done = self.done.max(end);
    }
}

#[cfg(test)]
mod tests;
