//! What a program started in a pty gets, whatever state its parent is in: a
//! session of its own with the pty as controlling terminal (so ctrl+c and
//! resizes signal it), default signal dispositions and an empty signal mask,
//! no descriptor beyond 0–2, the working directory and environment asked for;
//! and how a program that cannot be executed fails.
//!
//! This binary deliberately ignores and blocks signals and holds descriptors
//! without close-on-exec, as a Node process does (Node ignores SIGPIPE and
//! SIGXFSZ; libraries leave such descriptors), so these tests have a process
//! of their own. They run one at a time, so that descriptor counts are exact.

use std::sync::{Mutex, MutexGuard, Once};
use std::time::Duration;

use ptypilot::core::ErrorCode;
use ptypilot::core::session::{Exit, Session, SpawnOptions};
use ptypilot::core::transcript::ReadOptions;

/// Serialises the tests and puts this process in the state described above.
fn setup() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    static INIT: Once = Once::new();
    let guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    INIT.call_once(|| {
        // SAFETY: plain signal-disposition and descriptor calls; the leaked
        // descriptors stay open for the life of the process on purpose.
        unsafe {
            for sig in [
                libc::SIGINT,
                libc::SIGQUIT,
                libc::SIGUSR1,
                libc::SIGXFSZ,
                libc::SIGPIPE,
            ] {
                libc::signal(sig, libc::SIG_IGN);
            }
            let mut fds = [0; 2];
            assert_eq!(libc::pipe(fds.as_mut_ptr()), 0);
            assert!(libc::dup(2) >= 0);
        }
    });
    // The mask is per thread, and the test's thread is the one that spawns.
    // SAFETY: blocks two signals in this thread only.
    unsafe {
        let mut set = std::mem::zeroed::<libc::sigset_t>();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGUSR2);
        libc::sigaddset(&mut set, libc::SIGALRM);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
    guard
}

fn opts(command: &str, args: &[&str]) -> SpawnOptions {
    SpawnOptions {
        command: command.into(),
        args: args.iter().map(|s| s.to_string()).collect(),
        // A broken spawn must fail the test, not hang it.
        timeout: Some(Duration::from_secs(20)),
        ..SpawnOptions::default()
    }
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}

/// The program's whole output (escape sequences stripped, `\n` line ends).
fn output(s: &Session) -> String {
    s.read(&ReadOptions::default()).unwrap().text
}

/// Runs to the end; the exit and the output.
fn run(o: SpawnOptions) -> (Exit, String, Session) {
    let s = Session::spawn(o).unwrap();
    let exit = block_on(s.wait_exit());
    (exit, output(&s), s)
}

/// Waits until the output contains `text`.
fn wait_for(s: &Session, text: &str) {
    let found = block_on(async {
        for _ in 0..400 {
            if output(s).contains(text) {
                return true;
            }
            s.wait_output(s.seq(), Duration::from_millis(50)).await;
        }
        false
    });
    assert!(found, "{text:?} never came; output: {:?}", output(s));
}

/// Lines of this process's (this thread's) `/proc` status that start with `key`.
#[cfg(target_os = "linux")]
fn own_status(key: &str) -> String {
    let status = std::fs::read_to_string("/proc/thread-self/status").unwrap();
    status
        .lines()
        .find(|l| l.starts_with(key))
        .unwrap()
        .to_owned()
}

