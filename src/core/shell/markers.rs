//! Finding the shell-integration markers (with our nonce) in terminal output
//! that arrives in arbitrary pieces.

/// Longest marker the parser waits for before treating the bytes as output.
pub(super) const MAX_MARKER: usize = 160;

/// A shell-integration marker with our nonce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    /// The prompt: the shell waits for a line. `status` is `$?` at that time.
    Prompt {
        /// The exit status of the last command.
        status: i32,
        /// The last probe line the shell ran, and `$?` when it ran: the
        /// prompt shows what that line assigned, so a prompt can prove
        /// that the shell read the probe line (a command cannot know the
        /// probe's number before the shell reads it).
        probe: Option<(u64, i32)>,
    },
    /// The command starts.
    Start,
    /// The command is done: the shell waits for the secret line that lets
    /// it print [`Marker::End`]. A command can print this too; it ends
    /// nothing.
    Done,
    /// The command ended: printed after the shell read the secret line.
    End {
        /// Its exit status.
        status: i32,
        /// The secret the shell read (32 hex digits).
        secret: u128,
    },
    /// The answer to a probe line (see `watchdog`): the shell has read and
    /// run every line written before it.
    Probe {
        /// The probe's number (random).
        id: u64,
        /// `$?` when the probe line ran: the status of the line before it.
        status: i32,
    },
}

/// A piece of terminal output: text, or one of our markers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Output text (anything that is not one of our markers).
    Text(String),
    /// A marker with the right nonce.
    Marker(Marker),
}

/// Finds our markers in terminal output that arrives in arbitrary pieces.
///
/// A marker split across pieces is held back until it is complete; a
/// sequence that turns out not to be ours (another OSC 133, a wrong nonce, a
/// malformed status, or more than [`MAX_MARKER`] bytes without an end) passes
/// through as text.
///
/// ```
/// use ptypilot::core::shell::{Marker, MarkerParser, Piece};
/// let mut p = MarkerParser::new("abc");
/// let mut out = Vec::new();
/// p.feed("hi\x1b]133;C;a", &mut out);
/// p.feed("bc\x07", &mut out);
/// assert_eq!(out, vec![Piece::Text("hi".into()), Piece::Marker(Marker::Start)]);
/// ```
#[derive(Debug, Clone)]
pub struct MarkerParser {
    nonce: String,
    /// The start of a possible marker, cut off by the end of the last piece.
    pending: String,
}

/// What the text at an ESC is.
pub(super) enum Candidate {
    /// One of our markers, `len` bytes long.
    Marker(Marker, usize),
    /// It could still become a marker: wait for more text.
    Incomplete,
    /// Not one of ours.
    No,
}

pub(super) const MARKER_PREFIX: &str = "\x1b]133;";

impl MarkerParser {
    /// A parser for markers carrying `nonce`.
    pub fn new(nonce: &str) -> Self {
        MarkerParser {
            nonce: nonce.to_owned(),
            pending: String::new(),
        }
    }

    /// Splits `text` into pieces, appended to `out`. Text is never split
    /// needlessly: consecutive text comes out as one piece per call.
    pub fn feed(&mut self, text: &str, out: &mut Vec<Piece>) {
        let joined;
        let data = if self.pending.is_empty() {
            text
        } else {
            self.pending.push_str(text);
            joined = std::mem::take(&mut self.pending);
            joined.as_str()
        };
        let mut text_from = 0;
        let mut at = 0;
        while let Some(rel) = data[at..].find('\x1b') {
            let esc = at + rel;
            match self.candidate(&data[esc..]) {
                Candidate::Marker(marker, len) => {
                    push_text(out, &data[text_from..esc]);
                    out.push(Piece::Marker(marker));
                    at = esc + len;
                    text_from = at;
                }
                Candidate::Incomplete => {
                    push_text(out, &data[text_from..esc]);
                    self.pending = data[esc..].to_owned();
                    return;
                }
                Candidate::No => at = esc + 1,
            }
        }
        push_text(out, &data[text_from..]);
    }

    /// Releases text held back as a possible marker (the stream ended).
    pub fn flush(&mut self, out: &mut Vec<Piece>) {
        let pending = std::mem::take(&mut self.pending);
        push_text(out, &pending);
    }

