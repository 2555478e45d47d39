//! Tests of the xterm-compat layer, through the screen model.

use crate::core::screen::{Screen, Snapshot};

fn feed(bytes: &[u8]) -> Screen {
    let mut screen = Screen::new(24, 80, 100);
    screen.process(bytes, &mut Vec::new());
    screen
}

fn snap(bytes: &[u8]) -> Snapshot {
    feed(bytes).snapshot()
}

fn cursor(s: &Snapshot) -> (u16, u16) {
    (s.cursor_row, s.cursor_col)
}

#[test]
fn dec_line_drawing_in_g0_and_g1() {
    let s = snap(b"\x1b(0lqqk\x1b(B x\r\n\x1b)0a\x0elqk\x0fq\r\nxmj");
    assert_eq!(&s.lines[..3], ["┌──┐ x", "a┌─┐q", "xmj"]);
}

#[test]
fn uk_charset_and_charsets_saved_with_the_cursor() {
    // ESC 7 saves UK, ESC 8 brings it back, CSI s saves it and CSI u
    // brings it back over DEC graphics. With NRC mode off `ESC ( A` is the
    // upper half of Latin-1 (`q` is `ñ`), as xterm 379 shows it.
    let s = snap(b"#\x1b(A#\x1b7\x1b(B\x1b8#\x1b[s\x1b(0\x1b[uq");
    assert_eq!(s.lines[0], "#££ñ");
}

#[test]
fn ris_resets_the_character_sets() {
    let s = snap(b"\x1b(0q\x1bcq");
    assert_eq!(s.lines[0], "q");
}

#[test]
fn insert_mode_pushes_the_rest_of_the_line() {
    let s = snap("abcdef\x1b[1;3H\x1b[4hXY日e\u{301}\x1b[4lZ".as_bytes());
    assert_eq!(s.lines[0], "abXY日e\u{301}Zdef");
    // Split in the middle of the wide character.
    let mut screen = Screen::new(24, 80, 100);
    let bytes = "abcdef\x1b[1;3H\x1b[4h日\x1b[4l".as_bytes();
    let cut = bytes.len() - 6;
    screen.process(&bytes[..cut], &mut Vec::new());
    screen.process(&bytes[cut..], &mut Vec::new());
    assert_eq!(screen.snapshot().lines[0], "ab日cdef");
}

#[test]
fn without_autowrap_the_last_column_is_overwritten() {
    let mut bytes = b"\x1b[?7l".to_vec();
    bytes.extend(std::iter::repeat_n(b'f', 85));
    bytes.extend(b"g\x1b[?7h\r\nh");
    let s = snap(&bytes);
    assert_eq!(s.lines[0], format!("{}g", "f".repeat(79)));
    assert_eq!(s.lines[1], "h");
}

#[test]
fn moves_from_the_right_margin_start_on_the_last_column() {
    let p = "p".repeat(80);
    // Backspace: one left of the last column.
    assert_eq!(
        snap(format!("{p}\x08!").as_bytes()).lines[0],
        format!("{}!p", "p".repeat(78))
    );
    // Cursor left by 2.
    assert_eq!(
        snap(format!("{p}\x1b[2D!").as_bytes()).lines[0],
        format!("{}!pp", "p".repeat(77))
    );
    // Line feed without carriage return: the next row, last column.
    let s = snap(format!("{p}\ny").as_bytes());
    assert_eq!(s.lines[1], format!("{}y", " ".repeat(79)));
    // Cursor up, then a character: on the row above, last column.
    let s = snap(format!("\r\n{p}\x1b[Ax").as_bytes());
    assert_eq!(s.lines[0], format!("{}x", " ".repeat(79)));
    // Delete a character: the last column's.
    let s = snap(format!("{p}\x1b[P").as_bytes());
    assert_eq!(s.lines[0], "p".repeat(79));
}

#[test]
fn cursor_at_the_margin_is_on_the_last_column() {
    let s = snap("x".repeat(80).as_bytes());
    assert_eq!(cursor(&s), (0, 79));
}

#[test]
fn tab_stops_set_cleared_and_moved_by() {
    // Clear all, set at 4 and 10.
    let s = snap(b"\x1b[3g\x1b[5G\x1bH\x1b[11G\x1bH\r1\t2\t3\t4");
    assert_eq!(s.lines[0], format!("1   2     3{}4", " ".repeat(79 - 11)));
    // Clear the stop at the cursor only; back tab.
    let s = snap(b"\x1b[9G\x1b[g\r\tA\x1b[Z\x1b[ZB\x1b[2IC");
    assert_eq!(s.lines[0], "B               A       C");
}

