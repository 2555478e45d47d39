//! Linux tests of the whole module on real processes: the table's rows,
//! identities, trees, kills and waits.

use std::process::{Child, Command};
use std::time::Duration;

use nix::sys::signal::Signal;
use tokio_util::sync::CancellationToken;

use super::*;
use crate::core::error::ErrorCode;

fn pids(refs: &[ProcRef]) -> Vec<Pid> {
    refs.iter().map(|r| r.pid).collect()
}

#[test]
fn program_name_is_argv0_then_comm_then_none() {
    use std::os::unix::process::CommandExt;
    let mut child = std::process::Command::new("sleep")
        .arg0("my-sleeper")
        .arg("30")
        .spawn()
        .unwrap();
    let pid = child.id() as Pid;
    // Until its execve the child is a copy of this process; during it,
    // the kernel names it before its new argument pages are set up (the
    // command line reads empty then, and its name stands in).
    let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while !std::fs::read(format!("/proc/{pid}/cmdline"))
        .unwrap_or_default()
        .starts_with(b"my-sleeper\0")
        && std::time::Instant::now() < until
    {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert_eq!(program_name(pid).as_deref(), Some("my-sleeper"));
    child.kill().unwrap();
    // A zombie has no command line left: its kernel name stands in.
    let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while info(pid).is_some_and(|p| !p.exited()) && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert_eq!(program_name(pid).as_deref(), Some("sleep"));
    child.wait().unwrap();
    assert_eq!(program_name(pid), None);
}

#[test]
fn left_behind_finds_a_marked_process_and_the_members_of_a_session() {
    use std::os::unix::process::CommandExt;
    let value = format!("left-behind-{}", std::process::id());
    let mut marked = std::process::Command::new("sleep")
        .arg("30")
        .env("PTYPILOT_TEST_MARK", &value)
        .spawn()
        .unwrap();
    // Without the marker, in a session of its own: found by its session
    // id only. (Not our own session: where the session leader lives
    // outside this pid namespace, as in a container, its id reads 0.)
    let mut leader = std::process::Command::new("sleep");
    leader.arg("30");
    // SAFETY: setsid is async-signal-safe; nothing else runs in the child.
    unsafe {
        leader.pre_exec(|| {
            nix::unistd::setsid()
                .map(drop)
                .map_err(std::io::Error::from)
        });
    }
    let mut leader = leader.spawn().unwrap();
    let leader_pid = leader.id() as Pid;
    let by_env = pids(&left_behind(0, "PTYPILOT_TEST_MARK", &value));
    assert_eq!(by_env, [marked.id() as Pid]);
    assert!(left_behind(0, "PTYPILOT_TEST_MARK", "another").is_empty());
    let in_session = pids(&left_behind(leader_pid, "PTYPILOT_TEST_MARK", &value));
    assert!(in_session.contains(&(marked.id() as Pid)) && in_session.contains(&leader_pid));
    assert_eq!(in_session.len(), 2, "{in_session:?}");
    // The calling process is never reported, even in its own session.
    let own_sid = info(std::process::id() as Pid).unwrap().sid;
    assert!(
        !pids(&left_behind(own_sid, "PTYPILOT_TEST_MARK", &value))
            .contains(&(std::process::id() as Pid))
    );
    marked.kill().unwrap();
    leader.kill().unwrap();
    marked.wait().unwrap();
    leader.wait().unwrap();
    // Gone (reaped): no longer reported.
    assert!(left_behind(0, "PTYPILOT_TEST_MARK", &value).is_empty());
}

/// A shell child that is killed with its tree if the test fails.
struct Sh(Child);

impl Drop for Sh {
    fn drop(&mut self) {
        if let Some(me) = ProcRef::of(self.0.id() as Pid) {
            kill_tree(&me, Signal::SIGKILL);
        }
        let _ = self.0.wait();
    }
}

fn spawn(script: &str) -> (Sh, ProcRef) {
    let child = Command::new("sh").args(["-c", script]).spawn().unwrap();
    let me = ProcRef::of(child.id() as Pid).unwrap();
    (Sh(child), me)
}

fn wait_until(what: &str, mut ok: impl FnMut() -> bool) {
    for _ in 0..500 {
        if ok() {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("timed out waiting until {what}");
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn a_thread_id_is_not_a_process() {
    let me = std::process::id() as Pid;
    assert_eq!(find(me).map(|i| i.pid), Some(me));
    let (tx, rx) = std::sync::mpsc::channel();
    let (done, wait) = std::sync::mpsc::channel::<()>();
    let thread = std::thread::spawn(move || {
        // SAFETY: gettid has no preconditions.
        tx.send(unsafe { libc::gettid() }).unwrap();
        let _ = wait.recv();
    });
    let tid = rx.recv().unwrap();
    // /proc/<tid> answers for the live thread, but it is not a process.
    assert!(info(tid).is_some());
    assert!(find(tid).is_none());
    done.send(()).unwrap();
    thread.join().unwrap();
}

#[test]
fn own_process_is_alive_and_stale_ref_is_not() {
    let me = ProcRef::of(std::process::id() as Pid).unwrap();
    assert!(me.alive());
    let stale = ProcRef {
        pid: me.pid,
        start_time: me.start_time + 1,
    };
    assert!(!stale.alive());
    assert!(!stale.signal(Signal::SIGCONT));
}

#[test]
fn stale_ref_cannot_signal_the_process_that_reused_its_pid() {
    use std::os::unix::process::ExitStatusExt;
    let (mut child, real) = spawn("exec sleep 30");
    // What a reference to an earlier process with the same pid looks like.
    let stale = ProcRef {
        pid: real.pid,
        start_time: real.start_time.saturating_sub(1),
    };
    assert!(!stale.signal(Signal::SIGKILL));
    assert_eq!(kill_tree(&stale, Signal::SIGKILL), 0);
    assert!(stale.args().is_none());
    assert!(
        child.0.try_wait().unwrap().is_none(),
        "the live process was signalled"
    );
    assert!(real.signal(Signal::SIGKILL));
    assert_eq!(child.0.wait().unwrap().signal(), Some(libc::SIGKILL));
    assert!(!real.alive() && !real.signal(Signal::SIGKILL));
}

#[test]
fn args_and_children_of_a_real_process() {
    let (mut child, sh) = spawn("sleep 30 & wait");
    wait_until("sleep started", || !sh.children().is_empty());
    let kids = sh.children();
    assert_eq!(kids.len(), 1);
    // The child shows up as soon as it is forked; its argv once it
    // has exec'ed `sleep`.
    wait_until("sleep exec'ed", || {
        kids[0].args().is_some_and(|a| a == ["sleep", "30"])
    });
    assert_eq!(sh.args().unwrap(), ["sh", "-c", "sleep 30 & wait"]);
    // Children first: the sleep, then the shell, unless the shell's
    // `wait` saw the sleep die and it exited before its own signal.
    let signalled = kill_tree(&sh, Signal::SIGTERM);
    assert!((1..=2).contains(&signalled), "signalled {signalled}");
    child.0.wait().unwrap();
    wait_until("sleep exited", || !kids[0].alive());
}

#[test]
fn hard_kill_catches_a_parent_that_respawns_children() {
    // A supervisor that restarts its child as soon as it dies.
    let (mut child, sh) = spawn("while :; do sleep 31.5 & wait; done");
    wait_until("first child", || !sh.children().is_empty());
    let mut known = Vec::new();
    // The shell and its child, and any child it was forking just then.
    assert!(kill_hard(&[sh], &[], &mut known) >= 2);
    child.0.wait().unwrap();
    let rt = runtime();
    let gone = rt.block_on(wait_exit(
        &known,
        Some(Duration::from_secs(5)),
        &CancellationToken::new(),
    ));
    assert_eq!(gone, Ok(true));
    // No replacement child is running either.
    let survivors: Vec<ProcInfo> = list()
        .into_iter()
        .filter(|p| !p.exited() && p.as_ref().args().is_some_and(|a| a == ["sleep", "31.5"]))
        .collect();
    assert!(survivors.is_empty(), "{survivors:?}");
}

#[test]
fn wait_exit_times_out_then_sees_the_exit_and_can_be_cancelled() {
    let (mut child, sh) = spawn("exec sleep 30");
    let rt = runtime();
    let never = CancellationToken::new();
    assert_eq!(
        rt.block_on(wait_exit(&[sh], Some(Duration::from_millis(20)), &never)),
        Ok(false)
    );
    let cancelled = CancellationToken::new();
    cancelled.cancel();
    let err = rt.block_on(wait_exit(&[sh], None, &cancelled)).unwrap_err();
    assert_eq!(err.code, ErrorCode::Aborted);
    sh.signal(Signal::SIGKILL);
    assert_eq!(rt.block_on(wait_exit(&[sh], None, &never)), Ok(true));
    child.0.wait().unwrap();
}

#[test]
fn terminate_kills_a_process_that_ignores_term() {
    let (mut child, sh) = spawn("trap '' TERM; sleep 30 & wait; wait");
    wait_until("sleep started", || !sh.children().is_empty());
    let options = Terminate {
        grace: Some(Duration::from_millis(50)),
        ..Terminate::default()
    };
    let gone = runtime().block_on(terminate(sh, &options, &CancellationToken::new()));
    assert_eq!(gone, Ok(true));
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(child.0.wait().unwrap().signal(), Some(libc::SIGKILL));
}
