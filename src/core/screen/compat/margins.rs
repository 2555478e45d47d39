//! Left and right margins (DECLRMM, `CSI ? 69 h`, and DECSLRM,
//! `CSI Pl ; Pr s`), which vt100 does not have.
//!
//! While they are set the layer does inside them what xterm does: a
//! character printed in the right margin leaves the cursor there with a
//! wrap pending, and the next one wraps to the left margin; carriage return
//! goes to the left margin; line feed, index and a wrap at the bottom
//! margin, reverse index at the top one, SU/SD and IL/DL scroll only the
//! rectangle the four margins bound; ICH/DCH (and insert mode), SL/SR and
//! DECIC/DECDC shift cells only up to the right margin; CUF stops at the
//! right margin, CUB at the left one, tabs at the right one; in origin mode
//! absolute columns count from the left margin. vt100's grid holds the
//! cells; the layer moves them itself, printing each moved cell again with
//! its own attributes (or erasing it with them when it is empty).

use super::cells::{Copied, pen};
use super::wrap::clamp_pending_wrap;
use super::{Compat, Parser, Run, cancel};

/// The cells `from..=to` of `row`, one per column: `None` for the second
/// half of a wide character whose first half is in the range.
fn copy_cells(parser: &Parser, row: u16, from: u16, to: u16) -> Vec<Option<Copied>> {
    let screen = parser.screen();
    (from..=to)
        .map(|col| {
            let cell = screen.cell(row, col)?;
            if cell.is_wide_continuation() && col > from {
                return None;
            }
            // The second half of a wide character whose first half is left
            // of the range shows as a blank.
            Some(Copied::of(cell, !cell.is_wide_continuation()))
        })
        .collect()
}

impl Compat {
    /// DECSLRM (`CSI Pl ; Pr s` with mode 69 set), final byte at `i`: valid
    /// margins are set and the cursor goes home (to the top-left of the
    /// margins in origin mode), as xterm's; margins that are not valid
    /// change nothing.
    pub(super) fn set_lr_margins(&mut self, run: &mut Run<'_, '_>, i: usize) {
        let left = self.csi.first_or(1);
        let right = match self.csi.values.get(1).copied() {
            Some(r) if r != 0 && r <= self.cols => r,
            _ => self.cols,
        };
        cancel(run, i);
        if right <= left {
            return;
        }
        self.lr = (left > 1 || right < self.cols).then_some((left - 1, right - 1));
        self.reset_wrap();
        self.maybe_wrap = false;
        let (top, _) = self.region(run.parser);
        let (row, col) = if self.origin { (top, left - 1) } else { (0, 0) };
        run.inject(self.goto(row, col, top).as_bytes());
    }

    /// Where carriage return puts the cursor from `col`: the left margin,
    /// unless the cursor is left of it outside origin mode (column 0).
    pub(super) fn carriage_return_col(&self, col: u16) -> u16 {
        match self.lr {
            Some((left, _)) if self.origin || col >= left => left,
            _ => 0,
        }
    }

    /// The rightmost column the cursor can reach by CUF or a tab from
    /// `col`: the right margin when it is at or left of it.
    pub(super) fn right_limit(&self, col: u16) -> u16 {
        match self.lr {
            Some((_, right)) if col <= right => right,
            _ => self.cols - 1,
        }
    }

    /// A character (its first byte at `i`, `len` bytes, `width` columns)
    /// printed while left and right margins are set: wraps at the right
    /// margin to the left one, and leaves the cursor on the right margin
    /// with the wrap pending after a character that ends there. `fed` is
    /// what vt100 is given for it (its bytes, or a stand-in or a mapped
    /// character).
    pub(super) fn print_in_lr(
        &mut self,
        run: &mut Run<'_, '_>,
        i: usize,
        len: usize,
        width: u16,
        fed: Option<&[u8]>,
    ) {
        let Some((left, margin)) = self.lr else {
            return;
        };
        run.flush_to(i);
        let feed = |run: &mut Run<'_, '_>| match fed {
            Some(bytes) => {
                run.inject(bytes);
                run.skip(i + len);
            }
            None => run.flush_to(i + len),
        };
        if width == 0 {
            feed(run);
            return;
        }
        let (mut row, vt_col) = run.parser.screen().cursor_position();
        let mut col = vt_col;
        let mut wrap = std::mem::take(&mut self.held_wrap);
        if vt_col >= self.cols {
            clamp_pending_wrap(run.parser);
            col = self.cols - 1;
            wrap = true;
        }
        self.maybe_wrap = false;
        if wrap && self.autowrap {
            row = self.index_in_lr(run.parser, row, col);
            col = left;
        }
        let right = if col > margin { self.cols - 1 } else { margin };
        if col + width - 1 > right {
            if !self.autowrap || col <= left {
                // Dropped: it does not fit (xterm).
                run.inject(self.goto(row, col, self.region(run.parser).0).as_bytes());
                run.skip(i + len);
                return;
            }
            row = self.index_in_lr(run.parser, row, col);
            col = left;
        }
        let top = self.region(run.parser).0;
        if self.insert && col >= left && col <= margin {
            self.shift_cells(run.parser, row, col, i32::from(width));
        }
        run.inject(self.goto(row, col, top).as_bytes());
        feed(run);
        if col + width - 1 == right {
            // The cursor stays on the right margin, the wrap pending.
            if right + 1 == self.cols {
                clamp_pending_wrap(run.parser);
            } else {
                run.inject(b"\x1b[D");
            }
            self.held_wrap = true;
        }
        self.written = true;
        self.tabbed = None;
    }

