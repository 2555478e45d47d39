//! Tests of the screen model: its API, the rows kept between looks, and the
//! fast path over plain text (every skip and wait compared with parsing
//! every byte).

use super::*;

fn screen_of(bytes: &[u8]) -> (Screen, Vec<u8>) {
    let mut screen = Screen::new(24, 80, 100);
    let mut replies = Vec::new();
    screen.process(bytes, &mut replies);
    (screen, replies)
}

#[test]
fn text_trims_rows_and_drops_trailing_blank_rows() {
    let (mut screen, _) = screen_of(b"a   \r\n\r\n  b  \r\n   \r\n");
    let snap = screen.snapshot();
    assert_eq!(snap.text, "a\n\n  b");
    assert_eq!(snap.lines.len(), 24);
    assert_eq!(&snap.lines[..4], &["a", "", "  b", ""]);
    assert_eq!(screen.text(), snap.text);
}

#[test]
fn only_blank_cells_are_trimmed() {
    let (mut screen, _) = screen_of("a\u{a0}\r\nb\u{3000}\r\nc\t\r\n".as_bytes());
    let snap = screen.snapshot();
    assert_eq!(&snap.lines[..3], ["a\u{a0}", "b\u{3000}", "c"]);
    assert_eq!(snap.text, "a\u{a0}\nb\u{3000}\nc");
}

#[test]
fn a_row_of_spaces_is_blank_and_inner_gaps_stay() {
    let (mut screen, _) = screen_of(b"      \r\n\x1b[2;5Hx\x1b[3;1H\x1b[44m\x1b[K\x1b[m");
    let snap = screen.snapshot();
    assert_eq!(&snap.lines[..3], ["", "    x", ""]);
    assert_eq!(snap.text, "\n    x");
}

#[test]
fn empty_screen_is_empty_text() {
    let (mut screen, _) = screen_of(b"");
    let snap = screen.snapshot();
    assert_eq!(snap.text, "");
    assert!(snap.lines.iter().all(String::is_empty));
    assert_eq!((snap.cursor_row, snap.cursor_col), (0, 0));
    assert!(snap.cursor_visible);
}

#[test]
fn wide_and_combining_characters_are_one_character_each() {
    let (mut screen, _) = screen_of("日本語 e\u{301}x".as_bytes());
    let snap = screen.snapshot();
    assert_eq!(snap.text, "日本語 e\u{301}x");
    // Three wide characters take six columns.
    assert_eq!(snap.cursor_col, 6 + 1 + 1 + 1);
}

#[test]
fn cursor_movement_and_erase() {
    let (mut screen, _) = screen_of(b"hello world\x1b[1;7H\x1b[KWORLD\x1b[5;3Hx");
    let snap = screen.snapshot();
    assert_eq!(snap.lines[0], "hello WORLD");
    assert_eq!(snap.lines[4], "  x");
    assert_eq!((snap.cursor_row, snap.cursor_col), (4, 3));
}

#[test]
fn alternate_screen_and_hidden_cursor() {
    let (mut screen, _) = screen_of(b"main\x1b[?1049h\x1b[?25lfull");
    let snap = screen.snapshot();
    assert!(snap.alt_screen);
    assert!(!snap.cursor_visible);
    // The alternate screen starts blank; the cursor stays where it was.
    assert_eq!(snap.text, "    full");
    let mut replies = Vec::new();
    screen.process(b"\x1b[?1049l\x1b[?25h", &mut replies);
    let snap = screen.snapshot();
    assert!(!snap.alt_screen);
    assert_eq!(snap.text, "main");
}

#[test]
fn answers_queries_in_order() {
    let (_, replies) = screen_of(b"ab\x1b[5n\x1b[6n\x1b[c\x1b[>c\x1b[?6n\x1b[18t");
    assert_eq!(
        String::from_utf8(replies).unwrap(),
        "\x1b[0n\x1b[1;3R\x1b[?1;2c\x1b[>0;276;0c\x1b[?1;3R\x1b[8;24;80t"
    );
}

#[test]
fn answers_colour_queries_and_xtversion() {
    let (_, replies) = screen_of(b"\x1b]11;?\x07\x1b[>q");
    let replies = String::from_utf8(replies).unwrap();
    assert!(
        replies.starts_with("\x1b]11;rgb:0000/0000/0000\x1b\\"),
        "{replies:?}"
    );
    assert!(replies.contains("\x1bP>|ptypilot("), "{replies:?}");
}

