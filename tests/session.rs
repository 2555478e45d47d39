//! The session loop against real programs: output completeness, exit status,
//! drain-before-exit, spawn errors, termination.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use ptypilot::core::ErrorCode;
use ptypilot::core::session::{EventSink, Exit, READ_BATCH, Session, SpawnOptions};

/// Collects what a listener would receive, in order.
#[derive(Default)]
struct Collector {
    session: Mutex<Option<Session>>,
    data: Mutex<String>,
    raw: Mutex<Vec<u8>>,
    exit_after: Mutex<Option<(usize, Exit)>>,
}

struct Sink(Arc<Collector>);

impl EventSink for Sink {
    fn wake(&self) {
        // Take on another thread, as the JS thread would.
        let c = self.0.clone();
        std::thread::spawn(move || {
            let session = c.session.lock().unwrap().clone();
            if let Some(s) = session {
                // One taker at a time, as on the one JS thread: the data lock
                // is held from the take to the append, so a later wake-up's
                // thread cannot append before an earlier one.
                let mut data = c.data.lock().unwrap();
                let out = s.take_outbox();
                data.push_str(&out.data);
                c.raw.lock().unwrap().extend_from_slice(&out.raw);
                if let Some(exit) = out.exit {
                    *c.exit_after.lock().unwrap() = Some((data.len(), exit));
                }
            }
        });
    }
}

fn opts(command: &str, args: &[&str]) -> SpawnOptions {
    SpawnOptions {
        command: command.into(),
        args: args.iter().map(|s| s.to_string()).collect(),
        ..SpawnOptions::default()
    }
}

fn run(o: SpawnOptions) -> (Session, Arc<Collector>) {
    let c = Arc::new(Collector::default());
    let s = Session::spawn(o).unwrap();
    *c.session.lock().unwrap() = Some(s.clone());
    s.attach(Arc::new(Sink(c.clone())));
    (s, c)
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}

