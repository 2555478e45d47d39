//! Windows: the quiet fallback. A pseudo console's program reads its input
//! through the console host (`ReadConsoleInput`, `ReadFile` on a console
//! handle), whose state is not visible from another process without a
//! debugger's rights, and there is no foreground process group to look at.
//! So the answer is always [`Reading::Unknown`] with no member; the caller
//! decides from quiet alone (no output for a while), as it does where the
//! kernel refuses on Linux. The program's name comes from the process table
//! (the executable's file name, `cmd.exe`).

use super::Reading;
use crate::core::proc_tree::{self, Pid};

pub(super) fn foreground_reader(_root: Pid, _group: Pid, _tty: u64) -> Reading {
    Reading::Unknown {
        member: None,
        running: false,
    }
}

pub(super) fn program(pid: Pid) -> Option<String> {
    proc_tree::program_name(pid)
}