#[test]
fn tracks_synchronized_output_and_reports_support() {
    let (mut screen, replies) = screen_of(b"\x1b[?2026$p\x1b[?2026h");
    assert_eq!(replies, b"\x1b[?2026;2$y");
    assert!(screen.synchronized());
    let mut replies = Vec::new();
    screen.process(b"frame\x1b[?2026l", &mut replies);
    assert!(!screen.synchronized());
}

#[test]
fn kitty_keyboard_flags_per_screen_answered_and_reset() {
    let (mut screen, replies) = screen_of(b"\x1b[?u\x1b[>1u\x1b[?u\x1b[>11u\x1b[?u");
    assert_eq!(replies, b"\x1b[?0u\x1b[?1u\x1b[?11u");
    assert_eq!(screen.modes().kitty_flags, 11);
    let mut r = Vec::new();
    // The alternate screen has its own stack.
    screen.process(b"\x1b[?1049h\x1b[?u", &mut r);
    assert_eq!((screen.modes().kitty_flags, &r[..]), (0, &b"\x1b[?0u"[..]));
    screen.process(b"\x1b[=5;1u", &mut r);
    assert_eq!(screen.modes().kitty_flags, 5);
    screen.process(b"\x1b[?1049l\x1b[<u", &mut r);
    assert_eq!(screen.modes().kitty_flags, 1);
    // Split between reads, then a full reset.
    screen.process(b"\x1b[>", &mut r);
    screen.process(b"9u", &mut r);
    assert_eq!(screen.modes().kitty_flags, 9);
    screen.process(b"\x1b[>3u\x1bc", &mut r);
    assert_eq!(screen.modes().kitty_flags, 0);
    // A plain CSI u still restores the cursor.
    screen.process(b"\x1b[2;3H\x1b[s\x1b[H\x1b[u", &mut r);
    assert_eq!(screen.snapshot().cursor_row, 1);
}

#[test]
fn modes_follow_the_program() {
    let (mut screen, _) = screen_of(b"");
    assert_eq!(screen.modes(), Modes::default());
    let mut r = Vec::new();
    screen.process(b"\x1b[?1h\x1b=\x1b[?2004h", &mut r);
    let modes = screen.modes();
    assert!(modes.application_cursor && modes.application_keypad && modes.bracketed_paste);
    screen.process(b"\x1b[?1l\x1b>\x1b[?2004l", &mut r);
    assert_eq!(screen.modes(), Modes::default());
}

#[test]
fn title_from_osc_0_and_2() {
    let (mut screen, _) = screen_of(b"\x1b]0;first\x07");
    assert_eq!(screen.snapshot().title, "first");
    let mut r = Vec::new();
    screen.process(b"\x1b]2;second\x1b\\", &mut r);
    assert_eq!(screen.snapshot().title, "second");
}

#[test]
fn title_stack_push_and_pop() {
    let (mut screen, _) = screen_of(b"\x1b]2;shell\x07\x1b[22;0t\x1b]2;vim\x07");
    assert_eq!(screen.snapshot().title, "vim");
    let mut r = Vec::new();
    screen.process(b"\x1b[23;0t", &mut r);
    assert_eq!(screen.snapshot().title, "shell");
    // Icon-name only (`;1`) leaves the title alone; popping an empty
    // stack too.
    screen.process(b"\x1b[22;1t\x1b]2;x\x07\x1b[23;1t\x1b[23t", &mut r);
    assert_eq!(screen.snapshot().title, "x");
    assert!(r.is_empty());
}

#[test]
fn resize_keeps_content_and_reports_new_size() {
    let (mut screen, _) = screen_of(b"hello\r\nworld");
    screen.resize(10, 40);
    let snap = screen.snapshot();
    assert_eq!((snap.rows, snap.cols), (10, 40));
    assert_eq!(snap.lines.len(), 10);
    assert_eq!(snap.text, "hello\nworld");
}

#[test]
fn size_validation_names_the_value() {
    assert_eq!(validate_size(80.0, 24.0).unwrap(), (80, 24));
    let err = validate_size(0.0, 24.0).unwrap_err();
    assert_eq!(
        err.message,
        "cols must be an integer between 2 and 1000, got 0"
    );
    let err = validate_size(80.0, 2.5).unwrap_err();
    assert_eq!(
        err.message,
        "rows must be an integer between 2 and 500, got 2.5"
    );
    assert!(validate_size(1001.0, 24.0).is_err());
    assert!(validate_size(f64::NAN, 24.0).is_err());
}

