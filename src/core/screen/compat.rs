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

use vt100::{MouseProtocolEncoding, MouseProtocolMode};

use super::Hooks;

mod margins;

type Parser = vt100::Parser<Hooks>;

/// The character set designated into G0 or G1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Charset {
    #[default]
    Ascii,
    /// DEC special graphics (line drawing), `ESC ( 0`.
    DecGraphics,
    /// United Kingdom, `ESC ( A`: `#` is `£`.
    Uk,
}

impl Charset {
    fn from_final(b: u8) -> Charset {
        match b {
            b'0' => Charset::DecGraphics,
            b'A' => Charset::Uk,
            _ => Charset::Ascii,
        }
    }

    /// The Unicode form of `b` in this set, if it differs from ASCII.
    fn map(self, b: u8) -> Option<&'static str> {
        match self {
            Charset::Ascii => None,
            Charset::Uk => (b == b'#').then_some("£"),
            Charset::DecGraphics => {
                // xterm's table for 0x60..=0x7e.
                const TABLE: [&str; 31] = [
                    "◆", "▒", "␉", "␌", "␍", "␊", "°", "±", "␤", "␋", "┘", "┐", "┌", "└", "┼", "⎺",
                    "⎻", "─", "⎼", "⎽", "├", "┤", "┴", "┬", "│", "≤", "≥", "π", "≠", "£", "·",
                ];
                (0x60..=0x7e)
                    .contains(&b)
                    .then(|| TABLE[usize::from(b - 0x60)])
            }
        }
    }
}

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

/// What was saved with the cursor (DECSC, SCOSC, mode 1048/1049).
#[derive(Debug, Clone, Copy, Default)]
struct SavedCharsets {
    sets: [Charset; 2],
    shift: usize,
    /// Origin mode, which vt100 saves and restores with the cursor too.
    origin: bool,
    /// xterm's wrap flag on a column before the last (see
    /// `Compat::held_wrap`; vt100 saves a pending wrap on the last column
    /// itself, as the position one past it).
    wrap: bool,
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
                    if !self.written
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

    fn ground(&mut self, run: &mut Run<'_, '_>, i: usize, b: u8) {
        match b {
            0x1b => self.enter_escape(i, self.printed),
            0x0e => {
                self.shift = 1;
                self.printed = false;
            }
            0x0f => {
                self.shift = 0;
                self.printed = false;
            }
            0x08 => {
                self.printed = false;
                if (self.reverse_wrap || self.reverse_wrap_any) && self.autowrap {
                    run.flush_to(i);
                    self.cursor_back(run, 1);
                    run.skip(i + 1);
                } else {
                    self.end_wrap_at(run, i);
                }
            }
            0x0a..=0x0c if self.lr.is_some() => {
                run.flush_to(i);
                self.line_feed_in_lr(run, self.newline);
                run.skip(i + 1);
                self.printed = false;
            }
            0x0d if self.lr.is_some() => {
                run.flush_to(i);
                let (row, col) = run.parser.screen().cursor_position();
                let col = self.carriage_return_col(col.min(self.cols - 1));
                self.reset_wrap();
                self.maybe_wrap = false;
                let top = self.region(run.parser).0;
                run.inject(self.goto(row, col, top).as_bytes());
                run.skip(i + 1);
                self.printed = false;
            }
            0x0a..=0x0c => {
                self.end_wrap_at(run, i);
                if self.newline {
                    run.flush_to(i + 1);
                    run.inject(b"\r");
                }
                self.printed = false;
            }
            0x0d => {
                // vt100 puts the cursor in column 0 itself.
                self.reset_wrap();
                self.maybe_wrap = false;
                self.printed = false;
            }
            0x09 => {
                self.printed = false;
                if self.maybe_wrap || self.held_wrap || self.tabs.is_some() || self.lr.is_some() {
                    run.flush_to(i);
                    self.tab_forward(run, 1);
                    run.skip(i + 1);
                }
            }
            0x00..=0x1f | 0x7f => self.printed = false,
            0x80..=0xbf => {
                self.utf8_pending = self.utf8_pending.saturating_sub(1);
                self.printed = true;
                self.written = true;
                self.maybe_wrap = true;
            }
            _ => {
                self.utf8_pending = match b {
                    0xc0..=0xdf => 1,
                    0xe0..=0xef => 2,
                    0xf0..=0xff => 3,
                    _ => 0,
                };
                if self.print_sensitive() {
                    self.print(run, i, b);
                }
                self.printed = true;
                self.written = true;
                self.maybe_wrap = true;
            }
        }
    }

    /// A character starts at `i` (its first byte is `b`) and something about
    /// printing needs care.
    fn print(&mut self, run: &mut Run<'_, '_>, i: usize, b: u8) {
        run.flush_to(i);
        let (len, width) = char_at(run.bytes, i);
        if self.lr.is_some() {
            let mapped = if b < 0x80 {
                self.sets[self.shift].map(b)
            } else {
                None
            };
            self.print_in_lr(run, i, len, width, mapped.map(str::as_bytes));
            return;
        }
        if width == 0 {
            // A combining character joins the cell before: nothing to insert,
            // and no move off the margin.
            return;
        }
        let cols = self.cols;
        let mut col = run.parser.screen().cursor_position().1;
        let held = std::mem::take(&mut self.held_wrap) && self.autowrap;
        if held || (self.autowrap && self.insert && col >= cols) {
            // xterm's wrap flag survived a tab move or a restore (it wraps
            // before printing, from wherever the cursor is), or a wrap is
            // pending in insert mode (xterm wraps, then inserts on the next
            // row; vt100 would wrap and overwrite).
            col = self.wrap_before_print(run, width);
        }
        if !self.autowrap {
            if col >= cols {
                // Without auto-wrap the last column is overwritten.
                run.inject(b"\x1b[D");
                col = cols - 1;
            }
            if width > 1 && col + width > cols {
                // xterm drops a wide character that does not fit (vt100
                // wraps it).
                run.skip(i + len);
                return;
            }
        }
        if self.insert && col < cols {
            // Room for the character, as wide as it is.
            run.inject(&csi(width, b'@'));
        }
        if b < 0x80
            && let Some(mapped) = self.sets[self.shift].map(b)
        {
            run.inject(mapped.as_bytes());
            run.skip(i + 1);
        }
    }

    /// Wraps before a character `width` columns wide is printed, as xterm's
    /// `WrapLine`: the row is marked wrapped (what reverse wraparound
    /// reads) and the character goes to the start of the next row, in
    /// insert mode into room made for it there. vt100 marks a row only when
    /// it wraps a character itself, so the cursor is put past the last
    /// column ([`Compat::park`]) for vt100 to wrap as it prints; the
    /// returned column is vt100's cursor then. On the last row below the
    /// scroll region xterm stays on the row (vt100 too, unmarked): a CR LF
    /// there, column 0.
    fn wrap_before_print(&mut self, run: &mut Run<'_, '_>, width: u16) -> u16 {
        let screen = run.parser.screen();
        let row = screen.cursor_position().0;
        let last_row = screen.size().0.get() - 1;
        let (top, bottom) = self.region(run.parser);
        if row != bottom && row == last_row {
            run.inject(b"\r\n");
            return 0;
        }
        if self.insert && row != bottom {
            // At the bottom margin the wrap scrolls in a blank row.
            let mut seq = self.goto(row + 1, 0, top).into_bytes();
            seq.extend_from_slice(&csi(width, b'@'));
            run.inject(&seq);
        }
        self.park(run.parser, row);
        self.cols
    }

    /// A combining character at `i` with no character printed right before
    /// it (see `written`), as xterm places it: it joins the character
    /// under the cursor, or where nothing was written there takes a cell of
    /// its own and moves the cursor on (vt100 would join it to the cell
    /// before the cursor, or drop it in column 0). Returns how many bytes
    /// it took; `None` for anything else. Format characters (ZWJ and the
    /// like) are left to vt100.
    fn lone_mark(&mut self, run: &mut Run<'_, '_>, i: usize) -> Option<usize> {
        use unicode_width::UnicodeWidthChar;
        let (len, _) = char_at(run.bytes, i);
        let mark = std::str::from_utf8(&run.bytes[i..i + len])
            .ok()?
            .chars()
            .next()?;
        if mark.width() != Some(0) || is_format(mark) || mark == '\u{fe0f}' {
            return None;
        }
        run.flush_to(i);
        let screen = run.parser.screen();
        let (row, col) = screen.cursor_position();
        if col >= self.cols {
            // With a wrap pending the cell under the cursor is the last
            // one, which vt100 joins it to.
            return None;
        }
        let under = screen.cell(row, col);
        if under.is_some_and(|c| c.has_contents() || c.is_wide_continuation()) {
            // vt100 joins it to the cell before its cursor: put the cursor
            // one past the cell, then back.
            if col + 1 < self.cols {
                run.inject(b"\x1b[C");
                run.flush_to(i + len);
                run.inject(b"\x1b[D");
            } else {
                self.park(run.parser, row);
                run.flush_to(i + len);
                clamp_pending_wrap(run.parser);
                self.maybe_wrap = false;
            }
            return Some(len);
        }
        let stand_in = self.stand_ins.for_mark(mark)?;
        run.skip(i + len);
        let mut bytes = [0; 4];
        self.process(run.parser, stand_in.encode_utf8(&mut bytes).as_bytes());
        self.seq_start = None;
        Some(len)
    }

