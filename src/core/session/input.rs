//! Whether the program waits for input: [`Session::input_state`] (one look
//! now) and [`Session::wait_input`] (until it does, the exit or a timeout).
//!
//! A look puts together what the terminal says ([`tty`]: modes, foreground
//! group, unread input and output) and what the kernel says about the
//! foreground job ([`input_state`]: blocked reading the terminal or not). The
//! program waits for input when, all at once:
//!
//! 1. nothing written to it waits unread: the session's write queue is
//!    empty and a read of the terminal would not return at once;
//! 2. a process of the foreground job sleeps reading the terminal (a read,
//!    or a `select`/`poll`/`epoll` wait on it);
//! 3. no output waits unread in the pty and none was processed while the
//!    look ran (so the screen returned with the state shows everything the
//!    program wrote before it began to wait), and no input was written
//!    meanwhile.
//!
//! The order matters: input is checked first (which also runs the kernel's
//! pending transfer of written input, see [`tty::input_pending`]), so a
//! process found blocked afterwards cannot be about to read input written
//! before the look; output and writes are checked last, so nothing that
//! happened while the job was inspected goes unseen.
//!
//! What the kernel shows is what the program does, not what it means: an
//! event loop that listens to the terminal while a timer or a request is
//! pending (the Node REPL writing its history file) counts as waiting,
//! which it is in the sense that typing reaches it. The terminal's slave is
//! kept open for (1) from the first look until the program exits, which
//! delays nothing (the program holds it open until then); where it cannot
//! be opened (a descriptor limit) no look finds the program waiting.
//!
//! Where the kernel will not say (see [`input_state`]: a setuid program, macOS),
//! the look falls back to the terminal and a quiet timer: the program waits
//! when (1) and (3) hold, no thread of the job is running, and no output
//! came for [`INPUT_QUIET`]; [`How::Quiet`] says so.
//!
//! Cost: nothing happens for a session nobody asks about. A wait looks
//! first when output has paused for [`FIRST_LOOK`], then after intervals
//! that double up to [`MAX_LOOK`], starting over whenever output comes; a
//! look reads a few small `/proc` files per process of the job (about
//! 0.1 ms for a one-process job), on the runtime's thread, never on the JS
//! thread ([`Session::input_state`] runs one look on its caller's thread).
use std::time::{Duration, Instant, SystemTime};

use super::Session;
use crate::core::input_state::{self, Reading};
use crate::core::proc_tree::Pid;
use crate::core::time;
use crate::core::tty::{self, InputKind};

/// A wait looks at the program first once output has paused this long.
pub const FIRST_LOOK: Duration = Duration::from_millis(1);
/// The longest interval between two looks of a wait; a program that starts
/// waiting without printing anything first (no prompt) is seen within it.
pub const MAX_LOOK: Duration = Duration::from_millis(16);
/// Where the kernel cannot tell, the program counts as waiting once no
/// output came for this long (the quiet timer other tools use).
pub const INPUT_QUIET: Duration = Duration::from_millis(300);

/// How an [`InputState`] was decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    /// The kernel showed what the job sleeps in (`/proc` on Linux).
    Kernel,
    /// The kernel would not say: the terminal's modes, its foreground group
    /// and [`INPUT_QUIET`] of quiet decided.
    Quiet,
}

impl How {
    /// `"kernel"` or `"quiet"`.
    pub fn as_str(self) -> &'static str {
        match self {
            How::Kernel => "kernel",
            How::Quiet => "quiet",
        }
    }
}

/// Whether the program waits for input, and how it reads.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct InputState {
    /// The program waits for input now.
    pub waiting: bool,
    /// When waiting: what the terminal's modes ask for.
    pub kind: Option<InputKind>,
    /// The process that waits; when not waiting, the foreground job's
    /// process (its leader). `None` without a terminal or after the exit.
    pub pid: Option<Pid>,
    /// That process's name.
    pub program: Option<String>,
    /// When waiting: when it began, as far as the session can tell (the
    /// last output, input or resize before it).
    pub since: Option<SystemTime>,
    /// How this was decided; `None` without a terminal (plain pipes) or
    /// after the exit.
    pub how: Option<How>,
}

/// Why [`Session::wait_input`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputEnd {
    /// The program waits for input.
    Input,
    /// The program exited (and its output was drained).
    Exit,
    /// The timeout passed first.
    Timeout,
}

/// The session's facts at the start of a look.
struct Before {
    seq: u64,
    writes: u64,
    input_seq: u64,
    last_activity: Instant,
}

/// One look, with what the wait needs besides the state.
struct Look {
    state: InputState,
    /// The output position and input count the look saw.
    before: Option<Before>,
}

