//! Waiting for processes to exit: through pidfds on Linux (no polling),
//! by re-reading the table every few milliseconds elsewhere.

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::kill::aborted;
use super::{ProcRef, sys};
use crate::core::error::Result;

/// How often a wait re-reads the process table when it cannot use a pidfd.
const POLL_INTERVAL: Duration = Duration::from_millis(10);

/// Waits until every process in `targets` has exited (a zombie has exited).
/// `Ok(true)` when they have, `Ok(false)` when `timeout` ran out first,
/// `ERR_ABORTED` when `cancel` was cancelled first. `timeout: None` waits
/// for as long as it takes.
///
/// On Linux this waits on pidfds (readable once the process exits, whoever
/// its parent is), with no polling; without pidfds it re-reads the process
/// table every few milliseconds. Must run inside a Tokio runtime with I/O
/// and time drivers enabled.
pub async fn wait_exit(
    targets: &[ProcRef],
    timeout: Option<Duration>,
    cancel: &CancellationToken,
) -> Result<bool> {
    let all = async {
        for t in targets {
            wait_one(t).await;
        }
    };
    let deadline = timeout.and_then(|t| tokio::time::Instant::now().checked_add(t));
    let timer = async {
        match deadline {
            Some(at) => tokio::time::sleep_until(at).await,
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        // Checked in this order: a wait that is already cancelled rejects
        // even if the processes are gone, and a process that is already gone
        // wins over a zero timeout.
        biased;
        () = cancel.cancelled() => Err(aborted()),
        () = all => Ok(true),
        () = timer => Ok(false),
    }
}

/// Completes when `target` has exited: the platform's exit event where it
/// has one (a pidfd on Linux), else a poll of the table.
async fn wait_one(target: &ProcRef) {
    if sys::exited(target).await {
        return;
    }
    while target.alive() {
        tokio::time::sleep(POLL_INTERVAL).await;
    }
}
