//! Whether the terminal's foreground job is blocked reading the terminal:
//! one of its processes sleeps in a read of the terminal, or in a
//! `select`/`poll`/`epoll` wait whose set holds the terminal.
//!
//! [`foreground_reader`] answers for a job (the foreground process group of
//! a session's terminal) from the kernel's process table. It is one
//! platform-neutral function with a body per platform, side by side:
//!
//! - `linux`: `/proc` (`task/TID/syscall`, the process's memory and
//!   descriptors). The syscall is decoded with the table of the *observed*
//!   process's ABI ([`abi`], from the ELF header of `/proc/PID/exe`;
//!   [`syscalls`]: x86-64, AArch64, and the 32-bit i386 and Arm tables for
//!   32-bit programs on a 64-bit kernel), never with the build target's.
//! - `macos`: there is no per-thread syscall to read without privileges, so
//!   the answer is always [`Reading::Unknown`], with the group's leader
//!   (`proc_name`) and whether a thread of the group runs
//!   (`proc_pidinfo(PROC_PIDTASKINFO)`). The caller (the session's input
//!   look) then decides from the terminal's modes (termios), the foreground
//!   group (`tcgetpgrp`) and a quiet timer: a program waits for input when
//!   nothing written to it waits unread, no thread of its job runs, and no
//!   output came for a while. Built for macOS and checked by `cargo clippy`
//!   here; not run on a Mac by this project's CI.
//! - `windows`: [`Reading::Unknown`] with no member: the console host keeps
//!   a pseudo console's reads out of sight (the quiet fallback).
//! - `other`: [`Reading::Unknown`] with no member (the same quiet fallback).
//!
//! Where the kernel refuses (a setuid program, a hardened `ptrace` policy)
//! the answer is [`Reading::Unknown`] too: a weaker answer, never an error.
use super::proc_tree::Pid;

pub mod abi;
#[cfg(any(target_os = "linux", test))]
pub mod syscalls;

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
use linux as sys;

#[cfg(target_os = "macos")]
mod macos;
#[cfg(target_os = "macos")]
use macos as sys;

#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as sys;

#[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
mod other;
#[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
use other as sys;

/// Which call a reader sleeps in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    /// `read`/`readv` of the terminal.
    Read,
    /// `select`/`pselect6` with the terminal in the read set.
    Select,
    /// `poll`/`ppoll` with the terminal in the set, for input.
    Poll,
    /// An `epoll` wait whose interest list holds the terminal, for input.
    Epoll,
}

/// A process of the foreground job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// Its process id.
    pub pid: Pid,
    /// Its name (`/proc/PID/comm` on Linux, `proc_name` on macOS).
    pub program: String,
}

/// What the kernel says about the foreground job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reading {
    /// A thread of `member` sleeps reading the terminal, in `call`.
    Blocked {
        /// The process.
        member: Member,
        /// The call it sleeps in.
        call: Call,
    },
    /// Every thread of the job could be inspected; none reads the terminal.
    NotBlocked {
        /// The group's leader (or the first member found), if it exists.
        member: Option<Member>,
    },
    /// The kernel would not say for some thread of the job.
    Unknown {
        /// The group's leader (or the first member found), if it exists.
        member: Option<Member>,
        /// Some thread of the job is running (state `R`) right now: it is
        /// at work, not waiting.
        running: bool,
    },
}

/// Whether the job `group` in the session led by `root` is blocked reading
/// the terminal whose device number is `tty` (see the module docs for where
/// each fact comes from and what happens when the kernel refuses).
pub fn foreground_reader(root: Pid, group: Pid, tty: u64) -> Reading {
    sys::foreground_reader(root, group, tty)
}

/// The name of process `pid` (`comm` on Linux, `proc_name` on macOS).
pub fn program(pid: Pid) -> Option<String> {
    sys::program(pid)
}