    /// An index (line feed, IND, or the wrap of a printed character) from
    /// `(row, col)` with left and right margins set: on the bottom margin,
    /// inside the left and right ones, the rectangle scrolls up; elsewhere
    /// the cursor moves down (no further than the bottom margin from above
    /// it, the last row from below). Returns the new row; the cursor is not
    /// moved.
    pub(super) fn index_in_lr(&mut self, parser: &mut Parser, row: u16, col: u16) -> u16 {
        let (top, bottom) = self.region(parser);
        let rows = parser.screen().size().0.get();
        let inside = self.lr.is_some_and(|(l, r)| col >= l && col <= r);
        if row == bottom && inside {
            self.scroll_rect(parser, top, bottom, 1);
            row
        } else if row == bottom || row + 1 >= rows {
            row
        } else {
            row + 1
        }
    }

    /// Reverse index from `(row, col)` with left and right margins set: on
    /// the top margin, inside the left and right ones, the rectangle
    /// scrolls down; elsewhere the cursor moves up (no further than the top
    /// margin from below it). Returns the new row.
    pub(super) fn reverse_index_in_lr(&mut self, parser: &mut Parser, row: u16, col: u16) -> u16 {
        let (top, bottom) = self.region(parser);
        let inside = self.lr.is_some_and(|(l, r)| col >= l && col <= r);
        if row == top && inside {
            self.scroll_rect(parser, top, bottom, -1);
            row
        } else if row == top || row == 0 {
            row
        } else {
            row - 1
        }
    }

    /// A line feed, VT, FF, IND or NEL (`cr`: with a carriage return) at
    /// `i` with left and right margins set (see [`Compat::index_in_lr`]).
    pub(super) fn line_feed_in_lr(&mut self, run: &mut Run<'_, '_>, cr: bool) {
        let (row, vt_col) = run.parser.screen().cursor_position();
        let col = vt_col.min(self.cols - 1);
        self.reset_wrap();
        self.maybe_wrap = false;
        let row = self.index_in_lr(run.parser, row, col);
        let col = if cr {
            self.carriage_return_col(col)
        } else {
            col
        };
        let top = self.region(run.parser).0;
        run.inject(self.goto(row, col, top).as_bytes());
    }

    /// Scrolls the rows `top..=bottom` between the left and right margins
    /// up by `n` rows (down for a negative `n`), the rows coming in blank
    /// with the pen's colours; the cursor, the pen and a pending wrap stay.
    pub(super) fn scroll_rect(&mut self, parser: &mut Parser, top: u16, bottom: u16, n: i32) {
        let Some((left, right)) = self.lr else {
            return;
        };
        let rows: Vec<_> = (top..=bottom)
            .map(|row| copy_cells(parser, row, left, right))
            .collect();
        let height = rows.len() as i32;
        let blank = self.blank_row(parser, left, right);
        let moved = (top..=bottom).map(|row| {
            let src = i32::from(row - top) + n;
            if (0..height).contains(&src) {
                rows[src as usize].clone()
            } else {
                blank.clone()
            }
        });
        let moved: Vec<_> = moved.collect();
        self.put_rows(parser, top, left, right, &moved);
    }

    /// Inserts (positive `n`) or deletes (negative) `n` blank cells at
    /// `col` of `row`, shifting the cells up to the right margin only.
    pub(super) fn shift_cells(&mut self, parser: &mut Parser, row: u16, col: u16, n: i32) {
        let right = self.right_limit(col);
        let old = copy_cells(parser, row, col, right);
        let blank = self.blank_row(parser, col, right);
        let span = old.len() as i32;
        let moved: Vec<_> = (0..span)
            .map(|k| {
                let src = k - n;
                if (0..span).contains(&src) {
                    old[src as usize].clone()
                } else {
                    blank[k as usize].clone()
                }
            })
            .collect();
        self.put_rows(parser, row, col, right, &[moved]);
    }

    /// Blank cells `from..=to` with the pen's colours.
    fn blank_row(&self, parser: &Parser, from: u16, to: u16) -> Vec<Option<Copied>> {
        let pen = pen(parser.screen());
        (from..=to)
            .map(|_| {
                Some(Copied {
                    text: String::new(),
                    sgr: pen.clone(),
                    wide: false,
                })
            })
            .collect()
    }

