//! Termination of a session's program: TERM to its process group and every
//! descendant (identities checked, so a reused pid is never taken for one of
//! ours), a grace, then STOP and KILL to whatever is left, and waiting until
//! the tree is gone.
use std::time::{Duration, Instant};

use super::sys;
use crate::core::signal::Signal;

use super::KILL_WAIT;
use super::event_loop::Loop;
use crate::core::proc_tree::{self, ProcRef};
use crate::core::time;

/// The loop's record of a termination in progress.
pub(super) struct Termination {
    /// Every process seen in the tree so far.
    pub(super) targets: Vec<ProcRef>,
    /// When KILL is sent (if anything is still alive).
    pub(super) kill_at: Instant,
    pub(super) killed: bool,
    /// After KILL: when to stop waiting for the tree.
    pub(super) give_up_at: Option<Instant>,
}
impl Loop {
    pub(super) fn start_termination(&mut self, grace: Duration) {
        let now = Instant::now();
        let targets = self.collect_targets(&[]);
        match &mut self.termination {
            Some(t) => {
                // A second request can only shorten the grace.
                t.kill_at = t.kill_at.min(time::later(now, grace));
                merge(&mut t.targets, targets);
            }
            None => {
                // With no grace the KILL below comes at once; a TERM first
                // would only race it.
                if !grace.is_zero() {
                    self.signal_all(&targets, Signal::SIGTERM);
                }
                self.termination = Some(Termination {
                    targets,
                    kill_at: time::later(now, grace),
                    killed: false,
                    give_up_at: None,
                });
            }
        }
        self.advance_termination(now);
    }

    /// The program's process group and every descendant of the program and of
    /// the processes already known (identities checked: a reused pid is not
    /// taken for one of ours).
    pub(super) fn collect_targets(&self, known: &[ProcRef]) -> Vec<ProcRef> {
        let mut roots: Vec<ProcRef> = known.to_vec();
        if self.status.is_none() {
            roots.extend(self.root);
        }
        // The program is a session leader, so its pid is its process group.
        proc_tree::tree_of(&roots, &[self.pid])
    }

    pub(super) fn advance_termination(&mut self, now: Instant) {
        let Some(t) = &self.termination else {
            return;
        };
        if t.killed {
            return;
        }
        let program_done = self.status.is_some();
        let all_gone = program_done && !t.targets.iter().any(ProcRef::alive);
        if all_gone || now < t.kill_at {
            return;
        }
        let roots: Vec<ProcRef> = if program_done {
            Vec::new()
        } else {
            self.root.into_iter().collect()
        };
        let t = self.termination.as_mut().expect("checked above");
        // Stop everything first, then kill: nothing can fork its way out,
        // and the program dies of the KILL rather than of its child's death.
        proc_tree::kill_hard(&roots, &[self.pid], &mut t.targets);
        if !program_done {
            sys::signal_program(self.pid, &self.io, Signal::SIGKILL);
        }
        t.killed = true;
        t.give_up_at = Some(now + KILL_WAIT);
    }

    /// Sends `signal` to the program's process group in one go, then to every
    /// other target, deepest first.
    ///
    /// The group goes first and at once (`killpg`) so the program gets the
    /// signal together with its children in the group; signalling a child
    /// first would let the program see the child die and exit on its own
    /// (e.g. with 143) before its signal lands.
    pub(super) fn signal_all(&self, targets: &[ProcRef], signal: Signal) {
        if self.status.is_none() {
            let roots: Vec<ProcRef> = self.root.into_iter().collect();
            proc_tree::signal_group(self.pid, &roots, signal);
            sys::signal_program(self.pid, &self.io, signal);
        }
        for target in targets {
            target.signal(signal);
        }
    }
}

pub(super) fn merge(into: &mut Vec<ProcRef>, more: Vec<ProcRef>) {
    for p in more {
        if !into.contains(&p) {
            into.push(p);
        }
    }
}
