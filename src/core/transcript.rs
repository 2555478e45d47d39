//! The output transcript: a ring buffer of everything the program printed,
//! addressed by absolute cursors, plus the escape stripper that turns terminal
//! output into plain text.
//!
//! Cursors count bytes of decoded (UTF-8) output since the session started, so
//! a caller can fetch only what is new: `read(since = previous cursor)`. The
//! ring keeps at most `limit` bytes; reading from a cursor that fell out of it
//! returns what is left and reports `truncated`.
//!
//! ```
//! use ptypilot::core::transcript::{ReadOptions, Transcript};
//! let mut t = Transcript::new(1024);
//! t.push("\x1b[32mok\x1b[0m\r\n");
//! let first = t.read(&ReadOptions::default()).unwrap();
//! assert_eq!(first.text, "ok\n");
//! t.push("more\r\n");
//! let next = t.read(&ReadOptions { since: Some(first.cursor), ..Default::default() }).unwrap();
//! assert_eq!(next.text, "more\n");
//! ```

use std::collections::VecDeque;

use super::error::{Error, Result};

/// Default transcript size per session: 8 MiB.
pub const DEFAULT_LIMIT: usize = 8 * 1024 * 1024;

/// What [`Transcript::read`] should return.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// Only output after this cursor (a value returned by an earlier read).
    pub since: Option<u64>,
    /// Only the last `tail` lines.
    pub tail: Option<usize>,
    /// Keep escape sequences and carriage returns as the program wrote them.
    pub raw: bool,
}

/// The result of [`Transcript::read`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadResult {
    /// The text.
    pub text: String,
    /// Pass this as `since` to get only what comes next.
    pub cursor: u64,
    /// `since` was older than the oldest byte the ring still holds.
    pub truncated: bool,
}

/// A bounded ring of decoded output with absolute cursors.
#[derive(Debug)]
pub struct Transcript {
    buf: VecDeque<u8>,
    /// Absolute cursor of `buf[0]`.
    start: u64,
    limit: usize,
    /// Cursors of line starts, oldest first, at least [`CHECKPOINT_EVERY`]
    /// apart: just after a `\n` that the [`Stripper`] takes as a line end
    /// (not one inside an escape sequence). A stripper started there is in
    /// the state one started further back would be in, so a `tail` read
    /// strips only from a recent checkpoint instead of the whole ring.
    checkpoints: VecDeque<u64>,
    /// The [`Stripper`]'s escape state at the end of what was pushed.
    scan: StripState,
    /// [`CHECKPOINT_EVERY`], smaller in tests.
    checkpoint_every: u64,
}

/// Smallest distance between two transcript checkpoints (bytes).
const CHECKPOINT_EVERY: u64 = 64 << 10;

impl Transcript {
    /// An empty transcript that keeps at most `limit` bytes (memory grows
    /// with the output, up to the limit).
    pub fn new(limit: usize) -> Self {
        Transcript {
            buf: VecDeque::new(),
            start: 0,
            limit: limit.max(1),
            checkpoints: VecDeque::new(),
            scan: StripState::Ground,
            checkpoint_every: CHECKPOINT_EVERY,
        }
    }

    /// Appends decoded output, dropping the oldest bytes beyond the limit.
    pub fn push(&mut self, text: &str) {
        self.checkpoint(text);
        self.push_bytes(text);
        while self.checkpoints.front().is_some_and(|&c| c < self.start) {
            self.checkpoints.pop_front();
        }
    }

