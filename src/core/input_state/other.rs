//! Systems where the kernel's process table is not read here: the input
//! state is always [`Reading::Unknown`] with no member (the caller's quiet
//! fallback decides).

use super::Reading;
use crate::core::proc_tree::Pid;

pub(super) fn foreground_reader(_root: Pid, _group: Pid, _tty: u64) -> Reading {
    Reading::Unknown {
        member: None,
        running: false,
    }
}

pub(super) fn program(_pid: Pid) -> Option<String> {
    None
}
