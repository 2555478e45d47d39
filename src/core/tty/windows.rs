//! Terminal facts on Windows: the quiet fallback (see the parent module).
//! A pseudo console keeps its modes and its processes inside the console
//! host, out of this process's reach, so every answer is `None`.
use std::ffi::{CStr, CString};

use super::Modes;
use crate::core::fds::RawFd;
use crate::core::proc_tree::Pid;

/// A terminal's slave side; a pseudo console has none to open.
#[derive(Debug)]
pub enum Slave {}

/// The terminal's modes: `None` (the console host keeps them).
pub fn modes(_master: RawFd) -> Option<Modes> {
    None
}

/// The foreground process group: `None` (a console has none).
pub fn foreground_group(_master: RawFd) -> Option<Pid> {
    None
}

/// The slave's path: `None` (a pseudo console has no device path).
pub fn slave_path(_master: RawFd) -> Option<CString> {
    None
}

/// The device number of a slave path: `None`.
pub fn device(_slave: &CStr) -> Option<u64> {
    None
}

/// The controlling terminal's device number: 0 (none).
pub fn controlling_tty_device() -> u64 {
    0
}

/// A slave to probe: `None` (there is none).
pub fn open_slave(_slave: &CStr) -> Option<Slave> {
    None
}

/// Whether typed input waits unread: never known here.
pub fn input_pending(slave: &Slave) -> Option<bool> {
    match *slave {}
}

/// Whether output waits in the terminal: `None` (the session's reader
/// thread takes it as it comes).
pub fn output_pending(_master: RawFd) -> Option<bool> {
    None
}
