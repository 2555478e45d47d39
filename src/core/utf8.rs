//! Incremental UTF-8 decoding of a byte stream that arrives in arbitrary pieces.
//!
//! A character split across two reads is held back until its last byte
//! arrives, so it is never mangled; invalid bytes become U+FFFD (one per
//! maximal invalid subsequence, as `String::from_utf8_lossy` does).
//!
//! ```
//! use ptypilot::core::utf8::Utf8Decoder;
//! let mut dec = Utf8Decoder::default();
//! let mut out = String::new();
//! let bytes = "héllo".as_bytes();
//! dec.decode(&bytes[..2], &mut out); // ends inside 'é'
//! assert_eq!(out, "h");
//! dec.decode(&bytes[2..], &mut out);
//! assert_eq!(out, "héllo");
//! ```

/// Decodes UTF-8 across chunk boundaries.
#[derive(Debug, Default, Clone)]
pub struct Utf8Decoder {
    /// The start of a character whose remaining bytes have not arrived yet.
    pending: [u8; 4],
    pending_len: usize,
}

impl Utf8Decoder {
    /// Decodes `input`, appending complete characters to `out`.
    ///
    /// An incomplete character at the end of `input` is kept for the next call.
    pub fn decode(&mut self, mut input: &[u8], out: &mut String) {
        if self.pending_len > 0 {
            input = self.complete_pending(input, out);
        }
        loop {
            match std::str::from_utf8(input) {
                Ok(text) => {
                    out.push_str(text);
                    return;
                }
                Err(err) => {
                    let (valid, rest) = input.split_at(err.valid_up_to());
                    // SAFETY-free: `valid_up_to` guarantees this prefix is UTF-8.
                    out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                    match err.error_len() {
                        Some(bad) => {
                            out.push(char::REPLACEMENT_CHARACTER);
                            input = &rest[bad..];
                        }
                        None => {
                            // An incomplete character at the very end (at most 3 bytes).
                            self.pending[..rest.len()].copy_from_slice(rest);
                            self.pending_len = rest.len();
                            return;
                        }
                    }
                }
            }
        }
    }

    /// Flushes a character that will never be completed (end of stream) as U+FFFD.
    pub fn finish(&mut self, out: &mut String) {
        if self.pending_len > 0 {
            self.pending_len = 0;
            out.push(char::REPLACEMENT_CHARACTER);
        }
    }

    /// True when bytes of an incomplete character are held back.
    pub fn has_pending(&self) -> bool {
        self.pending_len > 0
    }

    /// Feeds bytes into the held-back character until it is complete or proven
    /// invalid; returns the input that is left.
    fn complete_pending<'a>(&mut self, mut input: &'a [u8], out: &mut String) -> &'a [u8] {
        while let Some((&byte, rest)) = input.split_first() {
            self.pending[self.pending_len] = byte;
            self.pending_len += 1;
            input = rest;
            match std::str::from_utf8(&self.pending[..self.pending_len]) {
                Ok(text) => {
                    out.push_str(text);
                    self.pending_len = 0;
                    return input;
                }
                Err(err) => {
                    if let Some(bad) = err.error_len() {
                        // The held-back lead byte(s) were invalid: replace them and
                        // decode whatever followed them afresh.
                        let held = self.pending;
                        let held_len = self.pending_len;
                        self.pending_len = 0;
                        out.push(char::REPLACEMENT_CHARACTER);
                        let tail = &held[bad..held_len];
                        self.decode(tail, out);
                        // `tail` may itself end in an incomplete character; it
                        // then continues with `input` on the next round.
                        if self.pending_len > 0 {
                            return self.complete_pending(input, out);
                        }
                        return input;
                    }
                    if self.pending_len == 4 {
                        // Cannot happen for UTF-8 (a 4-byte prefix is either
                        // complete or invalid), but never loop on it.
                        self.pending_len = 0;
                        out.push(char::REPLACEMENT_CHARACTER);
                        return input;
                    }
                }
            }
        }
        input
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_in_pieces(bytes: &[u8], cuts: &[usize]) -> String {
        let mut dec = Utf8Decoder::default();
        let mut out = String::new();
        let mut start = 0;
        for &cut in cuts {
            dec.decode(&bytes[start..cut], &mut out);
            start = cut;
        }
        dec.decode(&bytes[start..], &mut out);
        dec.finish(&mut out);
        out
    }

    #[test]
    fn split_at_every_position_is_intact() {
        let text = "a€b😀c日本語 é\u{301}z";
        let bytes = text.as_bytes();
        for cut in 0..=bytes.len() {
            assert_eq!(decode_in_pieces(bytes, &[cut]), text, "cut at {cut}");
        }
        for a in 0..=bytes.len() {
            for b in a..=bytes.len() {
                assert_eq!(decode_in_pieces(bytes, &[a, b]), text, "cuts at {a},{b}");
            }
        }
    }

    #[test]
    fn byte_by_byte_is_intact() {
        let text = "😀€é日";
        let cuts: Vec<usize> = (1..text.len()).collect();
        assert_eq!(decode_in_pieces(text.as_bytes(), &cuts), text);
    }

    #[test]
    fn invalid_bytes_become_replacement_like_lossy() {
        let cases: &[&[u8]] = &[
            b"a\xffb",
            b"\xe2\x82",
            b"\xe2\x82A",
            b"\xf0\x9f\x98",
            b"\xc0\xaf",
            b"ok\xed\xa0\x80ok",
            b"\xf4\x90\x80\x80",
            b"\x80\x80",
        ];
        for bytes in cases {
            let expected = String::from_utf8_lossy(bytes).into_owned();
            for cut in 0..=bytes.len() {
                assert_eq!(
                    decode_in_pieces(bytes, &[cut]),
                    expected,
                    "{bytes:?} cut at {cut}"
                );
            }
        }
    }

    #[test]
    fn incomplete_tail_waits_then_flushes_on_finish() {
        let mut dec = Utf8Decoder::default();
        let mut out = String::new();
        dec.decode(b"x\xe2\x82", &mut out);
        assert_eq!(out, "x");
        assert!(dec.has_pending());
        dec.finish(&mut out);
        assert_eq!(out, "x\u{fffd}");
        assert!(!dec.has_pending());
    }
}
