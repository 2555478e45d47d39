//! The terminal engine, free of Node-API so `cargo test` covers it.
//!
//! One concept per module:
//!
//! - [`session`]: spawn a program in a pseudo-terminal and run its session loop
//!   (read, decode, transcript, screen, writer queue, exit after drain).
//! - `pty_spawn` (Linux, glibc; internal): start the program on the pty with
//!   `posix_spawn` instead of forking the Node process.
//! - `pty_fork` (internal): start it as another user (`fork`, `setuid`);
//!   `pty_child` (internal): the C strings both paths give the child.
//! - [`pty`]: pseudo-terminal facts (a pair with no program, the slave's name).
//! - [`shell`]: a persistent shell that knows when each command ends (markers).
//! - [`screen`]: the screen model (a `vt100` wrapper): snapshots, query replies, modes.
//! - [`transcript`]: the output ring buffer with absolute cursors, and escape stripping.
//! - [`utf8`]: the incremental UTF-8 decoder.
//! - [`keys`]: key names to the bytes a terminal sends.
//! - [`proc_tree`]: the process table and tree termination (`/proc` on Linux,
//!   libproc and `sysctl` on macOS).
//! - [`tty`]: what the terminal says about input (modes, foreground group,
//!   unread input and output).
//! - [`input_state`]: whether the foreground job is blocked reading the
//!   terminal (`/proc` with the observed program's syscall table on Linux;
//!   the quiet fallback on macOS).
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
pub mod proc_tree;
pub mod pty;
#[cfg(unix)]
mod pty_child;
#[cfg(unix)]
mod pty_fork;
#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod pty_spawn;
pub mod sandbox;
pub mod screen;
pub mod session;
pub mod shell;
pub mod time;
pub mod tools;
pub mod transcript;
pub mod tty;
pub mod utf8;

pub use error::{Error, ErrorCode, Result};
