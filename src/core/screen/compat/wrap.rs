//! The pending wrap as xterm keeps it (a flag beside the cursor, where vt100
//! keeps a position one past the last column), the wrap before a printed
//! character, and reverse wraparound (modes 45 and 1045, xterm's
//! `CursorBack`).

use super::cells::{Copied, pen};
use super::{Compat, Parser, Run, cancel, csi};

impl Compat {
    /// Wraps before a character `width` columns wide is printed, as xterm's
    /// `WrapLine`: the row is marked wrapped (what reverse wraparound
    /// reads) and the character goes to the start of the next row, in
    /// insert mode into room made for it there. vt100 marks a row only when
    /// it wraps a character itself, so the cursor is put past the last
    /// column ([`Compat::park`]) for vt100 to wrap as it prints; the
    /// returned column is vt100's cursor then. On the last row below the
    /// scroll region xterm stays on the row (vt100 too, unmarked): a CR LF
    /// there, column 0.
    pub(super) fn wrap_before_print(&mut self, run: &mut Run<'_, '_>, width: u16) -> u16 {
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

    /// What xterm's `ResetWrap` does besides ending a wrap pending on the
    /// last column: the wrap flag is gone wherever the cursor is, and so is
    /// the character printed last as the base of combining characters.
    pub(super) fn reset_wrap(&mut self) {
        self.held_wrap = false;
        self.written = false;
        self.tabbed = None;
    }

    /// Before a control at `at` that ends a pending wrap in xterm
    /// (`ResetWrap`): vt100's cursor leaves the position one past the last
    /// column for the last column, where xterm's is, so the control starts
    /// from there.
    pub(super) fn end_wrap_at(&mut self, run: &mut Run<'_, '_>, at: usize) {
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
    pub(super) fn end_wrap_before(&mut self, run: &mut Run<'_, '_>, i: usize) -> bool {
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
    pub(super) fn cursor_back(&mut self, run: &mut Run<'_, '_>, n: u16) {
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
    pub(super) fn park(&mut self, parser: &mut Parser, row: u16) {
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
        Copied::of(cell, true).print_to(&mut seq);
        seq.extend_from_slice(&pen(screen));
        parser.process(&seq);
        self.maybe_wrap = true;
    }
}

/// Moves the cursor from one past the last column (where vt100 leaves it
/// after writing there) onto the last column, where xterm has it.
pub(super) fn clamp_pending_wrap(parser: &mut Parser) {
    let (_, cols) = parser.screen().size();
    let (_, col) = parser.screen().cursor_position();
    if col >= cols.get() {
        parser.process(b"\x1b[D");
    }
}
