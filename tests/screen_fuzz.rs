//! Panic fuzzer of the screen model: nothing a program prints may crash it.
//!
//! Each case is a fresh [`Screen`] of some size (every size from 1×1 up is
//! tried) fed a stream built from random bytes and from a grammar of control
//! functions with extreme parameters (cursor moves to the corners and far
//! past them, huge counts, every mode switched, wide, combining and
//! variation-selector characters at the margins, strings left open), cut
//! into chunks at random points, with resizes (down to 1×1) and snapshots in
//! between. A case that panics is shrunk to a minimal input and printed as
//! a regression test for the list at the end of this file.
//!
//! `cargo test` runs a short seeded tier; the long tier runs for
//! `PTYPILOT_FUZZ_SECONDS` (default 60) from a seed of the clock (or
//! `PTYPILOT_FUZZ_SEED`) and prints the inputs tried and the panics found:
//!
//! ```text
//! cargo test --release --test screen_fuzz -- --ignored --nocapture
//! ```

use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use ptypilot::core::screen::Screen;

/// A small deterministic generator (splitmix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }
}

/// One step of a case.
#[derive(Debug, Clone)]
enum Op {
    /// Program output.
    Write(Vec<u8>),
    /// A terminal resize to `(rows, cols)`.
    Resize(u16, u16),
    /// Someone looks at the screen (parses what waited, builds the text).
    Snapshot,
}

/// A screen size and what happens to it.
#[derive(Debug, Clone)]
struct Case {
    rows: u16,
    cols: u16,
    scrollback: usize,
    ops: Vec<Op>,
}

/// Runs a case to the end; panics where the screen model does.
fn run(case: &Case) {
    let mut screen = Screen::new(case.rows, case.cols, case.scrollback);
    let mut replies = Vec::new();
    for op in &case.ops {
        match op {
            Op::Write(bytes) => screen.process(bytes, &mut replies),
            Op::Resize(rows, cols) => screen.resize(*rows, *cols),
            Op::Snapshot => {
                let snap = screen.snapshot();
                // The rows kept since the last snapshot are the rows now.
                assert_eq!(snap.text, screen.text_uncached(), "kept rows differ");
                assert_eq!(snap.lines.len(), usize::from(snap.rows));
                assert!(snap.cursor_row < snap.rows && snap.cursor_col < snap.cols);
            }
        }
        replies.clear();
    }
    screen.snapshot();
    screen.text();
}