#[test]
fn tab_stops_follow_a_resize() {
    let mut screen = feed(b"\x1b[3g\x1b[5G\x1bH");
    screen.resize(24, 100);
    screen.process(b"\r\t1\t2", &mut Vec::new());
    let s = screen.snapshot();
    assert_eq!(s.lines[0].find('1'), Some(4));
    assert_eq!(s.lines[0].find('2'), Some(80));
}

#[test]
fn mode_1047_switches_screens_and_1048_saves_the_cursor() {
    let mut screen = feed(b"main text\x1b[?1047halt");
    let s = screen.snapshot();
    assert!(s.alt_screen);
    assert_eq!(s.lines[0], "         alt");
    screen.process(
        b"\x1b[?1047lback\x1b[3;4H\x1b[?1048h\x1b[9;9Hx\x1b[?1048ly",
        &mut Vec::new(),
    );
    let s = screen.snapshot();
    assert!(!s.alt_screen);
    assert_eq!(s.lines[0], "main text   back");
    assert_eq!(s.lines[2], "   y");
}

#[test]
fn the_alternate_screen_keeps_its_text_by_47_and_keeps_the_cursor() {
    // xterm: 47 never clears the alternate screen, 1047 clears it as it
    // leaves it, 1049 as it enters it.
    let s = snap(b"main\x1b[?47hone\x1b[?47l\x1b[?47h\x1b[Ht");
    assert_eq!(s.lines[0], "t   one");
    let s = snap(b"ab\x1b[?47hxy\x1b[?47l\x1b[?47h");
    assert_eq!((s.lines[0].as_str(), cursor(&s)), ("  xy", (0, 4)));
    let s = snap(b"ab\x1b[?1047hxy\x1b[?1047l\x1b[?1047h");
    assert_eq!((s.lines[0].as_str(), cursor(&s)), ("", (0, 4)));
    let s = snap(b"ab\x1b[?1047hxy\x1b[?1047l");
    assert_eq!((s.lines[0].as_str(), cursor(&s)), ("ab", (0, 4)));
    let s = snap(b"main\x1b[?1049hfull");
    assert_eq!(s.lines[0], "    full");
    let s = snap(b"main\x1b[?1049hfull\x1b[?1049l!");
    assert_eq!(s.lines[0], "main!");
}

#[test]
fn scosc_scorc_ind_nel_decaln() {
    let s = snap(b"\x1b[3;3H\x1b[s\x1b[15;15Hz\x1b[uw");
    assert_eq!(s.lines[2], "  w");
    let s = snap(b"a\x1bEb\x1bDc");
    assert_eq!(&s.lines[..3], ["a", "b", " c"]);
    let s = snap(b"\x1b[5;10r\x1b#8");
    assert!(s.lines.iter().all(|l| l == &"E".repeat(80)));
    assert_eq!(cursor(&s), (0, 0));
}

#[test]
fn other_sequences_pass_through_untouched() {
    // OSC and DCS payloads that look like sequences, CSIs with a
    // private marker or an intermediate.
    let s = snap(b"\x1b]0;t(0[4h\x07q\x1bP1$r(0[4h\x1b\\q\x1b[>4;2mq\x1b[?4hq\x1b[4$pq");
    assert_eq!(s.lines[0], "qqqqq");
    assert_eq!(s.title, "t(0[4h");
    // A BEL inside a DCS string does not end it (only OSC ends on BEL).
    let s = snap(b"\x1b(0q\x1bPx\x07qq\x1b\\q");
    assert_eq!(s.lines[0], "──");
}