fn wait_delivered(c: &Collector) -> (String, Exit) {
    for _ in 0..1000 {
        if let Some((len, exit)) = c.exit_after.lock().unwrap().clone() {
            let data = c.data.lock().unwrap().clone();
            assert_eq!(len, data.len(), "exit was delivered before all output");
            return (data, exit);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("no exit delivered");
}

#[test]
fn echo_arrives_and_exit_code_is_reported() {
    let (s, c) = run(opts("sh", &["-c", "printf 'hello\\n'; exit 3"]));
    let exit = block_on(s.wait_exit());
    assert_eq!(exit.exit_code, Some(3));
    assert_eq!(exit.signal, None);
    let (data, _) = wait_delivered(&c);
    assert_eq!(data, "hello\r\n");
    assert_eq!(s.screen_text(), "hello");
}

#[test]
fn seq_flood_is_complete_and_ordered() {
    for _ in 0..20 {
        let (s, c) = run(opts("seq", &["1", "20000"]));
        block_on(s.wait_exit());
        let (data, exit) = wait_delivered(&c);
        assert_eq!(exit.exit_code, Some(0));
        let expected: String = (1..=20000).map(|i| format!("{i}\r\n")).collect();
        assert!(
            data == expected,
            "got {} bytes, expected {}",
            data.len(),
            expected.len()
        );
    }
}

#[test]
fn signal_death_is_reported_by_name() {
    let (s, _c) = run(opts("sh", &["-c", "kill -9 $$"]));
    let exit = block_on(s.wait_exit());
    assert_eq!(exit.exit_code, None);
    assert_eq!(exit.signal.as_deref(), Some("SIGKILL"));
}

#[test]
fn missing_program_and_bad_cwd_are_spawn_errors() {
    let err = Session::spawn(opts("definitely-not-a-program-xyz", &[]))
        .err()
        .unwrap();
    assert_eq!(err.code, ErrorCode::Spawn);
    assert_eq!(err.errno, Some(libc::ENOENT));
    assert_eq!(err.path.as_deref(), Some("definitely-not-a-program-xyz"));
    let mut o = opts("true", &[]);
    o.cwd = Some("/no/such/dir".into());
    let err = Session::spawn(o).err().unwrap();
    assert_eq!(err.code, ErrorCode::Spawn);
    assert_eq!(err.errno, Some(libc::ENOENT));
    assert_eq!(err.path.as_deref(), Some("/no/such/dir"));
}

#[test]
fn write_round_trip_through_cat() {
    let (s, c) = run(opts("cat", &[]));
    s.write(b"ping\n").unwrap();
    let got = block_on(async {
        for _ in 0..200 {
            if c.data.lock().unwrap().contains("ping\r\nping\r\n") {
                return true;
            }
            s.wait_output(s.seq(), Duration::from_millis(50)).await;
        }
        false
    });
    assert!(got, "echo and cat output: {:?}", c.data.lock().unwrap());
    s.write(b"\x04").unwrap();
    let exit = block_on(s.wait_exit());
    assert_eq!(exit.exit_code, Some(0));
}

#[test]
fn timeout_terminates_with_flag() {
    let mut o = opts("sleep", &["100"]);
    o.timeout = Some(Duration::from_millis(100));
    let (s, _c) = run(o);
    let exit = block_on(s.wait_exit());
    assert!(exit.timed_out);
    assert!(!exit.cancelled);
    assert_eq!(exit.signal.as_deref(), Some("SIGTERM"));
}

#[test]
fn kill_stops_shell_and_background_job() {
    let (s, _c) = run(opts("sh", &["-c", "sleep 100 & echo started; wait"]));
    block_on(s.wait_output(0, Duration::from_secs(5)));
    s.kill().unwrap();
    let exit = block_on(s.wait_exit());
    assert!(exit.cancelled);
    assert_eq!(exit.signal.as_deref(), Some("SIGKILL"));
}

#[test]
fn pipes_capture_stdout_and_stderr_and_exit_code() {
    let mut o = opts(
        "sh",
        &[
            "-c",
            "echo out; echo err >&2; printf '\\033[1mbold\\033[0m'; exit 4",
        ],
    );
    o.pipes = Some(ptypilot::core::session::PipeOptions {
        stdin: false,
        capture_stderr: false,
    });
    o.capture_limit = Some(1 << 20);
    let (s, c) = run(o);
    let exit = block_on(s.wait_exit());
    assert_eq!(exit.exit_code, Some(4));
    let (captured, truncated) = s.captured().unwrap();
    assert_eq!(captured, "out\nbold");
    assert!(!truncated);
    assert_eq!(s.stderr().as_deref(), Some("err\n"));
    let (data, _) = wait_delivered(&c);
    assert!(data.contains("out\n") && data.contains("err\n"), "{data:?}");
    assert!(!s.is_pty());
}

#[test]
fn pipes_have_no_terminal_to_resize_and_no_input_unless_asked() {
    let mut o = opts("sleep", &["5"]);
    o.pipes = Some(Default::default());
    let (s, _c) = run(o);
    assert_eq!(s.resize(100, 30).unwrap_err().code, ErrorCode::InvalidArg);
    assert_eq!(s.write(b"x").unwrap_err().code, ErrorCode::InvalidArg);
    s.kill().unwrap();
    assert!(block_on(s.wait_exit()).cancelled);
}

#[test]
fn pipes_missing_program_is_a_spawn_error() {
    let mut o = opts("definitely-not-a-program-xyz", &[]);
    o.pipes = Some(Default::default());
    let err = Session::spawn(o).err().unwrap();
    assert_eq!(err.code, ErrorCode::Spawn);
    assert_eq!(err.errno, Some(libc::ENOENT));
}

/// Waits up to 10 s for `cond`.
fn wait_until(cond: impl Fn() -> bool) {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !cond() {
        assert!(
            std::time::Instant::now() < deadline,
            "condition not met in 10 s"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn a_flood_that_stops_without_an_exit_reaches_the_listener_at_once() {
    // In a flood the listener is woken once per 64 KiB; whatever waits when
    // the flood stops (here, exact multiples of the 16 KiB read batch) must
    // reach it then, not at the exit.
    for size in [16 << 10, 64 << 10, 1 << 20, (1 << 20) + 1] {
        let script = format!("head -c {size} /dev/zero | tr '\\0' a; exec sleep 60");
        let (s, c) = run(opts("sh", &["-c", &script]));
        wait_until(|| c.data.lock().unwrap().len() >= size);
        assert_eq!(c.data.lock().unwrap().len(), size);
        assert!(s.running(), "delivered only at the exit");
        s.kill_now();
        block_on(s.wait_exit());
    }
}

/// Waits until `master` is readable (or `ms` passed).
fn readable(master: &std::os::fd::OwnedFd, ms: i32) -> bool {
    use std::os::fd::AsRawFd;
    let mut fds = [libc::pollfd {
        fd: master.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    }];
    // SAFETY: one valid pollfd.
    unsafe { libc::poll(fds.as_mut_ptr(), 1, ms) > 0 }
}

fn transcript(s: &Session) -> String {
    s.read(&ptypilot::core::transcript::ReadOptions {
        raw: true,
        ..Default::default()
    })
    .unwrap()
    .text
}

#[test]
fn a_listener_holding_the_terminal_reads_the_answer_and_a_flood_until_it_stops_reading() {
    use std::os::fd::AsFd;
    let mut o = opts("sh", &["-c", "stty raw -echo; printf R; exec cat"]);
    o.stream_output = true;
    let (s, c) = run(o);
    let master = s.dup_master().expect("a pty session has a master");
    wait_until(|| c.data.lock().unwrap().contains('R'));

    // The session thread leaves the answer to the listener that holds the terminal.
    s.listener_holds(true);
    s.write(b"k").unwrap();
    assert!(readable(&master, 5000), "the echo arrives");
    std::thread::sleep(Duration::from_millis(20)); // the session thread was woken too
    assert_eq!(
        transcript(&s),
        "R",
        "the session thread left the answer alone"
    );
    let ready = s.read_ready(master.as_fd(), false);
    assert_eq!(ready.data, "k");
    assert!(ready.keep);
    assert_eq!(transcript(&s), "Rk");

    // A flood: the listener keeps the terminal while it reads (each read
    // renews the hold), one read per call, and the session thread leaves it
    // alone. Should this thread be descheduled for longer than the hold
    // lasts, the session thread takes the terminal back and reads the rest:
    // then the flood is tried again (at most three floods).
    let flood = "0123456789abcdef".repeat(8192); // 128 KiB
    let mut expected = String::from("Rk");
    let mut most = 0;
    for _ in 0..3 {
        let before = c.data.lock().unwrap().len();
        s.listener_holds(true);
        s.write(flood.as_bytes()).unwrap();
        expected.push_str(&flood);
        let mut got = 0;
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        let mut held = true;
        let mut owed = false;
        while got + c.data.lock().unwrap().len() - before < flood.len() {
            assert!(std::time::Instant::now() < deadline, "the flood came");
            if held && readable(&master, 10) {
                let ready = s.read_ready(master.as_fd(), false);
                got += ready.data.len();
                held = ready.keep;
                owed = ready.owed;
            } else if owed {
                // Full reads left their output waiting, and no more came.
                got += s.take_output().0.len();
                owed = false;
            } else if !held {
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        most = most.max(got);
        if held {
            assert_eq!(got, flood.len(), "the listener read the whole flood");
            break;
        }
    }
    assert!(
        most > 2 * READ_BATCH,
        "the listener read more than two batches of a flood itself (at most {most} bytes)"
    );
    assert_eq!(expected, transcript(&s));
    s.listener_holds(false);
    // Once let go, read_ready reads nothing.
    assert_eq!(s.read_ready(master.as_fd(), false).data, "");
    drop(master);
    s.kill().unwrap();
    block_on(s.wait_exit());
}

#[test]
fn a_hold_that_nobody_reads_ends_and_the_session_thread_reads() {
    let mut o = opts("sh", &["-c", "read x; echo \"got $x\""]);
    o.stream_output = true;
    let (s, c) = run(o);
    let _master = s.dup_master().unwrap();
    s.listener_holds(true);
    s.write(b"go\r").unwrap();
    // Nobody calls read_ready: the session thread takes the terminal back.
    wait_until(|| c.data.lock().unwrap().contains("got go"));
    let exit = block_on(s.wait_exit());
    assert_eq!(exit.exit_code, Some(0));
    assert!(s.dup_master().is_none(), "no master after the exit");
}

/// A listener that takes the outbox on the thread that calls it (as the JS
/// thread does), so the fast path and the wake-ups can be merged in order.
struct Flag(Arc<std::sync::atomic::AtomicBool>);

impl EventSink for Flag {
    fn wake(&self) {
        self.0.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

#[test]
fn keystrokes_floods_and_hand_overs_in_random_order_lose_and_reorder_nothing() {
    for seed in [
        0x9e37_79b9_7f4a_7c15u64,
        0x2545_f491_4f6c_dd1d,
        0x1234_5678_9abc_def1,
    ] {
        random_typing_run(seed);
    }
}

fn random_typing_run(seed: u64) {
    use std::os::fd::AsFd;
    use std::sync::atomic::Ordering::SeqCst;
    // With the terminal's echo off (so the output's order is the input's):
    // answers each line with "got <line>", or `n` numbered lines for "flood n".
    let responder = [
        "import sys, termios",
        "a = termios.tcgetattr(0)",
        "a[3] &= ~termios.ECHO",
        "termios.tcsetattr(0, termios.TCSANOW, a)",
        "print('R', flush=True)",
        "for line in sys.stdin:",
        "    line = line.strip()",
        "    if line.startswith('flood '):",
        "        sys.stdout.write(''.join(f'{i}\\n' for i in range(int(line.split()[1]))))",
        "        sys.stdout.flush()",
        "    else:",
        "        print('got ' + line, flush=True)",
    ]
    .join("\n");
    let mut o = opts("python3", &["-c", &responder]);
    o.stream_output = true;
    let s = Session::spawn(o).unwrap();
    let woken = Arc::new(std::sync::atomic::AtomicBool::new(false));
    s.attach(Arc::new(Flag(woken.clone())));
    let master = s.dup_master().unwrap();

    let mut got = String::new();
    let mut exit = None;
    // Bytes delivered by `read_ready` and by `take_outbox`.
    let (mut fast, mut woke) = (0, 0);
    let mut owed = false;
    // `flood`: reads as a listener that took the terminal for a flood, whose
    // reads all wait in the outbox (as full reads do otherwise).
    let mut pump = |got: &mut String, hold: bool, flood: bool, wait_ms: i32| {
        if hold && readable(&master, wait_ms) {
            let ready = s.read_ready(master.as_fd(), flood);
            fast += ready.data.len();
            got.push_str(&ready.data);
            owed = ready.owed;
        } else if std::mem::take(&mut owed) {
            // Reads in a flood left their output waiting, and no more came
            // (the JS thread's timer).
            let (data, _) = s.take_output();
            fast += data.len();
            got.push_str(&data);
        }
        if woken.swap(false, SeqCst) {
            let out = s.take_outbox();
            woke += out.data.len();
            got.push_str(&out.data);
            out.exit
        } else {
            None
        }
    };

    let mut rng = seed;
    let mut next = |n: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng % n
    };
    let mut expected = String::from("R\r\n");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while got.len() < expected.len() {
        assert!(std::time::Instant::now() < deadline, "no R");
        pump(&mut got, false, false, 0);
        std::thread::sleep(Duration::from_millis(1));
    }
    for step in 0..60 {
        let line = match next(4) {
            0 => format!("flood {}", 1 + next(3000)),
            _ => format!("line{step}"),
        };
        let answer = if let Some(n) = line.strip_prefix("flood ") {
            (0..n.parse::<u64>().unwrap())
                .map(|i| format!("{i}\r\n"))
                .collect::<String>()
        } else {
            format!("got {line}\r\n")
        };
        // Type it a few characters at a time, holding (or not) after each write.
        let typed = format!("{line}\r");
        let mut rest = typed.as_str();
        while !rest.is_empty() {
            let take = (1 + next(4) as usize).min(rest.len());
            s.write(&rest.as_bytes()[..take]).unwrap();
            rest = &rest[take..];
            let hold = next(4) != 0;
            if hold {
                s.listener_holds(true);
            }
            pump(&mut got, hold, next(2) == 0, next(3) as i32);
        }
        expected.push_str(&answer);
        // Sometimes wait for the whole answer, sometimes type on at once.
        if next(2) == 0 {
            let deadline = std::time::Instant::now() + Duration::from_secs(10);
            while got.len() < expected.len() {
                assert!(
                    std::time::Instant::now() < deadline,
                    "answer to {line:?} did not come: {} of {} bytes; tail {:?}; transcript tail {:?}",
                    got.len(),
                    expected.len(),
                    &got[got.len().saturating_sub(80)..],
                    {
                        let t = transcript(&s);
                        t[t.len().saturating_sub(80)..].to_string()
                    }
                );
                pump(&mut got, true, next(2) == 0, 1);
            }
        }
    }
    s.write(b"\x04").unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while exit.is_none() {
        assert!(std::time::Instant::now() < deadline, "no exit");
        exit = pump(&mut got, next(2) == 0, next(2) == 0, 1);
        std::thread::sleep(Duration::from_micros(200));
    }
    assert_eq!(exit.unwrap().exit_code, Some(0));
    // Every byte once and in order, through either path; the transcript agrees.
    assert!(
        got == expected,
        "delivered output differs from the expected ({} vs {} bytes)",
        got.len(),
        expected.len()
    );
    assert_eq!(transcript(&s), expected);
    assert!(
        fast > 0 && woke > 0,
        "both paths delivered: {fast} and {woke} bytes"
    );
}

/// Whether a program that asks for the cursor position gets an answer
/// within a second.
fn cursor_query_answered(answer_queries: bool) -> String {
    let asker = "import os, select, tty\n\
                 tty.setraw(0)\n\
                 os.write(1, b'\\x1b[6n')\n\
                 r, _, _ = select.select([0], [], [], 1.0)\n\
                 os.write(1, b'answered' if r else b'unanswered')\n";
    let mut o = opts("python3", &["-c", asker]);
    o.answer_queries = answer_queries;
    let (s, c) = run(o);
    block_on(s.wait_exit());
    let (data, _) = wait_delivered(&c);
    data.replace("\x1b[6n", "")
}

#[test]
fn answer_queries_off_leaves_queries_to_the_front_end() {
    assert_eq!(cursor_query_answered(true), "answered");
    assert_eq!(cursor_query_answered(false), "unanswered");
}

#[test]
fn raw_output_is_the_exact_bytes() {
    let mut o = opts("printf", &["a\\377b\\303\\251c\\303"]);
    o.stream_raw = true;
    let (s, c) = run(o);
    block_on(s.wait_exit());
    let (text, _) = wait_delivered(&c);
    assert_eq!(*c.raw.lock().unwrap(), b"a\xffb\xc3\xa9c\xc3");
    // The text is decoded: invalid bytes and the cut-off character become U+FFFD.
    assert_eq!(text, "a\u{fffd}b\u{e9}c\u{fffd}");
}

/// With no quiet period at all, the drain's clock has run out whenever the
/// session thread looks at it, as after a stall of that thread on a busy
/// machine: what the program wrote before it exited must still all arrive,
/// before its exit.
#[test]
fn output_written_before_the_exit_arrives_even_when_the_drain_clock_ran_out() {
    // Small enough for the pty to hold while nothing reads it, so `cat`
    // exits with all of it unread.
    let lines: String = (1..=2000).map(|i| format!("{i}\n")).collect();
    let file = std::env::temp_dir().join(format!("ptypilot-drain-{}.txt", std::process::id()));
    std::fs::write(&file, &lines).unwrap();
    let expected = lines.replace('\n', "\r\n");
    for round in 0..6 {
        // The second kind keeps the terminal open after the exit (a
        // background job), so the drain cannot end at the terminal's end.
        let script = if round % 2 == 0 {
            format!("cat {}", file.display())
        } else {
            format!("cat {}; sleep 1 &", file.display())
        };
        let (s, c) = run(SpawnOptions {
            drain_idle: Duration::ZERO,
            ..opts("sh", &["-c", &script])
        });
        // Nothing is read while paused: the output waits in the pty, and the
        // program exits (and is reaped) with all of it there.
        s.pause();
        let proc_dir = format!("/proc/{}", s.pid());
        wait_until(|| !std::path::Path::new(&proc_dir).exists());
        s.resume();
        block_on(s.wait_exit());
        let (data, exit) = wait_delivered(&c);
        assert_eq!(exit.exit_code, Some(0));
        assert!(
            data == expected,
            "round {round} ({script}): got {} bytes, expected {}",
            data.len(),
            expected.len()
        );
    }
    let _ = std::fs::remove_file(&file);
}

#[test]
fn a_pause_holds_output_and_exit_and_the_drain_loses_nothing_after_it() {
    let (s, c) = run(opts("sh", &["-c", "sleep 0.2; echo done"]));
    s.pause();
    // Longer than the drain's idle and maximum times after the exit.
    std::thread::sleep(ptypilot::core::session::DRAIN_MAX + Duration::from_millis(300));
    assert!(
        s.running(),
        "the exit waits for the output, which waits for resume"
    );
    assert_eq!(s.seq(), 0, "nothing is read while paused");
    assert!(c.data.lock().unwrap().is_empty());
    s.resume();
    let exit = block_on(s.wait_exit());
    assert_eq!(exit.exit_code, Some(0));
    let (data, _) = wait_delivered(&c);
    assert_eq!(data, "done\r\n");
}

#[test]
fn a_pause_between_the_exit_wake_up_and_its_take_wakes_again_at_resume() {
    use std::sync::atomic::Ordering::SeqCst;
    // The listener was woken for the exit, but before it took the outbox it
    // paused (from output it read itself meanwhile): that take finds nothing,
    // and the resume must wake it again for the exit.
    let s = Session::spawn(opts("sh", &["-c", "echo done"])).unwrap();
    let woken = Arc::new(std::sync::atomic::AtomicBool::new(false));
    s.attach(Arc::new(Flag(woken.clone())));
    block_on(s.wait_exit());
    wait_until(|| woken.swap(false, SeqCst));
    s.pause();
    let out = s.take_outbox();
    assert!(
        out.data.is_empty() && out.exit.is_none(),
        "nothing while paused"
    );
    s.resume();
    assert!(woken.swap(false, SeqCst), "woken again at resume");
    let out = s.take_outbox();
    assert_eq!(out.data, "done\r\n");
    assert_eq!(out.exit.and_then(|e| e.exit_code), Some(0));
    // Released with the exit: no wake-up after it.
    s.pause();
    s.resume();
    assert!(!woken.load(SeqCst));
}

#[test]
fn seq_and_transcript_cursor_are_one_scale() {
    // Multibyte characters cut across writes, invalid bytes (each becomes a
    // 3-byte U+FFFD) and a character cut off by the exit.
    let script = r#"printf 'caf\303'; sleep 0.05; printf '\251 \377\376 ok\n'; sleep 0.05; printf '\342\202'"#;
    let (s, _c) = run(opts("sh", &["-c", script]));
    block_on(s.wait_exit());
    let read = s
        .read(&ptypilot::core::transcript::ReadOptions {
            raw: true,
            ..Default::default()
        })
        .unwrap();
    assert!(
        read.text.contains("café \u{fffd}\u{fffd} ok"),
        "{:?}",
        read.text
    );
    assert!(read.text.ends_with('\u{fffd}'), "{:?}", read.text);
    assert_eq!(s.seq(), read.cursor);
    assert_eq!(s.seq(), read.text.len() as u64);
}
