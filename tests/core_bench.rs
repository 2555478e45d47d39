//! Micro benchmarks of the session thread's hot path, without a pty or Node:
//! how fast the core decodes, models and keeps output, and what a snapshot and
//! a transcript read cost. Ignored by `cargo test`; run them with
//!
//! ```text
//! cargo test --release --test core_bench -- --ignored --nocapture --test-threads=1
//! ```
//!
//! `PTYPILOT_BENCH_CORPUS` names the input (default: the bench corpus that
//! `npm run bench` writes to the temp dir, else generated header-like text).
//! Times are thread CPU time (the machine may be shared). Nothing here
//! asserts a time; the numbers are for BENCHMARKS.md.

use std::time::{Duration, Instant};

use ptypilot::core::screen::Screen;
use ptypilot::core::transcript::{ReadOptions, Transcript};
use ptypilot::core::utf8::Utf8Decoder;

/// What the program wrote, as the pty delivers it (`\n` arrives as `\r\n`).
fn corpus() -> Vec<u8> {
    let path = std::env::var("PTYPILOT_BENCH_CORPUS").unwrap_or_else(|_| {
        std::env::temp_dir()
            .join("ptypilot-bench/headers-16777216.txt")
            .display()
            .to_string()
    });
    let text = std::fs::read(&path).unwrap_or_else(|_| {
        let line = b"#define __GLIBC_USE_IEC_60559_BFP_EXT_C2X 1 /* a header-like line */\n";
        line.iter().copied().cycle().take(16 << 20).collect()
    });
    onlcr(&text)
}

fn onlcr(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + text.len() / 20);
    for &b in text {
        if b == b'\n' {
            out.push(b'\r');
        }
        out.push(b);
    }
    out
}

/// CPU time of the calling thread: unlike wall time, it does not count the
/// time other processes on a shared machine took the core away.
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the struct we pass.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Runs `f` over `input` in `chunk`-sized pieces, best of `reps`; MiB per
/// second of thread CPU time.
fn rate(input: &[u8], chunk: usize, reps: usize, f: impl FnMut(&[u8])) -> f64 {
    rate_then(input, chunk, reps, f, || {})
}

/// As [`rate`], with `finish` called after the last piece of each round (and
/// counted).
fn rate_then(
    input: &[u8],
    chunk: usize,
    reps: usize,
    mut f: impl FnMut(&[u8]),
    mut finish: impl FnMut(),
) -> f64 {
    let mut best = Duration::MAX;
    for _ in 0..reps {
        let t = thread_cpu();
        for piece in input.chunks(chunk) {
            f(piece);
        }
        finish();
        best = best.min(thread_cpu() - t);
    }
    input.len() as f64 / (1 << 20) as f64 / best.as_secs_f64()
}

/// Average thread CPU time of one call of `f`, best of 5 rounds of `n` calls.
fn per_call(n: usize, mut f: impl FnMut()) -> Duration {
    let mut best = Duration::MAX;
    for _ in 0..5 {
        let t = thread_cpu();
        for _ in 0..n {
            f();
        }
        best = best.min((thread_cpu() - t) / n as u32);
    }
    best
}

const BATCH: usize = 16 << 10;

fn nz(n: u16) -> std::num::NonZeroU16 {
    std::num::NonZeroU16::new(n).unwrap()
}