/// A small deterministic generator (xorshift) for the random floods.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A plain-text flood: words, long lines that wrap, tabs, wide and
/// combining characters, mostly CR LF line ends with some bare LF and CR.
fn flood(rng: &mut Rng, lines: usize) -> Vec<u8> {
    let words = [
        "alpha",
        "beta",
        "\x1b[32mgreen\x1b[0m",
        "\x1b[1;4;38;5;208mfancy",
        "\x1b[m",
        "\x1b[38:2::10:20:30mtrue",
        "\x1b[35m\x1b[Kgrep\x1b[m\x1b[K:",
        "\x1b[2Kerased",
        "日本語",
        "e\u{301}",
        "\t",
        "x",
        "-----",
        "0123456789",
        "é",
    ];
    let mut out = Vec::new();
    for n in 0..lines {
        let len = match rng.below(10) {
            0 => 40 + rng.below(200),
            _ => rng.below(12),
        };
        out.extend_from_slice(format!("{n}:").as_bytes());
        for _ in 0..len {
            out.extend_from_slice(words[rng.below(words.len() as u64) as usize].as_bytes());
            out.push(b' ');
        }
        out.extend_from_slice(match rng.below(20) {
            0 => b"\n".as_slice(),
            1 => b"\rover\r\n",
            _ => b"\r\n",
        });
    }
    out
}

fn compare(a: &mut Screen, b: &mut Screen, what: &str) {
    assert_eq!(a.lines(), b.lines(), "{what}: lines");
    // Colours and attributes too: of every cell, and the ones set now.
    assert_eq!(
        a.parser.screen().contents_formatted(),
        b.parser.screen().contents_formatted(),
        "{what}: cells with attributes"
    );
    assert_eq!(
        a.parser.screen().attributes_formatted(),
        b.parser.screen().attributes_formatted(),
        "{what}: attributes set"
    );
    assert_eq!(
        a.parser.screen().cursor_position(),
        b.parser.screen().cursor_position(),
        "{what}: cursor"
    );
    let cap = a.parser.screen().scrollback_capacity();
    assert_eq!(cap, b.parser.screen().scrollback_capacity());
    for offset in [1, cap / 2, cap] {
        a.parser.screen_mut().set_scrollback(offset);
        b.parser.screen_mut().set_scrollback(offset);
        assert_eq!(a.lines(), b.lines(), "{what}: scrollback at {offset}");
    }
    a.parser.screen_mut().set_scrollback(0);
    b.parser.screen_mut().set_scrollback(0);
}

/// [`compare`], then again after a random resize that grows the screen
/// (which pulls rows back from the scrollback).
fn compare_and_grow(a: &mut Screen, b: &mut Screen, what: &str, rng: &mut Rng) {
    compare(a, b, what);
    let (rows, cols) = a.size();
    let taller = rows + rng.below(u64::from(ROWS_RANGE.1 - rows) + 1) as u16;
    a.resize(taller, cols);
    b.resize(taller, cols);
    compare(a, b, &format!("{what}, resized to {taller} rows"));
}

#[test]
fn fast_forward_over_plain_text_changes_nothing() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut skipped_somewhere = false;
    for case in 0..24 {
        let rows = 2 + rng.below(40) as u16;
        let cols = 10 + rng.below(120) as u16;
        let scrollback = [0, 7, 100, 1000][rng.below(4) as usize];
        let mut full = Screen::new(rows, cols, scrollback);
        full.fast_forward = false;
        let mut fast = Screen::new(rows, cols, scrollback);
        // A prelude that leaves colours, a cursor somewhere and, in some
        // cases, margins that were set and reset.
        let mut bytes: Vec<u8> = b"\x1b[1;33mcoloured\x1b[5;3Hmoved\r\n".to_vec();
        if case % 3 == 0 {
            bytes.extend_from_slice(b"\x1b[2;4r\x1b[r\x1b[?6h\x1b[?6l");
        }
        if case % 4 == 1 {
            bytes.extend_from_slice(b"\x1b[?7l");
        }
        let lines = 1500 + rng.below(5000) as usize;
        bytes.extend(flood(&mut rng, lines));
        bytes.extend_from_slice(b"\x1b[0mtail \x1b[2Aup\r\nlast line");
        let lines = rng.below(3000) as usize;
        bytes.extend(flood(&mut rng, lines));
        let mut at = 0;
        let mut replies = Vec::new();
        while at < bytes.len() {
            let n = (1 + rng.below(96 << 10) as usize).min(bytes.len() - at);
            skipped_somewhere |= fast.plain_text_to_skip(&bytes[at..at + n]) > 0;
            full.process(&bytes[at..at + n], &mut replies);
            fast.process(&bytes[at..at + n], &mut replies);
            at += n;
        }
        let what = format!("case {case}: {rows}x{cols}, scrollback {scrollback}");
        compare_and_grow(&mut full, &mut fast, &what, &mut rng);
    }
    assert!(skipped_somewhere, "the floods never took the fast path");
}