#[test]
fn mouse_modes_follow_xterm() {
    use crate::core::keys::{MouseEncoding as E, MouseTracking as T};
    let mouse = |bytes: &[u8]| {
        let m = feed(bytes).modes().mouse;
        (m.tracking, m.encoding)
    };
    assert_eq!(mouse(b""), (T::Off, E::Default));
    assert_eq!(mouse(b"\x1b[?1000h"), (T::Normal, E::Default));
    assert_eq!(mouse(b"\x1b[?1000;1006h"), (T::Normal, E::Sgr));
    assert_eq!(mouse(b"\x1b[?1002h\x1b[?1015h"), (T::Button, E::Urxvt));
    assert_eq!(mouse(b"\x1b[?1003h\x1b[?1005h"), (T::Any, E::Utf8));
    assert_eq!(mouse(b"\x1b[?9h"), (T::X10, E::Default));
    // The last encoding set wins; a reset only undoes its own.
    assert_eq!(mouse(b"\x1b[?1006h\x1b[?1015h"), (T::Off, E::Urxvt));
    assert_eq!(
        mouse(b"\x1b[?1006h\x1b[?1015h\x1b[?1015l"),
        (T::Off, E::Default)
    );
    assert_eq!(mouse(b"\x1b[?1015h\x1b[?1006h"), (T::Off, E::Sgr));
    assert_eq!(mouse(b"\x1b[?1015;1006h"), (T::Off, E::Sgr));
    assert_eq!(mouse(b"\x1b[?1006;1015h"), (T::Off, E::Urxvt));
    assert_eq!(mouse(b"\x1b[?1015h\x1b[?1006l"), (T::Off, E::Urxvt));
    // Resetting any tracking mode turns tracking off (vt100 alone keeps
    // 1002 on after a reset of 1000).
    assert_eq!(mouse(b"\x1b[?1002h\x1b[?1000l"), (T::Off, E::Default));
    assert_eq!(mouse(b"\x1b[?1000h\x1b[?1003h"), (T::Any, E::Default));
    // A full reset forgets them all.
    assert_eq!(mouse(b"\x1b[?1003;1015h\x1bc"), (T::Off, E::Default));
    assert_eq!(
        replies_to(b"\x1b[?1015h\x1b[?1015$p\x1b[?1006$p"),
        "\x1b[?1015;1$y\x1b[?1006;2$y"
    );
}

fn replies_to(bytes: &[u8]) -> String {
    let mut screen = Screen::new(24, 80, 100);
    let mut replies = Vec::new();
    screen.process(bytes, &mut replies);
    String::from_utf8(replies).unwrap()
}

#[test]
fn decrqm_reports_modes_in_order_with_other_replies() {
    assert_eq!(
        replies_to(b"\x1b[?1h\x1b[?1$p\x1b[?7l\x1b[?7$p\x1b[?2004$p\x1b[5n\x1b[?1049h\x1b[?1049$p"),
        "\x1b[?1;1$y\x1b[?7;2$y\x1b[?2004;2$y\x1b[0n\x1b[?1049;1$y"
    );
    assert_eq!(
        replies_to(
            b"\x1b[4h\x1b[4$p\x1b[?25l\x1b[?25$p\x1b[?1000h\x1b[?1006h\x1b[?1000$p\x1b[?1006$p"
        ),
        "\x1b[4;1$y\x1b[?25;2$y\x1b[?1000;1$y\x1b[?1006;1$y"
    );
    // Modes we do not know are reported as not recognised.
    assert_eq!(
        replies_to(b"\x1b[?12$p\x1b[12$p"),
        "\x1b[?12;0$y\x1b[12;0$y"
    );
    // New line mode (LNM).
    assert_eq!(
        replies_to(b"\x1b[20$p\x1b[20h\x1b[20$p"),
        "\x1b[20;2$y\x1b[20;1$y"
    );
}

#[test]
fn cursor_report_at_the_right_margin_names_the_last_column() {
    let mut bytes = "x".repeat(80).into_bytes();
    bytes.extend(b"\x1b[6n");
    assert_eq!(replies_to(&bytes), "\x1b[1;80R");
}

#[test]
fn vs16_after_a_narrow_character_keeps_it_narrow() {
    // vt100 widens a cell when U+FE0F follows a text-style emoji and
    // panics when that cell is in the last column; xterm keeps the
    // character one column wide, the selector in the same cell.
    let s = snap("\x1b[24;80H\u{2764}\u{fe0f}\x1b[23;80Hx".as_bytes());
    assert_eq!(s.lines[22], format!("{}x", " ".repeat(79)));
    assert_eq!(s.lines[23], format!("{}\u{2764}\u{fe0f}", " ".repeat(79)));
    let s = snap("a\u{2764}\u{fe0f}b \u{263a}\u{fe0f}c #\u{fe0f}\u{20e3}".as_bytes());
    assert_eq!(
        s.lines[0],
        "a\u{2764}\u{fe0f}b \u{263a}\u{fe0f}c #\u{fe0f}\u{20e3}"
    );
    assert_eq!(cursor(&s), (0, 8));
    // The styled runs show the selector too.
    let mut screen = feed("\u{263a}\u{fe0f}x".as_bytes());
    assert_eq!(screen.styled_rows()[0][0].text, "\u{263a}\u{fe0f}x");
}

