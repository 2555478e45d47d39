//! What another process's file descriptors refer to: a terminal, a FIFO,
//! another file, or nothing (closed).
//!
//! The persistent shell ([`super::shell`]) asks after every command whether
//! the shell's descriptors 0, 1 and 2 are still the ones it was given (its
//! control FIFO, its terminal): a command run in the shell itself
//! (`exec >&-`, `exec 1>/tmp/file`) can close or move them for good.
//!
//! Where the facts come from:
//!
//! - Linux: `stat(2)` of `/proc/<pid>/fd/<n>`, a link the kernel resolves
//!   to the open file itself (a pipe or socket too), so the device number
//!   of a terminal and the device and inode of a FIFO compare with those of
//!   the file we hold; `ENOENT` means the descriptor is closed. Reading
//!   another process's descriptors needs the right to ptrace it (same user,
//!   not made undumpable): `EACCES` / `EPERM` give [`FdTarget::Unknown`].
//! - macOS: `proc_pidfdinfo(2)` with `PROC_PIDFDVNODEPATHINFO`
//!   (`<sys/proc_info.h>`), which returns the `stat` of the vnode behind a
//!   descriptor (a terminal or a named FIFO is a vnode); `EBADF` means the
//!   descriptor is closed; a descriptor that is not a vnode (an anonymous
//!   pipe, a socket) gives [`FdTarget::Other`]; a refusal (another user's
//!   process) gives [`FdTarget::Unknown`].
//! - Elsewhere: always [`FdTarget::Unknown`].
//!
//! [`FdTarget::Unknown`] is the weaker answer: the caller cannot tell, and
//! treats the descriptor as fine.
//! - Windows: a process's handles cannot be inspected this way; the shell
//!   that needs these facts is the Unix one, so the module keeps only the
//!   neutral types there (`windows.rs`).
//!
//! [`RawFd`] is the one descriptor type the rest of the core names: a Unix
//! file descriptor, or on Windows the number of a session's I/O channel
//! (see `session::sys`).

/// A descriptor as the session and the terminal facts pass it around.
#[cfg(unix)]
pub use std::os::fd::RawFd;
/// A descriptor as the session and the terminal facts pass it around: on
/// Windows, the number of one of the session's I/O channels.
#[cfg(windows)]
pub type RawFd = i32;

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::{of_path, of_process, own};
#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::of_process;

/// What a file descriptor refers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FdTarget {
    /// Not open.
    Closed,
    /// A character device (a terminal): its device number.
    Device {
        /// `st_rdev`.
        rdev: u64,
    },
    /// A FIFO (named or not): its file system and inode, which tell two
    /// FIFOs apart.
    Fifo {
        /// `st_dev`.
        dev: u64,
        /// `st_ino`.
        ino: u64,
    },
    /// Something else (a regular file, a socket, a directory).
    Other,
    /// The system would not tell.
    Unknown,
}