    /// Follows the stripper's escape state over `text` (about to be pushed
    /// at [`Transcript::end`]) and records a checkpoint where one is due.
    fn checkpoint(&mut self, text: &str) {
        use StripState::*;
        let base = self.end();
        let bytes = text.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            if matches!(self.scan, Ground | Cr) {
                // Only ESC leaves the ground (a CR is settled by what follows
                // it, and a `\n` after it still ends the line).
                let esc = memchr::memchr(0x1b, &bytes[at..]).map_or(bytes.len(), |i| at + i);
                // The first line start in [at, esc) at least
                // `checkpoint_every` after the last checkpoint, and so on.
                let mut from = at;
                loop {
                    let last = self.checkpoints.back().copied().unwrap_or(0);
                    let due = (last + self.checkpoint_every).saturating_sub(base + 1);
                    let lo = from.max(usize::try_from(due).unwrap_or(usize::MAX));
                    if lo >= esc {
                        break;
                    }
                    let Some(nl) = memchr::memchr(b'\n', &bytes[lo..esc]) else {
                        break;
                    };
                    from = lo + nl + 1;
                    self.checkpoints.push_back(base + from as u64);
                }
                if esc == bytes.len() {
                    self.scan = Ground;
                    break;
                }
                self.scan = Esc;
                at = esc + 1;
                continue;
            }
            // Inside a sequence: step char by char, as the stripper does.
            let c = text[at..].chars().next().unwrap_or('\0');
            self.scan = self.scan.in_sequence(c);
            at += c.len_utf8();
        }
    }

    fn push_bytes(&mut self, text: &str) {
        let bytes = text.as_bytes();
        if bytes.len() >= self.limit {
            let skip = bytes.len() - self.limit;
            self.start += (self.buf.len() + skip) as u64;
            self.buf.clear();
            self.buf.extend(&bytes[skip..]);
            return;
        }
        let overflow = (self.buf.len() + bytes.len()).saturating_sub(self.limit);
        if overflow > 0 {
            self.buf.drain(..overflow);
            self.start += overflow as u64;
        }
        self.buf.extend(bytes);
    }

    /// Cursor just past the newest byte.
    pub fn end(&self) -> u64 {
        self.start + self.buf.len() as u64
    }

    /// Cursor of the oldest byte still held.
    pub fn start(&self) -> u64 {
        self.start
    }

    /// Bytes currently held.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// True when nothing is held.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Reads the transcript; see [`ReadOptions`].
    ///
    /// Stripped reads stop before an escape sequence (or a carriage return)
    /// that is still incomplete, and return a cursor pointing at it, so the
    /// next read sees it whole.
    pub fn read(&self, opts: &ReadOptions) -> Result<ReadResult> {
        let end = self.end();
        let since = opts.since.unwrap_or(self.start);
        if since > end {
            return Err(Error::invalid_arg(format!(
                "since must be a cursor returned by read() (at most {end}), got {since}"
            )));
        }
        let truncated = since < self.start;
        let from = since.max(self.start);
        if let Some(n) = opts.tail {
            // Strip from recent checkpoints, going back twice as far each
            // time, until the text holds `n` whole lines.
            let after: Vec<u64> = self
                .checkpoints
                .iter()
                .copied()
                .filter(|&c| c > from)
                .collect();
            let mut back = 1;
            while back <= after.len() {
                let mut result = self.read_from(after[after.len() - back], opts.raw);
                let body = result.text.strip_suffix('\n').unwrap_or(&result.text);
                let lines = if result.text.is_empty() {
                    0
                } else {
                    body.matches('\n').count() + 1
                };
                if lines >= n {
                    result.text = last_lines(&result.text, n).to_owned();
                    result.truncated = truncated;
                    return Ok(result);
                }
                back *= 2;
            }
        }
        let mut result = self.read_from(from, opts.raw);
        if let Some(n) = opts.tail {
            result.text = last_lines(&result.text, n).to_owned();
        }
        result.truncated = truncated;
        Ok(result)
    }

    /// Reads everything from `from` (a held cursor), stripped unless `raw`.
    fn read_from(&self, from: u64, raw: bool) -> ReadResult {
        let end = self.end();
        let window = self.window(from);
        let (text, cursor) = if raw {
            (window, end)
        } else {
            let mut stripper = Stripper::default();
            let mut out = String::with_capacity(window.len());
            stripper.feed(&window, &mut out);
            let cursor = match stripper.unfinished_at() {
                Some(offset) => from + offset as u64,
                None => end,
            };
            stripper.flush_line(&mut out);
            (out, cursor)
        };
        ReadResult {
            text,
            cursor,
            truncated: false,
        }
    }

    /// The held bytes from absolute cursor `from` as text, skipping a
    /// character cut in half by the ring's eviction.
    fn window(&self, from: u64) -> String {
        let skip = (from - self.start) as usize;
        let (a, b) = self.buf.as_slices();
        let mut bytes = Vec::with_capacity(self.buf.len() - skip);
        if skip < a.len() {
            bytes.extend_from_slice(&a[skip..]);
            bytes.extend_from_slice(b);
        } else {
            bytes.extend_from_slice(&b[skip - a.len()..]);
        }
        let lead = cut_char_len(&bytes);
        match String::from_utf8(bytes) {
            Ok(s) if lead == 0 => s,
            Ok(s) => s[lead..].to_owned(),
            Err(e) => String::from_utf8_lossy(&e.into_bytes()[lead..]).into_owned(),
        }
    }
}