/// The backoff of a wait's looks.
pub(super) struct Schedule {
    /// The activity the schedule counts from.
    activity: Option<Instant>,
    interval: Duration,
    pub(super) next: tokio::time::Instant,
}

impl Schedule {
    pub(super) fn new() -> Schedule {
        Schedule {
            activity: None,
            interval: FIRST_LOOK,
            next: tokio::time::Instant::now(),
        }
    }

    /// Output, input or a resize at `last`: the next look once output has
    /// paused for [`FIRST_LOOK`], then the intervals start over.
    pub(super) fn saw(&mut self, last: Instant) {
        if self.activity != Some(last) {
            self.activity = Some(last);
            self.interval = FIRST_LOOK;
            self.next = tokio::time::Instant::from_std(last + FIRST_LOOK);
        }
    }

    /// A look found no wait: the next one after a longer interval.
    pub(super) fn looked(&mut self, now: tokio::time::Instant) {
        self.next = now + self.interval;
        self.interval = (self.interval * 2).min(MAX_LOOK);
    }
}

/// What the kernel's answer about the job (or, where it has none, the
/// quiet timer) says.
struct Verdict {
    waiting: bool,
    pid: Pid,
    program: Option<String>,
    how: How,
}

/// Decides from `reading` for the job `group`, whose terminal saw no output,
/// input or resize for `quiet_for`; `name` finds a process's name.
fn verdict(
    reading: Reading,
    group: Pid,
    quiet_for: Duration,
    name: impl Fn(Pid) -> Option<String>,
) -> Verdict {
    match reading {
        Reading::Blocked { member, .. } => Verdict {
            waiting: true,
            pid: member.pid,
            program: Some(member.program),
            how: How::Kernel,
        },
        Reading::NotBlocked { member } => Verdict {
            waiting: false,
            pid: member.as_ref().map_or(group, |m| m.pid),
            program: member.map(|m| m.program),
            how: How::Kernel,
        },
        Reading::Unknown { member, running } => {
            let (pid, program) = match member {
                Some(m) => (m.pid, Some(m.program)),
                None => (group, name(group)),
            };
            Verdict {
                // A running thread is at work; otherwise the quiet timer.
                waiting: !running && quiet_for >= INPUT_QUIET,
                pid,
                program,
                how: How::Quiet,
            }
        }
    }
}

impl Session {
    /// Whether the program waits for input now: one look (see the module
    /// docs), on the calling thread.
    pub fn input_state(&self) -> InputState {
        self.look().state
    }

    /// Waits until the program waits for input, it exited, or `timeout`
    /// passed; returns why, and the state then.
    ///
    /// With `since` (an output position, as `seq`), a wait for input counts
    /// only once something happened after that point: output went past it,
    /// or input was written at or after it (and, as always, was read). The
    /// point 0 before any input is the start, after which every wait began.
    pub async fn wait_input(
        &self,
        since: Option<u64>,
        timeout: Duration,
    ) -> (InputEnd, InputState) {
        let deadline = time::later_tokio(tokio::time::Instant::now(), timeout);
        let mut rx = self.subscribe();
        let mut schedule = Schedule::new();
        let mut last = InputState::default();
        loop {
            rx.borrow_and_update();
            let activity = {
                let inner = self.lock();
                if inner.exit.is_some() {
                    return (InputEnd::Exit, InputState::default());
                }
                inner.last_activity
            };
            schedule.saw(activity);
            let now = tokio::time::Instant::now();
            if now >= schedule.next {
                let look = self.look();
                let after = look.before.as_ref().is_some_and(|b| match since {
                    None => true,
                    // The start (no output, no input yet): every wait began after it.
                    Some(0) if b.writes == 0 => true,
                    Some(point) => b.seq > point || (b.writes > 0 && b.input_seq >= point),
                });
                if look.state.waiting && after {
                    return (InputEnd::Input, look.state);
                }
                last = look.state;
                schedule.looked(tokio::time::Instant::now());
            }
            if now >= deadline {
                return (InputEnd::Timeout, last);
            }
            tokio::select! {
                changed = rx.changed() => {
                    if changed.is_err() {
                        return (InputEnd::Exit, InputState::default());
                    }
                }
                _ = tokio::time::sleep_until(schedule.next.min(deadline)) => {}
            }
        }
    }

    /// The kernel says the program waits for input now (a look decided by
    /// [`How::Kernel`]); for settles, which end early only on certainty.
    pub(super) fn waits_for_input(&self) -> Option<InputState> {
        let state = self.look().state;
        (state.waiting && state.how == Some(How::Kernel)).then_some(state)
    }

