//! Noticing a shell whose markers stopped appearing, and replacing it.
//!
//! A command can break the markers for every later command: `exec 2>&-`
//! (bash and dash print the prompt on stderr), `unset` of the prompt
//! variables, `exec >/dev/null 2>&1`, a `PROMPT_COMMAND` that hangs. The shell
//! then still runs lines, but the prompt (`A`), or the end of a command (`D`),
//! never shows. Waiting for them would wait forever.
//!
//! So when a marker is overdue, the driver writes a *probe line* to the
//! shell's control FIFO (never to the terminal, where a command could read
//! it), which only prints a probe marker (`P;<id>;<nonce>`) to `/dev/tty` —
//! the terminal itself, whatever the shell did to its stdout and stderr.
//! The shell reads it only when it reads its next line, at its prompt. A
//! marker is overdue when:
//!
//! - no run is in progress and the prompt has not come [`PROMPT_GRACE`]
//!   after the last command ended (or after the run began waiting for it);
//! - a command runs (it has started: until then the shell may still be
//!   reading the run line, and a shell that gives up on a line drops what it
//!   read with it), and the shell itself has been in the terminal's
//!   foreground, asleep, for [`PROBE_AFTER`]: the command's own processes
//!   are gone, and the shell waits — for its next line, if the command is
//!   over, or in a builtin such as `read` or `wait`, which the probe line
//!   does not disturb.
//!
//! fish reads its lines from the terminal (see the `shell` module docs), so
//! it gets no probes: a fish whose prompt has not come [`PROBE_LIMIT`] after
//! a command ended is replaced.
//!
//! Then the shell's answer tells:
//!
//! - the probe marker comes while a command was submitted or running, with no
//!   `D` before it: the shell ran the probe line after the command, so the
//!   command is over and its end marker was lost ([`Finish::lost`]): the run
//!   ends with an unknown status, and the shell is replaced;
//! - the probe marker comes, but no prompt within [`PROMPT_GRACE`] after it:
//!   the shell runs lines but shows no prompt: it is replaced, and the run
//!   goes on in a fresh shell;
//! - no answer within [`PROBE_LIMIT`] while no command runs: the shell does
//!   not run lines any more (a hanging `PROMPT_COMMAND`): it is replaced.
//!
//! A shell that was only slow answers the probe and shows its prompt after
//! it; no run line is written while a probe is outstanding, so the extra
//! prompt cannot be taken for the end of a command.
//!
//! [`Finish::lost`]: super::Finish::lost

use std::time::Duration;

use tokio::time::Instant;

use super::tracker::{Phase, Probe};

/// How long the prompt may take after a command ended (or after a probe was
/// answered) before it counts as missing.
pub const PROMPT_GRACE: Duration = Duration::from_millis(1000);
/// How long the shell may sit idle in the foreground during a command before
/// a probe asks whether the command is over.
pub const PROBE_AFTER: Duration = Duration::from_millis(1000);
/// How long a probe may stay unanswered while no command runs.
pub const PROBE_LIMIT: Duration = Duration::from_secs(5);
/// How often the shell's state is looked at while a command runs.
const IDLE_POLL: Duration = Duration::from_millis(100);

/// What the driver should do now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Action {
    /// Nothing; look again on output or at this time.
    Wait(Option<Instant>),
    /// Write probe line number `id`.
    Probe(u64),
    /// The shell's markers are gone: kill it and start a fresh one.
    Replace,
}

/// The clocks of one shell (see the module docs).
#[derive(Debug, Default)]
pub(super) struct Watchdog {
    /// Probe lines can be sent: the shell reads them from its control FIFO,
    /// where no command can read them. (fish reads its lines from the
    /// terminal: it gets no probes; a missing prompt replaces it after
    /// [`PROBE_LIMIT`], and its end marker always comes from
    /// `fish_postexec`.)
    can_probe: bool,
    /// No run in progress, and no prompt since then.
    waiting_since: Option<Instant>,
    /// A command runs and the shell sits idle in the foreground since then.
    idle_since: Option<Instant>,
    /// The outstanding probe was written then.
    sent_at: Option<Instant>,
    /// The last probe was answered then (and no prompt came after it yet).
    answered_at: Option<Instant>,
    /// Probes so far.
    probes: u64,
}

impl Watchdog {
    /// A watchdog for a shell that reads probe lines from its control FIFO
    /// (`can_probe`) or not.
    pub(super) fn new(can_probe: bool) -> Self {
        Watchdog {
            can_probe,
            ..Watchdog::default()
        }
    }

    /// A command ended: the prompt is due from now on (unless it came).
    pub(super) fn command_ended(&mut self, now: Instant, phase: Phase) {
        self.idle_since = None;
        self.waiting_since = (phase != Phase::Idle).then_some(now);
    }