#[test]
fn fast_forward_keeps_later_resizes_exact() {
    // Short lines that never wrap: every line feed scrolls exactly one
    // row, so only the margin in `keep` stands between the skip and a
    // resize that pulls more rows than were counted.
    let text: Vec<u8> = (0..60_000)
        .flat_map(|n| format!("{n}\r\n").into_bytes())
        .collect();
    for (rows, scrollback, taller) in [(10, 7, 400), (24, 0, 500), (2, 100, 499), (40, 1000, 500)] {
        let mut full = Screen::new(rows, 80, scrollback);
        full.fast_forward = false;
        let mut fast = Screen::new(rows, 80, scrollback);
        assert!(fast.plain_text_to_skip(&text) > 0);
        let mut replies = Vec::new();
        full.process(&text, &mut replies);
        fast.process(&text, &mut replies);
        let what = format!("{rows} rows, scrollback {scrollback}");
        compare(&mut full, &mut fast, &what);
        full.resize(taller, 80);
        fast.resize(taller, 80);
        compare(
            &mut full,
            &mut fast,
            &format!("{what}, resized to {taller}"),
        );
    }
}

/// Output of an interactive program between two looks at the screen:
/// mostly a few keys' echo and line edits, sometimes anything.
fn keystrokes(rng: &mut Rng) -> Vec<u8> {
    let small: [&[u8]; 18] = [
        b"x",
        b"hello",
        b" ",
        b"\x08 \x08",
        b"\x08\x1b[K",
        b"\r",
        b"\x1b[1K",
        b"\x1b[2K",
        b"\x1b[1;31m",
        b"\x1b[0m",
        b"\x1b[3C",
        b"\x1b[D",
        "\u{e9}".as_bytes(),
        "e\u{301}".as_bytes(),
        "\u{6f22}".as_bytes(),
        "\u{2764}\u{fe0f}".as_bytes(),
        "\u{fffd}".as_bytes(),
        b"\x07",
    ];
    let large: [&[u8]; 12] = [
        b"\r\n",
        b"\n",
        b"\t",
        b"\x1b[2;3H",
        b"\x1b[4h",
        b"\x1b[4l",
        b"\x1b[?7l",
        b"\x1b[?7h",
        b"\x1b(0qx\x1b(B",
        b"\x1b[?1049h",
        b"\x1b[?1049l",
        b"abcdefghijklmnopqrstuvwxyz",
    ];
    let mut out = Vec::new();
    for _ in 0..1 + rng.below(4) {
        let piece = if rng.below(8) == 0 {
            large[rng.below(large.len() as u64) as usize]
        } else {
            small[rng.below(small.len() as u64) as usize]
        };
        out.extend_from_slice(piece);
    }
    out
}

/// How [`check_kept_rows`] drives its screens.
struct KeptRows {
    seed: u64,
    cases: u32,
    /// Screens up to 60 columns wide as well as narrow ones, a scrollback
    /// of 0 or 2 rows, output cut anywhere (inside a sequence or a
    /// character) and the screen resized now and then.
    wide_cut_resized: bool,
    /// Pieces added to one output in four.
    extra: &'static [&'static [u8]],
}

/// Runs random screens of 60 outputs each ([`keystrokes`], plus the
/// extra pieces) and checks after every output that the rows kept
/// between looks are the rows read cell by cell. Returns how many looks
/// rebuilt only the cursor's row.
fn check_kept_rows(drive: KeptRows) -> usize {
    let mut rng = Rng(drive.seed);
    let mut partial = 0;
    for case in 0..drive.cases {
        let rows = 1 + rng.below(6) as u16;
        let (cols, scrollback) = if drive.wide_cut_resized {
            // Narrow screens hit the margins; wider ones keep edits in a row.
            let widest = [14, 60][rng.below(2) as usize];
            let cols = 1 + rng.below(widest) as u16;
            (cols, [0, 2][rng.below(2) as usize])
        } else {
            (1 + rng.below(14) as u16, 0)
        };
        let mut screen = Screen::new(rows, cols, scrollback);
        let mut replies = Vec::new();
        for step in 0..60 {
            let mut bytes = keystrokes(&mut rng);
            if !drive.extra.is_empty() && rng.below(4) == 0 {
                let piece = drive.extra[rng.below(drive.extra.len() as u64) as usize];
                bytes.extend_from_slice(piece);
            }
            let cut = if drive.wide_cut_resized && rng.below(4) == 0 {
                rng.below(bytes.len() as u64 + 1) as usize
            } else {
                bytes.len()
            };
            screen.process(&bytes[..cut], &mut replies);
            screen.process(&bytes[cut..], &mut replies);
            if drive.wide_cut_resized && rng.below(30) == 0 {
                screen.resize(1 + rng.below(6) as u16, 1 + rng.below(14) as u16);
            }
            assert_eq!(
                screen.text(),
                screen.text_uncached(),
                "case {case} ({rows}x{cols}), step {step}, after {:?}",
                String::from_utf8_lossy(&bytes)
            );
        }
        partial += screen.rows.partial_builds;
    }
    partial
}

