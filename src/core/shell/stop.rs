//! Stopping a run: why it stops ([`Stop`]: an abort, a cancellation or the
//! deadline), the steps that stop the command in the foreground
//! ([`Interrupt`]), and ending a whole shell with everything it started.

use std::future::Future;
use std::time::Duration;

use nix::sys::signal::Signal;
use nix::unistd::Pid as NixPid;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::{CLOSE_GRACE, INTERRUPT_GRACE, StopReason};
use crate::core::proc_tree::{self, Pid, ProcRef};
use crate::core::session::Session;

/// Why a run stops early, and since when.
pub(super) struct Stop {
    pub(super) cancel: CancellationToken,
    pub(super) abort: CancellationToken,
    pub(super) deadline: Option<Instant>,
    pub(super) reason: Option<StopReason>,
}

impl Stop {
    /// The reason if one applies already.
    pub(super) fn poll(&mut self) -> Option<StopReason> {
        if self.reason.is_none() {
            if self.cancel.is_cancelled() || self.abort.is_cancelled() {
                self.reason = Some(StopReason::Cancelled);
            } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
                self.reason = Some(StopReason::TimedOut);
            }
        }
        self.reason
    }

    /// Resolves when a reason applies (never, once one was recorded).
    pub(super) fn wait(&self) -> impl Future<Output = StopReason> + use<> {
        let (cancel, abort, deadline) = (self.cancel.clone(), self.abort.clone(), self.deadline);
        let recorded = self.reason.is_some();
        async move {
            if recorded {
                return std::future::pending().await;
            }
            tokio::select! {
                _ = cancel.cancelled() => StopReason::Cancelled,
                _ = abort.cancelled() => StopReason::Cancelled,
                _ = sleep_until(deadline) => StopReason::TimedOut,
            }
        }
    }
}

pub(super) async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// The steps that stop the command in the foreground.
///
/// For [`INTERRUPT_GRACE`], Ctrl-C: SIGINT to the terminal's foreground
/// process group, and again to each new foreground group (some shells, zsh
/// among them, lose a SIGINT that arrives between two commands, and the next
/// job would never see one), and again when the group's leader has since
/// started another program (a SIGINT that reached a job's first process
/// between `fork` and `exec` met the shell's handler there and was lost).
/// Then SIGTERM to the foreground job's process
/// tree, after another grace SIGKILL, and after another the shell is killed.
/// When the shell itself is in the foreground after the SIGINT phase (a
/// builtin loop that ignores SIGINT), the shell is killed at once.
///
/// A job can also run in the shell's own process group: fish runs some
/// there (after an interrupt met it between two jobs of a line), and so does
/// a shell with job control off (`set +m`). While the shell waits for such
/// children, they get the SIGINT (each process, not the shell), and then
/// SIGTERM and SIGKILL as a job would.
///
/// A shell that still waits in a builtin [`SHELL_INTERRUPT_AGAIN`] after
/// its SIGINT, while the markers say that the command runs (no end and no
/// prompt yet), gets another: the first met it between two commands (fish
/// goes on to the next one then).
///
/// The shell itself gets a SIGINT only while it is busy with a builtin: it
/// used CPU time since the stop began (a loop of builtins), or, before any
/// job of the command was interrupted, it waits in one (`read`, `wait`).
/// Otherwise it is reading or parsing (the command file before its first
/// job, the next line after an interrupted job aborted the command: a probe
/// line, the next run's line), and a SIGINT would cut that text short: bash
/// then runs the rest of a half-parsed file, or reports a syntax error in
/// the next line and runs nothing of it.
///
/// The first step waits until the command has started (its `C` marker came):
/// a SIGINT to a shell that has not read the line yet would only redraw the
/// prompt, and the command would run after its run was reported stopped. A
/// shell that does not start the command within [`START_GRACE`] is killed
/// (a shell that is only slow — a busy machine — starts it well before).
pub(super) struct Interrupt {
    /// The command has started; the steps can begin.
    pub(super) armed: bool,
    /// When the first SIGINT went out.
    pub(super) since: Option<Instant>,
    /// The process group that got the last SIGINT, and the program its
    /// leader ran then.
    pub(super) interrupted: Option<(Pid, Option<std::path::PathBuf>)>,
    /// Steps taken after the SIGINT phase.
    pub(super) escalations: u8,
    /// A job (a process group other than the shell's, or children in the
    /// shell's group) got a SIGINT.
    pub(super) job_interrupted: bool,
    /// The children in the shell's own process group that got a SIGINT.
    pub(super) children_interrupted: Vec<ProcRef>,
    /// When the shell itself last got a SIGINT.
    pub(super) shell_signalled: Option<Instant>,
    /// The shell's CPU time (clock ticks) when the SIGINT phase began or a
    /// job last got a SIGINT (see [`Interrupt::shell_busy`]).
    pub(super) shell_ticks: Option<u64>,
    pub(super) next_at: Option<Instant>,
}