    /// Handles the character at `i` if it is one vt100 gets wrong (see
    /// [`find_special`]); returns how many bytes it took.
    fn special(&mut self, run: &mut Run<'_, '_>, i: usize) -> Option<usize> {
        let bytes = &run.bytes[i..];
        if bytes.starts_with(VS16) {
            self.vs16(run, i);
            self.printed = true;
            self.written = true;
            self.maybe_wrap = true;
            self.utf8_pending = 0;
            return Some(VS16.len());
        }
        if bytes.starts_with(FFFD) {
            // vt100 drops U+FFFD (it stands for bytes vte could not decode,
            // which xterm drops too); one the program printed is shown.
            if self.lr.is_some() {
                self.print_in_lr(run, i, FFFD.len(), 1, Some(FFFD_STAND_IN.as_bytes()));
                self.stand_ins.used = true;
                self.printed = true;
                self.maybe_wrap = true;
                self.utf8_pending = 0;
                return Some(FFFD.len());
            }
            if self.print_sensitive() {
                self.print(run, i, bytes[0]);
            }
            run.flush_to(i);
            run.inject(FFFD_STAND_IN.as_bytes());
            run.skip(i + FFFD.len());
            self.stand_ins.used = true;
            self.printed = true;
            self.written = true;
            self.maybe_wrap = true;
            self.utf8_pending = 0;
            return Some(FFFD.len());
        }
        if let [0xc2, c1 @ 0x80..=0x9f, ..] = *bytes {
            // A C1 control written as UTF-8: xterm acts on it as on its
            // 7-bit form (ESC and c1 - 0x40); vt100 ignores it.
            run.flush_to(i);
            run.skip(i + 2);
            self.printed = false;
            self.utf8_pending = 0;
            if matches!(
                c1,
                0x84 | 0x85 | 0x88 | 0x90 | 0x98 | 0x9b | 0x9d | 0x9e | 0x9f
            ) {
                self.process(run.parser, &[0x1b, c1 - 0x40]);
                // The sequence began outside this chunk.
                self.seq_start = None;
            }
            return Some(2);
        }
        None
    }

