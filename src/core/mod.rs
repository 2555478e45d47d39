//! The terminal engine, free of Node-API so `cargo test` covers it.
//!
//! One concept per module:
//!
//! - [`session`]: spawn a program in a pseudo-terminal and run its session loop
//!   (read, decode, transcript, screen, writer queue, exit after drain).
//! - [`pty`]: the pseudo-terminal and starting a program on it, one file per
//!   platform: Unix ptys (a pair with no program, the slave's name,
//!   `posix_spawn` or `fork` onto the slave), Windows pseudo consoles
//!   (ConPTY) and a Job Object per session.
//! - [`shell`]: a persistent shell that knows when each command ends (markers).
//! - [`screen`]: the screen model (a `vt100` wrapper): snapshots, query replies, modes.
//! - [`transcript`]: the output ring buffer with absolute cursors, and escape stripping.
//! - [`utf8`]: the incremental UTF-8 decoder.
//! - [`keys`]: key names to the bytes a terminal sends.
//! - [`proc_tree`]: the process table and tree termination (`/proc` on Linux,
//!   libproc and `sysctl` on macOS, the ToolHelp snapshot on Windows).
//! - [`signal`]: signals by name and number, one type on every platform.
//! - [`tty`]: what the terminal says about input (modes, foreground group,
//!   unread input and output).
//! - [`input_state`]: whether the foreground job is blocked reading the
//!   terminal (`/proc` with the observed program's syscall table on Linux;
//!   the quiet fallback on macOS and Windows).
//! - [`sandbox`]: where a program may write and connect (Landlock, seccomp,
//!   Seatbelt), applied in the child before `execve`.
//! - [`fds`]: what another process's file descriptors refer to (Linux `/proc`, macOS `proc_pidfdinfo`).
//! - [`tools`]: interactive tool specs, schemas and the handle state machine.
//! - [`time`]: caller-given durations checked, deadlines that cannot overflow.
//! - [`error`]: the error codes every public failure carries.
//! - [`guard`]: the panic boundary (contained panics and their reports).
#![warn(missing_docs)]

pub mod error;
pub mod fds;
pub mod guard;
pub mod input_state;
pub mod keys;
pub mod net_proxy;
pub mod proc_tree;
pub mod pty;
pub mod sandbox;
pub mod screen;
pub mod session;
#[cfg(unix)]
pub mod shell;
#[cfg(windows)]
#[path = "shell/windows.rs"]
pub mod shell;
pub mod signal;
pub mod time;
pub mod tools;
pub mod transcript;
pub mod tty;
pub mod utf8;

pub use error::{Error, ErrorCode, Result};