    /// Decides what to do, given the tracker's `phase` and `probe`, whether
    /// a run line is in flight (`submitted`) and, only asked while a command
    /// runs, whether the shell sits idle in the foreground.
    pub(super) fn check(
        &mut self,
        now: Instant,
        phase: Phase,
        probe: Probe,
        submitted: bool,
        idle_in_foreground: impl FnOnce() -> bool,
    ) -> Action {
        match probe {
            Probe::Sent(_) => {
                self.answered_at = None;
                let sent = *self.sent_at.get_or_insert(now);
                if submitted {
                    // The command may still run; the answer comes after it.
                    return Action::Wait(None);
                }
                let limit = sent + PROBE_LIMIT;
                return if now >= limit {
                    Action::Replace
                } else {
                    Action::Wait(Some(limit))
                };
            }
            Probe::Answered { .. } => {
                self.sent_at = None;
                let answered = *self.answered_at.get_or_insert(now);
                if submitted {
                    return Action::Wait(None);
                }
                let limit = answered + PROMPT_GRACE;
                return if now >= limit {
                    Action::Replace
                } else {
                    Action::Wait(Some(limit))
                };
            }
            Probe::Settled => {
                self.sent_at = None;
                self.answered_at = None;
            }
        }
        if !submitted {
            self.idle_since = None;
            if phase == Phase::Idle {
                self.waiting_since = None;
                return Action::Wait(None);
            }
            let since = *self.waiting_since.get_or_insert(now);
            if !self.can_probe {
                let due = since + PROBE_LIMIT;
                return if now >= due {
                    Action::Replace
                } else {
                    Action::Wait(Some(due))
                };
            }
            let due = since + PROMPT_GRACE;
            return if now >= due {
                self.probe()
            } else {
                Action::Wait(Some(due))
            };
        }
        self.waiting_since = None;
        // Not before the command started: until then the shell may not have
        // read all of the run line, and a shell that gives up on a line
        // (an interrupt) drops what it read along with it, a probe line too.
        if phase != Phase::Running || !self.can_probe {
            return Action::Wait(None);
        }
        if !idle_in_foreground() {
            self.idle_since = None;
            return Action::Wait(Some(now + IDLE_POLL));
        }
        let due = *self.idle_since.get_or_insert(now) + PROBE_AFTER;
        if now >= due {
            self.idle_since = None;
            return self.probe();
        }
        Action::Wait(Some((now + IDLE_POLL).min(due)))
    }

    fn probe(&mut self) -> Action {
        self.probes += 1;
        self.sent_at = None;
        Action::Probe(self.probes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: u64) -> Instant {
        // Instants in the test only differ by offsets from one base.
        thread_local!(static BASE: Instant = Instant::now());
        BASE.with(|b| *b + Duration::from_millis(ms))
    }

    #[test]
    fn a_missing_prompt_is_probed_and_a_silent_answer_replaces_the_shell() {
        let mut w = Watchdog::new(true);
        w.command_ended(at(0), Phase::AwaitPrompt);
        let busy = || panic!("not asked while no command runs");
        assert_eq!(
            w.check(at(10), Phase::AwaitPrompt, Probe::Settled, false, busy),
            Action::Wait(Some(at(1000)))
        );
        assert_eq!(
            w.check(at(1000), Phase::AwaitPrompt, Probe::Settled, false, busy),
            Action::Probe(1)
        );
        assert_eq!(
            w.check(at(1010), Phase::AwaitPrompt, Probe::Sent(1), false, busy),
            Action::Wait(Some(at(6010)))
        );
        let answered = Probe::Answered {
            during_command: false,
        };
        assert_eq!(
            w.check(at(1100), Phase::AwaitPrompt, answered, false, busy),
            Action::Wait(Some(at(2100)))
        );
        assert_eq!(
            w.check(at(2100), Phase::AwaitPrompt, answered, false, busy),
            Action::Replace
        );
    }

    #[test]
    fn a_slow_prompt_only_delays_the_run() {
        let mut w = Watchdog::new(true);
        w.command_ended(at(0), Phase::AwaitPrompt);
        let busy = || false;
        assert_eq!(
            w.check(at(1500), Phase::AwaitPrompt, Probe::Settled, false, busy),
            Action::Probe(1)
        );
        // The prompt came, then the probe's answer, then its prompt.
        assert!(matches!(
            w.check(at(1600), Phase::Idle, Probe::Sent(1), false, busy),
            Action::Wait(_)
        ));
        assert_eq!(
            w.check(at(1700), Phase::Idle, Probe::Settled, false, busy),
            Action::Wait(None)
        );
        assert_eq!(
            w.check(at(9000), Phase::Idle, Probe::Settled, false, busy),
            Action::Wait(None)
        );
    }

    #[test]
    fn an_unanswered_probe_replaces_an_idle_shell_but_not_a_busy_command() {
        let mut w = Watchdog::new(true);
        assert_eq!(
            w.check(at(0), Phase::Running, Probe::Sent(1), true, || false),
            Action::Wait(None)
        );
        assert_eq!(
            w.check(at(60_000), Phase::Running, Probe::Sent(1), true, || false),
            Action::Wait(None)
        );
        let mut w = Watchdog::new(true);
        assert_eq!(
            w.check(at(0), Phase::AwaitPrompt, Probe::Sent(1), false, || false),
            Action::Wait(Some(at(5000)))
        );
        assert_eq!(
            w.check(at(5000), Phase::AwaitPrompt, Probe::Sent(1), false, || {
                false
            }),
            Action::Replace
        );
    }

    #[test]
    fn a_command_is_probed_only_after_the_shell_sat_idle_in_the_foreground() {
        let mut w = Watchdog::new(true);
        assert_eq!(
            w.check(at(0), Phase::Running, Probe::Settled, true, || false),
            Action::Wait(Some(at(100)))
        );
        assert_eq!(
            w.check(at(100), Phase::Running, Probe::Settled, true, || true),
            Action::Wait(Some(at(200)))
        );
        // Busy again: the clock starts over.
        w.check(at(600), Phase::Running, Probe::Settled, true, || false);
        w.check(at(700), Phase::Running, Probe::Settled, true, || true);
        assert!(matches!(
            w.check(at(1600), Phase::Running, Probe::Settled, true, || true),
            Action::Wait(_)
        ));
        assert_eq!(
            w.check(at(1700), Phase::Running, Probe::Settled, true, || true),
            Action::Probe(1)
        );
    }
}