    /// Writes `rows` of cells into columns `from..=to` from row `first`
    /// down, then puts the cursor, the pen and a pending wrap back.
    fn put_rows(
        &mut self,
        parser: &mut Parser,
        first: u16,
        from: u16,
        to: u16,
        rows: &[Vec<Option<Copied>>],
    ) {
        let (row, vt_col) = parser.screen().cursor_position();
        let pen = pen(parser.screen());
        let top = self.region(parser).0;
        let mut seq = Vec::new();
        for (k, cells) in rows.iter().enumerate() {
            seq.extend_from_slice(self.goto(first + k as u16, from, top).as_bytes());
            let mut col = from;
            let mut at = 0;
            while at < cells.len() {
                let step = match &cells[at] {
                    // The second half of a wide character moved in from
                    // the left of the range: blank.
                    None => None,
                    Some(cell) if cell.wide && col == to => None,
                    Some(cell) => Some(cell),
                };
                match step {
                    Some(cell) if !cell.text.is_empty() => {
                        cell.print_to(&mut seq);
                        let width = if cell.wide { 2 } else { 1 };
                        col += width;
                        at += usize::from(width);
                    }
                    _ => {
                        let sgr = cells[at].as_ref().map_or(&pen, |c| &c.sgr);
                        seq.extend_from_slice(sgr);
                        seq.extend_from_slice(b"\x1b[X\x1b[C");
                        col += 1;
                        at += 1;
                    }
                }
            }
        }
        seq.extend_from_slice(&pen);
        seq.extend_from_slice(self.goto(row, vt_col.min(self.cols - 1), top).as_bytes());
        parser.process(&seq);
        if vt_col >= self.cols {
            self.park(parser, row);
        }
    }

    /// SL, SR, DECIC or DECDC (`fin`, by `n`) with left and right margins
    /// set and the cursor inside them: the rows inside the scroll margins
    /// gain or lose cells at the left margin or the cursor column, shifting
    /// up to the right margin.
    pub(super) fn column_edit_in_lr(&mut self, parser: &mut Parser, fin: u8, n: u16, col: u16) {
        let Some((left, _)) = self.lr else {
            return;
        };
        let (top, bottom) = self.region(parser);
        let at = if matches!(fin, b'@' | b'A') {
            left
        } else {
            col
        };
        let n = i32::from(n);
        let n = if matches!(fin, b'@' | b'~') { -n } else { n };
        for row in top..=bottom {
            self.shift_cells(parser, row, at, n);
        }
    }

    /// IL or DL (`insert`, by `n`) at the cursor `(row, col)` with left and
    /// right margins set: inside all four margins the rectangle from the
    /// cursor row down scrolls, and the cursor goes to the left margin;
    /// elsewhere nothing happens.
    pub(super) fn lines_in_lr(
        &mut self,
        run: &mut Run<'_, '_>,
        insert: bool,
        n: u16,
        row: u16,
        col: u16,
    ) {
        let Some((left, right)) = self.lr else {
            return;
        };
        let (top, bottom) = self.region(run.parser);
        if !(top..=bottom).contains(&row) || col < left || col > right {
            return;
        }
        self.reset_wrap();
        let n = i32::from(n);
        self.scroll_rect(run.parser, row, bottom, if insert { -n } else { n });
        run.inject(self.goto(row, left, top).as_bytes());
        self.maybe_wrap = false;
    }

    /// ICH or DCH (`insert`, by `n`) with left and right margins set: only
    /// with the cursor inside them, shifting up to the right margin.
    pub(super) fn chars_in_lr(&mut self, run: &mut Run<'_, '_>, insert: bool, n: u16) {
        let Some((left, right)) = self.lr else {
            return;
        };
        let (row, col) = run.parser.screen().cursor_position();
        if col < left || col > right {
            return;
        }
        let n = i32::from(n);
        self.shift_cells(run.parser, row, col, if insert { n } else { -n });
    }

    /// A tab stop search limit and CUF limit in one: the column `n` stops
    /// right of `col`, no further than [`Compat::right_limit`].
    pub(super) fn tab_target(&self, col: u16, n: u16) -> u16 {
        self.next_stop(col, n).min(self.right_limit(col))
    }

    /// CUF by `n` from `col` (see [`Compat::right_limit`]).
    pub(super) fn forward_target(&self, col: u16, n: u16) -> u16 {
        col.saturating_add(n).min(self.right_limit(col))
    }

    /// CUB by `n` from `col`: no further than the left margin from at or
    /// right of it.
    pub(super) fn back_target(&self, col: u16, n: u16) -> u16 {
        let floor = match self.lr {
            Some((left, _)) if col >= left => left,
            _ => 0,
        };
        col.saturating_sub(n).max(floor)
    }

    /// An absolute column `n` (1-based, as CUP, CHA, HPA take it): in
    /// origin mode from the left margin and no further than the right one.
    pub(super) fn absolute_col(&self, n: u16) -> u16 {
        let n = n.max(1) - 1;
        match self.lr {
            Some((left, right)) if self.origin => left.saturating_add(n).min(right),
            _ => n.min(self.cols - 1),
        }
    }
}
