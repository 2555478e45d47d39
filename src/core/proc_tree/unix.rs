//! What Linux and macOS share: the checked `kill(2)` and process groups.

use nix::sys::signal::Signal;
use nix::unistd::Pid as NixPid;

use super::{Pid, ProcRef};

/// Sends `signal` to `proc` if it is still the same, live process.
///
/// The pid could in theory be reused between the check and the kill; pids
/// are handed out cyclically, so that takes a full wrap of the pid space
/// within these few microseconds. (Linux closes even that window with a
/// pidfd first, where it can.)
pub(super) fn kill_checked(proc: &ProcRef, signal: Signal) -> bool {
    proc.alive() && nix::sys::signal::kill(NixPid::from_raw(proc.pid), signal).is_ok()
}

/// `killpg(pgid, signal)`; true when it was sent.
pub(super) fn killpg(pgid: Pid, signal: Signal) -> bool {
    nix::sys::signal::killpg(NixPid::from_raw(pgid), signal).is_ok()
}

/// The calling process's group.
pub(super) fn own_group() -> Pid {
    nix::unistd::getpgrp().as_raw()
}
