//! Whether a program waits for input, against real programs: the kinds the
//! terminal's modes give, programs that must never count as waiting, the
//! settle that ends on input, and input written with echo off kept out of
//! the recording. (The many-observation runs are in the Vitest suite.)
//!
//! Linux only: elsewhere the kernel does not show what a program waits in
//! (see `core::input_state`).
#![cfg(target_os = "linux")]

use std::time::Duration;

use ptypilot::core::session::{How, InputEnd, Session, Settled, SpawnOptions};
use ptypilot::core::tty::InputKind;

fn spawn(command: &str, args: &[&str]) -> Session {
    Session::spawn(SpawnOptions {
        command: command.into(),
        args: args.iter().map(|s| s.to_string()).collect(),
        stream_output: false,
        ..SpawnOptions::default()
    })
    .unwrap()
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}

const LONG: Duration = Duration::from_secs(20);

#[test]
fn prompts_are_seen_with_the_kind_the_terminal_modes_give() {
    let cases: &[(&str, &[&str], InputKind)] = &[
        ("python3", &["-c", "input('name? ')"], InputKind::Line),
        (
            "python3",
            &["-c", "import getpass; getpass.getpass()"],
            InputKind::Password,
        ),
        ("bash", &["-c", "read -s -p 'pw: ' x"], InputKind::Password),
        ("cat", &[], InputKind::Line),
        ("less", &["/etc/passwd"], InputKind::Key),
    ];
    for (command, args, kind) in cases {
        let s = spawn(command, args);
        let (end, state) = block_on(s.wait_input(None, LONG));
        assert_eq!(end, InputEnd::Input, "{command} {args:?}: {state:?}");
        assert!(state.waiting);
        assert_eq!(state.kind, Some(*kind), "{command} {args:?}");
        assert_eq!(state.how, Some(How::Kernel));
        assert_eq!(state.pid, Some(s.pid()));
        assert!(state.since.is_some());
        assert_eq!(s.input_state().kind, Some(*kind));
        s.kill_now();
    }
}

#[test]
fn sleeping_busy_and_socket_waiting_programs_are_not_waiting() {
    let cases: &[(&str, &[&str])] = &[
        ("sleep", &["5"]),
        ("python3", &["-c", "while True: pass"]),
        (
            "python3",
            &["-m", "http.server", "0", "--bind", "127.0.0.1"],
        ),
        ("sh", &["-c", "sleep 5 | cat"]),
    ];
    for (command, args) in cases {
        let s = spawn(command, args);
        let (end, state) = block_on(s.wait_input(None, Duration::from_millis(800)));
        assert_eq!(end, InputEnd::Timeout, "{command} {args:?}: {state:?}");
        assert!(!state.waiting);
        assert_eq!(state.how, Some(How::Kernel));
        s.kill_now();
    }
}

#[test]
fn a_settle_ends_when_the_program_waits_for_input() {
    let s = spawn("python3", &["-c", "input('name? ')"]);
    // A quiet period far longer than the test: only the input wait ends it.
    let end = block_on(s.wait_settle(LONG, LONG));
    assert!(matches!(end, Settled::Input(ref st) if st.kind == Some(InputKind::Line)));
    assert!(s.screen_text().contains("name?"));
    s.kill_now();
    // Silent work still settles on quiet, as before.
    let s = spawn("sleep", &["5"]);
    assert_eq!(
        block_on(s.wait_settle(Duration::from_millis(50), LONG)),
        Settled::Quiet
    );
    s.kill_now();
}

#[test]
fn typed_ahead_lines_are_read_before_the_program_counts_as_waiting() {
    let s = spawn(
        "sh",
        &["-c", "read a; read b; printf 'got %s %s\\n' $a $b; read c"],
    );
    assert_eq!(block_on(s.wait_input(None, LONG)).0, InputEnd::Input);
    let since = s.seq();
    s.write(b"one\ntwo\n").unwrap();
    let (end, state) = block_on(s.wait_input(Some(since), LONG));
    assert_eq!(end, InputEnd::Input);
    assert!(state.waiting);
    // Both lines were taken before the wait ended: the answer is there.
    assert!(
        s.screen_text().contains("got one two"),
        "{}",
        s.screen_text()
    );
    s.kill_now();
}

#[test]
fn input_written_with_echo_off_is_kept_out_of_the_recording() {
    let dir = std::env::temp_dir().join(format!("ptypilot-input-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cast = dir.join("pw.cast");
    let s = Session::spawn(SpawnOptions {
        command: "python3".into(),
        args: vec![
            "-c".into(),
            "import getpass; p = getpass.getpass(); print('len', len(p)); input('next? ')".into(),
        ],
        stream_output: false,
        record: Some(cast.clone()),
        ..SpawnOptions::default()
    })
    .unwrap();
    let (_, state) = block_on(s.wait_input(None, LONG));
    assert_eq!(state.kind, Some(InputKind::Password));
    assert!(s.write(b"hunter2-secret\r").unwrap().hidden);
    let (_, state) = block_on(s.wait_input(Some(s.seq()), LONG));
    assert_eq!(state.kind, Some(InputKind::Line));
    assert!(!s.write(b"shown\r").unwrap().hidden);
    block_on(s.wait_exit());
    let text = std::fs::read_to_string(&cast).unwrap();
    assert!(!text.contains("hunter2"), "{text}");
    assert!(text.contains("\"i\", \"shown\\r\""), "{text}");
    let all = s
        .read(&ptypilot::core::transcript::ReadOptions::default())
        .unwrap();
    assert!(!all.text.contains("hunter2"));
    assert!(all.text.contains("len 14"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// How long one look takes (`cargo test --release --test input_state -- --ignored --nocapture`).
#[test]
#[ignore]
fn look_cost() {
    for (command, args) in [
        ("sleep", &["5"][..]),
        ("python3", &["-c", "input()"]),
        ("node", &[]),
    ] {
        let s = spawn(command, args);
        std::thread::sleep(Duration::from_millis(500));
        let n = 2000;
        let start = std::time::Instant::now();
        for _ in 0..n {
            std::hint::black_box(s.input_state());
        }
        eprintln!("{command}: {:?} per look", start.elapsed() / n);
        s.kill_now();
    }
}