#[test]
fn kept_rows_are_the_rows_after_any_output() {
    let partial = check_kept_rows(KeptRows {
        seed: 0x9e37_79b9_7f4a_7c15,
        cases: 400,
        wide_cut_resized: true,
        extra: &[],
    });
    // Many looks rebuilt only the cursor's row (the rest were refused
    // or came after a refused change).
    assert!(partial > 400 * 60 / 4, "{partial} partial builds");
}

/// The kept rows stay right in the states where output on the row can
/// leave it without the cursor's column showing it: a pending wrap kept
/// through tabulation backwards (the next character wraps), a cursor
/// saved with a wrap pending and restored (on either screen), reverse
/// wraparound (45, 1045; from the home position, and outside the scroll
/// region) and left and right margins (DECSLRM).
#[test]
fn kept_rows_see_output_leave_the_row() {
    check_kept_rows(KeptRows {
        seed: 0x2545_f491_4f6c_dd1d,
        cases: 300,
        wide_cut_resized: false,
        extra: &[
            b"\x1b[Z",
            b"\x1b[?45h",
            b"\x1b[?1045h",
            b"\x1b[?69h\x1b[2;5s",
            b"\x1b[?45;1045l",
            b"\x1b[?69l",
            b"\x1b7",
            b"\x1b8",
            b"\x1b[s",
            b"\x1b[u",
            b"\x1b[99Cx\x1b7",
            b"\x1b[99Cx\x1b[s",
            b"\x1b[H\x08",
            b"\x1b[H\x08\x08the end",
            b"\x1b[2;3r",
            b"\x1b[r",
        ],
    });
    // The same with the wide screens, cuts and resizes.
    check_kept_rows(KeptRows {
        seed: 0x5851_f42d_4c95_7f2d,
        cases: 200,
        wide_cut_resized: true,
        extra: &[
            b"\x1b[?45h",
            b"\x1b[?1045h",
            b"\x1b[?45;1045l",
            b"\x1b7",
            b"\x1b8",
            b"\x1b[s",
            b"\x1b[u",
            b"\x1b[99Cx\x1b7",
            b"\x1b[H\x08",
            b"\x1b[2;3r",
            b"\x1b[r",
        ],
    });
}

/// Output of a program that mixes floods with everything else: colours,
/// cursor moves, erases, queries (some split across chunks), modes, the
/// alternate screen, titles, backspaces, margins (on either screen),
/// origin mode, soft resets and saved cursors.
fn mixed_output(rng: &mut Rng) -> Vec<u8> {
    let pieces: [&[u8]; 22] = [
        b"\x1b[1;31m",
        b"\x1b[0m",
        b"\x1b[6n",
        b"\x1b[c",
        b"\x1b[?2026h",
        b"\x1b[?2026l",
        b"\x1b[?1h",
        b"\x1b[?1l",
        b"\x1b]0;title\x07",
        b"\x1b[5;7H",
        b"\x1b[2J",
        b"\x08\x08",
        b"\x1b[3;9r",
        b"\x1b[r",
        b"\x1b[?1049h",
        b"\x1b[?1049l",
        b"\x1b[1K",
        b"\x1b[!p",
        b"\x1b[?6h",
        b"\x1b[?6l",
        b"\x1b7",
        b"\x1b8",
    ];
    let mut out = Vec::new();
    for _ in 0..60 {
        if rng.below(3) == 0 {
            let lines = rng.below(3000) as usize;
            out.extend(flood(rng, lines));
        } else {
            out.extend_from_slice(pieces[rng.below(pieces.len() as u64) as usize]);
            let lines = rng.below(4) as usize;
            out.extend(flood(rng, lines));
        }
    }
    out
}

/// Two screens of a random size and scrollback: one that parses every
/// byte as it comes, and one that waits and skips, with a random (often
/// small, so it is hit) limit for waiting text; and the size as text.
fn exact_and_lazy(rng: &mut Rng) -> (Screen, Screen, String) {
    let rows = 2 + rng.below(40) as u16;
    let cols = 10 + rng.below(120) as u16;
    let scrollback = [0, 7, 100, 1000][rng.below(4) as usize];
    let mut exact = Screen::new(rows, cols, scrollback);
    exact.fast_forward = false;
    exact.defer = false;
    let mut lazy = Screen::new(rows, cols, scrollback);
    lazy.defer_max = [16 << 10, 64 << 10, DEFER_MAX][rng.below(3) as usize];
    (
        exact,
        lazy,
        format!("{rows}x{cols}, scrollback {scrollback}"),
    )
}