#[test]
fn vertical_moves_from_outside_the_margins_stop_at_the_margin_ahead() {
    // Margins 8..21 (1-based); CNL from row 1 stops at row 21, CPL from
    // row 24 at row 8, CUD/CUU likewise, keeping the column.
    let s = snap(b"\x1b[8;21r\x1b[1;5H\x1b[73Ea\x1b[24;3H\x1b[30Fb\x1b[1;9H\x1b[25Bc");
    assert_eq!(s.lines[20], "a       c");
    assert_eq!(s.lines[7], "b");
    let s = snap(b"\x1b[8;21r\x1b[24;12H\x1b[40Ad\x1b[2;2H\x1b[3Ae");
    assert_eq!(s.lines[7], "           d");
    assert_eq!(s.lines[0], " e");
}

#[test]
fn screens_keep_their_own_saved_cursor_and_charsets() {
    // Line drawing saved on the main screen by 1049, ASCII saved on the
    // alternate one: leaving restores the main screen's.
    let s = snap(b"\x1b(0\x1b[3;3H\x1b[?1049h\x1b(B\x1b[5;5H\x1b7x\x1b[?1049lq\x1b8q");
    // (ESC 8 then restores the main screen's cursor: the same cell.)
    assert_eq!(s.lines[2], "  \u{2500}");
    assert_eq!(cursor(&s), (2, 3));
    // A second 1049h saves the cursor and clears the alternate screen
    // (the cursor stays).
    let s = snap(b"main\x1b[?1049halt\x1b[?1049h more");
    assert_eq!(s.lines[0], "        more");
    // DECSTR resets the saved cursor to home.
    assert_eq!(snap(b"xy\x1b7\x1b[!p\x1b8z").lines[0], "zy");
}

#[test]
fn printing_with_insert_no_wrap_and_rep() {
    // Insert mode with a wrap pending: wrap, then insert.
    let s = snap(format!("\x1b[2;1H{}\x1b[1;79H\x1b[4habc", "q".repeat(10)).as_bytes());
    assert_eq!(s.lines[0], format!("{}ab", " ".repeat(78)));
    assert_eq!(s.lines[1], format!("c{}", "q".repeat(10)));
    // No auto-wrap: a wide character that does not fit is dropped, a
    // combining mark joins the last column's character.
    let s = snap(
        format!(
            "\x1b[?7l{}\u{65e5}\r\n{}e\u{301}",
            "x".repeat(79),
            "y".repeat(79)
        )
        .as_bytes(),
    );
    assert_eq!(s.lines[0], "x".repeat(79));
    assert_eq!(s.lines[1], format!("{}e\u{301}", "y".repeat(79)));
    // REP repeats the cell's character (without its marks) through the
    // fix-ups.
    let s = snap("\x1b[?7lhel\x1b[90b\x1b[?7h\r\n\x1b(0q\x1b[3b\x1b(B\r\ne\u{301}\x1b[2b\r\nxyz\r\x1b[4ha\x1b[2b".as_bytes());
    assert_eq!(s.lines[0], format!("he{}", "l".repeat(78)));
    assert_eq!(s.lines[1], "\u{2500}".repeat(4));
    assert_eq!(s.lines[2], "e\u{301}ee");
    assert_eq!(s.lines[3], "aaaxyz");
    // An emoji with a variation selector, auto-wrap off: repeated without
    // the selector up to the margin, then dropped (does not fit).
    let s = snap("\x1b[?7l\x1b[1;77H\u{1f600}\u{fe0e}\x1b[5b".as_bytes());
    assert_eq!(
        s.lines[0],
        format!("{}\u{1f600}\u{fe0e}\u{1f600}", " ".repeat(76))
    );
    // A mark with nothing to join is dropped and gives nothing to repeat.
    let s = snap("\u{301}\x1b[3bx".as_bytes());
    assert_eq!(s.lines[0], "x");
}

