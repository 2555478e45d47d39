//! Tab stops: set, cleared, and the moves by them (HT, CHT, CBT) as xterm
//! makes them, keeping a pending wrap.

use super::{Compat, Parser, Run, csi};

impl Compat {
    /// Moves the cursor `n` tab stops right, as xterm's HT and CHT: no
    /// further than the last column, keeping the wrap flag (xterm moves the
    /// column alone). vt100 has been fed everything before the control.
    pub(super) fn tab_forward(&mut self, run: &mut Run<'_, '_>, n: u16) {
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
        self.note_tab(run.parser, (row, col));
    }

    /// After a tab from `before`: where a combining character goes next (see
    /// `tabbed`), when a character was printed right before it.
    fn note_tab(&mut self, parser: &Parser, before: (u16, u16)) {
        let (row, col) = before;
        let after = parser.screen().cursor_position();
        if let Some((last, _)) = self.tabbed {
            // A tab after a tab: still the cell printed before the first.
            self.tabbed = Some((last, after));
            return;
        }
        if !self.written || after == before || col == 0 {
            return;
        }
        let mut last = col.min(self.cols) - 1;
        if last > 0
            && col < self.cols
            && parser
                .screen()
                .cell(row, last)
                .is_some_and(|c| c.is_wide_continuation())
        {
            last -= 1;
        }
        self.tabbed = Some(((row, last), after));
    }

    /// Moves the cursor `n` tab stops left, as xterm's CBT: a pending wrap
    /// stays pending at the new column (xterm's tabulation never clears the
    /// flag; the next character still wraps).
    pub(super) fn tab_back(&mut self, run: &mut Run<'_, '_>, n: u16) {
        let (row, col) = run.parser.screen().cursor_position();
        if col >= self.cols {
            self.held_wrap = true;
        }
        self.maybe_wrap = false;
        let from = col.min(self.cols - 1);
        let target = self.previous_stop(from, n);
        if target != col {
            run.inject(&csi(target + 1, b'G'));
        }
        self.note_tab(run.parser, (row, col));
    }

    pub(super) fn tabs_mut(&mut self) -> &mut Vec<bool> {
        let cols = usize::from(self.cols);
        self.tabs
            .get_or_insert_with(|| (0..cols).map(|c| c % 8 == 0 && c > 0).collect())
    }

    /// The column `n` tab stops right of `col` (the last column if none).
    pub(super) fn next_stop(&self, col: u16, n: u16) -> u16 {
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
    pub(super) fn previous_stop(&self, col: u16, n: u16) -> u16 {
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