/// Text that keeps only its head and its tail once it outgrows `limit` bytes
/// (half each), with a marker line saying how much of the middle was left
/// out. For one-shot outputs, where both ends tell the story.
#[derive(Debug, Clone)]
pub struct HeadTail {
    limit: usize,
    head: String,
    tail: VecDeque<u8>,
    omitted: u64,
}

impl HeadTail {
    /// Empty, keeping at most about `limit` bytes.
    pub fn new(limit: usize) -> Self {
        HeadTail {
            limit,
            head: String::new(),
            tail: VecDeque::new(),
            omitted: 0,
        }
    }

    /// Appends text.
    pub fn push(&mut self, mut text: &str) {
        let head_limit = self.limit / 2;
        if self.head.len() < head_limit {
            let mut take = (head_limit - self.head.len()).min(text.len());
            while !text.is_char_boundary(take) {
                take -= 1;
            }
            self.head.push_str(&text[..take]);
            text = &text[take..];
        }
        self.tail.extend(text.as_bytes());
        let overflow = self.tail.len().saturating_sub(self.limit - head_limit);
        if overflow > 0 {
            self.tail.drain(..overflow);
            self.omitted += overflow as u64;
        }
    }

    /// The text (with the marker where the middle was left out) and whether
    /// anything was.
    pub fn text(&self) -> (String, bool) {
        let tail: Vec<u8> = self.tail.iter().copied().collect();
        if self.omitted == 0 {
            return (
                format!("{}{}", self.head, String::from_utf8_lossy(&tail)),
                false,
            );
        }
        let lead = cut_char_len(&tail);
        let omitted = self.omitted + lead as u64;
        let tail = String::from_utf8_lossy(&tail[lead..]);
        (
            format!(
                "{}\n[... {omitted} bytes of output omitted ...]\n{tail}",
                self.head
            ),
            true,
        )
    }
}

/// Bytes at the start of `bytes` that continue a character cut off before it
/// (a ring that dropped its oldest bytes may start mid-character).
pub fn cut_char_len(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .take(3)
        .take_while(|&&b| (0x80..0xc0).contains(&b))
        .count()
}

/// The last `n` lines of `text` (a trailing newline does not start a line).
pub fn last_lines(text: &str, n: usize) -> &str {
    if n == 0 {
        return "";
    }
    let body = text.strip_suffix('\n').unwrap_or(text);
    match body.rmatch_indices('\n').nth(n - 1) {
        Some((idx, _)) => &text[idx + 1..],
        None => text,
    }
}