#[test]
fn deferred_parsing_changes_nothing_anyone_can_see() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (mut deferred_somewhere, mut dropped_somewhere, mut opened) = (false, false, false);
    for case in 0..16 {
        let (mut exact, mut lazy, size) = exact_and_lazy(&mut rng);
        let bytes = mixed_output(&mut rng);
        let what = format!("case {case}: {size}");
        let (mut exact_replies, mut lazy_replies) = (Vec::new(), Vec::new());
        let mut at = 0;
        while at < bytes.len() {
            // Small chunks split sequences; large ones carry floods.
            let most = if rng.below(2) == 0 { 8 } else { 96 << 10 };
            let n = (1 + rng.below(most) as usize).min(bytes.len() - at);
            exact.process(&bytes[at..at + n], &mut exact_replies);
            lazy.process(&bytes[at..at + n], &mut lazy_replies);
            at += n;
            deferred_somewhere |= !lazy.pending.is_empty();
            dropped_somewhere |= lazy.dropped > 0;
            opened |= lazy.open > 0;
            // Every reply goes out as soon as its query arrived.
            assert_eq!(lazy_replies, exact_replies, "{what}: replies at {at}");
            assert_eq!(lazy.modes(), exact.modes(), "{what}: modes at {at}");
            assert_eq!(
                lazy.synchronized(),
                exact.synchronized(),
                "{what}: 2026 at {at}"
            );
            assert_eq!(lazy.alt_screen(), exact.alt_screen(), "{what}: alt at {at}");
            if rng.below(8) == 0 {
                assert_eq!(
                    lazy.snapshot(),
                    exact.snapshot(),
                    "{what}: snapshot at {at}"
                );
            }
            if rng.below(64) == 0 {
                // Sometimes the same size, which changes nothing.
                let (r, c) = match rng.below(4) {
                    0 => exact.size(),
                    _ => (2 + rng.below(40) as u16, 10 + rng.below(120) as u16),
                };
                exact.resize(r, c);
                lazy.resize(r, c);
            }
        }
        assert_eq!(lazy.snapshot(), exact.snapshot(), "{what}: at the end");
        compare(&mut exact, &mut lazy, &what);
    }
    assert!(deferred_somewhere, "no output ever waited");
    assert!(dropped_somewhere, "waiting output was never dropped");
    assert!(opened, "no colour was ever split between reads");
}

#[test]
fn characters_split_between_reads_lose_nothing() {
    // Two-, three- and four-byte characters, a combining mark, then more
    // text right behind each, and an invalid sequence.
    let text = "x \u{e9} \u{65e5}\u{672c} e\u{301}C\u{2500} \u{1f600}y \u{e9}\u{65e5}".as_bytes();
    let mut bytes = text.to_vec();
    bytes.extend_from_slice(b" \xc3( \xe6\x97z end");
    let mut whole = Screen::new(5, 40, 0);
    let mut replies = Vec::new();
    whole.process(&bytes, &mut replies);
    let want = whole.snapshot();
    assert!(
        want.text
            .starts_with("x \u{e9} \u{65e5}\u{672c} e\u{301}C\u{2500} \u{1f600}y")
    );
    for at in 1..bytes.len() {
        for at2 in [at + 1, at + 2, bytes.len()] {
            let mut split = Screen::new(5, 40, 0);
            split.defer = false;
            split.process(&bytes[..at], &mut replies);
            split.process(&bytes[at..at2.min(bytes.len())], &mut replies);
            split.process(&bytes[at2.min(bytes.len())..], &mut replies);
            assert_eq!(split.snapshot(), want, "split at {at} and {at2}");
        }
    }
}

#[test]
fn a_query_split_across_chunks_is_answered_at_once() {
    let mut screen = Screen::new(24, 80, 100);
    let mut replies = Vec::new();
    screen.process(b"plain text\r\n", &mut replies);
    assert!(!screen.pending.is_empty(), "plain text waits");
    // It may still become a colour: it waits too.
    screen.process(b"\x1b[", &mut replies);
    screen.process(b"6", &mut replies);
    assert_eq!(screen.open, 3);
    screen.process(b"n", &mut replies);
    assert!(
        screen.pending.is_empty(),
        "a query parses what waited first"
    );
    assert_eq!(replies, b"\x1b[2;1R");
    // A colour split the same way waits, and shows once looked at.
    screen.process(b"x\x1b[3", &mut replies);
    screen.process(b"1mred", &mut replies);
    assert_eq!(screen.open, 0);
    assert!(!screen.pending.is_empty());
    assert_eq!(screen.lines()[1], "xred");
    assert_eq!(replies, b"\x1b[2;1R");
}