#[test]
#[cfg(target_os = "linux")] // reads /proc
fn program_leads_a_session_whose_controlling_terminal_is_the_pty() {
    let _guard = setup();
    let (exit, out, s) = run(opts("sh", &["-c", "tty; cat /proc/$$/stat"]));
    assert_eq!(exit.exit_code, Some(0), "{out}");
    let (tty, stat) = out.split_once('\n').unwrap();
    assert!(tty.starts_with("/dev/pts/"), "tty: {tty:?}");
    // pid (comm) state ppid pgrp session tty_nr tpgid ...
    let fields: Vec<i64> = stat[stat.rfind(')').unwrap() + 2..]
        .split_whitespace()
        .skip(2)
        .take(4)
        .map(|f| f.parse().unwrap())
        .collect();
    let (pgrp, session, tty_nr, tpgid) = (fields[0], fields[1], fields[2], fields[3]);
    let pid = i64::from(s.pid());
    assert_eq!(session, pid, "not a session leader: {stat}");
    assert_eq!(pgrp, pid, "not a process group leader: {stat}");
    assert_eq!(tpgid, pid, "not the terminal's foreground group: {stat}");
    // The controlling terminal is the very pts that stdin is.
    let major = (tty_nr >> 8) & 0xfff;
    let minor = (tty_nr & 0xff) | ((tty_nr >> 12) & 0xfff00);
    assert!(
        (136..144).contains(&major),
        "no pts as controlling tty: {stat}"
    );
    assert_eq!(tty, format!("/dev/pts/{}", (major - 136) * 256 + minor));
}

#[test]
fn ctrl_c_interrupts_the_foreground_program_though_the_parent_ignores_sigint() {
    let _guard = setup();
    let s = Session::spawn(opts("sleep", &["100"])).unwrap();
    assert_eq!(s.foreground_group(), Some(s.pid()));
    // The line discipline turns ^C into SIGINT for the foreground group: only
    // with the pty as controlling terminal, and only kills with SIGINT at its
    // default disposition.
    s.write(b"\x03").unwrap();
    let exit = block_on(s.wait_exit());
    assert!(!exit.timed_out, "^C did not stop sleep");
    assert_eq!(exit.signal.as_deref(), Some("SIGINT"));
}

#[test]
fn resize_delivers_sigwinch() {
    let _guard = setup();
    // dash, not bash or python3: those two end up with the terminal as their
    // controlling terminal even when the spawn did not make it so; dash does
    // not, so only it shows whether the spawn did.
    let s = Session::spawn(opts(
        "sh",
        &[
            "-c",
            "trap 'echo winch; exit 7' WINCH; echo ready; while :; do sleep 0.05; done",
        ],
    ))
    .unwrap();
    wait_for(&s, "ready");
    s.resize(100, 30).unwrap();
    let exit = block_on(s.wait_exit());
    assert_eq!(exit.exit_code, Some(7), "{}", output(&s));
    assert!(output(&s).contains("winch"));
}

#[test]
#[cfg(target_os = "linux")] // reads /proc
fn signals_start_at_default_and_unblocked() {
    let _guard = setup();
    // The parent ignores and blocks some (else this test could not fail).
    assert_ne!(own_status("SigIgn:"), "SigIgn:\t0000000000000000");
    assert_ne!(own_status("SigBlk:"), "SigBlk:\t0000000000000000");
    let (exit, out, _) = run(opts("grep", &["-E", "^Sig(Ign|Blk)", "/proc/self/status"]));
    assert_eq!(exit.exit_code, Some(0));
    assert_eq!(
        out,
        "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n"
    );
}

#[test]
#[cfg(target_os = "linux")] // reads /proc
fn only_the_terminal_is_open_in_the_program() {
    let _guard = setup();
    // The parent holds descriptors without close-on-exec (else this test could
    // not fail).
    let inheritable = std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        // SAFETY: F_GETFD only reads the flags (-1 for the closed dir fd).
        .filter(|&fd| fd > 2 && unsafe { libc::fcntl(fd, libc::F_GETFD) } == 0)
        .count();
    assert!(inheritable >= 2, "{inheritable}");
    let (exit, out, _) = run(opts(
        "sh",
        &[
            "-c",
            "for f in 0 1 2; do readlink /proc/$$/fd/$f; done; ls /proc/$$/fd",
        ],
    ));
    assert_eq!(exit.exit_code, Some(0));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert!(lines[0].starts_with("/dev/pts/"), "{out}");
    assert!(lines[1] == lines[0] && lines[2] == lines[0], "{out}");
    let fds: Vec<&str> = lines[3].split_whitespace().collect();
    assert_eq!(fds, ["0", "1", "2"]);
}

