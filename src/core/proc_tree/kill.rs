//! Signalling trees and groups: [`signal_group`], [`kill_tree`], the hard
//! kill that leaves nothing to fork ([`kill_hard`]), and the whole
//! graceful-then-forceful [`terminate`].

use std::collections::HashSet;
use std::time::Duration;

use crate::core::signal::Signal;
use tokio_util::sync::CancellationToken;

use super::{Pid, ProcRef, groups, tree_of, wait_exit};
use crate::core::error::{Error, ErrorCode, Result};

/// Stop-and-rescan rounds before a hard kill gives up looking for processes
/// forked while it worked (each round that finds nothing new ends it early).
const FREEZE_ROUNDS: usize = 8;

/// True when `pgid` may be signalled as a group: a real group (`kill(-1)`
/// would mean every process) that is not our own.
pub fn group_signallable(pgid: Pid) -> bool {
    pgid > 1 && pgid != groups::own_group()
}

/// Signals the process group `pgid` while one of `members` is still a live
/// member of it (so the number still names the group we mean; a group id is
/// only reused after the whole group is gone). Never signals our own group.
/// Returns whether the signal was sent.
pub fn signal_group(pgid: Pid, members: &[ProcRef], signal: Signal) -> bool {
    if !group_signallable(pgid) {
        return false;
    }
    let held = members
        .iter()
        .any(|m| m.info().is_some_and(|i| i.pgid == pgid && !i.exited()));
    held && groups::killpg(pgid, signal)
}

/// Sends `signal` to `root` and all its descendants (including those that
/// moved to another process group or session), children first. Returns how
/// many processes were signalled; 0 when `root` is gone.
///
/// `SIGKILL` takes the thorough path of [`kill_hard`], so that a parent
/// cannot fork a child that escapes between the scan and its own death.
pub fn kill_tree(root: &ProcRef, signal: Signal) -> usize {
    if signal == Signal::SIGKILL {
        let mut known = Vec::new();
        return kill_hard(&[*root], &[], &mut known);
    }
    tree_of(&[*root], &[])
        .iter()
        .filter(|p| p.signal(signal))
        .count()
}

/// Kills `roots`, their descendants and the members of `groups` so that
/// nothing escapes: first every process is stopped (`SIGSTOP`), parents
/// first, rescanning until no new process turns up (a stopped process cannot
/// fork); then all are killed, children first. Killed processes are added
/// to `known` (for a later [`wait_exit`]); returns how many were killed.
///
/// The calling process is never stopped, and is killed only when it is one
/// of the roots.
pub fn kill_hard(roots: &[ProcRef], groups: &[Pid], known: &mut Vec<ProcRef>) -> usize {
    let me = std::process::id() as Pid;
    let mut stopped: HashSet<ProcRef> = HashSet::new();
    for _ in 0..FREEZE_ROUNDS {
        let seeds: Vec<ProcRef> = roots.iter().chain(known.iter()).copied().collect();
        let found = tree_of(&seeds, groups);
        let fresh: Vec<ProcRef> = found
            .into_iter()
            .rev()
            .filter(|p| !stopped.contains(p))
            .collect();
        if fresh.is_empty() {
            break;
        }
        for p in fresh {
            if p.pid != me {
                p.signal(Signal::SIGSTOP);
            }
            stopped.insert(p);
            merge(known, [p]);
        }
    }
    for &g in groups {
        signal_group(g, known, Signal::SIGKILL);
    }
    // Children first; then anything the last scan no longer saw (a process
    // that left the tree between the scans is still ours to kill).
    let mut order = tree_of(known, groups);
    merge(&mut order, known.iter().copied());
    order.iter().filter(|p| p.signal(Signal::SIGKILL)).count()
}

/// Adds the processes not already in `into`.
fn merge(into: &mut Vec<ProcRef>, more: impl IntoIterator<Item = ProcRef>) {
    for p in more {
        if !into.contains(&p) {
            into.push(p);
        }
    }
}

/// How [`terminate`] proceeds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Terminate {
    /// Also signal the process group of the root (and wait for its members).
    /// Our own process group is never signalled.
    pub group: bool,
    /// `Some`: send `SIGTERM` and wait this long before killing. `None`: kill
    /// at once.
    pub grace: Option<Duration>,
    /// How long to wait for the tree to go after `SIGKILL`.
    pub timeout: Duration,
}

impl Default for Terminate {
    fn default() -> Self {
        Terminate {
            group: false,
            grace: Some(Duration::from_secs(1)),
            timeout: Duration::from_secs(5),
        }
    }
}

/// Terminates `root` and its whole tree: `SIGTERM` to the root's process
/// group (with [`Terminate::group`]), the root, then the rest of the tree
/// (children first); then
/// waits up to the grace period; then `SIGKILL`s whatever is left (the tree
/// as first seen, plus anything that appeared since) and waits up to
/// [`Terminate::timeout`].
///
/// Resolves `true` when every process of the tree has exited (a zombie has
/// exited), `false` when some are still there after the timeout. Cancelling
/// `cancel` stops the procedure (signals already sent stay sent) with
/// `ERR_ABORTED`.
///
/// The tree is captured *before* the first signal: a parent that dies first
/// hands its children to init, where no walk from the parent finds them.
pub async fn terminate(
    root: ProcRef,
    options: &Terminate,
    cancel: &CancellationToken,
) -> Result<bool> {
    if cancel.is_cancelled() {
        return Err(aborted());
    }
    let group = if options.group {
        root.info()
            .map(|i| i.pgid)
            .filter(|&g| group_signallable(g))
    } else {
        None
    };
    let groups: Vec<Pid> = group.into_iter().collect();
    let mut known = tree_of(&[root], &groups);
    if let Some(grace) = options.grace {
        // The group and the root first: the program gets the request before
        // any child of it dies, so it ends of the signal rather than reacting
        // to a child's death (a shell would exit 143 or carry on).
        if let Some(g) = group {
            signal_group(g, &known, Signal::SIGTERM);
        }
        root.signal(Signal::SIGTERM);
        // Then every other process, children first: members that left the
        // group (or never were in it) get the request too.
        for p in known.iter().filter(|p| **p != root) {
            p.signal(Signal::SIGTERM);
        }
        if wait_exit(&known, Some(grace), cancel).await? {
            // Everyone we knew is gone; done unless the group gained members
            // or someone forked just before dying.
            let seeds: Vec<ProcRef> = known.iter().copied().chain([root]).collect();
            if tree_of(&seeds, &groups).iter().all(|p| !p.alive()) {
                return Ok(true);
            }
        }
    }
    if cancel.is_cancelled() {
        return Err(aborted());
    }
    kill_hard(&[root], &groups, &mut known);
    wait_exit(&known, Some(options.timeout), cancel).await
}

/// The error of a wait cancelled by its `AbortSignal`.
pub(super) fn aborted() -> Error {
    Error::new(
        ErrorCode::Aborted,
        "the wait was aborted by its AbortSignal",
    )
}
