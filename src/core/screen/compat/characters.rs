//! Printing: characters that need care as they are printed (insert mode, no
//! auto-wrap, a held wrap, character sets), combining characters with no
//! character before them, VS16, a printed U+FFFD and C1 controls written as
//! UTF-8.

use super::stand_ins::{FFFD_STAND_IN, VS16_STAND_IN};
use super::wrap::clamp_pending_wrap;
use super::{Compat, Run, csi};

impl Compat {
    /// A character starts at `i` (its first byte is `b`) and something about
    /// printing needs care. Returns true when it was dropped (a wide
    /// character that does not fit, auto-wrap off).
    pub(super) fn print(&mut self, run: &mut Run<'_, '_>, i: usize, b: u8) -> bool {
        run.flush_to(i);
        let (len, width) = char_at(run.bytes, i);
        if self.lr.is_some() {
            let mapped = if b < 0x80 {
                self.sets[self.shift].map(b)
            } else {
                None
            };
            let mut buf = [0; 4];
            let mapped = mapped.map(|c| c.encode_utf8(&mut buf).as_bytes());
            self.print_in_lr(run, i, len, width, mapped);
            return false;
        }
        if width == 0 {
            // A combining character joins the cell before: nothing to insert,
            // and no move off the margin.
            return false;
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
                return true;
            }
        }
        if self.insert && col < cols {
            // Room for the character, as wide as it is.
            run.inject(&csi(width, b'@'));
        }
        if b < 0x80
            && let Some(mapped) = self.sets[self.shift].map(b)
        {
            run.inject(mapped.encode_utf8(&mut [0; 4]).as_bytes());
            run.skip(i + 1);
        }
        false
    }

    /// A combining character at `i` with no character printed right before
    /// it (see `written`), as xterm 379 places it: it joins the character
    /// under the cursor; where nothing is there it is dropped and the
    /// cursor stays (vt100 would join it to the cell before the cursor).
    /// Returns how many bytes it took; `None` for anything else. Format
    /// characters (ZWJ and the like) are [`Compat::special`]'s.
    pub(super) fn lone_mark(&mut self, run: &mut Run<'_, '_>, i: usize) -> Option<usize> {
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
        if let Some((last, after)) = self.tabbed.take() {
            if after != (row, col) || !self.written {
                return None;
            }
            // Joins the cell printed last, before the tab.
            let top = self.region(run.parser).0;
            let (last_row, last_col) = last;
            if last_col + 1 < self.cols {
                run.inject(self.goto(last_row, last_col + 1, top).as_bytes());
            } else {
                self.park(run.parser, last_row);
            }
            run.flush_to(i + len);
            run.inject(self.goto(row, col, top).as_bytes());
            self.tabbed = Some((last, after));
            return Some(len);
        }
        if self.written {
            return None;
        }
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
        // Nothing to join: xterm drops it.
        run.skip(i + len);
        Some(len)
    }

    /// Handles the character at `i` if it is one vt100 gets wrong (see
    /// [`find_special`]); returns how many bytes it took.
    pub(super) fn special(&mut self, run: &mut Run<'_, '_>, i: usize) -> Option<usize> {
        let bytes = &run.bytes[i..];
        if bytes.starts_with(VS16) {
            if !self.written && self.tabbed.is_none() && self.nothing_under_cursor(run, i) {
                // Nothing printed right before it (a wide character that
                // did not fit was dropped, say) and nothing under the
                // cursor: xterm 379 shows nothing (`CSI ? 7 l`, the last
                // column, a wide character, U+FE0F leaves the row blank).
                run.skip(i + VS16.len());
                self.printed = false;
                self.utf8_pending = 0;
                return Some(VS16.len());
            }
            self.vs16(run, i);
            self.printed = true;
            self.written = true;
            self.tabbed = None;
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
            self.tabbed = None;
            self.maybe_wrap = true;
            self.utf8_pending = 0;
            return Some(FFFD.len());
        }
        if let [0xc2, 0x80..=0x9f, ..] = *bytes {
            // A C1 control written as UTF-8: xterm 379 in UTF-8 mode (with
            // allowC1Printable off, its default) neither acts on it nor
            // shows it, and REP after it repeats nothing (`A\u{85}B` shows
            // `AB`, `A\u{9b}2CB` shows `A2CB`); vt100 may act on some.
            run.flush_to(i);
            run.skip(i + 2);
            self.printed = false;
            self.utf8_pending = 0;
            return Some(2);
        }
        if let Some(len) = format_len(bytes) {
            // A format character (ZWJ, ZWNJ, direction marks, word joiner,
            // BOM): xterm 379 leaves it out of the cells, and REP after it
            // repeats nothing; vt100 joins it to the cell before.
            run.flush_to(i);
            run.skip(i + len);
            self.printed = false;
            self.utf8_pending = 0;
            return Some(len);
        }
        None
    }

    /// True when the cell under the cursor (once the bytes before `i` are
    /// handled) is empty and no wrap is pending.
    fn nothing_under_cursor(&self, run: &mut Run<'_, '_>, i: usize) -> bool {
        run.flush_to(i);
        let screen = run.parser.screen();
        let (row, col) = screen.cursor_position();
        col < self.cols
            && !screen
                .cell(row, col)
                .is_some_and(|c| c.has_contents() || c.is_wide_continuation())
    }

    /// A VS16 (U+FE0F, emoji presentation) starts at `i`. vt100 widens a
    /// narrow character it follows to two columns (and panics when that
    /// character is in the last column); xterm keeps it one column wide,
    /// with the selector in its cell. Where it would widen, vt100 gets
    /// [`VS16_STAND_IN`] instead, which joins the cell without widening it.
    pub(super) fn vs16(&mut self, run: &mut Run<'_, '_>, i: usize) {
        run.flush_to(i);
        if vs16_widens(run.parser.screen()) {
            run.inject(VS16_STAND_IN.as_bytes());
            run.skip(i + VS16.len());
            self.stand_ins.used = true;
        }
    }
}