/// Removes escape sequences and applies carriage returns and backspaces, the
/// way the text would look on a terminal line.
///
/// `\r\n` becomes `\n`; a lone `\r` returns to the start of the line, so text
/// after it overwrites the line (a progress bar reads as its last state);
/// backspace moves one column left. Other control characters except tab are
/// dropped. Feed text in any pieces: state carries over between calls.
///
/// ```
/// use ptypilot::core::transcript::Stripper;
/// let mut s = Stripper::default();
/// let mut out = String::new();
/// s.feed("\x1b[1mBold\x1b[0m\r\n 10%\r 50%\r100%\r\n\x1b]0;title\x07done", &mut out);
/// s.flush_line(&mut out);
/// assert_eq!(out, "Bold\n100%\ndone");
/// ```
#[derive(Debug, Default, Clone)]
pub struct Stripper {
    state: StripState,
    /// The current line, as cells a cursor can move over.
    line: Vec<char>,
    col: usize,
    /// Bytes fed so far.
    fed: usize,
    /// Offset (in bytes fed) where the unfinished sequence or `\r` began.
    seq_start: usize,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum StripState {
    #[default]
    Ground,
    /// After `\r`: a following `\n` makes one newline.
    Cr,
    /// After ESC.
    Esc,
    /// ESC followed by intermediates (e.g. `ESC ( B`).
    EscIntermediate,
    /// In a CSI sequence, waiting for its final byte.
    Csi,
    /// In an OSC/DCS/APC/PM/SOS string, waiting for BEL or ST.
    Str,
    /// ESC inside a string: `\` ends it.
    StrEsc,
}

impl StripState {
    /// The state after `c` inside an escape sequence or string (any state
    /// but `Ground` and `Cr`, which the stripper handles with the text).
    fn in_sequence(self, c: char) -> StripState {
        use StripState::*;
        match (self, c) {
            (Esc, '[') => Csi,
            (Esc, ']' | 'P' | 'X' | '^' | '_') => Str,
            (Esc, ' '..='/') => EscIntermediate,
            (EscIntermediate, ' '..='/') => EscIntermediate,
            (Esc | EscIntermediate, _) => Ground,
            (Csi, '@'..='~') => Ground,
            (Csi, '\x1b') => Esc,
            (Csi, _) => Csi,
            (Str, '\x07' | '\u{9c}') => Ground,
            (Str, '\x1b') => StrEsc,
            (Str, _) => Str,
            (StrEsc, '\\') => Ground,
            (StrEsc, _) => Str,
            (Ground | Cr, _) => self,
        }
    }
}

impl Stripper {
    /// Strips `text`, appending every completed line (with its `\n`) to `out`.
    /// The current unfinished line stays inside until [`Stripper::flush_line`].
    pub fn feed(&mut self, text: &str, out: &mut String) {
        for (i, c) in text.char_indices() {
            self.step(c, self.fed + i, out);
        }
        self.fed += text.len();
    }

    /// Appends the current unfinished line (without a newline) and starts a
    /// new one at column 0.
    pub fn flush_line(&mut self, out: &mut String) {
        out.extend(self.line.drain(..));
        self.col = 0;
    }

    /// Where (in bytes fed) an escape sequence or `\r` began that is still
    /// incomplete, if any.
    pub fn unfinished_at(&self) -> Option<usize> {
        match self.state {
            StripState::Ground => None,
            _ => Some(self.seq_start),
        }
    }

    fn step(&mut self, c: char, offset: usize, out: &mut String) {
        use StripState::*;
        match self.state {
            Ground => self.ground(c, offset, out),
            Cr => {
                self.state = Ground;
                match c {
                    '\n' => self.newline(out),
                    '\r' => {
                        self.state = Cr;
                        self.seq_start = offset;
                    }
                    _ => {
                        self.col = 0;
                        self.ground(c, offset, out);
                    }
                }
            }
            state => {
                self.state = state.in_sequence(c);
                if state == Csi && self.state == Esc {
                    // ESC inside a CSI starts a new sequence.
                    self.seq_start = offset;
                }
            }
        }
    }

    fn ground(&mut self, c: char, offset: usize, out: &mut String) {
        match c {
            '\n' => self.newline(out),
            '\r' => {
                self.state = StripState::Cr;
                self.seq_start = offset;
            }
            '\x1b' => {
                self.state = StripState::Esc;
                self.seq_start = offset;
            }
            '\x08' => self.col = self.col.saturating_sub(1),
            '\t' => self.put('\t'),
            c if c.is_control() => {}
            c => self.put(c),
        }
    }

    fn put(&mut self, c: char) {
        if self.col < self.line.len() {
            self.line[self.col] = c;
        } else {
            self.line.push(c);
        }
        self.col += 1;
    }