/// Streams whose screens were recorded from xterm 379 (fuzz/xterm.mjs), one
/// per class where ptypilot followed another reading before.
#[test]
fn as_xterm_379_shows_them() {
    let cases: [(&str, &[&str]); 21] = [
        // C1 controls written as UTF-8: neither acted on nor shown.
        ("A\u{85}B", &["AB"]),
        ("A\u{9b}2CB", &["A2CB"]),
        ("A\u{90}xx\u{9c}B", &["AxxB"]),
        ("A\u{85}\x1b[2b", &["A"]),
        // `ESC ( A` with NRC mode off: the upper half of Latin-1.
        ("\x1b(Ahello #\x1b(B#", &["èåììï\u{a0}£#"]),
        // A lone mark: joins the character under the cursor, else dropped.
        ("\u{301}AB", &["AB"]),
        ("ab\x1b[1G\u{301}", &["a\u{301}b"]),
        ("\x1b[5G\u{301}Y", &["    Y"]),
        // After a screen switch a mark joins the cell before the cursor on
        // the screen in use, and is dropped where that cell is empty.
        ("ab\x1b[?1047h\u{301}", &[]),
        ("ab\x1b[?47hxy\x1b[?47l\u{301}", &["ab"]),
        // The alternate screen keeps what it showed across visits by 47.
        ("ab\x1b[?47hxy\x1b[?47l\x1b[?47h", &["  xy"]),
        // A wide character that does not fit with auto-wrap off is
        // dropped, and a zero-width character after it with it.
        ("\x1b[?7l\x1b[1;80H\u{65e5}\u{fe0f}", &[]),
        ("\x1b[?7l\x1b[1;80H\u{65e5}\u{301}", &[]),
        // After a tab a mark joins the character printed last.
        ("q\x1b[21I\u{301}", &["q\u{301}"]),
        ("ab\t\t\u{301}Z", &["ab\u{301}              Z"]),
        // Format characters are left out of the cells.
        ("a\u{200d}b\u{200b}c\u{feff}d", &["abcd"]),
        ("a\u{200d}\x1b[2b", &["a"]),
        // `CSI 0 T` and `CSI T` with two parameters do not scroll.
        ("1\r\n2\x1b[0T\x1b[;T", &["1", "2"]),
        ("1\r\n2\x1b[T", &["", "1", "2"]),
        // SCOSC and SCORC with parameters, mode 69 off.
        ("abcdef\x1b[2;5sX\x1b[u", &["abcdefX"]),
        ("ab\x1b[s\x1b[2;5HX\x1b[2uY", &["abY", "    X"]),
    ];
    for (stream, rows) in cases {
        let s = snap(stream.as_bytes());
        assert_eq!(&s.lines[..rows.len()], rows, "{stream:?}");
        assert!(
            s.lines[rows.len()..].iter().all(String::is_empty),
            "{stream:?}"
        );
    }
}

/// The same output in any split gives the same screen.
#[test]
fn chunk_boundaries_do_not_matter() {
    let samples: [&[u8]; 7] = [
        "ab\x1b(0lqk\x1b(B\x1b[4h日e\u{301}\x1b[4l\x1b[3g\x1b[9G\x1bH\r\tT\x1b[?1047hA\x1b[?1047l\x1b[?7lzz\x1b[?7h".as_bytes(),
        // Left and right margins, wraps pending, reverse wraparound,
        // lone combining marks.
        "\x1b[?69h\x1b[3;60s日本語abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ\r\nX\x1b[2S\x1b[4;4H\x1b[2@\x1b[M\x1b[T\x1bM\x1bD\x1b[4h\u{fffd}q\x1b[4l\x1b[2 @\x1b['}\x1b[?69l".as_bytes(),
        "\x1b[20;1H\x1b[?45h0123456789012345678901234567890123456789012345678901234567890123456789012345678901\x08\x08\x08\x1b[5D\x1b[Z\tZ\x1b[1;80Hq\x1b7\x1b[H\x1b8\x1b[K\r\u{301}\x1b[3;5H\u{301}\x1b[?1049h\x1b[1;80Hw\x1b[?47l\x1b[!p".as_bytes(),
        include_bytes!("../../../../__test__/fixtures/vim.out"),
        include_bytes!("../../../../__test__/fixtures/less.out"),
        include_bytes!("../../../../__test__/fixtures/readline.out"),
        include_bytes!("../../../../__test__/fixtures/top.out"),
    ];
    for sample in samples {
        let whole = snap(sample);
        let mut bytewise = Screen::new(24, 80, 100);
        for b in sample {
            bytewise.process(std::slice::from_ref(b), &mut Vec::new());
        }
        assert_eq!(bytewise.snapshot(), whole);
        for size in [2, 3, 7, 64] {
            let mut chunked = Screen::new(24, 80, 100);
            for chunk in sample.chunks(size) {
                chunked.process(chunk, &mut Vec::new());
            }
            assert_eq!(chunked.snapshot(), whole, "chunks of {size}");
        }
    }
}

