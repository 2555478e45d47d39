//! The process table: a row ([`ProcInfo`]), an identity ([`ProcRef`]), and
//! the lookups every platform answers (from `/proc` on Linux, libproc and
//! `sysctl` on macOS; see the platform files for where each fact comes from
//! and what a refusal gives).

use std::path::Path;

use crate::core::signal::Signal;

use super::{Pid, sys};

/// One row of the process table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcInfo {
    /// Process id.
    pub pid: Pid,
    /// Parent process id.
    pub ppid: Pid,
    /// Process group id.
    pub pgid: Pid,
    /// Session id.
    pub sid: Pid,
    /// When the process started, in the platform's unit (clock ticks since
    /// boot on Linux, microseconds since the epoch on macOS): with `pid`, it
    /// identifies the process.
    pub start_time: u64,
    /// Kernel state letter (`R`, `S`, `T`, `Z` for a zombie, ...).
    pub state: char,
}

impl ProcInfo {
    /// True for a zombie or a dead process (it has exited; only reaping is left).
    pub fn exited(&self) -> bool {
        matches!(self.state, 'Z' | 'X' | 'x')
    }

    /// The identity of this process.
    pub fn as_ref(&self) -> ProcRef {
        ProcRef {
            pid: self.pid,
            start_time: self.start_time,
        }
    }
}

/// A process, identified by pid and start time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ProcRef {
    /// Process id.
    pub pid: Pid,
    /// Start time, as in [`ProcInfo::start_time`].
    pub start_time: u64,
}

impl ProcRef {
    /// The process with this pid now, if there is one.
    pub fn of(pid: Pid) -> Option<ProcRef> {
        info(pid).map(|i| i.as_ref())
    }

    /// The table row of this very process (None when it is gone or the pid
    /// now belongs to another process).
    pub fn info(&self) -> Option<ProcInfo> {
        info(self.pid).filter(|i| i.start_time == self.start_time)
    }

    /// True while this process exists and has not exited (a zombie has exited).
    pub fn alive(&self) -> bool {
        self.info().is_some_and(|i| !i.exited())
    }

    /// Sends `signal` if this is still the same, live process. Returns whether
    /// it was sent.
    pub fn signal(&self, signal: Signal) -> bool {
        sys::signal(self, signal)
    }

    /// The program's arguments (`argv`), or None when the process is gone.
    /// A zombie has none left (`Some(vec![])`).
    pub fn args(&self) -> Option<Vec<String>> {
        sys::args(self)
    }

    /// The live (not exited) direct children of this process, or none when it
    /// is gone.
    pub fn children(&self) -> Vec<ProcRef> {
        let table = list();
        let is_me = |p: &ProcInfo| p.pid == self.pid && p.start_time == self.start_time;
        if !table.iter().any(is_me) {
            return Vec::new();
        }
        table
            .iter()
            .filter(|p| p.ppid == self.pid && !p.exited())
            .map(ProcInfo::as_ref)
            .collect()
    }
}

/// The table row of `pid`, if such a process exists.
pub fn info(pid: Pid) -> Option<ProcInfo> {
    if pid <= 0 {
        return None;
    }
    sys::info(pid)
}

/// The table row of the process `pid`: like [`info`], but None when `pid`
/// names a thread of another process (Linux's `/proc/<tid>` answers for
/// threads too).
pub fn find(pid: Pid) -> Option<ProcInfo> {
    if pid <= 0 {
        return None;
    }
    sys::find(pid)
}

/// Every process visible to us.
pub fn list() -> Vec<ProcInfo> {
    sys::list()
}

/// The members of process group `pgid` (exited ones included).
pub fn group_members(pgid: Pid) -> Vec<ProcInfo> {
    if pgid <= 0 {
        return Vec::new();
    }
    sys::group_members(pgid)
}

/// The name a terminal shows for process `pid` in its title: what node-pty
/// reports as a pty's `process` (`argv[0]` on Linux, the kernel's name on
/// macOS). `None` when the process is gone or the kernel refuses.
pub fn program_name(pid: Pid) -> Option<String> {
    sys::program_name(pid)
}

/// Every process whose executable is `path` (compared after resolving
/// symbolic links, as the kernel reports executables). Processes whose
/// executable we may not read (other users') are not seen.
pub fn by_executable(path: &Path) -> Vec<ProcRef> {
    sys::by_executable(path)
}

/// Every live process that belongs to a program which has exited: the
/// members of its session `sid` (its `&` jobs: a session id is never handed
/// out again while a process still holds it) and every process whose initial
/// environment has `name=value` (a daemon that started a session of its own
/// keeps the environment it inherited). `name=value` is a marker the caller
/// put in the program's environment; a process that cleared its environment
/// and left the session is not found. The calling process is never reported.
///
/// The environment of another user's process cannot be read: such a
/// process is found only by its session.
pub fn left_behind(sid: Pid, name: &str, value: &str) -> Vec<ProcRef> {
    sys::left_behind(sid, name, value)
}
