//! The text of each visible row, kept between snapshots, so a snapshot after
//! a small change rebuilds only the rows the change could have touched.
//!
//! Reading a row's text walks every cell of it; a full 80×24 screen is
//! 1 920 cells, and 400×200 is 80 000. Most output between two snapshots of
//! an interactive program is small: a typed key's echo, a backspace, a line
//! redrawn in place. Such output — printable characters, backspace, CR,
//! bell, colours (SGR), erase in line (EL) and moves along the line (CUF,
//! CUB), starting between sequences and too short to reach the last column
//! — changes only the cursor's row (and, for characters that join the cell
//! before the cursor, the row above). [`RowCache::note`] tells such output
//! apart; anything else (a line feed, a cursor move, a mode, a resize, text
//! that may wrap) marks every row stale, and so does any output while the
//! terminal is in a state where output on the row may leave it without the
//! cursor's column showing it (a wrap flag held before the last column,
//! left and right margins, reverse wraparound: see [`Before`]). The
//! judgement errs only towards rebuilding: tests compare the kept rows with
//! a full rebuild after random output of both kinds, on screens from 1
//! column up.

/// Trimmed text of each visible row, and which rows may have changed since.
#[derive(Default)]
pub(super) struct RowCache {
    /// Each visible row right-trimmed of spaces; meaningful when `valid`.
    rows: Vec<String>,
    /// False until the first build, and whenever any row may have changed
    /// in a way [`RowCache::note`] could not bound.
    valid: bool,
    /// Rows (first, last) that may have changed since the last build.
    stale: Option<(u16, u16)>,
    /// Builds that read only the stale rows (tests check they happen).
    #[cfg(test)]
    pub(super) partial_builds: usize,
}

/// Where the cursor is and how wide the screen is, before some output.
#[derive(Debug, Clone, Copy)]
pub(super) struct Before {
    /// Cursor row and column as vt100 reports them (the column may be
    /// `cols`: a wrap is pending).
    pub row: u16,
    pub col: u16,
    pub cols: u16,
    /// The parser is between sequences.
    pub at_ground: bool,
    /// Output on the row may leave it in ways the cursor's column does not
    /// show: xterm's wrap flag is held on an earlier column (after CBT or HT
    /// with a wrap pending, the next character wraps), left and right
    /// margins are set (text wraps at the right margin), or reverse
    /// wraparound is on (backspace and CUB at the left edge go on from the
    /// row above).
    pub may_leave_row: bool,
}

impl RowCache {
    /// Records that `bytes` are about to be parsed, from the state `before`.
    pub(super) fn note(&mut self, bytes: &[u8], before: impl FnOnce() -> Before) {
        if !self.valid {
            return;
        }
        let before = before();
        let judged = before.at_ground && !before.may_leave_row;
        match judged.then(|| in_row(bytes, before)).flatten() {
            Some(rows) => {
                self.stale = Some(match self.stale {
                    Some((a, b)) => (a.min(rows.0), b.max(rows.1)),
                    None => rows,
                });
            }
            None => self.invalidate(),
        }
    }

    /// Every row may have changed (a resize, a scrolled view).
    pub(super) fn invalidate(&mut self) {
        self.valid = false;
        self.stale = None;
    }

    /// The trimmed text of every visible row of `screen`, rebuilding the
    /// rows that may have changed since the last call.
    pub(super) fn rows(&mut self, screen: &vt100::Screen) -> &[String] {
        let rows = screen.size().0.get();
        if !self.valid || self.rows.len() != usize::from(rows) {
            self.rows = read_all(screen);
            self.valid = true;
        } else if let Some((first, last)) = self.stale {
            #[cfg(test)]
            {
                self.partial_builds += 1;
            }
            for r in first..=last.min(rows - 1) {
                // vt100 reads a range of rows without building the rows
                // before it; row `r` alone is `r` up to `r + 1` column 0 (a
                // line feed follows unless the row wrapped).
                let mut text = screen.contents_between(r, 0, r + 1, 0);
                if text.ends_with('\n') {
                    text.pop();
                }
                self.rows[usize::from(r)] = trimmed(text);
            }
        }
        self.stale = None;
        &self.rows
    }
}

/// Every visible row of `screen`, right-trimmed of spaces, read from its cells.
pub(super) fn read_all(screen: &vt100::Screen) -> Vec<String> {
    screen.rows(0, screen.size().1.get()).map(trimmed).collect()
}

/// The rows joined by `\n`, without the blank rows at the end.
pub(super) fn join(rows: &[String]) -> String {
    let used = rows
        .iter()
        .rposition(|r| !r.is_empty())
        .map_or(0, |i| i + 1);
    rows[..used].join("\n")
}

/// `text` without the spaces at its end, reusing its buffer.
fn trimmed(mut text: String) -> String {
    let len = text.trim_end_matches(' ').len();
    text.truncate(len);
    text
}

