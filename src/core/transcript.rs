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
}

impl Transcript {
    /// An empty transcript that keeps at most `limit` bytes (memory grows
    /// with the output, up to the limit).
    pub fn new(limit: usize) -> Self {
        Transcript {
            buf: VecDeque::new(),
            start: 0,
            limit: limit.max(1),
        }
    }

    /// Appends decoded output, dropping the oldest bytes beyond the limit.
    pub fn push(&mut self, text: &str) {
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
        let window = self.window(from);
        let (mut text, cursor) = if opts.raw {
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
        if let Some(n) = opts.tail {
            text = last_lines(&text, n).to_owned();
        }
        Ok(ReadResult {
            text,
            cursor,
            truncated,
        })
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
            Esc => {
                self.state = match c {
                    '[' => Csi,
                    ']' | 'P' | 'X' | '^' | '_' => Str,
                    ' '..='/' => EscIntermediate,
                    _ => Ground,
                }
            }
            EscIntermediate => {
                if !(' '..='/').contains(&c) {
                    self.state = Ground;
                }
            }
            Csi => {
                if ('@'..='~').contains(&c) {
                    self.state = Ground;
                } else if c == '\x1b' {
                    self.state = Esc;
                    self.seq_start = offset;
                }
            }
            Str => match c {
                '\x07' | '\u{9c}' => self.state = Ground,
                '\x1b' => self.state = StrEsc,
                _ => {}
            },
            StrEsc => {
                self.state = if c == '\\' { Ground } else { Str };
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