#[test]
fn fast_forward_over_a_line_without_line_feeds_changes_nothing() {
    let mut rng = Rng(0x51_7cc1_b727_220a);
    let mut skipped = 0;
    for case in 0..24 {
        let (mut exact, mut fast, size) = exact_and_lazy(&mut rng);
        let (rows, cols) = exact.size();
        // Start anywhere: a column, a wrap pending, colours, and in some
        // cases autowrap off or insert mode (where no skip may happen).
        let row = 1 + rng.below(u64::from(rows));
        let col = 1 + rng.below(u64::from(cols));
        let mut bytes = format!("\x1b[1;32mhead\x1b[{row};{col}H").into_bytes();
        match rng.below(6) {
            0 => bytes.extend_from_slice(format!("\x1b[{row};{cols}H!").as_bytes()),
            1 => bytes.extend_from_slice(b"\x1b[?7l"),
            2 => bytes.extend_from_slice(b"\x1b[4h"),
            _ => {}
        }
        let len = 1 + rng.below(3 << 20) as usize;
        let alphabet = b"abcdefghijklmnopqrstuvwxyz0123456789 .-";
        let offset = rng.below(alphabet.len() as u64) as usize;
        bytes.extend((0..len).map(|i| alphabet[(i + offset) % alphabet.len()]));
        if rng.below(2) == 0 {
            bytes.extend_from_slice("\r\nafter \u{65e5}\u{672c}\x1b[0m tail".as_bytes());
        }
        let mut replies = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            let n = (1 + rng.below(96 << 10) as usize).min(bytes.len() - at);
            exact.process(&bytes[at..at + n], &mut replies);
            fast.process(&bytes[at..at + n], &mut replies);
            at += n;
        }
        let what = format!("case {case}: {size}, {len} chars from {row};{col}");
        assert_eq!(fast.snapshot(), exact.snapshot(), "{what}");
        skipped += fast.dropped;
        compare_and_grow(&mut exact, &mut fast, &what, &mut rng);
    }
    assert!(skipped > 0, "no long line was ever skipped");
}

#[test]
fn fast_forward_keeps_the_colours_set_in_skipped_text() {
    // Colours set early in a flood (some cumulative, one reset on the
    // way) stay on for the lines that are shown. The erase makes the
    // first colour parsed before the flood.
    let mut bytes = b"\x1b[41mbefore\x1b[K\r\n".to_vec();
    for n in 0..20_000 {
        let sgr: &[u8] = match n {
            2000 => b"\x1b[1;31m",
            2100 => b"\x1b[4m",
            2200 => b"\x1b[0;32m",
            2300 => b"\x1b[38:5:208m",
            2400 => b"\x1b[3m",
            _ => b"",
        };
        bytes.extend_from_slice(sgr);
        bytes.extend_from_slice(format!("line {n}\r\n").as_bytes());
    }
    for defer_max in [16 << 10, DEFER_MAX] {
        let mut exact = Screen::new(24, 80, 100);
        exact.fast_forward = false;
        exact.defer = false;
        let mut lazy = Screen::new(24, 80, 100);
        lazy.defer_max = defer_max;
        let mut replies = Vec::new();
        for chunk in bytes.chunks(7000) {
            exact.process(chunk, &mut replies);
            lazy.process(chunk, &mut replies);
        }
        assert_eq!(lazy.snapshot(), exact.snapshot());
        assert!(lazy.dropped > 0, "nothing was skipped");
        compare(&mut exact, &mut lazy, &format!("limit {defer_max}"));
    }
}

