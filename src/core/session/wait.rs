//! Async waits on a session: for the exit, for the screen to settle, for new
//! output.
use std::time::Duration;

use tokio::sync::watch;

use super::{Exit, SYNC_STALL, Session};
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

    /// Waits until no output came (and no input was written) for `quiet` and
    /// no synchronized-output block is open, or the session ended. Returns
    /// `false` when `timeout` passed first.
    ///
    /// A block that stays open with no output for `SYNC_STALL` counts as
    /// closed, as terminals end such a block after a timeout: a program that
    /// stopped mid-frame (it crashed, or never closes its blocks) still
    /// settles, with what it drew so far.
    pub async fn wait_settle(&self, quiet: Duration, timeout: Duration) -> bool {
        let deadline = time::later_tokio(tokio::time::Instant::now(), timeout);
        let mut rx = self.subscribe();
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
                return true;
            }
            let quiet_until = tokio::time::Instant::from_std(time::later(last, quiet));
            let stalled_at = tokio::time::Instant::from_std(last + SYNC_STALL);
            let now = tokio::time::Instant::now();
            if now >= quiet_until && (!synchronized || now >= stalled_at) {
                return true;
            }
            if now >= deadline {
                return false;
            }
            let wake_at = if synchronized {
                quiet_until.max(stalled_at).min(deadline)
            } else {
                quiet_until.min(deadline)
            };
            tokio::select! {
                changed = rx.changed() => {
                    if changed.is_err() {
                        return true;
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