/// The rows `bytes` can change when parsed from `before`, if they stay on
/// the cursor's row (see the module docs); `None` when they may not.
fn in_row(bytes: &[u8], before: Before) -> Option<(u16, u16)> {
    // How far right the cursor can get: printing a character of n bytes
    // moves it at most n columns (a character two columns wide takes at
    // least three bytes in UTF-8), a CUF by its count; other moves go left.
    // Staying short of the last column keeps clear of wrapping, of vt100's
    // and xterm's right-margin rules, and of widening at the margin.
    let limit = usize::from(before.cols).saturating_sub(1);
    let mut reach = usize::from(before.col);
    let mut joins = false;
    if reach > limit {
        return None;
    }
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            0x20..=0x7e => {
                reach += 1;
                i += 1;
            }
            // BEL, BS, CR.
            0x07 | 0x08 | 0x0d => i += 1,
            0x1b => {
                let (len, right) = row_sequence(&bytes[i..])?;
                reach += right;
                i += len;
            }
            // The lead byte of a character of 2 to 4 bytes, checked one
            // character at a time (the judgement stops within a row, so a
            // long chunk is never scanned whole). C1 controls (U+0080 to
            // U+009F) act as controls.
            lead @ 0xc2..=0xf4 => {
                if lead == 0xc2 && matches!(bytes.get(i + 1), Some(0x80..=0x9f)) {
                    return None;
                }
                let len = if lead < 0xe0 {
                    2
                } else if lead < 0xf0 {
                    3
                } else {
                    4
                };
                std::str::from_utf8(bytes.get(i..i + len)?).ok()?;
                // It may join the cell before the cursor: with the cursor
                // in column 0 that would be on the row above (vt100 drops
                // such a character today; the row is rebuilt all the same).
                joins = true;
                reach += len;
                i += len;
            }
            _ => return None,
        }
        if reach > limit {
            return None;
        }
    }
    let first = if joins {
        before.row.saturating_sub(1)
    } else {
        before.row
    };
    Some((first, before.row))
}

/// `(length, columns the cursor may move right)` of the escape sequence at
/// the start of `bytes` if it is a whole SGR, EL, CUF or CUB with plain
/// numeric parameters; `None` for anything else.
fn row_sequence(bytes: &[u8]) -> Option<(usize, usize)> {
    if bytes.get(1) != Some(&b'[') {
        return None;
    }
    let params = bytes[2..]
        .iter()
        .take_while(|b| b.is_ascii_digit() || **b == b';' || **b == b':')
        .count();
    let end = 2 + params;
    let param = &bytes[2..end];
    let right = match bytes.get(end)? {
        b'm' => 0,
        b'K' | b'D' if !param.contains(&b';') && !param.contains(&b':') => 0,
        b'C' if !param.contains(&b';') && !param.contains(&b':') => {
            // CSI C with no count (or 0) moves one column. Counts past
            // the screen width are capped by vt100; here a large one just
            // ends the judgement.
            let n = std::str::from_utf8(param).ok()?;
            if n.is_empty() {
                1
            } else {
                n.parse::<usize>().ok()?.max(1)
            }
        }
        _ => return None,
    };
    Some((end + 1, right))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(row: u16, col: u16, cols: u16) -> Before {
        Before {
            row,
            col,
            cols,
            at_ground: true,
            may_leave_row: false,
        }
    }

    #[test]
    fn echo_and_line_edits_stay_on_the_cursor_row() {
        assert_eq!(in_row(b"x", at(5, 10, 80)), Some((5, 5)));
        assert_eq!(in_row(b"\x08 \x08", at(5, 10, 80)), Some((5, 5)));
        assert_eq!(in_row(b"\x08\x1b[K", at(5, 10, 80)), Some((5, 5)));
        assert_eq!(
            in_row(b"\r\x1b[1;31mok\x1b[0m\x1b[3C", at(5, 10, 80)),
            Some((5, 5))
        );
        assert_eq!(in_row("é".as_bytes(), at(5, 10, 80)), Some((4, 5)));
    }

    #[test]
    fn anything_that_may_leave_the_row_is_refused() {
        for bytes in [
            &b"\n"[..],
            b"\t",
            b"\x1b[H",
            b"\x1b[2J",
            b"\x1b[?25l",
            b"\x1b[1;2K",
            b"\x1b]0;t\x07",
            b"\x1b[",
            b"\x1b",
            b"\xc2\x85",
            b"\xff",
            b"\x1b[99999999999999999999999C",
        ] {
            assert_eq!(in_row(bytes, at(5, 10, 80)), None, "{bytes:?}");
        }
        // Reaching the last column, or starting with a wrap pending.
        assert_eq!(in_row(b"abc", at(0, 76, 80)), Some((0, 0)));
        assert_eq!(in_row(b"abcd", at(0, 76, 80)), None);
        assert_eq!(in_row(b"\x1b[4C", at(0, 76, 80)), None);
        assert_eq!(in_row(b"", at(0, 80, 80)), None);
        assert_eq!(in_row("漢".as_bytes(), at(0, 77, 80)), None);
    }
}