#[test]
fn fast_forward_follows_the_margins_of_the_main_screen() {
    let flood_text = flood(&mut Rng(11), 6000);
    let preludes: [(&str, &[u8], bool); 4] = [
        // Margins set on the main screen and reset on the alternate one:
        // both screens share them (xterm), so they are gone.
        (
            "reset on alt",
            b"\x1b[3;9r\x1b[?1049h\x1b[r\x1b[?1049l",
            true,
        ),
        // Margins set on the alternate screen hold on the main one.
        ("set on alt", b"\x1b[?1049h\x1b[3;9r\x1b[?1049l", false),
        // A soft reset (DECSTR) clears them.
        ("soft reset", b"\x1b[3;9r\x1b[!p", true),
        // A resize to the same size keeps them.
        ("same size", b"\x1b[3;9r", false),
    ];
    for (what, prelude, skips) in preludes {
        let mut full = Screen::new(24, 80, 100);
        full.fast_forward = false;
        full.defer = false;
        let mut fast = Screen::new(24, 80, 100);
        let mut replies = Vec::new();
        for screen in [&mut full, &mut fast] {
            screen.process(prelude, &mut replies);
            screen.resize(24, 80);
        }
        assert_eq!(fast.plain_text_to_skip(&flood_text) > 0, skips, "{what}");
        full.process(&flood_text, &mut replies);
        fast.process(&flood_text, &mut replies);
        compare(&mut full, &mut fast, what);
    }
}

#[test]
fn fast_forward_stays_off_where_it_would_not_be_exact() {
    let text = flood(&mut Rng(7), 8000);
    // Inside scroll margins.
    let mut screen = Screen::new(24, 80, 1000);
    let mut replies = Vec::new();
    screen.process(b"\x1b[2;20r", &mut replies);
    assert_eq!(screen.plain_text_to_skip(&text), 0);
    // On the alternate screen.
    let mut screen = Screen::new(24, 80, 1000);
    screen.process(b"\x1b[?1049h", &mut replies);
    assert_eq!(screen.plain_text_to_skip(&text), 0);
    // In the middle of an escape sequence.
    let mut screen = Screen::new(24, 80, 1000);
    screen.process(b"\x1b]0;a title not finished", &mut replies);
    assert_eq!(screen.plain_text_to_skip(&text), 0);
    // Otherwise it does skip.
    let screen = Screen::new(24, 80, 1000);
    assert!(screen.plain_text_to_skip(&text) > 0);
}

#[test]
fn printable_runs_are_found_in_long_and_short_input() {
    // The vectorized scan against the plain definition, on runs that end
    // at every offset within and across its 256-byte blocks.
    let mut rng = Rng(0x7f4a_7c15_9e37_79b9);
    for _ in 0..400 {
        let len = rng.below(1200) as usize;
        let mut bytes: Vec<u8> = (0..len).map(|_| 0x20 + rng.below(0x5f) as u8).collect();
        if len > 0 && rng.below(4) > 0 {
            let at = rng.below(len as u64) as usize;
            bytes[at] = [0x1f, 0x7f, 0x80, 0xff, b'\n', 0x00][rng.below(6) as usize];
        }
        let want = bytes
            .iter()
            .position(|b| !(0x20..=0x7e).contains(b))
            .unwrap_or(bytes.len());
        assert_eq!(ascii_printable_prefix(&bytes), want, "{bytes:?}");
    }
}

#[test]
fn text_is_the_rows_trimmed_and_joined() {
    // The one-buffer text against vt100's rows trimmed one by one, on
    // random screens with trailing spaces, blank rows, stand-ins, wide
    // characters, wrapped rows, the alternate screen and moves.
    let pieces: [&str; 18] = [
        "word",
        "   ",
        " \u{a0}",
        "\r\n",
        "\n",
        "\r",
        "\u{fffd}",
        "\u{2764}\u{fe0f}",
        "日本語",
        "e\u{301}",
        "\x1b[2J",
        "\x1b[K",
        "\x1b[3;7H",
        "\x1b[9;1H",
        "\x1b[?1049h",
        "\x1b[?1049l",
        "\t|",
        "0123456789012345678901234567890123456789",
    ];
    let mut rng = Rng(0x2f1e_3d4c_5b6a_7988);
    for case in 0..300 {
        let (rows, cols) = (2 + rng.below(12) as u16, 2 + rng.below(50) as u16);
        let mut screen = Screen::new(rows, cols, 20);
        let mut replies = Vec::new();
        for _ in 0..rng.below(60) {
            let piece = pieces[rng.below(pieces.len() as u64) as usize];
            screen.process(piece.as_bytes(), &mut replies);
        }
        screen.catch_up();
        let mut rows_text: Vec<String> = screen
            .parser
            .screen()
            .rows(0, cols)
            .map(|row| {
                let row = row.trim_end_matches(' ').to_string();
                screen.compat.stand_ins.restore(row)
            })
            .collect();
        let lines = rows_text.clone();
        while rows_text.last().is_some_and(String::is_empty) {
            rows_text.pop();
        }
        let text = rows_text.join("\n");
        assert_eq!(screen.text(), text, "case {case}");
        assert_eq!(screen.lines(), lines, "case {case}");
        let snap = screen.snapshot();
        assert_eq!((&snap.text, &snap.lines), (&text, &lines), "case {case}");
    }
}