    fn candidate(&self, s: &str) -> Candidate {
        if s.len() < MARKER_PREFIX.len() {
            return if MARKER_PREFIX.starts_with(s) {
                Candidate::Incomplete
            } else {
                Candidate::No
            };
        }
        if !s.starts_with(MARKER_PREFIX) {
            return Candidate::No;
        }
        let body = &s[MARKER_PREFIX.len()..];
        for (i, c) in body.char_indices() {
            if MARKER_PREFIX.len() + i >= MAX_MARKER {
                return Candidate::No;
            }
            match c {
                '\x07' => {
                    return match self.parse(&body[..i]) {
                        Some(marker) => Candidate::Marker(marker, MARKER_PREFIX.len() + i + 1),
                        None => Candidate::No,
                    };
                }
                c if c.is_ascii_alphanumeric() || c == ';' || c == '-' => {}
                _ => return Candidate::No,
            }
        }
        if s.len() < MAX_MARKER {
            Candidate::Incomplete
        } else {
            Candidate::No
        }
    }

    fn parse(&self, payload: &str) -> Option<Marker> {
        let parts: Vec<&str> = payload.split(';').collect();
        let marker = match parts.as_slice() {
            ["A", status, nonce] | ["A", status, nonce, ""] => (
                Marker::Prompt {
                    status: status.parse().ok()?,
                    probe: None,
                },
                *nonce,
            ),
            ["A", status, nonce, id, probe_status] => (
                Marker::Prompt {
                    status: status.parse().ok()?,
                    probe: Some((id.parse().ok()?, probe_status.parse().ok()?)),
                },
                *nonce,
            ),
            ["C", nonce] => (Marker::Start, *nonce),
            ["D", nonce] => (Marker::Done, *nonce),
            ["E", status, secret, nonce] if secret.len() == 32 => (
                Marker::End {
                    status: status.parse().ok()?,
                    secret: u128::from_str_radix(secret, 16).ok()?,
                },
                *nonce,
            ),
            ["P", id, status, nonce] => (
                Marker::Probe {
                    id: id.parse().ok()?,
                    status: status.parse().ok()?,
                },
                *nonce,
            ),
            _ => return None,
        };
        (marker.1 == self.nonce).then_some(marker.0)
    }
}

pub(super) fn push_text(out: &mut Vec<Piece>, text: &str) {
    if text.is_empty() {
        return;
    }
    if let Some(Piece::Text(last)) = out.last_mut() {
        last.push_str(text);
    } else {
        out.push(Piece::Text(text.to_owned()));
    }
}

/// Markers as a shell prints them, for tests.
#[cfg(test)]
pub(super) mod testing {
    /// The nonce of the test markers.
    pub const N: &str = "0123456789abcdef0123456789abcdef";

    /// The prompt marker with `status`.
    pub fn a(status: i32) -> String {
        format!("\x1b]133;A;{status};{N};\x07")
    }
    /// The prompt marker after probe line `id` ran with `$?` `probe_status`.
    pub fn a_probe(status: i32, id: u64, probe_status: i32) -> String {
        format!("\x1b]133;A;{status};{N};{id};{probe_status}\x07")
    }
    /// The probe marker of probe line `id`, run with `$?` `status`.
    pub fn p(id: u64, status: i32) -> String {
        format!("\x1b]133;P;{id};{status};{N}\x07")
    }
    /// The start marker.
    pub fn c() -> String {
        format!("\x1b]133;C;{N}\x07")
    }
    /// The done marker.
    pub fn d() -> String {
        format!("\x1b]133;D;{N}\x07")
    }
    /// The secret of the test end markers.
    pub const S: u128 = 0x5ec2e7;
    /// The end marker with `status` and `secret`.
    pub fn e(status: i32, secret: u128) -> String {
        format!("\x1b]133;E;{status};{secret:032x};{N}\x07")
    }
}

#[cfg(test)]
mod tests {
    use super::testing::*;
    use super::*;

    /// Feeds `text` split at every position in `cuts` (byte offsets on char
    /// boundaries) and returns the pieces, merged as one call would.
    fn parse_split(text: &str, cuts: &[usize]) -> Vec<Piece> {
        let mut p = MarkerParser::new(N);
        let mut out = Vec::new();
        let mut from = 0;
        for &cut in cuts.iter().chain([&text.len()]) {
            p.feed(&text[from..cut], &mut out);
            from = cut;
        }
        p.flush(&mut out);
        merge(out)
    }