#[test]
fn reverse_wraparound_needs_autowrap() {
    // Auto-wrap off: a plain backspace, at the left edge of a
    // continuation row and from the last column.
    let s = snap(format!("\x1b[?45h{}\r\x1b[?7l\x08Y", "w".repeat(82)).as_bytes());
    assert_eq!(s.lines[1], "Yw");
    let s = snap(format!("\x1b[?45h\x1b[?7l{}\x08X", "n".repeat(80)).as_bytes());
    assert_eq!(s.lines[0], format!("{}Xn", "n".repeat(78)));
    assert_eq!(cursor(&s), (0, 79));
}

#[test]
fn a_wrap_xterm_makes_before_printing_marks_the_row() {
    // Insert mode with a wrap pending, and a wrap flag kept over CBT:
    // backspace with reverse wraparound goes back up over the row.
    let s = snap(format!("\x1b[?45h\x1b[4h{}xy\r\x08Z", "i".repeat(80)).as_bytes());
    assert_eq!(s.lines[0], format!("{}Z", "i".repeat(79)));
    assert_eq!(s.lines[1], "xy");
    let s = snap(format!("\x1b[?45h{}\x1b[Zxy\x1b[A\n\r\x08Z", "t".repeat(80)).as_bytes());
    assert_eq!(s.lines[0], format!("{}Z", "t".repeat(79)));
    assert_eq!(s.lines[1], "xy");
    // Insert mode at the bottom margin: the wrap scrolls.
    let s = snap(format!("\x1b[2;3r\x1b[3;1H\x1b[4h{}ab", "k".repeat(80)).as_bytes());
    assert_eq!(&s.lines[1..4], ["k".repeat(80).as_str(), "ab", ""]);
}

#[test]
fn reverse_wraparound_follows_the_row_that_wrapped() {
    let a = "a".repeat(81);
    // A line inserted below the wrapped row: backspace still goes up.
    let s = snap(format!("\x1b[?45h{a}\x1b[L\r\x08X").as_bytes());
    assert_eq!(s.lines[0], format!("{}X", "a".repeat(79)));
    assert_eq!(cursor(&s), (0, 79));
    // A line feed onto the continuation row: the same.
    let s = snap(format!("\x1b[?45h{a}\r\x1b[A\n\x08X").as_bytes());
    assert_eq!(s.lines[0], format!("{}X", "a".repeat(79)));
    // The wrapped row deleted: the row above did not wrap, it stays.
    let s = snap(format!("\x1b[?45hx\r\n{a}\x1b[2;1H\x1b[M\r\x08Z").as_bytes());
    assert_eq!(&s.lines[..2], ["x", "Z"]);
    assert_eq!(cursor(&s), (1, 1));
}

#[test]
fn reverse_wraparound_keeps_to_the_margins() {
    // Left and right margins (columns 3 to 6): mode 45 stops at the left
    // margin; mode 1045 goes on from the right margin of the row above.
    let s = snap(b"\x1b[?69h\x1b[3;6s\x1b[?45h\x1b[2;3H\x08X");
    assert_eq!(cursor(&s), (1, 3));
    let s = snap(b"\x1b[?69h\x1b[3;6s\x1b[?1045h\x1b[2;3H\x08X");
    assert_eq!(s.lines[0], "     X");
    // Left of the left margin the cursor may go to column 0.
    let s = snap(b"\x1b[?69h\x1b[3;6s\x1b[?45h\x1b[2;2H\x08\x08X");
    assert_eq!(s.lines[1], "X");
    // Scroll margins rows 3 to 4: mode 45 from above them goes to the
    // top margin; mode 1045 from the top margin goes on from the bottom
    // one, and from the first row (above them) from the end of the
    // screen.
    let s = snap(b"\x1b[3;4r\x1b[?45h\x1b[1;1H\x08X");
    assert_eq!(cursor(&s), (2, 1));
    let s = snap(b"\x1b[3;4r\x1b[?1045h\x1b[3;1H\x08X");
    assert_eq!(s.lines[3], format!("{}X", " ".repeat(79)));
    let s = snap(b"\x1b[3;4r\x1b[?1045h\x1b[1;1H\x08X");
    assert_eq!(s.lines[23], format!("{}X", " ".repeat(79)));
}
