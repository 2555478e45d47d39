//! The process table and process-tree termination.
//!
//! A [`ProcRef`] names one process by pid *and* start time, so a reference
//! that outlives its process never signals another process that reused the
//! pid. [`tree`] collects a process's descendants (including those that moved
//! to another process group or session) and the members of process groups,
//! deepest first, which is the order to signal them in.

use nix::sys::signal::Signal;
use nix::unistd::Pid as NixPid;

use super::error::{Error, Result};

/// A process id.
pub type Pid = i32;

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
    /// Start time in clock ticks since boot (identifies the process with `pid`).
    pub start_time: u64,
    /// Kernel state letter (`R`, `S`, `Z` for a zombie, ...).
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
    /// Start time in clock ticks since boot.
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
        if !self.alive() {
            return false;
        }
        nix::sys::signal::kill(NixPid::from_raw(self.pid), signal).is_ok()
    }
}

/// The table row of `pid`, if such a process exists.
#[cfg(target_os = "linux")]
pub fn info(pid: Pid) -> Option<ProcInfo> {
    let stat = procfs::process::Process::new(pid).ok()?.stat().ok()?;
    Some(ProcInfo {
        pid: stat.pid,
        ppid: stat.ppid,
        pgid: stat.pgrp,
        sid: stat.session,
        start_time: stat.starttime,
        state: stat.state,
    })
}

/// Every process visible to us.
#[cfg(target_os = "linux")]
pub fn list() -> Vec<ProcInfo> {
    let Ok(all) = procfs::process::all_processes() else {
        return Vec::new();
    };
    all.filter_map(|p| p.ok()?.stat().ok())
        .map(|stat| ProcInfo {
            pid: stat.pid,
            ppid: stat.ppid,
            pgid: stat.pgrp,
            sid: stat.session,
            start_time: stat.starttime,
            state: stat.state,
        })
        .collect()
}

/// The table row of `pid`, if such a process exists.
#[cfg(not(target_os = "linux"))]
pub fn info(_pid: Pid) -> Option<ProcInfo> {
    None
}

/// Every process visible to us.
#[cfg(not(target_os = "linux"))]
pub fn list() -> Vec<ProcInfo> {
    Vec::new()
}

/// The descendants of `roots` (the roots included) and every member of the
/// process groups `groups`, deepest first: children come before their
/// parents, so signalling in this order never lets a parent respawn a child.
pub fn tree(roots: &[Pid], groups: &[Pid]) -> Vec<ProcRef> {
    collect_tree(&list(), roots, groups)
}

/// [`tree`] over a given table (testable without real processes).
pub fn collect_tree(table: &[ProcInfo], roots: &[Pid], groups: &[Pid]) -> Vec<ProcRef> {
    use std::collections::{HashMap, HashSet};
    let mut children: HashMap<Pid, Vec<&ProcInfo>> = HashMap::new();
    for p in table {
        children.entry(p.ppid).or_default().push(p);
    }
    let by_pid: HashMap<Pid, &ProcInfo> = table.iter().map(|p| (p.pid, p)).collect();
    let mut seen: HashSet<Pid> = HashSet::new();
    // (depth, proc) so the deepest are signalled first.
    let mut found: Vec<(usize, &ProcInfo)> = Vec::new();
    let mut stack: Vec<(usize, &ProcInfo)> = Vec::new();
    for pid in roots {
        if let Some(p) = by_pid.get(pid) {
            stack.push((0, p));
        }
    }
    for p in table.iter().filter(|p| groups.contains(&p.pgid)) {
        stack.push((0, p));
    }
    while let Some((depth, p)) = stack.pop() {
        if !seen.insert(p.pid) {
            continue;
        }
        found.push((depth, p));
        for child in children.get(&p.pid).into_iter().flatten() {
            stack.push((depth + 1, child));
        }
    }
    found.sort_by_key(|f| std::cmp::Reverse(f.0));
    found.into_iter().map(|(_, p)| p.as_ref()).collect()
}

/// A signal from its name (`"SIGTERM"`, `"TERM"`, case-insensitive) or number (`"15"`).
pub fn parse_signal(name: &str) -> Result<Signal> {
    let trimmed = name.trim();
    if let Ok(n) = trimmed.parse::<i32>() {
        return Signal::try_from(n)
            .map_err(|_| Error::invalid_arg(format!("unknown signal number {n}")));
    }
    let upper = trimmed.to_ascii_uppercase();
    let full = if upper.starts_with("SIG") {
        upper
    } else {
        format!("SIG{upper}")
    };
    full.parse::<Signal>().map_err(|_| {
        let known: Vec<&str> = Signal::iterator().map(|s| s.as_str()).collect();
        Error::invalid_arg(format!(
            "unknown signal {name:?}; expected one of {}",
            known.join(", ")
        ))
    })
}

/// The name of a signal number, e.g. `"SIGKILL"` for 9.
pub fn signal_name(signo: i32) -> String {
    Signal::try_from(signo).map_or_else(|_| format!("SIG{signo}"), |s| s.as_str().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(pid: Pid, ppid: Pid, pgid: Pid) -> ProcInfo {
        ProcInfo {
            pid,
            ppid,
            pgid,
            sid: pgid,
            start_time: pid as u64 * 10,
            state: 'S',
        }
    }

    #[test]
    fn tree_is_deepest_first_and_includes_groups() {
        let table = vec![
            row(1, 0, 1),
            row(10, 1, 10),  // root
            row(11, 10, 10), // child
            row(12, 11, 12), // grandchild that left the group
            row(13, 12, 12), // great-grandchild
            row(20, 1, 10),  // group member reparented to init
            row(30, 1, 30),  // unrelated
        ];
        let got: Vec<Pid> = collect_tree(&table, &[10], &[10])
            .iter()
            .map(|r| r.pid)
            .collect();
        assert_eq!(got.len(), 5);
        assert!(!got.contains(&30) && !got.contains(&1));
        let pos = |pid| got.iter().position(|&p| p == pid).unwrap();
        assert!(pos(13) < pos(12) && pos(12) < pos(11) && pos(11) < pos(10));
    }

    #[test]
    fn signal_names_and_numbers() {
        assert_eq!(parse_signal("SIGTERM").unwrap(), Signal::SIGTERM);
        assert_eq!(parse_signal("term").unwrap(), Signal::SIGTERM);
        assert_eq!(parse_signal("9").unwrap(), Signal::SIGKILL);
        let err = parse_signal("SIGNOPE").unwrap_err();
        assert!(err.message.contains("SIGNOPE") && err.message.contains("SIGKILL"));
        assert!(parse_signal("999").is_err());
        assert_eq!(signal_name(9), "SIGKILL");
        assert_eq!(signal_name(15), "SIGTERM");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn own_process_is_alive_and_stale_ref_is_not() {
        let me = ProcRef::of(std::process::id() as Pid).unwrap();
        assert!(me.alive());
        let stale = ProcRef {
            pid: me.pid,
            start_time: me.start_time + 1,
        };
        assert!(!stale.alive());
        assert!(!stale.signal(Signal::SIGCONT));
    }
}
