//! Plain text that waits unparsed, and floods skipped without parsing: the
//! fast path of [`Screen::process`] (which documents what may wait and what
//! may be skipped, and why the screen stays exactly what parsing every byte
//! shows).

use super::{ROWS_RANGE, Screen};

/// Plain text in a chunk shorter than this is always parsed line by line.
pub(super) const FAST_FORWARD_MIN: usize = 16 << 10;

/// Unparsed plain text is parsed once this much has piled up, even if nobody
/// looked at the screen.
pub(super) const DEFER_MAX: usize = 1 << 20;

/// What is already known of text to skip in (see [`Screen::skip_of`]).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Known {
    /// The length of its leading deferrable run ([`deferrable_prefix`]).
    plain: Option<usize>,
    /// The length of its leading run of printable ASCII
    /// ([`ascii_printable_prefix`]).
    ascii: Option<usize>,
}

/// Where skipped plain text leaves the cursor, on the bottom row.
#[derive(Debug, Clone, Copy)]
pub(super) enum Skip {
    /// Column 0, after a CR LF.
    LineStart,
    /// Past the last column with a wrap pending, after this character.
    RowStart(u8),
}

/// After catching up, a pending buffer larger than this is given back.
pub(super) const PENDING_KEPT: usize = 64 << 10;

impl Screen {
    /// Drops the waiting text that would scroll out unparsed anyway.
    pub(super) fn drop_skippable(&mut self) {
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
    pub(super) fn can_defer(&self, bytes: &[u8]) -> Option<usize> {
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
    pub(super) fn catch_up(&mut self) {
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

    /// Sets the cursor and the colours (`pen`, see [`pen_after`]) as the
    /// `cut` bytes of text that go unparsed left them (see [`Skip`]).
    pub(super) fn apply_skip(&mut self, skip: Skip, cut: usize, pen: &[u8]) {
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
    pub(super) fn plain_text_to_skip(&self, bytes: &[u8]) -> usize {
        self.skip_of(bytes, Known::default())
            .map_or(0, |(cut, _)| cut)
    }

    /// How many leading bytes of `bytes` can go unparsed, and where they
    /// leave the cursor (see [`Screen::process`]).
    pub(super) fn skip_of(&self, bytes: &[u8], known: Known) -> Option<(usize, Skip)> {
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
    pub(super) fn row_skip_of(
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
}

/// The length of the leading run of printable ASCII (0x20..=0x7e) in
/// `bytes`. In blocks without an early exit inside, so the check vectorizes
/// (it runs over megabytes when a line has no line feeds).
pub(super) fn ascii_printable_prefix(bytes: &[u8]) -> usize {
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
pub(super) fn plain_prefix(bytes: &[u8]) -> usize {
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
pub(super) fn deferrable_prefix(bytes: &[u8]) -> usize {
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
pub(super) fn deferrable(bytes: &[u8]) -> Option<usize> {
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
pub(super) const OPEN_MAX: usize = 64;

/// True when `bytes` is the start of what may still become a colour or
/// erase sequence.
pub(super) fn quiet_start(bytes: &[u8]) -> bool {
    bytes == b"\x1b" || (bytes.starts_with(b"\x1b[") && bytes[2..].iter().all(sgr_param))
}

/// True for the bytes of SGR parameters: digits, `;` and `:`.
pub(super) fn sgr_param(b: &u8) -> bool {
    matches!(b, b'0'..=b'9' | b';' | b':')
}

/// The length and final byte of the SGR (`ESC [`, digits, `;` and `:`,
/// then `m`) or EL (`ESC [`, digits, then `K`) sequence that `bytes` starts
/// with, if it starts with a complete one.
pub(super) fn quiet_sequence(bytes: &[u8]) -> Option<(usize, u8)> {
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
pub(super) fn pen_after(bytes: &[u8]) -> Vec<u8> {
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