    fn newline(&mut self, out: &mut String) {
        self.flush_line(out);
        out.push('\n');
    }
}

/// Strips a complete piece of output in one go (see [`Stripper`]).
pub fn strip(text: &str) -> String {
    let mut stripper = Stripper::default();
    let mut out = String::with_capacity(text.len());
    stripper.feed(text, &mut out);
    stripper.flush_line(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(t: &Transcript, since: Option<u64>, tail: Option<usize>, raw: bool) -> ReadResult {
        t.read(&ReadOptions { since, tail, raw }).unwrap()
    }

    #[test]
    fn since_returns_exactly_the_new_text() {
        let mut t = Transcript::new(1 << 20);
        let mut cursor = None;
        let mut seen = String::new();
        for i in 0..100 {
            t.push(&format!("line {i}\r\n"));
            if i % 7 == 0 {
                let r = read(&t, cursor, None, false);
                seen.push_str(&r.text);
                cursor = Some(r.cursor);
            }
        }
        seen.push_str(&read(&t, cursor, None, false).text);
        let expected: String = (0..100).map(|i| format!("line {i}\n")).collect();
        assert_eq!(seen, expected);
    }

    #[test]
    fn ring_drops_oldest_and_reports_truncated() {
        let mut t = Transcript::new(16);
        t.push("0123456789");
        t.push("abcdefghij");
        assert_eq!(t.len(), 16);
        assert_eq!(t.start(), 4);
        assert_eq!(t.end(), 20);
        let r = read(&t, Some(0), None, true);
        assert!(r.truncated);
        assert_eq!(r.text, "456789abcdefghij");
        let r = read(&t, Some(10), None, true);
        assert!(!r.truncated);
        assert_eq!(r.text, "abcdefghij");
        t.push(&"x".repeat(40));
        assert_eq!(t.len(), 16);
        assert_eq!(t.end(), 60);
        assert_eq!(read(&t, None, None, true).text, "x".repeat(16));
    }

    #[test]
    fn eviction_inside_a_character_skips_its_tail() {
        let mut t = Transcript::new(5);
        t.push("ab€cd"); // the ring keeps the last 5 bytes: "€cd"
        assert_eq!(read(&t, None, None, true).text, "€cd");
        t.push("e"); // now the first kept byte is inside '€'
        assert_eq!(read(&t, None, None, true).text, "cde");
    }

    #[test]
    fn since_beyond_end_is_invalid() {
        let t = Transcript::new(16);
        let err = t
            .read(&ReadOptions {
                since: Some(5),
                ..Default::default()
            })
            .unwrap_err();
        assert_eq!(err.code, super::super::ErrorCode::InvalidArg);
        assert!(err.message.contains("got 5"), "{}", err.message);
    }

    #[test]
    fn tail_reads_from_checkpoints_match_whole_reads() {
        // Output with line feeds inside escape sequences and strings (which
        // do not end a line), CR LF, progress bars, ST as a C1 character.
        let pieces = [
            "line\r\n",
            "\x1b[1mbold\x1b[0m\r\n",
            "\x1b]0;ti\ntle\x07",
            "\x1b]2;t\n\u{9c}",
            "\x1b[3\n1m",
            "\x1b\n",
            "\x1b(\nB",
            "\x1bP\nq\x1bx\n\x1b\\",
            " 10%\r 50%\r",
            "\r\n",
            "\n",
            "\u{65e5}\u{672c} e\u{301}",
            "\x08x",
        ];
        let mut rng = 0x9e37_79b9_u64;
        let mut next = |n: usize| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % n as u64) as usize
        };
        let mut used = 0;
        for case in 0..40 {
            let limit = [1 << 20, 4096, 700][case % 3];
            let mut t = Transcript::new(limit);
            t.checkpoint_every = [1, 16, 200][(case / 3) % 3];
            let mut cursors = vec![0];
            for _ in 0..400 {
                let text: String = (0..1 + next(4))
                    .map(|_| pieces[next(pieces.len())])
                    .collect();
                t.push(&text);
                cursors.push(t.end());
            }
            used += t.checkpoints.len();
            for _ in 0..30 {
                let since = Some(cursors[next(cursors.len())]);
                let raw = next(2) == 0;
                let n = next(40);
                let whole = t
                    .read(&ReadOptions {
                        since,
                        tail: None,
                        raw,
                    })
                    .unwrap();
                let tail = t
                    .read(&ReadOptions {
                        since,
                        tail: Some(n),
                        raw,
                    })
                    .unwrap();
                assert_eq!(
                    tail.text,
                    last_lines(&whole.text, n),
                    "case {case}, tail {n}, since {since:?}, raw {raw}"
                );
                assert_eq!(tail.cursor, whole.cursor, "case {case}: cursor");
                assert_eq!(tail.truncated, whole.truncated, "case {case}: truncated");
            }
        }
        assert!(used > 0, "no checkpoint was ever taken");
    }

