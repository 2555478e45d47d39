//! Systems without a process table here: every lookup comes back empty, so
//! a tree is only its roots' pids and nothing is signalled by identity.

use std::path::Path;

use crate::core::signal::Signal;

use super::{Pid, ProcInfo, ProcRef};

/// Nothing is signalled: no process can be confirmed alive.
pub(super) fn signal(_proc: &ProcRef, _signal: Signal) -> bool {
    false
}

/// No exit event: the caller polls (and finds nothing alive).
pub(super) async fn exited(_target: &ProcRef) -> bool {
    false
}

pub(super) fn info(_pid: Pid) -> Option<ProcInfo> {
    None
}

pub(super) fn find(_pid: Pid) -> Option<ProcInfo> {
    None
}

pub(super) fn list() -> Vec<ProcInfo> {
    Vec::new()
}

pub(super) fn group_members(_pgid: Pid) -> Vec<ProcInfo> {
    Vec::new()
}

pub(super) fn args(_proc: &ProcRef) -> Option<Vec<String>> {
    None
}

pub(super) fn program_name(_pid: Pid) -> Option<String> {
    None
}

pub(super) fn by_executable(_path: &Path) -> Vec<ProcRef> {
    Vec::new()
}

pub(super) fn left_behind(_sid: Pid, _name: &str, _value: &str) -> Vec<ProcRef> {
    Vec::new()
}