/// How long a stop waits for the command to start (its `C` marker) before
/// it kills the shell.
const START_GRACE: Duration = Duration::from_secs(5);

/// How long after its SIGINT a shell that still waits in a builtin during
/// the command gets another one.
const SHELL_INTERRUPT_AGAIN: Duration = Duration::from_millis(250);

/// How often the foreground group is checked during the SIGINT phase.
pub(super) const INTERRUPT_POLL: Duration = Duration::from_millis(50);

/// CPU time (clock ticks, 10 ms each on Linux) that tells a shell running
/// builtins from one that reads or parses a line (well under one tick).
const BUSY_TICKS: u64 = 3;

/// User plus system CPU time of `pid`, in clock ticks.
fn cpu_ticks(pid: Pid) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // After the command name (which may contain anything) come state, ppid,
    // …: utime and stime are the 12th and 13th fields from there.
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut fields = rest.split(' ').skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(utime + stime)
}

impl Interrupt {
    /// Steps for a command that has `started` (its `C` marker came) or not.
    pub(super) fn new(started: bool) -> Self {
        let now = Instant::now();
        Interrupt {
            armed: started,
            since: None,
            interrupted: None,
            escalations: 0,
            job_interrupted: false,
            children_interrupted: Vec::new(),
            shell_signalled: None,
            shell_ticks: None,
            next_at: Some(if started { now } else { now + START_GRACE }),
        }
    }

    /// The command started: take the first step now.
    pub(super) fn arm(&mut self) {
        if !self.armed {
            self.armed = true;
            self.next_at = Some(Instant::now());
        }
    }

    /// Takes the step that is due. `running`: the command runs, as far as
    /// the markers tell (it started, and neither its end nor a prompt came).
    pub(super) fn advance(&mut self, session: &Session, running: bool) {
        let now = Instant::now();
        if !self.armed {
            return self.kill_shell(session);
        }
        let shell = session.pid();
        let foreground = session.foreground_group();
        let since = *self.since.get_or_insert(now);
        let term_at = since + INTERRUPT_GRACE;
        if now < term_at {
            let target = foreground.unwrap_or(shell);
            let children = if target == shell {
                children_in_group(shell)
            } else {
                Vec::new()
            };
            if !children.is_empty() {
                // The shell waits for them: it is not reading or parsing.
                let new: Vec<ProcRef> = children
                    .iter()
                    .filter(|c| !self.children_interrupted.contains(c))
                    .copied()
                    .collect();
                for p in proc_tree::tree_of(&new, &[]) {
                    p.signal(Signal::SIGINT);
                }
                self.children_interrupted = children;
                self.job_interrupted = true;
                self.shell_ticks = cpu_ticks(shell);
                self.next_at = Some((now + INTERRUPT_POLL).min(term_at));
                return;
            }
            let program = std::fs::read_link(format!("/proc/{target}/exe")).ok();
            let seen = Some((target, program));
            let baseline = *self
                .shell_ticks
                .get_or_insert_with(|| cpu_ticks(shell).unwrap_or(0));
            // The shell waits in a builtin still, a while after its SIGINT:
            // that one met it between two commands (fish then goes on to the
            // next, a `read` say), so it gets another.
            let again = target == shell
                && running
                && self.interrupted == seen
                && self
                    .shell_signalled
                    .is_some_and(|at| now >= at + SHELL_INTERRUPT_AGAIN);
            if (self.interrupted != seen || again)
                && (target != shell || self.shell_busy(shell, baseline))
            {
                let _ = nix::sys::signal::killpg(NixPid::from_raw(target), Signal::SIGINT);
                if target == shell {
                    self.shell_signalled = Some(now);
                }
                self.interrupted = seen;
                if target != shell {
                    self.job_interrupted = true;
                    self.shell_ticks = cpu_ticks(shell);
                }
            }
            self.next_at = Some((now + INTERRUPT_POLL).min(term_at));
            return;
        }
        let job = match foreground.filter(|&g| g != shell) {
            Some(job) => proc_tree::tree(&[], &[job]),
            None => proc_tree::tree_of(&children_in_group(shell), &[]),
        };
        match (self.escalations, job.is_empty()) {
            (0 | 1, false) => {
                let signal = if self.escalations == 0 {
                    Signal::SIGTERM
                } else {
                    Signal::SIGKILL
                };
                for p in job {
                    p.signal(signal);
                    // A stopped job acts on SIGTERM only once continued.
                    p.signal(Signal::SIGCONT);
                }
                self.escalations += 1;
                self.next_at = Some(now + INTERRUPT_GRACE);
            }
            _ => self.kill_shell(session),
        }
    }

