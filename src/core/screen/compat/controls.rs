//! What the layer does for each control it acts on: C0 controls, escape
//! sequences and control sequences (the scanner in the parent module finds
//! them; each fix-up feeds vt100 what makes its screen the one xterm shows).

use super::characters::{last_printed, repeated_char};
use super::charsets::{Charset, SavedCharsets};
use super::{Compat, Run, alt_of, cancel, csi, cursor_col};

impl Compat {
    pub(super) fn ground(&mut self, run: &mut Run<'_, '_>, i: usize, b: u8) {
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
                if self.maybe_wrap
                    || self.held_wrap
                    || self.written
                    || self.tabs.is_some()
                    || self.lr.is_some()
                {
                    run.flush_to(i);
                    self.tab_forward(run, 1);
                    run.skip(i + 1);
                }
            }
            0x00..=0x1f | 0x7f => self.printed = false,
            0x80..=0xbf => {
                self.utf8_pending = self.utf8_pending.saturating_sub(1);
                self.printed = true;
                self.written |= !self.dropped;
                self.tabbed = None;
                self.maybe_wrap = true;
            }
            _ => {
                self.utf8_pending = match b {
                    0xc0..=0xdf => 1,
                    0xe0..=0xef => 2,
                    0xf0..=0xff => 3,
                    _ => 0,
                };
                // A dropped character leaves `written` as it was: a
                // combining character after it joins what was printed
                // before, as in xterm, whose `char_was_written` is set but
                // whose last written cell stays where it was.
                let dropped = self.print_sensitive() && self.print(run, i, b);
                self.printed = true;
                self.written |= !dropped;
                self.dropped = dropped;
                self.tabbed = None;
                self.maybe_wrap = true;
            }
        }
    }

    pub(super) fn esc_dispatch(&mut self, run: &mut Run<'_, '_>, i: usize, b: u8) {
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

    pub(super) fn csi_dispatch(&mut self, run: &mut Run<'_, '_>, i: usize, fin: u8) {
        let p = &self.csi;
        match (p.private, p.intermediate, fin) {
            // DECSLRM, with mode 69 set (see `margins`).
            (0, 0, b's') if self.lrmm => self.set_lr_margins(run, i),
            // `CSI 0 T` and `CSI T` with more than one parameter are xterm's
            // mouse highlight tracking, not SD: xterm 379 does not scroll
            // (vt100 would scroll one line).
            (0, 0, b'T') if p.values.len() > 1 || p.values.first() == Some(&0) => cancel(run, i),
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
            // SCOSC / SCORC, with or without parameters: xterm 379 saves
            // with `CSI Pl ; Pr s` while left and right margin mode is off
            // (with it on, that is DECSLRM, above) and restores with
            // `CSI Ps u` (checked on the real xterm, fuzz/xterm.mjs).
            (0, 0, b's' | b'u') => {
                run.flush_to(i + 1);
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
    pub(super) fn vpa_in_origin(&mut self, run: &mut Run<'_, '_>, i: usize) {
        let n = self.csi.first_or(1);
        run.flush_to(i);
        let (_, col) = run.parser.screen().cursor_position();
        let col = col.min(self.cols - 1);
        let (top, bottom) = self.region(run.parser);
        let row = top.saturating_add(n - 1).min(bottom);
        cancel(run, i);
        run.inject(self.goto(row, col, top).as_bytes());
    }

    /// Feeds vt100 up to the start of the sequence being scanned, when it
    /// began in this chunk (so the cursor can be read as it was before).
    pub(super) fn flush_to_seq(&self, run: &mut Run<'_, '_>) {
        if let Some(start) = self.seq_start.filter(|&start| start >= run.done) {
            run.flush_to(start);
        }
    }

    /// The control sequence just scanned (final byte `fin`), to feed again
    /// after [`Compat::end_wrap_before`] cancelled it.
    pub(super) fn csi_again(&self, fin: u8) -> Vec<u8> {
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
}