    /// A VS16 (U+FE0F, emoji presentation) starts at `i`. vt100 widens a
    /// narrow character it follows to two columns (and panics when that
    /// character is in the last column); xterm keeps it one column wide,
    /// with the selector in its cell. Where it would widen, vt100 gets
    /// [`VS16_STAND_IN`] instead, which joins the cell without widening it.
    fn vs16(&mut self, run: &mut Run<'_, '_>, i: usize) {
        run.flush_to(i);
        if vs16_widens(run.parser.screen()) {
            run.inject(VS16_STAND_IN.as_bytes());
            run.skip(i + VS16.len());
            self.stand_ins.used = true;
        }
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

    fn esc_dispatch(&mut self, run: &mut Run<'_, '_>, i: usize, b: u8) {
        match (self.esc_intermediate, b) {
            (b'(', f) => self.sets[0] = Charset::from_final(f),
            (b')', f) => self.sets[1] = Charset::from_final(f),
            (0, b'7') => self.save_charsets(alt_of(run.parser)),
            (0, b'8') => self.restore_charsets(alt_of(run.parser)),
            (0, b'c') => {
                // RIS: vt100 resets the screen; reset what we keep (the
                // scrollback may still hold stand-ins).
                let stand_ins = std::mem::take(&mut self.stand_ins);
                *self = Compat::new(self.cols);
                self.stand_ins = stand_ins;
                run.flush_to(i + 1);
                run.parser.callbacks_mut().kitty.reset();
            }
            // IND and NEL; RI (`ESC M`) vt100 does itself, but for the
            // cursor above the scroll region, where vt100 scrolls the
            // region anyway and xterm only moves up (to no further than
            // the top row).
            (0, b'D' | b'E' | b'M') if self.lr.is_some() => {
                if !self.end_wrap_before(run, i) {
                    cancel(run, i);
                }
                if b == b'M' {
                    let (row, col) = run.parser.screen().cursor_position();
                    let col = col.min(self.cols - 1);
                    let row = self.reverse_index_in_lr(run.parser, row, col);
                    let top = self.region(run.parser).0;
                    run.inject(self.goto(row, col, top).as_bytes());
                } else {
                    self.line_feed_in_lr(run, b == b'E');
                }
            }
            (0, b'D' | b'E' | b'M') => {
                let cancelled = self.end_wrap_before(run, i);
                if !cancelled {
                    run.flush_to(i);
                }
                let (row, _) = run.parser.screen().cursor_position();
                let (top, _) = self.region(run.parser);
                let seq: &[u8] = match b {
                    b'D' => b"\n",
                    b'E' => b"\r\n",
                    _ if row < top => b"\x1b[A",
                    _ => b"\x1bM",
                };
                if !cancelled {
                    cancel(run, i);
                }
                run.inject(seq);
            }
            // DECALN: the screen filled with `E`, margins reset, origin mode
            // and the colours reset, cursor home (xterm; DEC STD 070).
            (b'#', b'8') => {
                run.flush_to(i + 1);
                let (rows, cols) = run.parser.screen().size();
                let mut fill = b"\x1b[m\x1b[?6l\x1b[r".to_vec();
                for row in 1..=rows.get() {
                    fill.extend_from_slice(format!("\x1b[{row}H").as_bytes());
                    fill.extend(std::iter::repeat_n(b'E', usize::from(cols.get())));
                }
                fill.extend_from_slice(b"\x1b[H");
                run.inject(&fill);
                let alt = alt_of(run.parser);
                self.margins = None;
                self.grid_margins[alt] = None;
                self.lr = None;
                self.origin = false;
                self.grid_origin[alt] = false;
                self.reset_wrap();
                self.maybe_wrap = false;
            }
            // HTS: a tab stop at the cursor.
            (0, b'H') => {
                run.flush_to(i + 1);
                let col = cursor_col(run.parser);
                let tabs = self.tabs_mut();
                if let Some(stop) = tabs.get_mut(usize::from(col)) {
                    *stop = true;
                }
            }
            _ => {}
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

    fn csi_dispatch(&mut self, run: &mut Run<'_, '_>, i: usize, fin: u8) {
        let p = &self.csi;
        match (p.private, p.intermediate, fin) {
            // DECSLRM, with mode 69 set (see `margins`).
            (0, 0, b's') if self.lrmm => self.set_lr_margins(run, i),
            // With left and right margins set, scrolling, inserting and
            // deleting lines and characters act between them, and moves
            // stop at them (see `margins`).
            (0, 0, b'S' | b'T') if self.lr.is_some() => {
                let n = i32::from(p.first_or(1));
                cancel(run, i);
                let (top, bottom) = self.region(run.parser);
                self.scroll_rect(run.parser, top, bottom, if fin == b'S' { n } else { -n });
            }
            (0, 0, b'L' | b'M') if self.lr.is_some() => {
                let n = p.first_or(1);
                self.flush_to_seq(run);
                let (row, col) = run.parser.screen().cursor_position();
                if !self.end_wrap_before(run, i) {
                    cancel(run, i);
                }
                self.lines_in_lr(run, fin == b'L', n, row, col.min(self.cols - 1));
            }
            (0, 0, b'@' | b'P') if self.lr.is_some() => {
                let n = p.first_or(1);
                if !self.end_wrap_before(run, i) {
                    cancel(run, i);
                }
                self.chars_in_lr(run, fin == b'@', n);
            }
            (0, 0, b'C' | b'D')
                if self.lr.is_some()
                    && !(fin == b'D'
                        && (self.reverse_wrap || self.reverse_wrap_any)
                        && self.autowrap) =>
            {
                let n = p.first_or(1);
                if !self.end_wrap_before(run, i) {
                    cancel(run, i);
                }
                let (row, col) = run.parser.screen().cursor_position();
                let col = col.min(self.cols - 1);
                let target = if fin == b'C' {
                    self.forward_target(col, n)
                } else {
                    self.back_target(col, n)
                };
                let top = self.region(run.parser).0;
                run.inject(self.goto(row, target, top).as_bytes());
            }
            (0, 0, b'H' | b'f' | b'G' | b'`') if self.lr.is_some() && self.origin => {
                let first = p.first_or(1);
                let second = p.values.get(1).copied().unwrap_or(1);
                cancel(run, i);
                self.reset_wrap();
                self.maybe_wrap = false;
                let (row, _) = run.parser.screen().cursor_position();
                let (top, bottom) = self.region(run.parser);
                let (row, col) = if matches!(fin, b'H' | b'f') {
                    (
                        top.saturating_add(first - 1).min(bottom),
                        self.absolute_col(second),
                    )
                } else {
                    (row, self.absolute_col(first))
                };
                run.inject(self.goto(row, col, top).as_bytes());
            }
            // CUB with reverse wraparound: see `cursor_back`.
            (0, 0, b'D') if (self.reverse_wrap || self.reverse_wrap_any) && self.autowrap => {
                let n = p.first_or(1);
                cancel(run, i);
                self.cursor_back(run, n);
            }
            // Relative moves and edits, erases and VPA start from the last
            // column when a wrap is pending (xterm ends the wrap first), not
            // from one past it (vt100). With the wrap pending xterm's erases
            // take the last column too (xterm.js's do not: its issue 3362).
            // ICH on the second half of a wide character: xterm blanks the
            // character first (vt100 would keep it whole).
            (0, 0, b'@') => {
                let mut again = self.end_wrap_before(run, i);
                if !again {
                    self.flush_to_seq(run);
                }
                let (row, col) = run.parser.screen().cursor_position();
                let split = run
                    .parser
                    .screen()
                    .cell(row, col)
                    .is_some_and(vt100::Cell::is_wide_continuation);
                if split && !again {
                    cancel(run, i);
                    again = true;
                }
                if split {
                    run.inject(b"\x1b[X");
                }
                if again {
                    run.inject(&self.csi_again(fin));
                }
            }
            (0, 0, b'D' | b'P' | b'X' | b'K')
            | (b'?', 0, b'K')
            | (0 | b'?', 0, b'J')
            | (0, 0, b'd')
                if !(fin == b'J' && p.values.first() == Some(&3)) =>
            {
                let vpa_in_origin = fin == b'd' && self.origin && p.private == 0;
                if self.end_wrap_before(run, i) && !vpa_in_origin {
                    run.inject(&self.csi_again(fin));
                }
                if vpa_in_origin {
                    self.vpa_in_origin(run, i);
                }
            }
            // Absolute moves: vt100 leaves the position past the last
            // column itself.
            (0, 0, b'C' | b'G' | b'`' | b'H' | b'f') => {
                self.reset_wrap();
                self.maybe_wrap = false;
            }
            // CUU, CUD, CPL, CNL: xterm stops at the margin ahead of the
            // cursor (the top one going up, the bottom one going down) even
            // when the cursor starts outside the margins; vt100 stops there
            // only from inside them.
            (0, 0, b'A' | b'B' | b'E' | b'F') => {
                let n = p.first_or(1);
                if !self.end_wrap_before(run, i) {
                    cancel(run, i);
                }
                let (row, col) = run.parser.screen().cursor_position();
                let col = col.min(self.cols - 1);
                let rows = run.parser.screen().size().0.get();
                let (top, bottom) = self.region(run.parser);
                let target = if matches!(fin, b'A' | b'F') {
                    let limit = if row >= top { top } else { 0 };
                    row.saturating_sub(n).max(limit)
                } else {
                    let limit = if row <= bottom { bottom } else { rows - 1 };
                    row.saturating_add(n).min(limit)
                };
                let col = if matches!(fin, b'E' | b'F') { 0 } else { col };
                run.inject(self.goto(target, col, top).as_bytes());
            }
            // SCOSC / SCORC: xterm saves and restores only without
            // parameters (with them `CSI s` is DECSLRM, or nothing when
            // left and right margins are off, and `CSI u` nothing).
            (0, 0, b's' | b'u') => {
                let bare = p.values.is_empty();
                run.flush_to(i + 1);
                if !bare {
                    return;
                }
                if fin == b's' {
                    run.inject(b"\x1b7");
                    self.save_charsets(alt_of(run.parser));
                } else {
                    run.inject(b"\x1b8");
                    self.restore_charsets(alt_of(run.parser));
                }
            }
            // TBC: clear the stop at the cursor (0) or all stops (3).
            (0, 0, b'g') => {
                let which = p.values.first().copied().unwrap_or(0);
                run.flush_to(i + 1);
                let col = cursor_col(run.parser);
                let tabs = self.tabs_mut();
                match which {
                    0 => {
                        if let Some(stop) = tabs.get_mut(usize::from(col)) {
                            *stop = false;
                        }
                    }
                    3 => tabs.iter_mut().for_each(|s| *s = false),
                    _ => {}
                }
            }
            // CHT / CBT: forward / back by `n` tab stops, keeping the wrap
            // flag as xterm's tabulation does.
            (0, 0, b'I' | b'Z') => {
                let n = p.first_or(1);
                run.flush_to(i);
                cancel(run, i);
                if fin == b'I' {
                    self.tab_forward(run, n);
                } else {
                    self.tab_back(run, n);
                }
            }
            // SM / RM: insert mode (IRM) and new line mode (LNM).
            (0, 0, b'h' | b'l') => {
                for &mode in &p.values {
                    match mode {
                        4 => self.insert = fin == b'h',
                        20 => self.newline = fin == b'h',
                        _ => {}
                    }
                }
            }
            (b'?', 0, b'h' | b'l') => self.dec_mode(run, i, fin == b'h'),
            // DECRQM: report a mode (an unanswered query makes programs wait).
            (b'?' | 0, b'$', b'p') => {
                let mode = p.values.first().copied().unwrap_or(0);
                let private = p.private == b'?';
                run.flush_to(i + 1);
                let state = self.mode_state(run.parser, private, mode);
                let reply = if private {
                    format!("\x1b[?{mode};{state}$y")
                } else {
                    format!("\x1b[{mode};{state}$y")
                };
                run.parser
                    .callbacks_mut()
                    .replies
                    .extend_from_slice(reply.as_bytes());
            }
            // DECSTBM: as xterm, margins that are not valid change nothing
            // (vt100 resets them and moves the cursor), valid ones home the
            // cursor (vt100 puts it at the top margin, whatever DECOM).
            (0, 0, b'r') => {
                let rows = run.parser.screen().size().0.get();
                let top = p.first_or(1);
                let bottom = match p.values.get(1).copied() {
                    Some(b) if p.values.len() >= 2 && b != 0 && b <= rows => b,
                    _ => rows,
                };
                if bottom > top {
                    let alt = alt_of(run.parser);
                    self.margins = (top > 1 || bottom < rows).then_some((top, bottom));
                    self.grid_margins[alt] = self.margins;
                    self.reset_wrap();
                    self.maybe_wrap = false;
                    run.flush_to(i + 1);
                    run.inject(b"\x1b[H");
                } else {
                    cancel(run, i);
                }
            }
            // IL, DL: xterm returns the carriage when the cursor is inside
            // the margins (where they act).
            // Outside the margins they do nothing, and leave a pending wrap
            // pending.
            (0, 0, b'L' | b'M') => {
                self.flush_to_seq(run);
                let (row, _) = run.parser.screen().cursor_position();
                let (top, bottom) = self.region(run.parser);
                let inside = (top..=bottom).contains(&row);
                if inside && self.end_wrap_before(run, i) {
                    run.inject(&self.csi_again(fin));
                }
                run.flush_to(i + 1);
                if inside {
                    run.inject(b"\r");
                }
            }
            // HPR, VPR (vt100 has neither): relative moves that stop only
            // at the screen's edge (or the margins in origin mode).
            (0, 0, b'a' | b'e') => {
                let n = p.first_or(1);
                self.reset_wrap();
                self.maybe_wrap = false;
                run.flush_to(i + 1);
                let (row, col) = run.parser.screen().cursor_position();
                let (rows, cols) = run.parser.screen().size();
                let col = col.min(cols.get() - 1);
                let (target_row, target_col) = if fin == b'a' {
                    (row, col.saturating_add(n).min(cols.get() - 1))
                } else {
                    let (top, bottom) = if self.origin {
                        self.region(run.parser)
                    } else {
                        (0, rows.get() - 1)
                    };
                    (row.saturating_add(n).clamp(top, bottom), col)
                };
                let row_param = if self.origin {
                    target_row.saturating_sub(self.region(run.parser).0)
                } else {
                    target_row
                };
                run.inject(format!("\x1b[{};{}H", row_param + 1, target_col + 1).as_bytes());
            }
            // SL, SR, DECIC, DECDC (vt100 has none): every row inside the
            // margins loses or gains cells at the left edge or the cursor
            // column, when the cursor is inside them; the cursor stays, a
            // wrap pending included (on the last column, where DECIC and
            // DECDC act then).
            (0, b' ', b'@' | b'A') | (0, b'\'', b'}' | b'~') => {
                let n = p.first_or(1);
                run.flush_to(i + 1);
                let (row, vt_col) = run.parser.screen().cursor_position();
                let (top, bottom) = self.region(run.parser);
                if !(top..=bottom).contains(&row) {
                    return;
                }
                let pending = vt_col >= self.cols;
                let col = vt_col.min(self.cols - 1);
                if let Some((left, right)) = self.lr {
                    // Between the left and right margins, with the cursor
                    // there (see `margins`).
                    if col >= left && col <= right {
                        self.column_edit_in_lr(run.parser, fin, n, col);
                    }
                    return;
                }
                let at = if matches!(fin, b'@' | b'A') { 0 } else { col };
                let edit = if matches!(fin, b'@' | b'~') {
                    b'P'
                } else {
                    b'@'
                };
                let mut seq = Vec::new();
                for r in top..=bottom {
                    seq.extend_from_slice(self.goto(r, at, top).as_bytes());
                    if edit == b'@'
                        && run
                            .parser
                            .screen()
                            .cell(r, at)
                            .is_some_and(vt100::Cell::is_wide_continuation)
                    {
                        // Columns inserted inside a wide character blank it
                        // (vt100 would keep it whole).
                        seq.extend_from_slice(b"\x1b[X");
                    }
                    seq.extend_from_slice(&csi(n, edit));
                }
                seq.extend_from_slice(self.goto(row, col, top).as_bytes());
                run.inject(&seq);
                if pending {
                    self.park(run.parser, row);
                }
            }
            // REP: only right after a printed character (xterm); vt100
            // repeats the last one printed whatever came between, and past
            // the fix-ups for insert mode, no auto-wrap and character sets.
            // Here the character of the cell before the cursor is printed
            // again `n` times, through the fix-ups — without its combining
            // marks: xterm joins a mark to the cell before it without making
            // it the character REP repeats (xterm.js repeats the marks too).
            (0, 0, b'b') => {
                let n = usize::from(p.first_or(1));
                cancel(run, i);
                if !self.printed_before_seq {
                    return;
                }
                // A lone mark's cell holds its stand-in: read back as the
                // mark, it repeats nothing.
                let Some(text) = last_printed(run.parser.screen())
                    .map(|t| self.stand_ins.restore(t))
                    .and_then(|t| repeated_char(&t))
                else {
                    return;
                };
                let mut bytes = Vec::with_capacity(text.len() * n);
                for _ in 0..n {
                    bytes.extend_from_slice(text.as_bytes());
                }
                self.process(run.parser, &bytes);
                // The sequence began outside this chunk, and a REP right
                // after this one repeats nothing (xterm).
                self.seq_start = None;
                self.printed = false;
            }

            // DECSTR, soft reset.
            (0, b'!', b'p') => {
                // vt100 has no DECSTR: reset its margins, origin mode,
                // colours, cursor keys, keypad and cursor visibility here,
                // and the saved cursor to home with default colours (DEC,
                // xterm), keeping the cursor where it is.
                // The saved cursor keeps xterm's wrap flag (its DECSTR saves
                // the cursor, then homes the saved position), and so does
                // the cursor.
                run.flush_to(i + 1);
                let (row, vt_col) = run.parser.screen().cursor_position();
                let pending = vt_col >= self.cols;
                let col = vt_col.min(self.cols.saturating_sub(1));
                run.inject(
                    format!(
                        "\x1b[?6l\x1b[r\x1b[m\x1b[?1l\x1b>\x1b[?25h\x1b[H\x1b7\x1b[{};{}H",
                        row + 1,
                        col + 1
                    )
                    .as_bytes(),
                );
                let alt = usize::from(run.parser.screen().alternate_screen());
                self.saved[alt] = SavedCharsets {
                    wrap: pending || self.held_wrap,
                    ..SavedCharsets::default()
                };
                self.margins = None;
                self.grid_margins[alt] = None;
                self.origin = false;
                self.grid_origin[alt] = false;
                self.insert = false;
                self.autowrap = true;
                self.reverse_wrap = false;
                self.reverse_wrap_any = false;
                self.lrmm = false;
                self.lr = None;
                self.sets = [Charset::Ascii; 2];
                self.shift = 0;
                if pending {
                    self.park(run.parser, row);
                }
            }
            _ => {}
        }
    }

    /// VPA in origin mode (its final byte at `i`): relative to the top
    /// margin, as every absolute move there (vt100 takes it as a screen
    /// row).
    fn vpa_in_origin(&mut self, run: &mut Run<'_, '_>, i: usize) {
        let n = self.csi.first_or(1);
        run.flush_to(i);
        let (_, col) = run.parser.screen().cursor_position();
        let col = col.min(self.cols - 1);
        let (top, bottom) = self.region(run.parser);
        let row = top.saturating_add(n - 1).min(bottom);
        cancel(run, i);
        run.inject(self.goto(row, col, top).as_bytes());
    }

    /// `CSI ? ... h` (`set`) or `l` ending at `i`.
    fn dec_mode(&mut self, run: &mut Run<'_, '_>, i: usize, set: bool) {
        let values = std::mem::take(&mut self.csi.values);
        let switches = values.iter().any(|v| matches!(v, 47 | 1047 | 1049));
        // Where the cursor was before the sequence (its parameter bytes do
        // not move it): xterm keeps it across a screen switch.
        run.flush_to(i);
        let was_alt = run.parser.screen().alternate_screen();
        let (row, col) = run.parser.screen().cursor_position();
        if set && was_alt && values.contains(&1049) {
            // Already on the alternate screen, vt100 would reset it; xterm
            // saves the cursor and clears the screen, the cursor staying
            // where it is (its wrap flag ended by the clear).
            cancel(run, i);
            let mut seq = Vec::new();
            for &mode in &values {
                match mode {
                    1049 => seq.extend_from_slice(b"\x1b7\x1b[2J"),
                    _ => seq.extend_from_slice(format!("\x1b[?{mode}h").as_bytes()),
                }
            }
            run.inject(&seq);
            clamp_pending_wrap(run.parser);
            self.reset_wrap();
            self.maybe_wrap = false;
        } else {
            run.flush_to(i + 1);
        }
        for &mode in &values {
            match mode {
                6 => {
                    // vt100 homes the cursor, as xterm does.
                    self.origin = set;
                    self.grid_origin[alt_of(run.parser)] = set;
                    self.reset_wrap();
                    self.maybe_wrap = false;
                }
                7 => self.autowrap = set,
                45 => self.reverse_wrap = set,
                69 => {
                    self.lrmm = set;
                    if !set {
                        self.lr = None;
                    }
                }
                1045 => self.reverse_wrap_any = set,
                1047 => run.inject(if set { b"\x1b[?47h" } else { b"\x1b[?47l" }),
                1048 => {
                    run.inject(if set { b"\x1b7" } else { b"\x1b8" });
                    if set {
                        self.save_charsets(alt_of(run.parser));
                    } else {
                        self.restore_charsets(alt_of(run.parser));
                    }
                }
                1049 if set && !was_alt => self.save_charsets(0),
                // Already on the alternate screen: only the cursor is
                // saved (see above).
                1049 if set => self.save_charsets(1),
                1049 if !set => self.restore_charsets(0),
                _ => {}
            }
        }
        self.mouse_modes(run, &values, set);
        if switches {
            let alt = run.parser.screen().alternate_screen();
            if alt && !was_alt {
                if values.contains(&1049) {
                    // vt100 made the alternate grid anew.
                    self.grid_margins[1] = None;
                    self.grid_origin[1] = false;
                } else {
                    // xterm's alternate screen is blank each time it is
                    // entered (vt100 clears it only for 1049).
                    run.inject(b"\x1b[2J");
                }
            }
            if alt != was_alt {
                self.switched(run, alt, set, &values, (row, col));
            }
        }
        self.csi.values = values;
    }

    /// Mouse modes in a DECSET (`set`) or DECRST that vt100 has applied:
    /// xterm's rules where vt100's differ. The encodings 1005, 1006 and 1015
    /// exclude each other (the last one set wins; a reset only undoes its
    /// own), and resetting any tracking mode turns tracking off.
    fn mouse_modes(&mut self, run: &mut Run<'_, '_>, values: &[u16], set: bool) {
        if set {
            match values
                .iter()
                .rev()
                .find(|v| matches!(v, 1005 | 1006 | 1015))
            {
                Some(1015) => {
                    self.urxvt_mouse = true;
                    run.inject(b"\x1b[?1005l\x1b[?1006l");
                }
                Some(_) => self.urxvt_mouse = false,
                None => {}
            }
        } else {
            if values.contains(&1015) {
                self.urxvt_mouse = false;
            }
            if values.iter().any(|v| matches!(v, 9 | 1000 | 1002 | 1003)) {
                run.inject(b"\x1b[?9l\x1b[?1000l\x1b[?1002l\x1b[?1003l");
            }
        }
    }

    /// After a switch to the `alt` screen or back (by `values`, set or
    /// reset, the cursor at `before` until then): vt100's grid in use is
    /// given the terminal's margins and origin mode (xterm keeps one of
    /// each for both screens; vt100 one per screen), and the cursor is put
    /// where xterm has it: where it was (or restored, by 1049 leaving),
    /// with its wrap flag, unless the switch cleared a screen (1049
    /// entering, 1047 leaving).
    fn switched(
        &mut self,
        run: &mut Run<'_, '_>,
        alt: bool,
        set: bool,
        values: &[u16],
        before: (u16, u16),
    ) {
        let restored = !set && values.contains(&1049);
        let (row, col) = if restored {
            run.parser.screen().cursor_position()
        } else {
            before
        };
        let grid = usize::from(alt);
        let mut seq = Vec::new();
        if self.grid_margins[grid] != self.margins {
            match self.margins {
                Some((top, bottom)) => {
                    seq.extend_from_slice(format!("\x1b[{top};{bottom}r").as_bytes())
                }
                None => seq.extend_from_slice(b"\x1b[r"),
            }
            self.grid_margins[grid] = self.margins;
        }
        if self.grid_origin[grid] != self.origin {
            seq.extend_from_slice(if self.origin {
                b"\x1b[?6h"
            } else {
                b"\x1b[?6l"
            });
            self.grid_origin[grid] = self.origin;
        }
        let keeps_wrap = restored || (!values.contains(&1049) && (set || !values.contains(&1047)));
        let moved = !seq.is_empty() || !restored;
        if moved {
            let top = self.region(run.parser).0;
            seq.extend_from_slice(self.goto(row, col.min(self.cols - 1), top).as_bytes());
            run.inject(&seq);
            self.maybe_wrap = false;
        }
        if !keeps_wrap {
            self.reset_wrap();
        } else if moved && col >= self.cols {
            self.park(run.parser, row);
        }
    }

    /// DECRQM's answer for a mode: 1 set, 2 reset, 0 not recognised.
    fn mode_state(&self, parser: &Parser, private: bool, mode: u16) -> u8 {
        let screen = parser.screen();
        let set = match (private, mode) {
            (false, 4) => self.insert,
            (false, 20) => self.newline,
            (true, 1) => screen.application_cursor(),
            (true, 7) => self.autowrap,
            (true, 45) => self.reverse_wrap,
            (true, 69) => self.lrmm,
            (true, 1045) => self.reverse_wrap_any,
            (true, 9) => screen.mouse_protocol_mode() == MouseProtocolMode::Press,
            (true, 25) => !screen.hide_cursor(),
            (true, 47 | 1047 | 1049) => screen.alternate_screen(),
            (true, 1000) => screen.mouse_protocol_mode() == MouseProtocolMode::PressRelease,
            (true, 1002) => screen.mouse_protocol_mode() == MouseProtocolMode::ButtonMotion,
            (true, 1003) => screen.mouse_protocol_mode() == MouseProtocolMode::AnyMotion,
            (true, 1005) => screen.mouse_protocol_encoding() == MouseProtocolEncoding::Utf8,
            (true, 1006) => screen.mouse_protocol_encoding() == MouseProtocolEncoding::Sgr,
            (true, 1015) => self.urxvt_mouse,
            (true, 2004) => screen.bracketed_paste(),
            (true, 2026) => parser.callbacks().synchronized,
            _ => return 0,
        };
        if set { 1 } else { 2 }
    }

    /// What xterm's `ResetWrap` does besides ending a wrap pending on the
    /// last column: the wrap flag is gone wherever the cursor is, and so is
    /// the character printed last as the base of combining characters.
    fn reset_wrap(&mut self) {
        self.held_wrap = false;
        self.written = false;
    }

    /// Before a control at `at` that ends a pending wrap in xterm
    /// (`ResetWrap`): vt100's cursor leaves the position one past the last
    /// column for the last column, where xterm's is, so the control starts
    /// from there.
    fn end_wrap_at(&mut self, run: &mut Run<'_, '_>, at: usize) {
        self.reset_wrap();
        if std::mem::take(&mut self.maybe_wrap) {
            run.flush_to(at);
            clamp_pending_wrap(run.parser);
        }
    }

    /// As [`Compat::end_wrap_at`] for the sequence whose final byte is at
    /// `i`. A wrap stays pending across other sequences (colours, titles),
    /// so this looks at the cursor whatever came before. When the sequence
    /// began in an earlier chunk vt100 is inside it already: it is
    /// cancelled first, and true tells the caller to feed it again (see
    /// [`Compat::csi_again`]).
    fn end_wrap_before(&mut self, run: &mut Run<'_, '_>, i: usize) -> bool {
        self.reset_wrap();
        if !std::mem::take(&mut self.maybe_wrap) {
            return false;
        }
        match self.seq_start {
            Some(start) if start >= run.done => {
                run.flush_to(start);
                clamp_pending_wrap(run.parser);
                false
            }
            _ => {
                cancel(run, i);
                clamp_pending_wrap(run.parser);
                true
            }
        }
    }

    /// Feeds vt100 up to the start of the sequence being scanned, when it
    /// began in this chunk (so the cursor can be read as it was before).
    fn flush_to_seq(&self, run: &mut Run<'_, '_>) {
        if let Some(start) = self.seq_start.filter(|&start| start >= run.done) {
            run.flush_to(start);
        }
    }

    /// The control sequence just scanned (final byte `fin`), to feed again
    /// after [`Compat::end_wrap_before`] cancelled it.
    fn csi_again(&self, fin: u8) -> Vec<u8> {
        let p = &self.csi;
        let mut seq = b"\x1b[".to_vec();
        if p.private != 0 {
            seq.push(p.private);
        }
        for (k, value) in p.values.iter().enumerate() {
            if k > 0 {
                seq.push(b';');
            }
            seq.extend_from_slice(value.to_string().as_bytes());
        }
        if p.intermediate != 0 {
            seq.push(p.intermediate);
        }
        seq.push(fin);
        seq
    }

    /// Moves the cursor `n` tab stops right, as xterm's HT and CHT: no
    /// further than the last column, keeping the wrap flag (xterm moves the
    /// column alone). vt100 has been fed everything before the control.
    fn tab_forward(&mut self, run: &mut Run<'_, '_>, n: u16) {
        let (row, col) = run.parser.screen().cursor_position();
        if col >= self.cols {
            // A wrap pending on the last column: there is no stop beyond.
            return;
        }
        self.maybe_wrap = false;
        let target = self.tab_target(col, n);
        if self.held_wrap && target + 1 == self.cols {
            // The flag on the last column is vt100's pending wrap.
            self.held_wrap = false;
            self.park(run.parser, row);
        } else if target != col {
            run.inject(&csi(target + 1, b'G'));
        }
    }

    /// Moves the cursor `n` tab stops left, as xterm's CBT: a pending wrap
    /// stays pending at the new column (xterm's tabulation never clears the
    /// flag; the next character still wraps).
    fn tab_back(&mut self, run: &mut Run<'_, '_>, n: u16) {
        let (_, col) = run.parser.screen().cursor_position();
        if col >= self.cols {
            self.held_wrap = true;
        }
        self.maybe_wrap = false;
        let from = col.min(self.cols - 1);
        let target = self.previous_stop(from, n);
        if target != col {
            run.inject(&csi(target + 1, b'G'));
        }
    }

    /// Backspace or CUB by `n` with reverse wraparound on (mode 45, or 1045
    /// for any row), as xterm's `CursorBack`: past the left margin the
    /// cursor goes on from the right margin of the row above, when that row
    /// wrapped into this one (mode 45) or always, from the top margin round
    /// to the bottom one (mode 1045); with a wrap pending the first step
    /// only ends it. The scroll margins bound the way back wherever the
    /// cursor is, as xterm's `ScrnTopMargin` and `ScrnBottomMargin` (the
    /// margins themselves) do: with mode 45 the cursor stops on the top
    /// margin's row, also from above it (it moves down to it); with mode
    /// 1045 from below the region it goes up to the top margin and on from
    /// the bottom one. Where mode 1045 takes xterm's cursor up from the
    /// first row, above the region, it leaves the screen (row -1); here it
    /// goes on from the end of the screen, as the original mode 45 that
    /// mode 1045 imitates did. The left and right margins (DECLRMM) bound the columns, the
    /// left one only for a cursor not already left of it. vt100 has been fed
    /// everything before the control.
    fn cursor_back(&mut self, run: &mut Run<'_, '_>, n: u16) {
        let screen = run.parser.screen();
        let (start_row, vt_col) = screen.cursor_position();
        let (top, bottom) = self.region(run.parser);
        let last_row = i32::from(screen.size().0.get()) - 1;
        let (left, right) = match self.lr {
            Some((left, right)) => (left, right),
            None => (0, self.cols - 1),
        };
        let at = vt_col.min(self.cols - 1);
        // A cursor already left of the left margin may go to column 0.
        let left = if at < left { 0 } else { i32::from(left) };
        let right = i32::from(right);
        let any = self.reverse_wrap_any;
        let wrap_flag = vt_col >= self.cols || self.held_wrap;
        let (mut row, mut col) = (i32::from(start_row), i32::from(at));
        let (top, bottom) = (i32::from(top), i32::from(bottom));
        let mut count = i32::from(n);
        if count > 0 {
            if wrap_flag {
                count -= 1;
            } else {
                col -= 1;
            }
        }
        let mut row_checked = false;
        loop {
            if col < left {
                if any {
                    col = right;
                    if row == top {
                        row = bottom + 1;
                    } else if row == 0 {
                        // Above the region xterm's cursor would leave the
                        // screen; on from its end, as mode 1045 imitates.
                        row = last_row + 1;
                    }
                } else if row <= top {
                    col = left;
                    row = top;
                    break;
                }
                row_checked = false;
                row -= 1;
            }
            if !row_checked {
                row_checked = true;
                if row != i32::from(start_row) {
                    let wrapped = u16::try_from(row).is_ok_and(|r| screen.row_wrapped(r));
                    if !any && !wrapped {
                        row += 1;
                        col = left;
                        break;
                    }
                    col = right;
                }
            }
            count -= 1;
            if count <= 0 {
                break;
            }
            col -= 1;
        }
        let (row, col) = (row.max(0) as u16, col.max(0) as u16);
        self.reset_wrap();
        self.maybe_wrap = false;
        run.inject(self.goto(row, col, top as u16).as_bytes());
    }

    /// Puts vt100's cursor one past the last column of `row`, a wrap
    /// pending, as printing into the last column leaves it: the last cell
    /// (or the wide character ending there) is printed again with its own
    /// attributes, so the row shows what it did, and the pen is set back.
    /// vt100 can reach that position no other way; xterm keeps the wrap
    /// flag apart from the position, and keeps it where vt100's moves (a
    /// screen switch, a soft reset, scrolling left or right) would lose it.
    fn park(&mut self, parser: &mut Parser, row: u16) {
        let screen = parser.screen();
        let last = self.cols - 1;
        let mut col = last;
        if col > 0
            && screen
                .cell(row, col)
                .is_some_and(vt100::Cell::is_wide_continuation)
        {
            col -= 1;
        }
        let Some(cell) = screen.cell(row, col) else {
            return;
        };
        let mut seq = self.goto(row, col, self.region(parser).0).into_bytes();
        seq.extend_from_slice(&sgr_of_cell(cell));
        if cell.has_contents() {
            seq.extend_from_slice(cell.contents().as_bytes());
        } else {
            seq.push(b' ');
        }
        seq.extend_from_slice(&sgr_of_pen(screen));
        parser.process(&seq);
        self.maybe_wrap = true;
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

    /// Saves what goes with the cursor on `screen` (0 main, 1 alternate).
    fn save_charsets(&mut self, screen: usize) {
        self.saved[screen] = SavedCharsets {
            sets: self.sets,
            shift: self.shift,
            origin: self.origin,
            wrap: self.held_wrap,
        };
    }

    /// Restores what goes with the cursor on `screen`; vt100 restores the
    /// position (one past the last column when a wrap was pending there).
    fn restore_charsets(&mut self, screen: usize) {
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

    fn tabs_mut(&mut self) -> &mut Vec<bool> {
        let cols = usize::from(self.cols);
        self.tabs
            .get_or_insert_with(|| (0..cols).map(|c| c % 8 == 0 && c > 0).collect())
    }

    /// The column `n` tab stops right of `col` (the last column if none).
    fn next_stop(&self, col: u16, n: u16) -> u16 {
        let last = self.cols.saturating_sub(1);
        let mut col = col.min(last);
        for _ in 0..n {
            col = match &self.tabs {
                Some(tabs) => (usize::from(col) + 1..usize::from(self.cols))
                    .find(|&c| tabs[c])
                    .map_or(last, |c| c as u16),
                None => (col / 8 + 1).saturating_mul(8).min(last),
            };
        }
        col
    }

    /// The column `n` tab stops left of `col` (column 0 if none).
    fn previous_stop(&self, col: u16, n: u16) -> u16 {
        let mut col = col.min(self.cols.saturating_sub(1));
        for _ in 0..n {
            col = match &self.tabs {
                Some(tabs) => (0..usize::from(col))
                    .rev()
                    .find(|&c| tabs[c])
                    .map_or(0, |c| c as u16),
                None => col.saturating_sub(1) / 8 * 8,
            };
        }
        col
    }
}

/// U+FE0F VARIATION SELECTOR-16 in UTF-8.
const VS16: &[u8] = "\u{fe0f}".as_bytes();

/// U+FFFD REPLACEMENT CHARACTER in UTF-8.
const FFFD: &[u8] = "\u{fffd}".as_bytes();

/// What a printed U+FFFD is fed to vt100 as (a private-use character of
/// the same width), and turned back into in the text.
pub(super) const FFFD_STAND_IN: &str = "\u{10fffd}";

/// What a VS16 that vt100 would widen a cell for is fed to it as: U+E0001
/// (LANGUAGE TAG, deprecated, zero width), turned back into U+FE0F in the
/// text.
pub(super) const VS16_STAND_IN: &str = "\u{e0001}";

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
pub(super) struct StandIns {
    /// A stand-in was ever fed (the text is searched only then).
    pub(super) used: bool,
    /// The combining characters given stand-ins, in order.
    marks: Vec<char>,
}

impl StandIns {
    /// The stand-in for the combining character `mark`, if one is left.
    fn for_mark(&mut self, mark: char) -> Option<char> {
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
    pub(super) fn restore(&self, text: String) -> String {
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

/// Where the first character in `bytes` that [`Compat::special`] handles
/// starts: a VS16, a U+FFFD or a C1 control in UTF-8.
fn find_special(bytes: &[u8]) -> Option<usize> {
    let mut at = 0;
    while let Some(k) = memchr::memchr2(0xef, 0xc2, &bytes[at..]) {
        let rest = &bytes[at + k..];
        if rest.starts_with(VS16)
            || rest.starts_with(FFFD)
            || matches!(rest, [0xc2, 0x80..=0x9f, ..])
        {
            return Some(at + k);
        }
        at += k + 1;
    }
    None
}

/// True for the invisible format characters xterm ignores (it leaves
/// them out of the cells): zero-width space and joiners, direction marks,
/// word joiner and the like, the byte-order mark.
fn is_format(c: char) -> bool {
    matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{feff}' | '\u{061c}' | '\u{180e}')
}

/// True when vt100, given a VS16 now, would make the cell it joins two
/// columns wide: the cell before the cursor (the first half of a wide
/// one) holds a narrow character that has an emoji presentation.
fn vs16_widens(screen: &vt100::Screen) -> bool {
    use unicode_width::UnicodeWidthStr;
    let (row, col) = screen.cursor_position();
    let Some(mut base) = col.checked_sub(1) else {
        return false;
    };
    if base > 0
        && screen
            .cell(row, base)
            .is_some_and(|c| c.is_wide_continuation())
    {
        base -= 1;
    }
    let Some(cell) = screen.cell(row, base) else {
        return false;
    };
    if cell.is_wide() {
        return false;
    }
    let mut joined = String::from(cell.contents());
    if joined.is_empty() {
        joined.push(' ');
    }
    joined.push('\u{fe0f}');
    joined.width() > 1
}

/// Drops the control sequence whose final byte is at `i`: vt100 gets a CAN
/// in its place, which ends the sequence without acting on it.
fn cancel(run: &mut Run<'_, '_>, i: usize) {
    run.flush_to(i);
    run.inject(b"\x18");
    run.skip(i + 1);
}

/// The length in bytes of the character starting at `i` and its width as
/// vt100 gives it (0, 1 or 2; 1 for what does not decode).
fn char_at(bytes: &[u8], i: usize) -> (usize, u16) {
    use unicode_width::UnicodeWidthChar;
    let len = match bytes[i] {
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xff => 4,
        _ => 1,
    };
    let end = (i + len).min(bytes.len());
    let width = std::str::from_utf8(&bytes[i..end])
        .ok()
        .and_then(|s| s.chars().next())
        .map_or(1, |c| c.width().unwrap_or(1).min(2));
    (end - i, width as u16)
}

/// The character REP repeats after a cell that holds `cell`: its last
/// character with a width (xterm's last printed character: a combining mark
/// or a variation selector joins the cell before it without becoming that),
/// as UTF-8; `None` for a cell of marks only (xterm repeats nothing after a
/// character of no width).
fn repeated_char(cell: &str) -> Option<String> {
    use unicode_width::UnicodeWidthChar;
    let c = cell
        .chars()
        .rev()
        .find(|c| c.width().is_some_and(|w| w > 0))?;
    Some(c.to_string())
}

/// What the cell the last character went to holds (the cell before the
/// cursor, or the last column while a wrap is pending), with its combining
/// marks; `None` when that cell is empty.
fn last_printed(screen: &vt100::Screen) -> Option<String> {
    let (_, cols) = screen.size();
    let (row, col) = screen.cursor_position();
    let mut col = col.min(cols.get()).checked_sub(1)?;
    if col > 0
        && screen
            .cell(row, col)
            .is_some_and(|c| c.is_wide_continuation())
    {
        col -= 1;
    }
    let cell = screen.cell(row, col)?;
    cell.has_contents().then(|| cell.contents().to_owned())
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

/// The SGR sequence of a cell's attributes (see [`sgr_of`]).
fn sgr_of_cell(cell: &vt100::Cell) -> Vec<u8> {
    sgr_of(
        cell.fgcolor(),
        cell.bgcolor(),
        [
            cell.bold(),
            cell.dim(),
            cell.italic(),
            cell.underline(),
            cell.inverse(),
        ],
    )
}

/// The SGR sequence of the attributes new text gets (vt100's pen).
fn sgr_of_pen(screen: &vt100::Screen) -> Vec<u8> {
    sgr_of(
        screen.fgcolor(),
        screen.bgcolor(),
        [
            screen.bold(),
            screen.dim(),
            screen.italic(),
            screen.underline(),
            screen.inverse(),
        ],
    )
}

/// An SGR sequence that sets exactly these attributes (vt100 keeps the
/// colours and bold, dim, italic, underline and inverse, in that order).
fn sgr_of(fg: vt100::Color, bg: vt100::Color, flags: [bool; 5]) -> Vec<u8> {
    use std::fmt::Write as _;
    let mut seq = String::from("\x1b[0");
    for (on, code) in flags.into_iter().zip([1, 2, 3, 4, 7]) {
        if on {
            let _ = write!(seq, ";{code}");
        }
    }
    for (color, base) in [(fg, 38), (bg, 48)] {
        match color {
            vt100::Color::Default => {}
            vt100::Color::Idx(n) => {
                let _ = write!(seq, ";{base};5;{n}");
            }
            vt100::Color::Rgb(r, g, b) => {
                let _ = write!(seq, ";{base};2;{r};{g};{b}");
            }
        }
    }
    seq.push('m');
    seq.into_bytes()
}

/// Moves the cursor from one past the last column (where vt100 leaves it
/// after writing there) onto the last column, where xterm has it.
fn clamp_pending_wrap(parser: &mut Parser) {
    let (_, cols) = parser.screen().size();
    let (_, col) = parser.screen().cursor_position();
    if col >= cols.get() {
        parser.process(b"\x1b[D");
    }
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
mod tests {
    use crate::core::screen::{Screen, Snapshot};

    fn feed(bytes: &[u8]) -> Screen {
        let mut screen = Screen::new(24, 80, 100);
        screen.process(bytes, &mut Vec::new());
        screen
    }

    fn snap(bytes: &[u8]) -> Snapshot {
        feed(bytes).snapshot()
    }

    fn cursor(s: &Snapshot) -> (u16, u16) {
        (s.cursor_row, s.cursor_col)
    }

    #[test]
    fn dec_line_drawing_in_g0_and_g1() {
        let s = snap(b"\x1b(0lqqk\x1b(B x\r\n\x1b)0a\x0elqk\x0fq\r\nxmj");
        assert_eq!(&s.lines[..3], ["┌──┐ x", "a┌─┐q", "xmj"]);
    }

    #[test]
    fn uk_charset_and_charsets_saved_with_the_cursor() {
        // ESC 7 saves UK, ESC 8 brings it back; CSI s saves ASCII.
        let s = snap(b"#\x1b(A#\x1b7\x1b(B\x1b8#\x1b[s\x1b(0\x1b[uq");
        assert_eq!(s.lines[0], "#££q");
    }

    #[test]
    fn ris_resets_the_character_sets() {
        let s = snap(b"\x1b(0q\x1bcq");
        assert_eq!(s.lines[0], "q");
    }

    #[test]
    fn insert_mode_pushes_the_rest_of_the_line() {
        let s = snap("abcdef\x1b[1;3H\x1b[4hXY日e\u{301}\x1b[4lZ".as_bytes());
        assert_eq!(s.lines[0], "abXY日e\u{301}Zdef");
        // Split in the middle of the wide character.
        let mut screen = Screen::new(24, 80, 100);
        let bytes = "abcdef\x1b[1;3H\x1b[4h日\x1b[4l".as_bytes();
        let cut = bytes.len() - 6;
        screen.process(&bytes[..cut], &mut Vec::new());
        screen.process(&bytes[cut..], &mut Vec::new());
        assert_eq!(screen.snapshot().lines[0], "ab日cdef");
    }

    #[test]
    fn without_autowrap_the_last_column_is_overwritten() {
        let mut bytes = b"\x1b[?7l".to_vec();
        bytes.extend(std::iter::repeat_n(b'f', 85));
        bytes.extend(b"g\x1b[?7h\r\nh");
        let s = snap(&bytes);
        assert_eq!(s.lines[0], format!("{}g", "f".repeat(79)));
        assert_eq!(s.lines[1], "h");
    }

    #[test]
    fn moves_from_the_right_margin_start_on_the_last_column() {
        let p = "p".repeat(80);
        // Backspace: one left of the last column.
        assert_eq!(
            snap(format!("{p}\x08!").as_bytes()).lines[0],
            format!("{}!p", "p".repeat(78))
        );
        // Cursor left by 2.
        assert_eq!(
            snap(format!("{p}\x1b[2D!").as_bytes()).lines[0],
            format!("{}!pp", "p".repeat(77))
        );
        // Line feed without carriage return: the next row, last column.
        let s = snap(format!("{p}\ny").as_bytes());
        assert_eq!(s.lines[1], format!("{}y", " ".repeat(79)));
        // Cursor up, then a character: on the row above, last column.
        let s = snap(format!("\r\n{p}\x1b[Ax").as_bytes());
        assert_eq!(s.lines[0], format!("{}x", " ".repeat(79)));
        // Delete a character: the last column's.
        let s = snap(format!("{p}\x1b[P").as_bytes());
        assert_eq!(s.lines[0], "p".repeat(79));
    }

    #[test]
    fn cursor_at_the_margin_is_on_the_last_column() {
        let s = snap("x".repeat(80).as_bytes());
        assert_eq!(cursor(&s), (0, 79));
    }

    #[test]
    fn tab_stops_set_cleared_and_moved_by() {
        // Clear all, set at 4 and 10.
        let s = snap(b"\x1b[3g\x1b[5G\x1bH\x1b[11G\x1bH\r1\t2\t3\t4");
        assert_eq!(s.lines[0], format!("1   2     3{}4", " ".repeat(79 - 11)));
        // Clear the stop at the cursor only; back tab.
        let s = snap(b"\x1b[9G\x1b[g\r\tA\x1b[Z\x1b[ZB\x1b[2IC");
        assert_eq!(s.lines[0], "B               A       C");
    }

    #[test]
    fn tab_stops_follow_a_resize() {
        let mut screen = feed(b"\x1b[3g\x1b[5G\x1bH");
        screen.resize(24, 100);
        screen.process(b"\r\t1\t2", &mut Vec::new());
        let s = screen.snapshot();
        assert_eq!(s.lines[0].find('1'), Some(4));
        assert_eq!(s.lines[0].find('2'), Some(80));
    }

    #[test]
    fn mode_1047_switches_screens_and_1048_saves_the_cursor() {
        let mut screen = feed(b"main text\x1b[?1047halt");
        let s = screen.snapshot();
        assert!(s.alt_screen);
        assert_eq!(s.lines[0], "         alt");
        screen.process(
            b"\x1b[?1047lback\x1b[3;4H\x1b[?1048h\x1b[9;9Hx\x1b[?1048ly",
            &mut Vec::new(),
        );
        let s = screen.snapshot();
        assert!(!s.alt_screen);
        assert_eq!(s.lines[0], "main text   back");
        assert_eq!(s.lines[2], "   y");
    }

    #[test]
    fn the_alternate_screen_is_blank_on_entry_and_keeps_the_cursor() {
        let s = snap(b"main\x1b[?47hone\x1b[?47l\x1b[?47h\x1b[Ht");
        assert_eq!(s.text, "t");
        let s = snap(b"main\x1b[?1049hfull");
        assert_eq!(s.lines[0], "    full");
        let s = snap(b"main\x1b[?1049hfull\x1b[?1049l!");
        assert_eq!(s.lines[0], "main!");
    }

    #[test]
    fn scosc_scorc_ind_nel_decaln() {
        let s = snap(b"\x1b[3;3H\x1b[s\x1b[15;15Hz\x1b[uw");
        assert_eq!(s.lines[2], "  w");
        let s = snap(b"a\x1bEb\x1bDc");
        assert_eq!(&s.lines[..3], ["a", "b", " c"]);
        let s = snap(b"\x1b[5;10r\x1b#8");
        assert!(s.lines.iter().all(|l| l == &"E".repeat(80)));
        assert_eq!(cursor(&s), (0, 0));
    }

    #[test]
    fn other_sequences_pass_through_untouched() {
        // OSC and DCS payloads that look like sequences, CSIs with a
        // private marker or an intermediate.
        let s = snap(b"\x1b]0;t(0[4h\x07q\x1bP1$r(0[4h\x1b\\q\x1b[>4;2mq\x1b[?4hq\x1b[4$pq");
        assert_eq!(s.lines[0], "qqqqq");
        assert_eq!(s.title, "t(0[4h");
        // A BEL inside a DCS string does not end it (only OSC ends on BEL).
        let s = snap(b"\x1b(0q\x1bPx\x07qq\x1b\\q");
        assert_eq!(s.lines[0], "──");
    }

    #[test]
    fn mouse_modes_follow_xterm() {
        use crate::core::keys::{MouseEncoding as E, MouseTracking as T};
        let mouse = |bytes: &[u8]| {
            let m = feed(bytes).modes().mouse;
            (m.tracking, m.encoding)
        };
        assert_eq!(mouse(b""), (T::Off, E::Default));
        assert_eq!(mouse(b"\x1b[?1000h"), (T::Normal, E::Default));
        assert_eq!(mouse(b"\x1b[?1000;1006h"), (T::Normal, E::Sgr));
        assert_eq!(mouse(b"\x1b[?1002h\x1b[?1015h"), (T::Button, E::Urxvt));
        assert_eq!(mouse(b"\x1b[?1003h\x1b[?1005h"), (T::Any, E::Utf8));
        assert_eq!(mouse(b"\x1b[?9h"), (T::X10, E::Default));
        // The last encoding set wins; a reset only undoes its own.
        assert_eq!(mouse(b"\x1b[?1006h\x1b[?1015h"), (T::Off, E::Urxvt));
        assert_eq!(
            mouse(b"\x1b[?1006h\x1b[?1015h\x1b[?1015l"),
            (T::Off, E::Default)
        );
        assert_eq!(mouse(b"\x1b[?1015h\x1b[?1006h"), (T::Off, E::Sgr));
        assert_eq!(mouse(b"\x1b[?1015;1006h"), (T::Off, E::Sgr));
        assert_eq!(mouse(b"\x1b[?1006;1015h"), (T::Off, E::Urxvt));
        assert_eq!(mouse(b"\x1b[?1015h\x1b[?1006l"), (T::Off, E::Urxvt));
        // Resetting any tracking mode turns tracking off (vt100 alone keeps
        // 1002 on after a reset of 1000).
        assert_eq!(mouse(b"\x1b[?1002h\x1b[?1000l"), (T::Off, E::Default));
        assert_eq!(mouse(b"\x1b[?1000h\x1b[?1003h"), (T::Any, E::Default));
        // A full reset forgets them all.
        assert_eq!(mouse(b"\x1b[?1003;1015h\x1bc"), (T::Off, E::Default));
        assert_eq!(
            replies_to(b"\x1b[?1015h\x1b[?1015$p\x1b[?1006$p"),
            "\x1b[?1015;1$y\x1b[?1006;2$y"
        );
    }

    fn replies_to(bytes: &[u8]) -> String {
        let mut screen = Screen::new(24, 80, 100);
        let mut replies = Vec::new();
        screen.process(bytes, &mut replies);
        String::from_utf8(replies).unwrap()
    }

    #[test]
    fn decrqm_reports_modes_in_order_with_other_replies() {
        assert_eq!(
            replies_to(
                b"\x1b[?1h\x1b[?1$p\x1b[?7l\x1b[?7$p\x1b[?2004$p\x1b[5n\x1b[?1049h\x1b[?1049$p"
            ),
            "\x1b[?1;1$y\x1b[?7;2$y\x1b[?2004;2$y\x1b[0n\x1b[?1049;1$y"
        );
        assert_eq!(
            replies_to(
                b"\x1b[4h\x1b[4$p\x1b[?25l\x1b[?25$p\x1b[?1000h\x1b[?1006h\x1b[?1000$p\x1b[?1006$p"
            ),
            "\x1b[4;1$y\x1b[?25;2$y\x1b[?1000;1$y\x1b[?1006;1$y"
        );
        // Modes we do not know are reported as not recognised.
        assert_eq!(
            replies_to(b"\x1b[?12$p\x1b[12$p"),
            "\x1b[?12;0$y\x1b[12;0$y"
        );
        // New line mode (LNM).
        assert_eq!(
            replies_to(b"\x1b[20$p\x1b[20h\x1b[20$p"),
            "\x1b[20;2$y\x1b[20;1$y"
        );
    }

    #[test]
    fn cursor_report_at_the_right_margin_names_the_last_column() {
        let mut bytes = "x".repeat(80).into_bytes();
        bytes.extend(b"\x1b[6n");
        assert_eq!(replies_to(&bytes), "\x1b[1;80R");
    }

    #[test]
    fn vs16_after_a_narrow_character_keeps_it_narrow() {
        // vt100 widens a cell when U+FE0F follows a text-style emoji and
        // panics when that cell is in the last column; xterm keeps the
        // character one column wide, the selector in the same cell.
        let s = snap("\x1b[24;80H\u{2764}\u{fe0f}\x1b[23;80Hx".as_bytes());
        assert_eq!(s.lines[22], format!("{}x", " ".repeat(79)));
        assert_eq!(s.lines[23], format!("{}\u{2764}\u{fe0f}", " ".repeat(79)));
        let s = snap("a\u{2764}\u{fe0f}b \u{263a}\u{fe0f}c #\u{fe0f}\u{20e3}".as_bytes());
        assert_eq!(
            s.lines[0],
            "a\u{2764}\u{fe0f}b \u{263a}\u{fe0f}c #\u{fe0f}\u{20e3}"
        );
        assert_eq!(cursor(&s), (0, 8));
        // The styled runs show the selector too.
        let mut screen = feed("\u{263a}\u{fe0f}x".as_bytes());
        assert_eq!(screen.styled_rows()[0][0].text, "\u{263a}\u{fe0f}x");
    }

    #[test]
    fn vertical_moves_from_outside_the_margins_stop_at_the_margin_ahead() {
        // Margins 8..21 (1-based); CNL from row 1 stops at row 21, CPL from
        // row 24 at row 8, CUD/CUU likewise, keeping the column.
        let s = snap(b"\x1b[8;21r\x1b[1;5H\x1b[73Ea\x1b[24;3H\x1b[30Fb\x1b[1;9H\x1b[25Bc");
        assert_eq!(s.lines[20], "a       c");
        assert_eq!(s.lines[7], "b");
        let s = snap(b"\x1b[8;21r\x1b[24;12H\x1b[40Ad\x1b[2;2H\x1b[3Ae");
        assert_eq!(s.lines[7], "           d");
        assert_eq!(s.lines[0], " e");
    }

    #[test]
    fn screens_keep_their_own_saved_cursor_and_charsets() {
        // Line drawing saved on the main screen by 1049, ASCII saved on the
        // alternate one: leaving restores the main screen's.
        let s = snap(b"\x1b(0\x1b[3;3H\x1b[?1049h\x1b(B\x1b[5;5H\x1b7x\x1b[?1049lq\x1b8q");
        // (ESC 8 then restores the main screen's cursor: the same cell.)
        assert_eq!(s.lines[2], "  \u{2500}");
        assert_eq!(cursor(&s), (2, 3));
        // A second 1049h saves the cursor and clears the alternate screen
        // (the cursor stays).
        let s = snap(b"main\x1b[?1049halt\x1b[?1049h more");
        assert_eq!(s.lines[0], "        more");
        // DECSTR resets the saved cursor to home.
        assert_eq!(snap(b"xy\x1b7\x1b[!p\x1b8z").lines[0], "zy");
    }

    #[test]
    fn printing_with_insert_no_wrap_and_rep() {
        // Insert mode with a wrap pending: wrap, then insert.
        let s = snap(format!("\x1b[2;1H{}\x1b[1;79H\x1b[4habc", "q".repeat(10)).as_bytes());
        assert_eq!(s.lines[0], format!("{}ab", " ".repeat(78)));
        assert_eq!(s.lines[1], format!("c{}", "q".repeat(10)));
        // No auto-wrap: a wide character that does not fit is dropped, a
        // combining mark joins the last column's character.
        let s = snap(
            format!(
                "\x1b[?7l{}\u{65e5}\r\n{}e\u{301}",
                "x".repeat(79),
                "y".repeat(79)
            )
            .as_bytes(),
        );
        assert_eq!(s.lines[0], "x".repeat(79));
        assert_eq!(s.lines[1], format!("{}e\u{301}", "y".repeat(79)));
        // REP repeats the cell's character (without its marks) through the
        // fix-ups.
        let s = snap("\x1b[?7lhel\x1b[90b\x1b[?7h\r\n\x1b(0q\x1b[3b\x1b(B\r\ne\u{301}\x1b[2b\r\nxyz\r\x1b[4ha\x1b[2b".as_bytes());
        assert_eq!(s.lines[0], format!("he{}", "l".repeat(78)));
        assert_eq!(s.lines[1], "\u{2500}".repeat(4));
        assert_eq!(s.lines[2], "e\u{301}ee");
        assert_eq!(s.lines[3], "aaaxyz");
        // An emoji with a variation selector, auto-wrap off: repeated without
        // the selector up to the margin, then dropped (does not fit).
        let s = snap("\x1b[?7l\x1b[1;77H\u{1f600}\u{fe0e}\x1b[5b".as_bytes());
        assert_eq!(
            s.lines[0],
            format!("{}\u{1f600}\u{fe0e}\u{1f600}", " ".repeat(76))
        );
        // A mark with nothing to join gives nothing to repeat.
        let s = snap("\u{301}\x1b[3bx".as_bytes());
        assert_eq!(s.lines[0], "\u{301}x");
    }

    /// The same output in any split gives the same screen.
    #[test]
    fn chunk_boundaries_do_not_matter() {
        let samples: [&[u8]; 7] = [
            "ab\x1b(0lqk\x1b(B\x1b[4h日e\u{301}\x1b[4l\x1b[3g\x1b[9G\x1bH\r\tT\x1b[?1047hA\x1b[?1047l\x1b[?7lzz\x1b[?7h".as_bytes(),
            // Left and right margins, wraps pending, reverse wraparound,
            // lone combining marks.
            "\x1b[?69h\x1b[3;60s日本語abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ\r\nX\x1b[2S\x1b[4;4H\x1b[2@\x1b[M\x1b[T\x1bM\x1bD\x1b[4h\u{fffd}q\x1b[4l\x1b[2 @\x1b['}\x1b[?69l".as_bytes(),
            "\x1b[20;1H\x1b[?45h0123456789012345678901234567890123456789012345678901234567890123456789012345678901\x08\x08\x08\x1b[5D\x1b[Z\tZ\x1b[1;80Hq\x1b7\x1b[H\x1b8\x1b[K\r\u{301}\x1b[3;5H\u{301}\x1b[?1049h\x1b[1;80Hw\x1b[?47l\x1b[!p".as_bytes(),
            include_bytes!("../../../__test__/fixtures/vim.out"),
            include_bytes!("../../../__test__/fixtures/less.out"),
            include_bytes!("../../../__test__/fixtures/readline.out"),
            include_bytes!("../../../__test__/fixtures/top.out"),
        ];
        for sample in samples {
            let whole = snap(sample);
            let mut bytewise = Screen::new(24, 80, 100);
            for b in sample {
                bytewise.process(std::slice::from_ref(b), &mut Vec::new());
            }
            assert_eq!(bytewise.snapshot(), whole);
            for size in [2, 3, 7, 64] {
                let mut chunked = Screen::new(24, 80, 100);
                for chunk in sample.chunks(size) {
                    chunked.process(chunk, &mut Vec::new());
                }
                assert_eq!(chunked.snapshot(), whole, "chunks of {size}");
            }
        }
    }

    #[test]
    fn reverse_wraparound_needs_autowrap() {
        // Auto-wrap off: a plain backspace, at the left edge of a
        // continuation row and from the last column.
        let s = snap(format!("\x1b[?45h{}\r\x1b[?7l\x08Y", "w".repeat(82)).as_bytes());
        assert_eq!(s.lines[1], "Yw");
        let s = snap(format!("\x1b[?45h\x1b[?7l{}\x08X", "n".repeat(80)).as_bytes());
        assert_eq!(s.lines[0], format!("{}Xn", "n".repeat(78)));
        assert_eq!(cursor(&s), (0, 79));
    }

    #[test]
    fn a_wrap_xterm_makes_before_printing_marks_the_row() {
        // Insert mode with a wrap pending, and a wrap flag kept over CBT:
        // backspace with reverse wraparound goes back up over the row.
        let s = snap(format!("\x1b[?45h\x1b[4h{}xy\r\x08Z", "i".repeat(80)).as_bytes());
        assert_eq!(s.lines[0], format!("{}Z", "i".repeat(79)));
        assert_eq!(s.lines[1], "xy");
        let s = snap(format!("\x1b[?45h{}\x1b[Zxy\x1b[A\n\r\x08Z", "t".repeat(80)).as_bytes());
        assert_eq!(s.lines[0], format!("{}Z", "t".repeat(79)));
        assert_eq!(s.lines[1], "xy");
        // Insert mode at the bottom margin: the wrap scrolls.
        let s = snap(format!("\x1b[2;3r\x1b[3;1H\x1b[4h{}ab", "k".repeat(80)).as_bytes());
        assert_eq!(&s.lines[1..4], ["k".repeat(80).as_str(), "ab", ""]);
    }

    #[test]
    fn reverse_wraparound_follows_the_row_that_wrapped() {
        let a = "a".repeat(81);
        // A line inserted below the wrapped row: backspace still goes up.
        let s = snap(format!("\x1b[?45h{a}\x1b[L\r\x08X").as_bytes());
        assert_eq!(s.lines[0], format!("{}X", "a".repeat(79)));
        assert_eq!(cursor(&s), (0, 79));
        // A line feed onto the continuation row: the same.
        let s = snap(format!("\x1b[?45h{a}\r\x1b[A\n\x08X").as_bytes());
        assert_eq!(s.lines[0], format!("{}X", "a".repeat(79)));
        // The wrapped row deleted: the row above did not wrap, it stays.
        let s = snap(format!("\x1b[?45hx\r\n{a}\x1b[2;1H\x1b[M\r\x08Z").as_bytes());
        assert_eq!(&s.lines[..2], ["x", "Z"]);
        assert_eq!(cursor(&s), (1, 1));
    }

    #[test]
    fn reverse_wraparound_keeps_to_the_margins() {
        // Left and right margins (columns 3 to 6): mode 45 stops at the left
        // margin; mode 1045 goes on from the right margin of the row above.
        let s = snap(b"\x1b[?69h\x1b[3;6s\x1b[?45h\x1b[2;3H\x08X");
        assert_eq!(cursor(&s), (1, 3));
        let s = snap(b"\x1b[?69h\x1b[3;6s\x1b[?1045h\x1b[2;3H\x08X");
        assert_eq!(s.lines[0], "     X");
        // Left of the left margin the cursor may go to column 0.
        let s = snap(b"\x1b[?69h\x1b[3;6s\x1b[?45h\x1b[2;2H\x08\x08X");
        assert_eq!(s.lines[1], "X");
        // Scroll margins rows 3 to 4: mode 45 from above them goes to the
        // top margin; mode 1045 from the top margin goes on from the bottom
        // one, and from the first row (above them) from the end of the
        // screen.
        let s = snap(b"\x1b[3;4r\x1b[?45h\x1b[1;1H\x08X");
        assert_eq!(cursor(&s), (2, 1));
        let s = snap(b"\x1b[3;4r\x1b[?1045h\x1b[3;1H\x08X");
        assert_eq!(s.lines[3], format!("{}X", " ".repeat(79)));
        let s = snap(b"\x1b[3;4r\x1b[?1045h\x1b[1;1H\x08X");
        assert_eq!(s.lines[23], format!("{}X", " ".repeat(79)));
    }
}
