//! Descriptors on Windows: another process's handles are not inspected.

use super::FdTarget;
use crate::core::proc_tree::Pid;

/// What descriptor `fd` of process `pid` refers to: always
/// [`FdTarget::Unknown`] on Windows (a process's handle table is not
/// readable from outside it without a debugger's rights), which callers
/// treat as fine.
pub fn of_process(_pid: Pid, _fd: i32) -> FdTarget {
    FdTarget::Unknown
}
