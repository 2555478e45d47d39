//! The input state on macOS: always [`Reading::Unknown`], since no thread's
//! syscall can be read without privileges. It carries the group's leader
//! (named by `proc_name`) and whether any thread of the group runs now
//! (`proc_listpgrppids`, then the process table's state from
//! `proc_pidinfo(PROC_PIDTASKINFO)`), so the
//! caller's quiet fallback does not take a busy job for a waiting one.

use super::{Member, Reading};
use crate::core::proc_tree::{self, Pid};

pub(super) fn foreground_reader(_root: Pid, group: Pid, _tty: u64) -> Reading {
    let running = proc_tree::group_members(group)
        .iter()
        .any(|p| p.state == 'R');
    Reading::Unknown {
        member: program(group).map(|program| Member {
            pid: group,
            program,
        }),
        running,
    }
}

/// `proc_name` (libproc): the process's name, or `None` when it is gone or
/// the call is refused.
pub(super) fn program(pid: Pid) -> Option<String> {
    proc_tree::program_name(pid)
}