/// U+FE0F VARIATION SELECTOR-16 in UTF-8.
pub(super) const VS16: &[u8] = "\u{fe0f}".as_bytes();

/// U+FFFD REPLACEMENT CHARACTER in UTF-8.
pub(super) const FFFD: &[u8] = "\u{fffd}".as_bytes();

/// Where the first character in `bytes` that [`Compat::special`] handles
/// starts: a VS16, a U+FFFD, a C1 control in UTF-8 or a format character
/// xterm leaves out.
pub(super) fn find_special(bytes: &[u8]) -> Option<usize> {
    let mut at = 0;
    while let Some(k) = memchr::memchr3(0xef, 0xc2, 0xe2, &bytes[at..]) {
        let rest = &bytes[at + k..];
        if rest.starts_with(VS16)
            || rest.starts_with(FFFD)
            || matches!(rest, [0xc2, 0x80..=0x9f, ..])
            || format_len(rest).is_some()
        {
            return Some(at + k);
        }
        at += k + 1;
    }
    None
}

/// The length of the format character `bytes` starts with, if it is one
/// that xterm 379 leaves out of the cells (checked on the real xterm:
/// U+200B to U+200F, U+202A to U+202E, U+2060 to U+2064, U+FEFF; it shows
/// U+00AD and keeps U+061C).
fn format_len(bytes: &[u8]) -> Option<usize> {
    match *bytes {
        [0xe2, 0x80, 0x8b..=0x8f, ..]
        | [0xe2, 0x80, 0xaa..=0xae, ..]
        | [0xe2, 0x81, 0xa0..=0xa4, ..]
        | [0xef, 0xbb, 0xbf, ..] => Some(3),
        _ => None,
    }
}

/// True for the invisible format characters xterm ignores (it leaves
/// them out of the cells): zero-width space and joiners, direction marks,
/// word joiner and the like, the byte-order mark.
pub(super) fn is_format(c: char) -> bool {
    matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{feff}' | '\u{061c}' | '\u{180e}')
}

/// True when vt100, given a VS16 now, would make the cell it joins two
/// columns wide: the cell before the cursor (the first half of a wide
/// one) holds a narrow character that has an emoji presentation.
pub(super) fn vs16_widens(screen: &vt100::Screen) -> bool {
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

/// The length in bytes of the character starting at `i` and its width as
/// vt100 gives it (0, 1 or 2; 1 for what does not decode).
pub(super) fn char_at(bytes: &[u8], i: usize) -> (usize, u16) {
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
pub(super) fn repeated_char(cell: &str) -> Option<String> {
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
pub(super) fn last_printed(screen: &vt100::Screen) -> Option<String> {
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