thread_local! {
    /// Where the last panic on this thread happened (file:line).
    static PANIC_AT: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Runs `case`, returning where it panicked, if it did. Panic messages are
/// kept quiet while fuzzing (see [`quiet_panics`]).
fn panics_at(case: &Case) -> Option<String> {
    watch(case);
    PANIC_AT.with(|p| p.borrow_mut().take());
    match panic::catch_unwind(AssertUnwindSafe(|| run(case))) {
        Ok(()) => None,
        Err(_) => Some(
            PANIC_AT
                .with(|p| p.borrow_mut().take())
                .unwrap_or_else(|| "unknown".into()),
        ),
    }
}

/// The case being run and how many have run, for [`watchdog`].
static CURRENT: Mutex<Option<Case>> = Mutex::new(None);
static RUNS: AtomicU64 = AtomicU64::new(0);

fn watch(case: &Case) {
    *CURRENT.lock().unwrap_or_else(|e| e.into_inner()) = Some(case.clone());
    RUNS.fetch_add(1, Ordering::Relaxed);
}

/// A thread that ends the process, printing the case, when one case runs
/// for more than `limit`: the screen model hangs on it.
fn watchdog(limit: Duration) {
    std::thread::spawn(move || {
        let mut last = (RUNS.load(Ordering::Relaxed), Instant::now());
        loop {
            std::thread::sleep(Duration::from_millis(200));
            let runs = RUNS.load(Ordering::Relaxed);
            if runs != last.0 {
                last = (runs, Instant::now());
            } else if last.1.elapsed() > limit {
                let case = CURRENT.lock().unwrap_or_else(|e| e.into_inner()).clone();
                if let Some(case) = case {
                    eprintln!(
                        "the screen model hangs (no progress in {limit:?}) on: {}",
                        as_source(&case)
                    );
                    std::process::exit(101);
                }
            }
        }
    });
}

/// Replaces the panic hook with one that records the location instead of
/// printing; the old hook comes back when the guard is dropped.
fn quiet_panics() -> impl Drop {
    type Hook = Box<dyn Fn(&panic::PanicHookInfo<'_>) + Sync + Send>;
    struct Restore(Option<Hook>);
    impl Drop for Restore {
        fn drop(&mut self) {
            if let Some(hook) = self.0.take() {
                panic::set_hook(hook);
            }
        }
    }
    let old = panic::take_hook();
    panic::set_hook(Box::new(|info| {
        let at = info.location().map_or_else(
            || "unknown".to_string(),
            |l| format!("{}:{}", l.file(), l.line()),
        );
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        PANIC_AT.with(|p| *p.borrow_mut() = Some(format!("{at}: {msg}")));
    }));
    Restore(Some(old))
}

/// Parameter values that sit on the edges: 0, 1, the size and one past it,
/// and the limits of 16- and 32-bit integers and beyond.
fn extreme(rng: &mut Rng, rows: u16, cols: u16) -> String {
    let edges = [
        0u64,
        1,
        2,
        3,
        7,
        8,
        9,
        u64::from(rows),
        u64::from(rows) + 1,
        u64::from(cols).saturating_sub(1),
        u64::from(cols),
        u64::from(cols) + 1,
        99,
        255,
        256,
        1000,
        32_767,
        32_768,
        65_535,
        65_536,
        99_999,
        2_147_483_647,
        4_294_967_295,
        4_294_967_296,
    ];
    match rng.below(12) {
        0 => "18446744073709551616999".into(),
        1 => String::new(),
        2 => rng.below(300).to_string(),
        _ => rng.pick(&edges).to_string(),
    }
}

/// Printable pieces: ASCII, wide and combining characters, emoji and their
/// joiners and selectors, code points that look like controls, invalid and
/// cut-off UTF-8.
const TEXT: &[&str] = &[
    "a",
    "xyz",
    " ",
    "é",
    "e\u{301}",
    "\u{301}",
    "\u{301}\u{302}\u{303}\u{304}\u{305}\u{306}\u{307}\u{308}",
    "日",
    "日本語",
    "\u{2764}",
    "\u{2764}\u{fe0f}",
    "\u{fe0f}",
    "\u{fe0e}",
    "\u{263a}\u{fe0f}",
    "\u{200d}",
    "\u{1f468}\u{200d}\u{1f469}\u{200d}\u{1f467}",
    "\u{1f600}",
    "\u{1f1e6}\u{1f1e8}",
    "\u{fffd}",
    "\u{85}",
    "\u{9b}",
    "\u{9c}",
    "\u{90}",
    "\u{ad}",
    "\u{200b}",
    "\u{17d8}",
    "\u{1100}\u{1161}\u{11a8}",
    "\u{e0001}",
    "\u{10ffff}",
    "\u{3000}",
    "\u{a0}",
    "#",
    "q",
    "\t",
];

/// Final bytes of control sequences worth aiming at.
const CSI_FINALS: &[u8] = b"@ABCDEFGHIJKLMPSTXZ`abcdefghlmnpqrstuxy{|}~";

/// DEC private and ANSI modes worth switching.
const MODES: &[u16] = &[
    1, 2, 3, 4, 5, 6, 7, 12, 20, 25, 34, 40, 45, 47, 66, 67, 69, 80, 95, 1000, 1002, 1003, 1004,
    1005, 1006, 1007, 1015, 1016, 1034, 1047, 1048, 1049, 2004, 2026, 2027, 9001,
];

/// One piece of program output.
fn piece(rng: &mut Rng, rows: u16, cols: u16, out: &mut Vec<u8>) {
    match rng.below(20) {
        // Text, sometimes a lot of it.
        0..=3 => {
            let n = if rng.chance(8) {
                1 + rng.below(400)
            } else {
                1 + rng.below(6)
            };
            for _ in 0..n {
                out.extend_from_slice(rng.pick(TEXT).as_bytes());
            }
        }
        // A character at a corner or an edge, then more.
        4 => {
            let row = rng.pick(&[1, u32::from(rows), u32::from(rows).saturating_sub(1)]);
            let col = rng.pick(&[1, u32::from(cols), u32::from(cols).saturating_sub(1)]);
            out.extend_from_slice(format!("\x1b[{row};{col}H").as_bytes());
            out.extend_from_slice(rng.pick(TEXT).as_bytes());
            out.extend_from_slice(rng.pick(TEXT).as_bytes());
        }
        // C0 controls and DEL.
        5 => {
            let b = if rng.chance(4) {
                0x7f
            } else {
                rng.below(0x20) as u8
            };
            out.push(b);
        }
        6 | 7 => {
            out.push(b'\r');
            out.push(b'\n');
        }
        // A control sequence with extreme parameters.
        8..=11 => {
            out.extend_from_slice(b"\x1b[");
            if rng.chance(4) {
                out.push(rng.pick(b"?>=<"));
            }
            let params = rng.below(5);
            for p in 0..params {
                if p > 0 {
                    out.push(if rng.chance(6) { b':' } else { b';' });
                }
                out.extend_from_slice(extreme(rng, rows, cols).as_bytes());
            }
            if rng.chance(5) {
                out.push(rng.pick(b" !\"$'#*+,"));
            }
            let fin = if rng.chance(8) {
                0x40 + rng.below(0x3f) as u8
            } else {
                rng.pick(CSI_FINALS)
            };
            out.push(fin);
        }
        // A mode switched on or off, or asked about.
        12 => {
            let private = rng.below(3) > 0;
            let mode = rng.pick(MODES);
            let end: &[u8] = rng.pick(&[b"h".as_slice(), b"l", b"$p"]);
            out.extend_from_slice(if private { b"\x1b[?" } else { b"\x1b[" });
            out.extend_from_slice(mode.to_string().as_bytes());
            out.extend_from_slice(end);
        }
        // Scroll margins, then a move and text.
        13 => {
            let top = extreme(rng, rows, cols);
            let bottom = extreme(rng, rows, cols);
            out.extend_from_slice(format!("\x1b[{top};{bottom}r").as_bytes());
            if rng.chance(2) {
                out.extend_from_slice(b"\x1b[?6h");
            }
        }
        // An escape sequence.
        14 => {
            let seqs: &[&[u8]] = &[
                b"\x1b7", b"\x1b8", b"\x1bD", b"\x1bE", b"\x1bH", b"\x1bM", b"\x1bc", b"\x1b=",
                b"\x1b>", b"\x1b#8", b"\x1b#3", b"\x1b(0", b"\x1b(B", b"\x1b)0", b"\x1b(A",
                b"\x1b%G", b"\x1bn", b"\x1bo", b"\x0e", b"\x0f", b"\x1bN", b"\x1bO", b"\x1b",
                b"\x1b\\",
            ];
            out.extend_from_slice(rng.pick(seqs));
        }
        // OSC and DCS strings, closed or not.
        15 => {
            let start: &[u8] = rng.pick(&[
                b"\x1b]0;".as_slice(),
                b"\x1b]2;",
                b"\x1b]4;1;rgb:1/2/3",
                b"\x1b]8;;http://x",
                b"\x1b]10;?",
                b"\x1b]11;?",
                b"\x1b]52;c;",
                b"\x1bP1$r",
                b"\x1bP$q\"p",
                b"\x1b_",
                b"\x1b^",
                b"\x1bX",
                b"\x1b]",
            ]);
            out.extend_from_slice(start);
            for _ in 0..rng.below(20) {
                out.extend_from_slice(rng.pick(TEXT).as_bytes());
            }
            let end: &[u8] = rng.pick(&[b"\x07".as_slice(), b"\x1b\\", b"", b"\x18", b"\x9c"]);
            out.extend_from_slice(end);
        }
        // Colours and attributes.
        16 => {
            let sgr: &[u8] = rng.pick(&[
                b"\x1b[1;31m".as_slice(),
                b"\x1b[0m",
                b"\x1b[38;5;300m",
                b"\x1b[38:2::1:2:3m",
                b"\x1b[48;2;999;999;999m",
                b"\x1b[7m",
                b"\x1b[38;5m",
                b"\x1b[38m",
            ]);
            out.extend_from_slice(sgr);
        }
        // Random bytes.
        _ => {
            for _ in 0..1 + rng.below(12) {
                out.push(rng.next() as u8);
            }
        }
    }
}

/// A size: often tiny, sometimes large.
fn size(rng: &mut Rng) -> (u16, u16) {
    let dim = |rng: &mut Rng| match rng.below(10) {
        0..=5 => 1 + rng.below(6) as u16,
        6..=8 => 1 + rng.below(40) as u16,
        _ => 1 + rng.below(300) as u16,
    };
    (dim(rng), dim(rng))
}

/// A random case of the given size.
fn case(rng: &mut Rng, rows: u16, cols: u16) -> Case {
    let scrollback = rng.pick(&[0, 1, 3, 100]);
    let mut ops = Vec::new();
    let (mut r, mut c) = (rows, cols);
    for _ in 0..1 + rng.below(6) {
        let mut bytes = Vec::new();
        for _ in 0..1 + rng.below(12) {
            piece(rng, r, c, &mut bytes);
        }
        // Cut anywhere: inside sequences and characters too.
        while !bytes.is_empty() {
            let n = 1 + rng.below(bytes.len());
            let rest = bytes.split_off(n);
            ops.push(Op::Write(bytes));
            bytes = rest;
            // Someone looks between chunks too (the kept rows are then
            // brought up to date by the next chunk alone).
            if rng.below(4) == 0 {
                ops.push(Op::Snapshot);
            }
        }
        match rng.below(6) {
            0 => {
                (r, c) = size(rng);
                ops.push(Op::Resize(r, c));
            }
            1 => ops.push(Op::Snapshot),
            _ => {}
        }
    }
    Case {
        rows,
        cols,
        scrollback,
        ops,
    }
}

/// Shrinks a case that panics at `at` to a smaller one that panics there too.
fn shrink(mut case: Case, at: &str) -> Case {
    let same = |c: &Case| panics_at(c).as_deref() == Some(at);
    // Join the writes, so byte removal can cross chunk boundaries; keep the
    // split if the join no longer panics.
    loop {
        let mut progress = false;
        // Drop whole steps.
        let mut i = 0;
        while i < case.ops.len() {
            let mut smaller = case.clone();
            smaller.ops.remove(i);
            if same(&smaller) {
                case = smaller;
                progress = true;
            } else {
                i += 1;
            }
        }
        // Merge neighbouring writes.
        let mut i = 0;
        while i + 1 < case.ops.len() {
            if let (Op::Write(a), Op::Write(b)) = (&case.ops[i], &case.ops[i + 1]) {
                let mut smaller = case.clone();
                let joined = [a.as_slice(), b.as_slice()].concat();
                smaller.ops[i] = Op::Write(joined);
                smaller.ops.remove(i + 1);
                if same(&smaller) {
                    case = smaller;
                    progress = true;
                    continue;
                }
            }
            i += 1;
        }
        // Drop byte ranges, halving the range length.
        for i in 0..case.ops.len() {
            let Op::Write(bytes) = &case.ops[i] else {
                continue;
            };
            let mut bytes = bytes.clone();
            let mut len = bytes.len() / 2;
            while len > 0 {
                let mut at_byte = 0;
                while at_byte + len <= bytes.len() {
                    let mut fewer = bytes.clone();
                    fewer.drain(at_byte..at_byte + len);
                    let mut smaller = case.clone();
                    smaller.ops[i] = Op::Write(fewer.clone());
                    if !fewer.is_empty() && same(&smaller) {
                        bytes = fewer;
                        case = smaller;
                        progress = true;
                    } else {
                        at_byte += len;
                    }
                }
                len /= 2;
            }
        }
        // Smaller sizes and scrollback, each from the case as it is now.
        for which in 0..3 {
            let mut smaller = case.clone();
            match which {
                0 => smaller.rows -= 1,
                1 => smaller.cols -= 1,
                _ => smaller.scrollback = 0,
            }
            let changed = smaller.scrollback != case.scrollback
                || (smaller.rows, smaller.cols) != (case.rows, case.cols);
            if smaller.rows > 0 && smaller.cols > 0 && changed && same(&smaller) {
                case = smaller;
                progress = true;
            }
        }
        if !progress {
            return case;
        }
    }
}

/// The bytes a case writes.
fn size_of_case(case: &Case) -> usize {
    case.ops
        .iter()
        .map(|op| match op {
            Op::Write(b) => b.len(),
            _ => 0,
        })
        .sum()
}

/// A case as Rust source, for the regression list below.
fn as_source(case: &Case) -> String {
    let ops: Vec<String> = case
        .ops
        .iter()
        .map(|op| match op {
            Op::Write(bytes) => format!("Op::Write(b\"{}\".to_vec())", bytes.escape_ascii()),
            Op::Resize(r, c) => format!("Op::Resize({r}, {c})"),
            Op::Snapshot => "Op::Snapshot".into(),
        })
        .collect();
    format!(
        "Case {{ rows: {}, cols: {}, scrollback: {}, ops: vec![{}] }}",
        case.rows,
        case.cols,
        case.scrollback,
        ops.join(", ")
    )
}

/// What a fuzzing run did.
struct Report {
    inputs: u64,
    bytes: u64,
    /// One minimal case per place a panic happened.
    panics: Vec<(String, Case)>,
}

/// Fuzzes from `seed` until `deadline` or `max_inputs`. The first cases
/// walk through every size up to 12×12; the rest are random.
fn fuzz(seed: u64, deadline: Instant, max_inputs: u64) -> Report {
    let _quiet = quiet_panics();
    watchdog(Duration::from_secs(10));
    let mut rng = Rng(seed);
    let mut report = Report {
        inputs: 0,
        bytes: 0,
        panics: Vec::new(),
    };
    while report.inputs < max_inputs && (report.inputs % 64 != 0 || Instant::now() < deadline) {
        let (rows, cols) = if report.inputs < 144 {
            (
                1 + (report.inputs / 12) as u16,
                1 + (report.inputs % 12) as u16,
            )
        } else {
            size(&mut rng)
        };
        let case = case(&mut rng, rows, cols);
        report.inputs += 1;
        report.bytes += size_of_case(&case) as u64;
        if let Some(at) = panics_at(&case)
            && !report.panics.iter().any(|(seen, _)| *seen == at)
        {
            eprintln!("panic at {at}; shrinking {} bytes", size_of_case(&case));

            let small = shrink(case, &at);
            eprintln!("  minimal input: {}", as_source(&small));
            report.panics.push((at, small));
        }
    }
    report
}

fn print_report(what: &str, seed: u64, report: &Report, took: Duration) {
    println!(
        "screen fuzz ({what}, seed {seed:#x}): {} inputs ({} KiB) in {:.1} s, {} panic(s) found",
        report.inputs,
        report.bytes >> 10,
        took.as_secs_f64(),
        report.panics.len()
    );
    for (at, case) in &report.panics {
        println!("panic at {at}\n  minimal input: {}", as_source(case));
    }
}

#[test]
fn seeded_fuzz_finds_no_panic() {
    let seed = 0x5eed_0f5c_4ee7;
    let start = Instant::now();
    // A fixed number of inputs (so the tier is the same on every machine),
    // with a time limit as a guard on a slow one.
    let report = fuzz(seed, start + Duration::from_secs(120), 6_000);
    print_report("seeded", seed, &report, start.elapsed());
    assert!(
        report.panics.is_empty(),
        "the screen model panicked; add the minimal inputs above to `regressions`"
    );
}

#[test]
#[ignore = "long tier: npm run fuzz"]
fn long_fuzz() {
    let seconds: u64 = std::env::var("PTYPILOT_FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let seed = std::env::var("PTYPILOT_FUZZ_SEED")
        .ok()
        .and_then(|s| u64::from_str_radix(s.trim_start_matches("0x"), 16).ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        });
    let start = Instant::now();
    let report = fuzz(seed, start + Duration::from_secs(seconds), u64::MAX);
    print_report("long", seed, &report, start.elapsed());
    assert!(report.panics.is_empty(), "the screen model panicked");
}

/// Inputs that once crashed the screen model.
#[test]
fn regressions() {
    let cases = [
        // A VS16 widened the character in the bottom-right cell, then the
        // last column of the row above was written (vt100 0.18.1 panicked).
        Case {
            rows: 24,
            cols: 80,
            scrollback: 1000,
            ops: vec![Op::Write(
                b"\x1b[24;80H\xe2\x9d\xa4\xef\xb8\x8f\x1b[23;80Hx".to_vec(),
            )],
        },
        // A DCS ended by a raw 0x9C byte (ST as C1), then a VS16 (vt100
        // panicked widening the cell on a 1-column screen).
        Case {
            rows: 2,
            cols: 1,
            scrollback: 0,
            ops: vec![Op::Write(b"\x1bPr\x9c\xe2\x98\xba\xef\xb8\x8f".to_vec())],
        },
        Case {
            rows: 1,
            cols: 1,
            scrollback: 0,
            ops: vec![Op::Write(
                b"\x1bPr\x9c\xe2\x98\xba\xef\xb8\x8f\xcc\x86".to_vec(),
            )],
        },
        Case {
            rows: 1,
            cols: 1,
            scrollback: 0,
            ops: vec![
                Op::Resize(6, 4),
                Op::Write(b"\x1b[3r\x1b[?6h}O\xca\x88\x1bPr\x9c\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9ee\xe1\x9f\x98\xc2\xa0\xe2\x9d\xa4\xef\xb8\x8f\x1b[;4H\xe1\x9f\x98\xe6\x9c\xac\xe8\xaa\x9e\xe6\x97\xa5".to_vec()),
            ],
        },
        // REP of a character with a VS16, the most a REP repeats (found
        // as a hang: every VS16 scanned the rest of the repeated text for
        // the next control byte).
        Case {
            rows: 24,
            cols: 80,
            scrollback: 100,
            ops: vec![Op::Write(b"e\xcc\x81\xef\xb8\x8f\x1b[65535b".to_vec())],
        },
        // HPR in origin mode after a restore turned origin mode off in
        // vt100 (the compat layer's arithmetic underflowed).
        Case {
            rows: 8,
            cols: 1,
            scrollback: 0,
            ops: vec![Op::Write(b"\x1b[?6h\x1b[u\x1b[7r\x1b[a".to_vec())],
        },
        // CBT with a wrap pending keeps the wrap pending on its new column
        // (xterm): the next character wraps, and the rows kept between
        // snapshots must see it (they missed the scroll).
        Case {
            rows: 2,
            cols: 3,
            scrollback: 0,
            ops: vec![
                Op::Write(b"\xf0\x9f\x87\xa6\xf0\x9f\x87\xa8\xc2\x9b\n`xyz\x1b[Z".to_vec()),
                Op::Snapshot,
                Op::Write(b"e".to_vec()),
                Op::Snapshot,
            ],
        },
        Case {
            rows: 3,
            cols: 4,
            scrollback: 0,
            ops: vec![
                Op::Write(b"\x1b\nq|-lc\x1b[Z\xd2".to_vec()),
                Op::Snapshot,
                Op::Write(b"\x95".to_vec()),
                Op::Snapshot,
            ],
        },
        Case {
            rows: 4,
            cols: 4,
            scrollback: 0,
            ops: vec![
                Op::Write(b"\xcc\x81\xc2\x85\x1b[D\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe2\x9d\xa4\xef\xb8\x8f\xc3\xa9#\xc3\xa9U\xc7\x87\x1b[Z".to_vec()),
                Op::Snapshot,
                Op::Write(b"\xc3\xa9".to_vec()),
                Op::Snapshot,
            ],
        },
        Case {
            rows: 1,
            cols: 2,
            scrollback: 3,
            ops: vec![
                Op::Write(b"\xf0\x91\xa9\x8d\xf0\x9f\x91\xa7\xf0\x91\x80\x8d\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x91\xa7q\x1b\r\nA".to_vec()),
                Op::Resize(8, 12),
                Op::Write(b"\xc3\xa9\xc2\x9b~+Q)\xc4\x80[\x1b[8;11H\xcc\x81#\x1b[Z".to_vec()),
                Op::Snapshot,
                Op::Write(b"-".to_vec()),
                Op::Snapshot,
            ],
        },
        Case {
            rows: 1,
            cols: 1,
            scrollback: 0,
            ops: vec![
                Op::Write(b"a".to_vec()),
                Op::Resize(6, 4),
                Op::Write(b"\x1b[6rq\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xc2\xada\xe2\x98\xba\xef\xb8\x8f&\x1bh\r\n\x0c#c=ze\x1b[Xa\xf3\xa0\x80\x81N?\x1b[Z\x1b~\xef".to_vec()),
                Op::Snapshot,
                Op::Write(b"\xb8\x8e\xc3\xa9".to_vec()),
                Op::Snapshot,
            ],
        },
        // Text that reaches the right margin (DECSLRM) wraps there, before
        // the last column: the rows kept must see the row below change.
        Case {
            rows: 4,
            cols: 10,
            scrollback: 0,
            ops: vec![
                Op::Write(b"\x1b[?69h\x1b[1;3s\x1b[1;1H".to_vec()),
                Op::Snapshot,
                Op::Write(b"abcd".to_vec()),
                Op::Snapshot,
            ],
        },
        // Backspace and CUB at the left edge with reverse wraparound (45,
        // 1045) go on from the end of the row above.
        Case {
            rows: 3,
            cols: 5,
            scrollback: 0,
            ops: vec![
                Op::Write(b"\x1b[?45habcde\r\n".to_vec()),
                Op::Snapshot,
                Op::Write(b"\x08X".to_vec()),
                Op::Snapshot,
                Op::Write(b"\x1b[?1045h\x1b[3;1H".to_vec()),
                Op::Snapshot,
                Op::Write(b"\x1b[DY".to_vec()),
                Op::Snapshot,
            ],
        },
    ];
    watchdog(Duration::from_secs(10));
    for case in &cases {
        watch(case);
        run(case);
    }
}