#[test]
fn cwd_and_environment_are_as_given() {
    let _guard = setup();
    let dir = std::env::temp_dir().canonicalize().unwrap();
    let mut o = opts("pwd", &["-P"]);
    o.cwd = Some(dir.clone());
    let (_, out, _) = run(o);
    assert_eq!(out.trim_end(), dir.to_str().unwrap());

    let mut o = opts("env", &[]);
    o.inherit_env = false;
    o.env = vec![
        ("ZED".into(), Some("last".into())),
        ("ONLY".into(), Some("me and =".into())),
    ];
    let (_, out, _) = run(o);
    let vars: Vec<&str> = out.lines().collect();
    // As before posix_spawn: sorted by name, and SHELL always set (to the
    // login shell when the environment has none), as portable-pty's
    // CommandBuilder did.
    assert_eq!(vars.len(), 4, "{out}");
    assert_eq!(vars[0], "ONLY=me and =");
    assert!(vars[1].starts_with("SHELL=/"), "{out}");
    assert_eq!(&vars[2..], ["TERM=xterm-256color", "ZED=last"]);
}

#[test]
fn programs_that_cannot_be_executed_are_spawn_errors() {
    let _guard = setup();
    let dir = tempdir("errors");
    let write = |name: &str, text: &str, mode: u32| {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        path.to_str().unwrap().to_owned()
    };
    // The kernel reports these at execve, after the program was resolved.
    let no_interpreter = write("no-interpreter", "#!/no/such/interpreter\necho hi\n", 0o755);
    let not_executable = write("not-executable", "#!/bin/sh\necho hi\n", 0o644);
    let directory = dir.to_str().unwrap().to_owned();
    for (path, errno) in [
        (&no_interpreter, libc::ENOENT),
        (&not_executable, libc::EACCES),
        (&directory, libc::EACCES),
        (&"/no/such/program".to_owned(), libc::ENOENT),
    ] {
        let err = Session::spawn(opts(path, &[])).err().unwrap();
        assert_eq!(err.code, ErrorCode::Spawn, "{path}: {err}");
        assert_eq!(err.errno, Some(errno), "{path}: {err}");
        assert_eq!(err.path.as_deref(), Some(path.as_str()), "{path}: {err}");
        assert!(err.message.contains(path.as_str()), "{err}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_script_without_interpreter_line_runs_with_bin_sh() {
    let _guard = setup();
    let dir = tempdir("script");
    let path = dir.join("script");
    std::fs::write(&path, "echo \"ran as $0 with $# args: $*\"\n").unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    // As execvp does (which spawned it before): /bin/sh <script> <args>.
    let (exit, out, _) = run(opts(path.to_str().unwrap(), &["a", "b c"]));
    assert_eq!(exit.exit_code, Some(0));
    assert_eq!(
        out,
        format!("ran as {} with 2 args: a b c\n", path.display())
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
#[cfg(target_os = "linux")] // reads /proc
fn sequential_sessions_leak_no_descriptors() {
    let _guard = setup();
    // Sessions of the other tests in this process may still be closing
    // theirs, so the count is read once it stopped changing.
    let count = || {
        let read = || std::fs::read_dir("/proc/self/fd").unwrap().count();
        let (mut last, mut same) = (read(), 0);
        for _ in 0..200 {
            std::thread::sleep(Duration::from_millis(10));
            let now = read();
            same = if now == last { same + 1 } else { 0 };
            last = now;
            if same == 5 {
                break;
            }
        }
        last
    };
    run(opts("true", &[]));
    let before = count();
    for i in 0..100 {
        let (exit, _, _) = run(opts("echo", &[&i.to_string()]));
        assert_eq!(exit.exit_code, Some(0));
    }
    assert_eq!(count(), before);
}

fn tempdir(what: &str) -> std::path::PathBuf {
    let dir =
        std::env::temp_dir().join(format!("ptypilot-pty-child-{what}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
