//! Async waits on a session: for the exit, for the screen to settle (or the
//! program to wait for input), for new output.
use std::time::Duration;

use tokio::sync::watch;

use super::input::{FIRST_LOOK, InputState, Schedule};
use super::{Exit, SYNC_STALL, Session};

/// Why [`Session::wait_settle`] ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settled {
    /// The program waits for input (the kernel says so), with its state.
    Input(InputState),
    /// No output came for the quiet period.
    Quiet,
    /// The program exited and its output was drained.
    Exit,
    /// The timeout passed first.
    Timeout,
}

impl Settled {
    /// False only for [`Settled::Timeout`].
    pub fn settled(&self) -> bool {
        !matches!(self, Settled::Timeout)
    }

    /// `"input"`, `"quiet"`, `"exit"` or `"timeout"`.
    pub fn reason(&self) -> &'static str {
        match self {
            Settled::Input(_) => "input",
            Settled::Quiet => "quiet",
            Settled::Exit => "exit",
            Settled::Timeout => "timeout",
        }
    }
}
use crate::core::time;

impl Session {
    /// A receiver that sees a new value after every processed batch of output
    /// and at the exit.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.shared.changed.subscribe()
    }

    /// Waits for the exit.
    pub async fn wait_exit(&self) -> Exit {
        let mut rx = self.subscribe();
        loop {
            rx.borrow_and_update();
            if let Some(exit) = self.exit() {
                return exit;
            }
            if rx.changed().await.is_err() {
                // The loop is gone; it always publishes the exit before that.
                return self.exit().unwrap_or_default();
            }
        }
    }

    /// Waits until the program waits for input (as the kernel tells, see
    /// [`Session::input_state`]), or no output came (and no input was
    /// written) for `quiet` and no synchronized-output block is open, or the
    /// session ended, or `timeout` passed; returns which.
    ///
    /// The input state is looked at on the schedule of
    /// [`Session::wait_input`], only while the output pauses; a look that
    /// the kernel cannot decide (the quiet fallback) does not end the
    /// settle, so it never takes longer than `quiet` of quiet.
    ///
    /// A block that stays open with no output for `SYNC_STALL` counts as
    /// closed, as terminals end such a block after a timeout: a program that
    /// stopped mid-frame (it crashed, or never closes its blocks) still
    /// settles, with what it drew so far.
    pub async fn wait_settle(&self, quiet: Duration, timeout: Duration) -> Settled {
        let deadline = time::later_tokio(tokio::time::Instant::now(), timeout);
        let mut rx = self.subscribe();
        let mut schedule = Schedule::new();
        // Looking is worth it only when it can end the settle early.
        let look = quiet > FIRST_LOOK;
        loop {
            rx.borrow_and_update();
            let (ended, last, synchronized) = {
                let mut inner = self.lock();
                let inner = &mut *inner;
                (
                    inner.exit.is_some(),
                    inner.last_activity,
                    inner.model.synchronized(&inner.transcript, inner.seq),
                )
            };
            if ended {
                return Settled::Exit;
            }
            let quiet_until = tokio::time::Instant::from_std(time::later(last, quiet));
            let stalled_at = tokio::time::Instant::from_std(last + SYNC_STALL);
            let now = tokio::time::Instant::now();
            if now >= quiet_until && (!synchronized || now >= stalled_at) {
                return Settled::Quiet;
            }
            if look {
                schedule.saw(last);
                if now >= schedule.next {
                    if let Some(state) = self.waits_for_input() {
                        return Settled::Input(state);
                    }
                    schedule.looked(tokio::time::Instant::now());
                }
            }
            if now >= deadline {
                return Settled::Timeout;
            }
            let mut wake_at = if synchronized {
                quiet_until.max(stalled_at).min(deadline)
            } else {
                quiet_until.min(deadline)
            };
            if look {
                wake_at = wake_at.min(schedule.next);
            }
            tokio::select! {
                changed = rx.changed() => {
                    if changed.is_err() {
                        return Settled::Exit;
                    }
                }
                _ = tokio::time::sleep_until(wake_at) => {}
            }
        }
    }

    /// Waits until output beyond `seq` was processed, or the session ended,
    /// or `timeout` passed. Returns the new `seq`.
    pub async fn wait_output(&self, seq: u64, timeout: Duration) -> u64 {
        let deadline = time::later_tokio(tokio::time::Instant::now(), timeout);
        let mut rx = self.subscribe();
        loop {
            rx.borrow_and_update();
            let (now_seq, ended) = {
                let inner = self.lock();
                (inner.seq, inner.exit.is_some())
            };
            if now_seq > seq || ended {
                return now_seq;
            }
            tokio::select! {
                changed = rx.changed() => {
                    if changed.is_err() {
                        return now_seq;
                    }
                }
                _ = tokio::time::sleep_until(deadline) => return now_seq,
            }
        }
    }
}