    /// Whether the shell, in the foreground, is busy with a builtin (see the
    /// type's docs): it used [`BUSY_TICKS`] of CPU time since `baseline`, or
    /// no job was interrupted yet and it waits in a builtin.
    fn shell_busy(&self, shell: Pid, baseline: u64) -> bool {
        if cpu_ticks(shell).is_some_and(|t| t >= baseline + BUSY_TICKS) {
            return true;
        }
        !self.job_interrupted && proc_tree::info(shell).is_some_and(|p| p.state == 'S')
    }

    /// The last resort: the run ends when the shell's session does, and the
    /// next run starts a new shell.
    pub(super) fn kill_shell(&mut self, session: &Session) {
        let _ = session.kill();
        self.next_at = None;
    }
}

/// The shell's living children in its own process group (see [`Interrupt`]).
fn children_in_group(shell: Pid) -> Vec<ProcRef> {
    proc_tree::list()
        .into_iter()
        .filter(|p| p.ppid == shell && p.pgid == shell && !p.exited())
        .map(|p| p.as_ref())
        .collect()
}

/// Ends a shell session and everything it started: SIGTERM to its process
/// tree and SIGHUP to the shell (interactive shells ignore SIGTERM, and pass
/// SIGHUP on to their jobs), SIGKILL after [`CLOSE_GRACE`]; processes that
/// left the tree but stayed in the terminal's session are killed too.
pub(super) async fn end_shell(session: &Session) {
    let leader = session.pid();
    let strays = session_members(leader);
    if session.running() {
        for p in &strays {
            p.signal(Signal::SIGTERM);
        }
        let _ = session.terminate(CLOSE_GRACE);
        let _ = session.signal(Signal::SIGHUP);
        session.wait_exit().await;
    }
    kill_and_wait(strays.into_iter().chain(session_members(leader)).collect()).await;
}

/// SIGKILL to each process still alive, and waits (at most [`CLOSE_GRACE`])
/// until they are gone: the signal takes effect when a process next runs,
/// and "closed" should mean "gone".
pub(super) async fn kill_and_wait(procs: Vec<ProcRef>) {
    kill_all(&procs);
    let give_up = Instant::now() + CLOSE_GRACE;
    while procs.iter().any(ProcRef::alive) && Instant::now() < give_up {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// SIGKILL to each process still alive.
pub(super) fn kill_all(procs: &[ProcRef]) {
    for p in procs {
        p.signal(Signal::SIGKILL);
    }
}

/// Processes in the terminal session led by `leader` (other than it).
pub(super) fn session_members(leader: Pid) -> Vec<ProcRef> {
    proc_tree::list()
        .into_iter()
        .filter(|p| p.sid == leader && p.pid != leader && !p.exited())
        .map(|p| p.as_ref())
        .collect()
}