    #[test]
    fn tail_keeps_last_lines() {
        let mut t = Transcript::new(1024);
        t.push("a\nb\nc\nd\n");
        assert_eq!(read(&t, None, Some(2), false).text, "c\nd\n");
        assert_eq!(read(&t, None, Some(10), false).text, "a\nb\nc\nd\n");
        assert_eq!(read(&t, None, Some(0), false).text, "");
        t.push("partial");
        assert_eq!(read(&t, None, Some(2), false).text, "d\npartial");
    }

    #[test]
    fn incomplete_escape_is_left_for_the_next_read() {
        let mut t = Transcript::new(1024);
        t.push("hi \x1b[3");
        let r = read(&t, None, None, false);
        assert_eq!(r.text, "hi ");
        assert_eq!(r.cursor, 3);
        t.push("1mred\x1b[0m\r");
        let r = read(&t, Some(r.cursor), None, false);
        assert_eq!(r.text, "red");
        t.push("\nnext");
        let r = read(&t, Some(r.cursor), None, false);
        assert_eq!(r.text, "\nnext");
        // Raw reads return everything, escapes included.
        let raw = read(&t, None, None, true);
        assert_eq!(raw.text, "hi \x1b[31mred\x1b[0m\r\nnext");
        assert_eq!(raw.cursor, t.end());
    }

    #[test]
    fn stripper_handles_sequences_and_line_editing() {
        let cases = [
            ("plain\r\ntext", "plain\ntext"),
            ("\x1b[31mred\x1b[0m", "red"),
            ("\x1b[?25l\x1b[2J\x1b[Hscreen", "screen"),
            ("\x1b]0;title\x07after", "after"),
            ("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"),
            ("\x1bP+q544e\x1b\\dcs", "dcs"),
            ("\x1b(Bcharset\x1b=", "charset"),
            ("abcdef\rXY", "XYcdef"),
            ("10%\r50%\r100%\n", "100%\n"),
            ("ab\x08c", "ac"),
            ("bell\x07\x00", "bell"),
            ("tab\there", "tab\there"),
            ("crcr\r\r\nx", "crcr\nx"),
            ("日本\r\n", "日本\n"),
        ];
        for (input, expected) in cases {
            assert_eq!(strip(input), expected, "input {input:?}");
        }
    }

    #[test]
    fn stripper_state_spans_feeds() {
        let input = "a\x1b[38;5;196mb\x1b]2;t\x1b\\c\r\nd";
        for cut in 0..=input.len() {
            if !input.is_char_boundary(cut) {
                continue;
            }
            let mut s = Stripper::default();
            let mut out = String::new();
            s.feed(&input[..cut], &mut out);
            s.feed(&input[cut..], &mut out);
            s.flush_line(&mut out);
            assert_eq!(out, "abc\nd", "cut at {cut}");
        }
    }

    #[test]
    fn head_tail_keeps_both_ends_and_says_how_much_is_left_out() {
        let mut kept = HeadTail::new(20);
        kept.push("0123456789");
        assert_eq!(kept.text(), ("0123456789".to_owned(), false));
        kept.push("abcdefghij");
        kept.push("KLMNOPQRST");
        let (text, truncated) = kept.text();
        assert!(truncated);
        assert_eq!(
            text,
            "0123456789\n[... 10 bytes of output omitted ...]\nKLMNOPQRST"
        );
        // A character cut by the ring is dropped whole and counted.
        let mut kept = HeadTail::new(4);
        kept.push("ab€€");
        let (text, truncated) = kept.text();
        assert!(truncated);
        assert_eq!(text, "ab\n[... 6 bytes of output omitted ...]\n");
    }
}