    fn merge(pieces: Vec<Piece>) -> Vec<Piece> {
        let mut out = Vec::new();
        for piece in pieces {
            match piece {
                Piece::Text(t) => push_text(&mut out, &t),
                m => out.push(m),
            }
        }
        out
    }

    #[test]
    fn finds_markers_between_text() {
        let text = format!("{}hello\r\n{}x{}{}", c(), d(), e(7, S), a(7));
        assert_eq!(
            parse_split(&text, &[]),
            vec![
                Piece::Marker(Marker::Start),
                Piece::Text("hello\r\n".into()),
                Piece::Marker(Marker::Done),
                Piece::Text("x".into()),
                Piece::Marker(Marker::End {
                    status: 7,
                    secret: S
                }),
                Piece::Marker(Marker::Prompt {
                    status: 7,
                    probe: None
                }),
            ]
        );
    }

    #[test]
    fn prompts_carry_the_last_probe_and_probes_their_status() {
        let text = format!("{}{}{}", a_probe(0, 123456789012, 130), p(42, 2), a(1));
        assert_eq!(
            parse_split(&text, &[]),
            vec![
                Piece::Marker(Marker::Prompt {
                    status: 0,
                    probe: Some((123456789012, 130))
                }),
                Piece::Marker(Marker::Probe { id: 42, status: 2 }),
                Piece::Marker(Marker::Prompt {
                    status: 1,
                    probe: None
                }),
            ]
        );
        // The prompt as the shell expands it before any probe ran, and the
        // marker without the probe field.
        let bare = format!("\x1b]133;A;5;{N}\x07");
        assert_eq!(
            parse_split(&bare, &[]),
            vec![Piece::Marker(Marker::Prompt {
                status: 5,
                probe: None
            })]
        );
    }

    #[test]
    fn markers_survive_every_split() {
        let text = format!(
            "ab\x1b[1mc{}é€\r\n{}{}{}\x1b]0;t\x07z{}",
            c(),
            d(),
            e(0, u128::MAX),
            a(0),
            c()
        );
        let whole = parse_split(&text, &[]);
        let boundaries: Vec<usize> = (1..text.len())
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        for &i in &boundaries {
            assert_eq!(parse_split(&text, &[i]), whole, "split at {i}");
            for &j in boundaries.iter().filter(|&&j| j > i).step_by(7) {
                assert_eq!(parse_split(&text, &[i, j]), whole, "split at {i}, {j}");
            }
        }
        // One character at a time.
        let singles: Vec<usize> = boundaries.clone();
        assert_eq!(parse_split(&text, &singles), whole);
    }

    #[test]
    fn wrong_nonce_and_malformed_markers_are_text() {
        let other = "\x1b]133;D;ffffffffffffffffffffffffffffffff\x07";
        let literal = format!("\x1b]133;A;$?;{N}\x07");
        let no_status = format!("\x1b]133;E;x;{:032x};{N}\x07", S);
        let short_secret = format!("\x1b]133;E;0;abc;{N}\x07");
        let bad_secret = format!("\x1b]133;E;0;{};{N}\x07", "g".repeat(32));
        let old_end = format!("\x1b]133;D;0;{N}\x07");
        let foreign = "\x1b]133;A\x07";
        for fake in [
            other,
            &literal,
            &no_status,
            &short_secret,
            &bad_secret,
            &old_end,
            foreign,
        ] {
            let text = format!("a{fake}b");
            assert_eq!(
                parse_split(&text, &[]),
                vec![Piece::Text(text.clone())],
                "{fake:?}"
            );
            assert_eq!(
                parse_split(&text, &[3]),
                vec![Piece::Text(text.clone())],
                "{fake:?}"
            );
        }
    }

    #[test]
    fn an_unterminated_marker_is_released_as_text() {
        let long = format!("\x1b]133;C;{}", "a".repeat(400));
        assert_eq!(
            parse_split(&long, &[10, 50]),
            vec![Piece::Text(long.clone())]
        );
        let cut = format!("x\x1b]133;C;{}", &N[..5]);
        assert_eq!(parse_split(&cut, &[]), vec![Piece::Text(cut.clone())]);
    }
}