#[test]
#[ignore]
fn hot_path_throughput() {
    let input = corpus();
    let onechar: Vec<u8> = vec![b'a'; 60_000_000];
    let seq: Vec<u8> = onlcr(
        (1..=1_000_000)
            .map(|i| format!("{i}\n"))
            .collect::<String>()
            .as_bytes(),
    );
    println!(
        "input: {:.1} MiB headers, {:.1} MiB seq, {:.1} MiB one char",
        input.len() as f64 / 1048576.0,
        seq.len() as f64 / 1048576.0,
        onechar.len() as f64 / 1048576.0
    );
    for (name, data) in [("headers", &input), ("seq", &seq), ("onechar", &onechar)] {
        let mut dec = Utf8Decoder::default();
        let mut out = String::new();
        let utf8 = rate(data, BATCH, 3, |p| {
            out.clear();
            dec.decode(p, &mut out);
        });
        let text = String::from_utf8(data.clone()).unwrap();
        let mut t = Transcript::new(8 << 20);
        let transcript = rate(text.as_bytes(), BATCH, 3, |p| {
            t.push(std::str::from_utf8(p).unwrap())
        });
        // Read batches as the session thread makes them, and the screen
        // text read at the end (the screen parses waiting text on demand).
        let screen = std::cell::RefCell::new(Screen::new(24, 80, 1000));
        let mut replies = Vec::new();
        let model = rate_then(
            data,
            BATCH,
            3,
            |p| screen.borrow_mut().process(p, &mut replies),
            || drop(screen.borrow_mut().text()),
        );
        let mut raw = vt100::Parser::new(nz(24), nz(80), 1000);
        let raw_vt100 = rate(data, BATCH, 3, |p| raw.process(p));
        let mut raw0 = vt100::Parser::new(nz(24), nz(80), 0);
        let raw_vt100_no_sb = rate(data, BATCH, 3, |p| raw0.process(p));
        println!(
            "{name:8} utf8 {utf8:8.0} MiB/s  transcript {transcript:7.0} MiB/s  screen {model:6.1} MiB/s  \
             (vt100 alone {raw_vt100:6.1}, without scrollback {raw_vt100_no_sb:6.1})"
        );
    }
}

#[test]
#[ignore]
fn snapshot_and_read_cost() {
    let input = corpus();
    for (rows, cols) in [(24u16, 80u16), (200, 400)] {
        let mut screen = Screen::new(rows, cols, 1000);
        let mut replies = Vec::new();
        screen.process(&input[..4 << 20], &mut replies);
        let snap = per_call(2000, || {
            std::hint::black_box(screen.snapshot());
        });
        let text = per_call(2000, || {
            std::hint::black_box(screen.text());
        });
        println!("{cols}x{rows}: snapshot {snap:?}, text only {text:?}");
    }
    let text = String::from_utf8(input).unwrap();
    let mut t = Transcript::new(8 << 20);
    t.push(&text);
    let cursor = t.end();
    t.push("a small new tail\r\n");
    let since = per_call(2000, || {
        std::hint::black_box(
            t.read(&ReadOptions {
                since: Some(cursor),
                ..Default::default()
            })
            .unwrap(),
        );
    });
    let tail = per_call(5, || {
        std::hint::black_box(
            t.read(&ReadOptions {
                tail: Some(20),
                ..Default::default()
            })
            .unwrap(),
        );
    });
    println!("transcript 8 MiB: read(since) of a small tail {since:?}; read(tail: 20) {tail:?}");
}

/// One pass of the screen model over the input, for instruction counts:
/// `valgrind --tool=callgrind <test binary> --ignored --exact screen_model_once`
/// (`PTYPILOT_BENCH_BYTES` limits the input, default 2 MiB;
/// `PTYPILOT_BENCH_SCROLLBACK` sets the scrollback, default 1000).
#[test]
#[ignore]
fn screen_model_once() {
    let input = corpus();
    let n = std::env::var("PTYPILOT_BENCH_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2 << 20)
        .min(input.len());
    let scrollback = std::env::var("PTYPILOT_BENCH_SCROLLBACK")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let mut screen = Screen::new(24, 80, scrollback);
    let mut replies = Vec::new();
    let t = Instant::now();
    for piece in input[..n].chunks(BATCH) {
        screen.process(piece, &mut replies);
    }
    println!("{n} bytes in {:?}", t.elapsed());
    std::hint::black_box(screen.snapshot());
}