    fn look(&self) -> Look {
        let nothing = Look {
            state: InputState::default(),
            before: None,
        };
        // 1. The terminal's facts, and the session's, under the lock (the
        // master is open while it is held).
        let (group, device, before, unread) = {
            let mut inner = self.lock();
            let inner = &mut *inner;
            let Some(master) = inner.pty_fd.filter(|_| inner.exit.is_none()) else {
                return nothing;
            };
            let Some((slave, device)) = self.shared.terminal(master) else {
                return nothing;
            };
            if inner.probe_slave.is_none() && !inner.child_exited {
                inner.probe_slave = tty::open_slave(slave);
            }
            let before = Before {
                seq: inner.seq,
                writes: inner.writes,
                input_seq: inner.input_seq,
                last_activity: inner.last_activity,
            };
            // Input written and not yet read: the program has something to do.
            let unread = !inner.queue.is_empty()
                || inner.probe_slave.as_ref().and_then(tty::input_pending) != Some(false);
            (tty::foreground_group(master), *device, before, unread)
        };
        let Some(group) = group else {
            // No foreground job (the program is leaving): nobody reads.
            return Look {
                state: InputState {
                    how: Some(How::Kernel),
                    ..InputState::default()
                },
                before: Some(before),
            };
        };
        let not_waiting = |how: How, pid: Option<Pid>, program: Option<String>| Look {
            state: InputState {
                waiting: false,
                kind: None,
                pid,
                program,
                since: None,
                how: Some(how),
            },
            before: None,
        };
        if unread {
            return not_waiting(How::Kernel, Some(group), input_state::program(group));
        }
        // 2. The job.
        let reading = input_state::foreground_reader(self.pid, group, device);
        let verdict = verdict(
            reading,
            group,
            before.last_activity.elapsed(),
            input_state::program,
        );
        let (pid, program, how) = (verdict.pid, verdict.program, verdict.how);
        if !verdict.waiting {
            return not_waiting(how, Some(pid), program);
        }
        let program = program.unwrap_or_default();
        // 3. Nothing happened meanwhile, and no output waits unread. The
        // modes are read now, not before: a job that changes them and then
        // reads (`stty -echo; read`) has its final ones once it sleeps.
        let modes = {
            let _reader = self.shared.lock_reader();
            let inner = self.lock();
            let unchanged = inner.exit.is_none()
                && inner.seq == before.seq
                && inner.writes == before.writes
                && inner.queue.is_empty();
            inner
                .pty_fd
                .filter(|&master| unchanged && tty::output_pending(master) == Some(false))
                .and_then(tty::modes)
        };
        let Some(modes) = modes else {
            return not_waiting(how, Some(pid), Some(program));
        };
        let since = SystemTime::now()
            .checked_sub(before.last_activity.elapsed())
            .unwrap_or(SystemTime::UNIX_EPOCH);
        Look {
            state: InputState {
                waiting: true,
                kind: Some(modes.kind()),
                pid: Some(pid),
                program: Some(program),
                since: Some(since),
                how: Some(how),
            },
            before: Some(before),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::input_state::{Call, Member};

    fn member(pid: Pid) -> Option<Member> {
        Some(Member {
            pid,
            program: "sudo".into(),
        })
    }

    #[test]
    fn where_the_kernel_cannot_tell_the_quiet_timer_decides() {
        let unknown = |running| Reading::Unknown {
            member: member(7),
            running,
        };
        let quiet = INPUT_QUIET + Duration::from_millis(1);
        let v = verdict(unknown(false), 7, quiet, |_| None);
        assert!(v.waiting);
        assert_eq!((v.pid, v.how), (7, How::Quiet));
        assert_eq!(v.program.as_deref(), Some("sudo"));
        // Not quiet long enough, or a thread at work: not waiting.
        assert!(!verdict(unknown(false), 7, INPUT_QUIET / 2, |_| None).waiting);
        assert!(!verdict(unknown(true), 7, quiet, |_| None).waiting);
        // No member seen: the group's leader, by name.
        let v = verdict(
            Reading::Unknown {
                member: None,
                running: false,
            },
            9,
            quiet,
            |pid| Some(format!("p{pid}")),
        );
        assert_eq!((v.pid, v.program.as_deref()), (9, Some("p9")));
    }

    #[test]
    fn the_kernel_decides_where_it_can() {
        let blocked = Reading::Blocked {
            member: member(5).unwrap(),
            call: Call::Read,
        };
        let v = verdict(blocked, 4, Duration::ZERO, |_| None);
        assert!(v.waiting);
        assert_eq!((v.pid, v.how), (5, How::Kernel));
        let v = verdict(
            Reading::NotBlocked { member: None },
            4,
            INPUT_QUIET * 10,
            |_| None,
        );
        assert!(!v.waiting);
        assert_eq!((v.pid, v.how), (4, How::Kernel));
    }
}
